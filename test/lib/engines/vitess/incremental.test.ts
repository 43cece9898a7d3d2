// schedules[].incremental: its checks, its CronJobs, plan's overlap warning and `restore --time`.
import { renderPolicy, resolvePolicy, validatePolicy } from '../../../../lib';
import type { VitessSchedule } from '../../../../lib';
import { planPolicies } from '../../../../lib/model/plan';
import { planWarnings } from '../../../../lib/model/plan-text';
import { asCronJob, containerOf, envValuesOf, podSpecOf } from '../../../support/kube';
import { expectValidManifests } from '../../../support/k8s-validate';
import { run, tempDir, writePolicy } from '../../cli/fixtures';
import { vitessPolicy } from './fixtures';

const schedule = (incremental: Record<string, unknown>, extra: Partial<VitessSchedule> = {}): VitessSchedule => ({
  name: 'daily',
  schedule: '0 2 * * *',
  strategies: [
    { keyspace: 'commerce', shards: ['-'] },
    { keyspace: 'customer', shards: ['-80', '80-'] },
  ],
  incremental: { schedule: '*/15 * * * *', ...incremental },
  ...extra,
});
const policyWith = (incremental: Record<string, unknown>, vitess: Record<string, unknown> = {}) =>
  vitessPolicy({ schedules: [schedule(incremental)], ...vitess });

