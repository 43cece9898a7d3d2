// The Vitess incremental-backup entry script runs for real under /bin/sh, as rendered in the
// manifest, with the stand-in vtctldclient on PATH and a real Pushgateway.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { renderPolicy } from '../../../../../lib';
import { configMapsOf, runContainer } from '../../../../support/run-container';
import { startPushgateway } from '../../../../support/services';
import { podSpecOf } from '../../../../support/kube';
import { vitessPolicy } from '../fixtures';

const FIXTURES = join(__dirname, '..', 'fixtures');
const scratch = mkdtempSync(join(tmpdir(), 'bcj-vitess-incr-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const FULL = '2025-02-26.020000.vtbackup-3141592653';
const INCREMENTAL = '2025-02-26.021500.zone1-0000000102';
const NEW_INCREMENTAL = '2025-02-26.023000.zone1-0000000102';
const CRONJOB = 'example-daily-commerce-x-x-incr';
const GET_BACKUPS = '--server example-vtctld:15999 --action_timeout 30s GetBackups commerce/-';
// the default timeout 10m: vtctldclient gives up 30 s before the deadline
const BACKUP_SHARD =
  '--server example-vtctld:15999 --action_timeout 9m30s BackupShard --incremental-from-pos=auto commerce/-';

interface Options {
  backups: string[];
  env?: Record<string, string>;
  pushgatewayUrl?: string;
  incremental?: Record<string, unknown>;
}

async function runIncremental(o: Options) {
  const objects = renderPolicy(
    vitessPolicy(
      {
        schedules: [
          {
            name: 'daily',
            schedule: '0 2 * * *',
            strategies: [{ keyspace: 'commerce', shards: ['-'] }],
            incremental: { schedule: '*/15 * * * *', ...o.incremental },
          },
        ],
      },
      o.pushgatewayUrl ? { metrics: { pushgatewayUrl: o.pushgatewayUrl } } : {},
    ),
  );
  const cronJob = objects.find((x) => x.kind === 'CronJob' && x.metadata.name === CRONJOB);
  if (!cronJob) throw new Error(`no CronJob ${CRONJOB}`);
  const work = mkdtempSync(join(scratch, 'run-'));
  const bin = join(work, 'bin');
  mkdirSync(bin);
  copyFileSync(join(FIXTURES, 'vtctldclient-stub.sh'), join(bin, 'vtctldclient'));
  chmodSync(join(bin, 'vtctldclient'), 0o755);
  const names = join(work, 'names');
  const calls = join(work, 'calls');
  writeFileSync(names, o.backups.map((b) => `${b}\n`).join(''));
  writeFileSync(calls, '');
  const r = await runContainer(podSpecOf(cronJob), 'incremental-backup', {
    configMaps: configMapsOf(objects),
    pathPrepend: [bin],
    env: { STUB_CALLS: calls, STUB_BACKUP_NAMES: names, ...o.env },
  });
  const read = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return { ...r, calls: read(calls), names: read(names) };
}

const errorLines = (stderr: string): string[] => stderr.split('\n').filter((l) => / error /.test(l));
const warnLines = (stderr: string): string[] => stderr.split('\n').filter((l) => / warn /.test(l));

/** The value of `backup_cronjobs_<series>` of the incremental CronJob's group. */
function gauge(text: string, series: string): number | undefined {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`backup_cronjobs_${series}`) && l.includes(`target="${CRONJOB}"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function withGateway(check: (url: string, metrics: () => Promise<string>) => Promise<void>) {
  const gateway = await startPushgateway();
  try {
    await check(gateway.url, () => gateway.metrics());
  } finally {
    await gateway.stop();
  }
}

describe('Vitess incremental backups', () => {
  test('no full backup (only incrementals of tablets, or none) → one warning line, the skip gauge at 1, exit 0, no BackupShard', async () => {
    await withGateway(async (url, metrics) => {
      for (const backups of [[], [INCREMENTAL]]) {
        const r = await runIncremental({ backups, pushgatewayUrl: url });
        expect(r.code).toBe(0);
        expect(errorLines(r.stderr)).toEqual([]);
        const warnings = warnLines(r.stderr);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain(
          `skipping the incremental backup of commerce/-: no full backup yet (vtctld lists ${backups.length} backup(s), none taken by vtbackup)`,
        );
        expect(r.calls).toEqual([GET_BACKUPS]);
      }
      const text = await metrics();
      expect(gauge(text, 'incremental_skipped{')).toBe(1);
      expect(text).toMatch(/backup_cronjobs_incremental_skipped\{[^}]*reason="no-full-backup"/);
      expect(gauge(text, 'incremental_last_success_timestamp_seconds{')).toBeUndefined();
      expect(gauge(text, 'success_total{')).toBeUndefined();
    });
  });

  test('a full backup exists → BackupShard --incremental-from-pos=auto, the new incremental stored, metrics pushed', async () => {
    await withGateway(async (url, metrics) => {
      // a skipped run first: the success resets the skip gauge
      expect((await runIncremental({ backups: [], pushgatewayUrl: url })).code).toBe(0);
      const before = Math.floor(Date.now() / 1000);
      const r = await runIncremental({
        backups: [FULL, INCREMENTAL],
        pushgatewayUrl: url,
        env: { STUB_INCREMENTAL_NEW: NEW_INCREMENTAL },
      });
      const after = Math.ceil(Date.now() / 1000);
      expect(errorLines(r.stderr)).toEqual([]);
      expect(r.code).toBe(0);
      expect(r.calls).toEqual([GET_BACKUPS, BACKUP_SHARD]);
      expect(r.names).toEqual([FULL, INCREMENTAL, NEW_INCREMENTAL]);
      expect(r.stderr).toContain(
        `commerce/- has 2 backup(s), the latest full one ${FULL}, the latest ${INCREMENTAL}: taking an incremental backup`,
      );
      // the tablet's log events, as vtctldclient prints them
      expect(r.stderr).toMatch(
        /vtctldclient: commerce\/- \(zone1-0000000102\): time:\{seconds:\d+( nanoseconds:\d+)?\} file:"builtinbackupengine\.go" line:232 value:"Executing Backup at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \+0000 UTC m=\+[0-9.]+ for keyspace\/shard commerce\/- on tablet zone1-0000000102, concurrency: 4, compress: true, incrementalFromPos: auto"$/m,
      );
      const text = await metrics();
      const last = gauge(text, 'incremental_last_success_timestamp_seconds{');
      expect(last).toBeGreaterThanOrEqual(before);
      expect(last).toBeLessThanOrEqual(after);
      expect(gauge(text, 'incremental_skipped{')).toBe(0);
      expect(gauge(text, 'last_run_success{')).toBe(1);
      expect(gauge(text, 'success_total{')).toBe(1);
    });
  });

  test('an empty incremental backup (no writes since the last backup) is a success: nothing stored', async () => {
    const r = await runIncremental({ backups: [FULL] });
    expect(r.code).toBe(0);
    expect(r.names).toEqual([FULL]);
    expect(r.stderr).toContain('incremental backup of commerce/- finished');
  });

  test('allowPrimary: BackupShard --allow-primary, which a shard without replica-type tablets needs', async () => {
    const env = { STUB_NO_BACKUP_TABLET: 'yes', STUB_PRIMARY: 'yes' };
    const refused = await runIncremental({ backups: [FULL], env });
    expect(refused.code).toBe(1);
    expect(errorLines(refused.stderr)[0]).toMatch(
      /incremental backup of commerce\/- failed \(vtctldclient exit status 1\): rpc error: code = Unknown desc = no tablet available for backup$/,
    );
    const r = await runIncremental({ backups: [FULL], env, incremental: { allowPrimary: true } });
    expect(r.code).toBe(0);
    expect(r.calls[1]).toBe(BACKUP_SHARD.replace(' commerce/-', ' --allow-primary commerce/-'));
  });

  test('a vtctld before Vitess 18 drops the position and the tablet takes a full backup: exit 1, saying so', async () => {
    const r = await runIncremental({ backups: [FULL], env: { STUB_VTCTLD_BEFORE_18: 'yes' } });
    expect(r.code).toBe(1);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringContaining(
        'vtctld example-vtctld:15999 ignored --incremental-from-pos (a vtctld before Vitess 18?): the tablet of commerce/- took a full backup instead of an incremental one',
      ),
    ]);
  });

  test("vtctld errors → exit 1 with vtctldclient's error line, the failure pushed", async () => {
    await withGateway(async (url, metrics) => {
      const unreachable = await runIncremental({
        backups: [FULL],
        pushgatewayUrl: url,
        env: { STUB_UNREACHABLE: 'yes' },
      });
      expect(unreachable.code).toBe(1);
      const errors = errorLines(unreachable.stderr);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        /cannot list the backups of commerce\/- from vtctld example-vtctld:15999: rpc error: code = DeadlineExceeded desc = latest balancer error: connection error: .*connection refused"; no incremental backup started$/,
      );
      const failed = await runIncremental({
        backups: [FULL],
        pushgatewayUrl: url,
        env: { STUB_BACKUP_ERROR: 'cannot get binary logs to backup in incremental backup' },
      });
      expect(failed.code).toBe(1);
      expect(errorLines(failed.stderr)).toEqual([
        expect.stringMatching(
          /incremental backup of commerce\/- failed \(vtctldclient exit status 1\): .*rpc error: code = Unknown desc = TabletManager\.Backup on zone1-0000000102 error: cannot get binary logs to backup in incremental backup/,
        ),
      ]);
      const text = await metrics();
      expect(gauge(text, 'failure_total{')).toBe(2);
      expect(gauge(text, 'last_run_success{')).toBe(0);
      expect(gauge(text, 'incremental_last_success_timestamp_seconds{')).toBeUndefined();
    });
  });
});
