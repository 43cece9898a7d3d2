/**
 * The kube project's global setup: starts the test control plane once per jest run (only when a test
 * of test/kube/ is selected) and tells the test workers where it is. A missing binary fails the run.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { startControlPlane, type ControlPlane, type ControlPlaneInfo } from './support/control-plane';
import { STATE_ENV } from './support/cluster';

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const cp = await startControlPlane();
  const file = path.join(cp.dir, 'cluster.json');
  const info: ControlPlaneInfo = {
    server: cp.server,
    kubeconfig: cp.kubeconfig,
    binDir: cp.binDir,
    ca: cp.ca,
    adminCert: cp.adminCert,
    adminKey: cp.adminKey,
    version: cp.version,
  };
  fs.writeFileSync(file, JSON.stringify(info));
  process.env[STATE_ENV] = file;
  (globalThis as { __BACKUP_CRONJOBS_CONTROL_PLANE__?: ControlPlane }).__BACKUP_CRONJOBS_CONTROL_PLANE__ = cp;
  if (process.env.BACKUP_CRONJOBS_KUBE_LOGS) fs.writeFileSync(path.join(os.tmpdir(), 'bcj-kube-dir'), cp.dir);
  process.stderr.write(`\ntest control plane ${cp.version} at ${cp.server}, up in ${Date.now() - started} ms\n`);
}