function problems(policy: unknown): string {
  try {
    validatePolicy(policy);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the policy was accepted');
}

describe('checks', () => {
  test('the incremental schedule, timeout and maxRecoveryPointAge are checked at their paths; the object is closed', () => {
    const message = problems(policyWith({ schedule: '61 * * * *', timeout: '0s', maxRecoveryPointAge: 'soon' }));
    expect(message).toMatch(/spec\.vitess\.schedules\[0\]\.incremental\.schedule: received "61 \* \* \* \*"; /);
    expect(message).toMatch(
      /spec\.vitess\.schedules\[0\]\.incremental\.timeout: received "0s"; must be longer than 0s/,
    );
    expect(message).toMatch(/spec\.vitess\.schedules\[0\]\.incremental\.maxRecoveryPointAge: /);
    expect(problems(policyWith({ tabletType: 'rdonly' }))).toMatch(/spec\.vitess\.schedules\[0\]\.incremental/);
    expect(problems(vitessPolicy({ schedules: [{ ...schedule({}), incremental: {} as never }] }))).toMatch(
      /spec\.vitess\.schedules\[0\]\.incremental/,
    );
  });

  test('refuses what Vitess refuses or what would break the chains: another engine, vtbackup pruning or its minimum interval', () => {
    expect(problems(policyWith({}, { backupEngine: 'xtrabackup' }))).toMatch(
      /spec\.vitess\.schedules\[0\]\.incremental: received incremental backups with backupEngine "xtrabackup"; Vitess implements incremental backups and their point-in-time restore in its builtin engine .*: set backupEngine: builtin or remove incremental/,
    );
    expect(problems(policyWith({}, { vtbackupRetention: { minRetentionTime: '168h' } }))).toMatch(
      /spec\.vitess\.vtbackupRetention\.minRetentionTime: received "168h" with incremental backups \(spec\.vitess\.schedules\[0\]\.incremental\); vtbackup's own pruning removes the oldest backups of the shard by age, full or incremental, .*prune with spec\.retention/,
    );
    expect(problems(policyWith({}, { vtbackupRetention: { minBackupInterval: '1h' } }))).toMatch(
      /spec\.vitess\.vtbackupRetention\.minBackupInterval: received "1h" with incremental backups .*would keep it from ever taking a full backup/,
    );
    // the same settings without incremental backups are fine
    expect(() =>
      validatePolicy(vitessPolicy({ backupEngine: 'xtrabackup', vtbackupRetention: { minRetentionTime: '168h' } })),
    ).not.toThrow();
  });
});

describe('CronJobs', () => {
  const objects = renderPolicy(policyWith({}, {}));
  const cronJobs = objects.filter((o) => o.kind === 'CronJob');

  test('one incremental-backup CronJob per shard beside each full one, valid for the API server', () => {
    expect(cronJobs.map((c) => c.metadata.name)).toEqual([
      'example-daily-commerce-x-x',
      'example-daily-commerce-x-x-incr',
      'example-daily-customer-x-80',
      'example-daily-customer-x-80-incr',
      'example-daily-customer-80-x',
      'example-daily-customer-80-x-incr',
    ]);
    expectValidManifests(objects);
  });

  test('its pod: vtctldclient in the vtbackup image, the shard and vtctld in env, its own schedule and a 10m deadline', () => {
    const incr = asCronJob(cronJobs.find((c) => c.metadata.name === 'example-daily-customer-x-80-incr'));
    expect(incr.metadata?.labels?.['app.kubernetes.io/component']).toBe('incremental-backup');
    expect(incr.metadata?.labels?.['backup-cronjobs.io/shard']).toBe('x-80');
    expect(incr.spec?.schedule).toBe('*/15 * * * *');
    expect(incr.spec?.jobTemplate.spec?.activeDeadlineSeconds).toBe(600);
    const pod = podSpecOf(incr);
    expect(pod.initContainers ?? []).toEqual([]);
    const container = containerOf(incr, 'incremental-backup');
    expect(container.image).toBe('vitess/lite:v21.0.4');
    expect(container.args).toBeUndefined();
    const env = envValuesOf(incr, 'incremental-backup');
    expect(env).toMatchObject({
      VTCTLD_SERVER: 'example-vtctld:15999',
      VITESS_KEYSPACE: 'customer',
      VITESS_SHARD: '-80',
      VITESS_INCREMENTAL_ALLOW_PRIMARY: 'false',
      VITESS_INCREMENTAL_ACTION_TIMEOUT: '9m30s',
    });
  });

  test('timeout, suspend and allowPrimary of the incremental; the schedule level applies otherwise', () => {
    const [incr] = renderPolicy(
      vitessPolicy({
        schedules: [
          schedule({ timeout: '20m', suspend: true, allowPrimary: true }, { timeZone: 'Europe/Berlin', timeout: '3h' }),
        ],
      }),
    )
      .filter((o) => o.kind === 'CronJob' && o.metadata.name.endsWith('-incr'))
      .map(asCronJob);
    expect(incr.spec?.suspend).toBe(true);
    expect(incr.spec?.timeZone).toBe('Europe/Berlin');
    expect(incr.spec?.jobTemplate.spec?.activeDeadlineSeconds).toBe(1200);
    expect(envValuesOf(incr, 'incremental-backup')).toMatchObject({
      VITESS_INCREMENTAL_ALLOW_PRIMARY: 'true',
      VITESS_INCREMENTAL_ACTION_TIMEOUT: '19m30s',
    });
  });

  test('retention of a shard with incremental backups keeps its chains (VITESS_INCREMENTAL_CHAINS)', () => {
    const pruned = renderPolicy(
      vitessPolicy(
        {
          schedules: [
            schedule({}, { strategies: [{ keyspace: 'commerce', shards: ['-'] }] }),
            { name: 'weekly', schedule: '0 3 * * 0', strategies: [{ keyspace: 'customer', shards: ['-80'] }] },
          ],
        },
        { retention: { keepLast: 7, schedule: '0 5 * * *' } },
      ),
    ).filter((o) => o.kind === 'CronJob' && o.metadata.name.includes('-prune-'));
    const chains = pruned.map((c) => envValuesOf(asCronJob(c), 'retention-prune').VITESS_INCREMENTAL_CHAINS);
    expect(pruned.map((c) => c.metadata.name)).toEqual(['example-prune-commerce-x-x', 'example-prune-customer-x-80']);
    expect(chains).toEqual(['true', undefined]);
  });
});

test('plan warns where a full and an incremental backup of one shard may run at once', () => {
  const plan = planPolicies([resolvePolicy(policyWith({}))], {
    from: new Date('2025-03-01T00:00:00Z'),
    count: 3,
    horizon: 2 * 86400_000,
  });
  const overlaps = planWarnings(plan).filter((w) => w.kind === 'overlap');
  expect(overlaps).toHaveLength(3);
  expect(overlaps[0].message).toBe(
    'example/example-daily-commerce-x-x and example/example-daily-commerce-x-x-incr, a full and an incremental backup of shard example/commerce/-: ' +
      '16 pairs of runs overlap (first 2025-03-01T02:00Z–04:00Z and 2025-03-01T02:00Z–02:10Z); ' +
      'both work on the shard at once (vtbackup replicates from its primary while a tablet rotates and copies its binary logs), ' +
      'and an incremental that ends before the full backup chains from the previous one: move the incremental schedule off the full backup window',
  );
  // off the window: no warning
  const quiet = planPolicies([resolvePolicy(policyWith({ schedule: '*/15 5-23 * * *' }))], {
    from: new Date('2025-03-01T00:00:00Z'),
    count: 3,
    horizon: 2 * 86400_000,
  });
  expect(planWarnings(quiet)).toEqual([]);
});

describe('restore --time', () => {
  const dir = tempDir('vitess-pitr');
  const file = writePolicy(dir, 'pitr.json', policyWith({}));

  test('prints the point-in-time procedure of each shard, exit 0', () => {
    const r = run(['restore', file, '--time', '2025-02-26T02:20:00Z']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const commands = r.stdout.split('\n').filter((l) => l.startsWith('vtctldclient '));
    expect(commands.slice(0, 4)).toEqual([
      'vtctldclient --server example-vtctld:15999 GetBackups commerce/-',
      'vtctldclient --server example-vtctld:15999 GetTablets --keyspace=commerce --shard=- --tablet-type=replica',
      'vtctldclient --server example-vtctld:15999 RestoreFromBackup --dry-run --restore-to-timestamp=2025-02-26T02:20:00Z <tablet-alias>',
      'vtctldclient --server example-vtctld:15999 --action_timeout 2h0m0s RestoreFromBackup --restore-to-timestamp=2025-02-26T02:20:00Z <tablet-alias>',
    ]);
    expect(commands).toHaveLength(12);
    expect(r.stdout).toMatch(
      /^# Point-in-time restore of policy example \(Vitess cluster example\) to 2025-02-26T02:20:00Z, for Vitess 18 and newer\./,
    );
    expect(r.stdout).toContain('never the primary');
  });

  test('--target picks one shard; the flags that do not fit are refused with exit 2', () => {
    const one = run(['restore', file, '--time', '2025-02-26T03:20:00+01:00', '--target', 'customer/-80']);
    expect(one.code).toBe(0);
    expect(one.stdout.split('\n').filter((l) => l.startsWith('vtctldclient '))).toHaveLength(4);
    expect(one.stdout).toContain('GetBackups customer/-80');
    const wrong = run(['restore', file, '--time', '2025-02-26T02:20:00Z', '--target', 'customer/80']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(
      /^--target: received "customer\/80"; the shards of policy example with incremental backups are: commerce\/-, customer\/-80, customer\/80-/,
    );
    expect(run(['restore', file, '--time', '26.02.2025']).stderr).toMatch(
      /^--time: received "26\.02\.2025"; an RFC 3339 time/,
    );
    expect(run(['restore', file, '--time', '2025-02-26T02:20:00Z', '--snapshot', 'x']).code).toBe(2);
    const none = run(['restore', writePolicy(dir, 'full-only.json', vitessPolicy()), '--time', '2025-02-26T02:20:00Z']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^--time: policy example takes no incremental backups/);
  });
});
