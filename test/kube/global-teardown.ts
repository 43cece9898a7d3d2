/** Stops the test control plane of global-setup.ts, leaving nothing running. */
import * as fs from 'fs';
import * as path from 'path';
import type { ControlPlane } from './support/control-plane';

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as { __BACKUP_CRONJOBS_CONTROL_PLANE__?: ControlPlane };
  const cp = g.__BACKUP_CRONJOBS_CONTROL_PLANE__;
  if (!cp) return;
  const keep = process.env.BACKUP_CRONJOBS_KUBE_LOGS;
  if (keep) {
    fs.mkdirSync(keep, { recursive: true });
    for (const [name, text] of Object.entries(cp.logs())) fs.writeFileSync(path.join(keep, `${name}.log`), text);
  }
  await cp.stop();
  g.__BACKUP_CRONJOBS_CONTROL_PLANE__ = undefined;
}
