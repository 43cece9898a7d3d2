/**
 * Provenance annotations on every rendered object: which generator (and
 * version) made it, from which policy, and the schedule as written when the
 * CronJob runs a resolved one (`H 2 * * *` → `21 2 * * *`, stagger).
 */
import { existsSync, readFileSync } from 'fs';
import { dirname, join } from 'path';

/** The value of `app.kubernetes.io/name` and `managed-by` on every object, and the generator's name. */
export const MANAGED_BY = 'backup-cronjobs';

export const PROVENANCE = {
  generator: 'backup-cronjobs.io/generator',
  policy: 'backup-cronjobs.io/policy',
  schedule: 'backup-cronjobs.io/schedule',
} as const;

let generator: string | undefined;

/**
 * `backup-cronjobs@<version>`, the version read from the package's own
 * package.json, the nearest one above this file (in the source tree and in
 * the installed package alike).
 */
export function generatorName(): string {
  if (generator !== undefined) return generator;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === MANAGED_BY && pkg.version) return (generator = `${MANAGED_BY}@${pkg.version}`);
    }
    if (dirname(dir) === dir) throw new Error(`backup-cronjobs: no package.json of ${MANAGED_BY} above ${__dirname}`);
  }
}

/** The provenance annotations of an object of `policy`; with `schedule`, the written one when it differs. */
export function provenance(
  policy: string,
  schedule?: { readonly written: string; readonly resolved: string },
): Record<string, string> {
  return {
    [PROVENANCE.generator]: generatorName(),
    [PROVENANCE.policy]: policy,
    ...(schedule && schedule.written !== schedule.resolved ? { [PROVENANCE.schedule]: schedule.written } : {}),
  };
}
