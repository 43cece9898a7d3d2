// The Vitess entry script runs for real under /bin/sh, as rendered in the manifest,
// with stand-in vtctldclient/vtbackup binaries copied in by the real init container.
import { execFileSync } from 'child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { renderPolicy } from '../../../../../lib';
import type { VitessSpec } from '../../../../../lib';
import { RunContainerResult, configMapsOf, runContainer } from '../../../../support/run-container';
import { startPushgateway } from '../../../../support/services';
import { argsOf, asCronJob, podSpecOf } from '../../../../support/kube';
import { vitessPolicy } from '../fixtures';

const FIXTURES = join(__dirname, '..', 'fixtures');
const scratch = mkdtempSync(join(tmpdir(), 'bcj-vitess-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Real backup names: <date>.<time>.<tablet alias>, vtbackup's alias being vtbackup-<uid>.
const BACKUPS = ['2025-02-25.220602.zone1-0000000101', '2025-02-26.020000.vtbackup-3141592653'];
const GET_BACKUPS = '--server example-vtctld:15999 --action_timeout 30s GetBackups commerce/-';
const GET_SHARD = '--server example-vtctld:15999 --action_timeout 30s GetShard commerce/-';
const FIND_SHARDS = '--server example-vtctld:15999 --action_timeout 30s FindAllShardsInKeyspace commerce';

interface Shard {
  /** The shard's backups, oldest first (the stand-in's one list). */
  backups?: string[];
  primary?: boolean;
  unreachable?: boolean;
}

interface Run {
  /** Resolves when the container exits. */
  done: Promise<RunContainerResult>;
  files: { calls: string; vtbackupArgs: string; names: string; vtbackupState: string };
  /** The manifest's args (mount paths as rendered). */
  manifestArgs: string[];
}

/** Renders the policy, runs the init container, then starts the main container. */
async function startBackup(
  shard: Shard,
  opts: {
    allowFirstBackup?: boolean;
    flagStyle?: 'dashed';
    spec?: Record<string, unknown>;
    env?: Record<string, string>;
    /** spec.vitess.schedules, and the name of the CronJob to run. @default - the fixture's, its one CronJob */
    schedules?: VitessSpec['schedules'];
    cronJob?: string;
  } = {},
): Promise<Run> {
  const vitess = {
    allowFirstBackup: opts.allowFirstBackup ?? false,
    ...(opts.flagStyle ? { flagStyle: opts.flagStyle } : {}),
    ...(opts.schedules ? { schedules: opts.schedules } : {}),
  };
  const objects = renderPolicy(vitessPolicy(vitess, opts.spec ?? {}));
  const cronJob = objects.find(
    (o) => o.kind === 'CronJob' && (opts.cronJob === undefined || o.metadata.name === opts.cronJob),
  );
  if (!cronJob) throw new Error(`no CronJob ${opts.cronJob}`);
  const pod = podSpecOf(cronJob);
  const configMaps = configMapsOf(objects);
  const work = mkdtempSync(join(scratch, 'run-'));
  const imageBin = mkdtempSync(join(scratch, 'image-'));
  copyFileSync(join(FIXTURES, 'vtctldclient-stub.sh'), join(imageBin, 'vtctldclient'));
  copyFileSync(join(FIXTURES, 'vtbackup-stub.sh'), join(imageBin, 'vtbackup'));
  const volumeDirs: Record<string, string> = {};
  const init = await runContainer(pod, 'init-vt-root', {
    volumeDirs,
    configMaps,
    env: { VT_BIN_SOURCE: imageBin, VT_CONFIG_SOURCE: join(work, 'no-config') },
  });
  expect(init.stderr).toContain('vt-root prepared');
  expect(init.code).toBe(0);
  const files = {
    calls: join(work, 'calls'),
    vtbackupArgs: join(work, 'vtbackup-args'),
    names: join(work, 'names'),
    vtbackupState: join(work, 'vtbackup-state'),
  };
  writeFileSync(files.names, (shard.backups ?? []).map((b) => `${b}\n`).join(''));
  const env: Record<string, string> = {
    STUB_CALLS: files.calls,
    STUB_VTBACKUP_ARGS: files.vtbackupArgs,
    STUB_BACKUP_NAMES: files.names,
    ...opts.env,
  };
  if (shard.primary) env.STUB_PRIMARY = 'yes';
  if (shard.unreachable) env.STUB_UNREACHABLE = 'yes';
  return {
    done: runContainer(pod, 'vtbackup', { volumeDirs, configMaps, env }),
    files,
    manifestArgs: argsOf(cronJob, 'vtbackup'),
  };
}

const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n') : []);
const errorLines = (stderr: string): string[] => stderr.split('\n').filter((l) => / error /.test(l));

async function runBackup(shard: Shard, opts: Parameters<typeof startBackup>[1] = {}) {
  const run = await startBackup(shard, opts);
  const r = await run.done;
  return {
    code: r.code,
    stderr: r.stderr,
    vtbackupArgs: existsSync(run.files.vtbackupArgs) ? lines(run.files.vtbackupArgs) : undefined,
    calls: lines(run.files.calls),
    names: run.files.names,
    manifestArgs: run.manifestArgs,
    // the manifest's args as the container got them (mount paths mapped to temp dirs)
    runArgs: r.argv.slice(4),
  };
}

/** What `vtctldclient GetBackups --json` prints (the fields read here). */
interface GetBackupsJson {
  backups: { name: string; status: unknown }[];
}

/** What the stand-in vtctldclient prints for `GetBackups --json` of this list (its one source of truth). */
function standInJson(backups: string[]): GetBackupsJson {
  const dir = mkdtempSync(join(scratch, 'json-'));
  writeFileSync(join(dir, 'names'), backups.map((b) => `${b}\n`).join(''));
  const out = execFileSync(
    'sh',
    [join(FIXTURES, 'vtctldclient-stub.sh'), '--server', 'example-vtctld:15999', 'GetBackups', '--json', 'commerce/-'],
    {
      env: { PATH: process.env.PATH, STUB_CALLS: join(dir, 'calls'), STUB_BACKUP_NAMES: join(dir, 'names') },
      encoding: 'utf8',
    },
  );
  return JSON.parse(out) as GetBackupsJson;
}

describe('the vtctldclient stand-in', () => {
  test('--json and names-only come from one list; vtctld reports every status as UNKNOWN, never COMPLETE', () => {
    const json = standInJson(BACKUPS);
    expect(json.backups.map((b) => b.name)).toEqual(BACKUPS);
    expect(json.backups.map((b) => b.status)).toEqual(['UNKNOWN', 'UNKNOWN']);
    expect(standInJson([])).toEqual({ backups: [] });
  });
});

describe('Vitess backup type decided at run time', () => {
  test('backups listed with "status": "UNKNOWN" → a normal backup with every manifest flag plus --initial_backup=false', async () => {
    expect(standInJson(BACKUPS).backups.every((b) => b.status === 'UNKNOWN')).toBe(true);
    const r = await runBackup({ backups: BACKUPS });
    expect(r.code).toBe(0);
    expect(r.runArgs).toHaveLength(r.manifestArgs.length);
    expect(r.manifestArgs).toContain('--mysql_socket=/vt/socket/mysql.sock');
    expect(r.vtbackupArgs).toEqual([...r.runArgs, '--initial_backup=false']);
    expect(r.calls).toEqual([GET_BACKUPS, FIND_SHARDS]);
    expect(r.stderr).toMatch(
      /commerce\/- has 2 backup\(s\), the latest 2025-02-26\.020000\.vtbackup-3141592653: taking a normal backup/,
    );
    expect(r.stderr).not.toMatch(/complete backup\(s\)|has \d+ complete/);
  });

  test('backups listed with "status": "UNKNOWN", a primary and allowFirstBackup: true → still a normal backup, no --allow_first_backup', async () => {
    const r = await runBackup({ backups: BACKUPS, primary: true }, { allowFirstBackup: true });
    expect(r.code).toBe(0);
    expect(r.vtbackupArgs).toEqual([...r.runArgs, '--initial_backup=false']);
    expect(r.vtbackupArgs!.some((a) => a.includes('allow_first_backup'))).toBe(false);
    expect(r.calls).toEqual([GET_BACKUPS, FIND_SHARDS]);
  });

  test('no backup (GetBackups prints one empty line) and no primary → --initial_backup=true', async () => {
    const r = await runBackup({ backups: [] });
    expect(r.code).toBe(0);
    expect(r.vtbackupArgs).toEqual([...r.runArgs, '--initial_backup=true']);
    expect(r.calls).toEqual([GET_BACKUPS, FIND_SHARDS, GET_SHARD]);
    expect(r.stderr).toMatch(/commerce\/- has no primary and no backup: taking an initial backup of the empty shard/);
  });

  test('no backup and a primary, policy opted in → --initial_backup=false --allow_first_backup=true', async () => {
    const r = await runBackup({ backups: [], primary: true }, { allowFirstBackup: true });
    expect(r.code).toBe(0);
    expect(r.vtbackupArgs).toEqual([...r.runArgs, '--initial_backup=false', '--allow_first_backup=true']);
  });

  test('no backup and a primary, no opt-in → exit 1, one line saying why and what to do, vtbackup never runs', async () => {
    const r = await runBackup({ backups: [], primary: true });
    expect(r.code).toBe(1);
    expect(r.vtbackupArgs).toBeUndefined();
    const errors = errorLines(r.stderr);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('commerce/- has a primary but no backup: refusing an automated first backup');
    expect(errors[0]).toContain('vtctldclient BackupShard commerce/-');
    expect(errors[0]).toContain('allowFirstBackup: true');
  });

  test("vtctld unreachable → exit 1 with vtctldclient's error, no backup started", async () => {
    const r = await runBackup({ backups: BACKUPS, unreachable: true });
    expect(r.code).toBe(1);
    expect(r.vtbackupArgs).toBeUndefined();
    const errors = errorLines(r.stderr);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /cannot list the backups of commerce\/- from vtctld example-vtctld:15999: rpc error: code = DeadlineExceeded desc = latest balancer error: connection error: .*connection refused"; no backup started$/,
    );
  });

  test('dashed flag style (Vitess >= 22) spells the run-time flags with dashes too', async () => {
    const r = await runBackup({ backups: [] }, { flagStyle: 'dashed' });
    expect(r.manifestArgs).toContain('--init-keyspace=commerce');
    expect(r.vtbackupArgs?.slice(-1)).toEqual(['--initial-backup=true']);
  });
});

test('inline mode (the opt-in): init and backup with every function in their commands; same decision, same flags as the default', async () => {
  const sourced = await runBackup({ backups: BACKUPS });
  const inline = await runBackup({ backups: BACKUPS }, { spec: { scripts: { mode: 'inline' } } });
  expect(errorLines(inline.stderr)).toEqual([]);
  expect(inline.code).toBe(0);
  expect(inline.manifestArgs).toEqual(sourced.manifestArgs);
  expect(inline.vtbackupArgs).toEqual([...inline.runArgs, '--initial_backup=false']);
  expect(inline.calls).toEqual(sourced.calls);
});

test('init container: an image without vtctldclient fails with one error line; it pushes nothing, even with metrics', async () => {
  const gateway = await startPushgateway();
  try {
    const objects = renderPolicy(vitessPolicy({}, { metrics: { pushgatewayUrl: gateway.url } }));
    const pod = podSpecOf(asCronJob(objects.find((o) => o.kind === 'CronJob')));
    const imageBin = mkdtempSync(join(scratch, 'image-'));
    copyFileSync(join(FIXTURES, 'vtbackup-stub.sh'), join(imageBin, 'vtbackup'));
    const init = await runContainer(pod, 'init-vt-root', { env: { VT_BIN_SOURCE: imageBin } });
    expect(init.code).toBe(1);
    expect(errorLines(init.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(` example-daily-commerce-x-x error ${imageBin}/vtctldclient not found in the vtbackup image$`),
      ),
    ]);
    expect(await gateway.metrics()).not.toMatch(/^backup_cronjobs_/m);
  } finally {
    await gateway.stop();
  }
});

describe('after vtbackup', () => {
  test('a failing vtbackup fails the run with its exit status', async () => {
    const r = await runBackup({ backups: BACKUPS }, { env: { STUB_VTBACKUP_EXIT: '3' } });
    expect(r.code).toBe(1);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(/error vtbackup of commerce\/- failed with exit status 3$/),
    ]);
  });

  test('retention prunes the shard through vtctld right after a successful backup', async () => {
    const old = [
      '2026-11-20.020000.zone1-0000000101',
      '2026-11-21.020000.vtbackup-0000004711',
      '2026-11-22.020000.zone1-0000000101',
    ];
    const made = '2026-11-29.020000.vtbackup-2718281828';
    const r = await runBackup(
      { backups: old },
      { spec: { retention: { keepLast: 2 } }, env: { STUB_VTBACKUP_NEW: made } },
    );
    expect(r.code).toBe(0);
    // keepLast 2 keeps the new backup and the newest old one; the other two go, newest first
    expect(lines(r.names)).toEqual([old[2], made]);
    expect(r.calls.filter((c) => c.includes('RemoveBackup'))).toEqual([
      `--server example-vtctld:15999 RemoveBackup commerce/- ${old[1]}`,
      `--server example-vtctld:15999 RemoveBackup commerce/- ${old[0]}`,
    ]);
  });
});

test('metrics: success and failure counters, duration and last success reach the Pushgateway', async () => {
  const gateway = await startPushgateway();
  try {
    const metrics = { spec: { metrics: { pushgatewayUrl: gateway.url } } };
    expect((await runBackup({ backups: BACKUPS }, metrics)).code).toBe(0);
    expect((await runBackup({ backups: BACKUPS }, { ...metrics, env: { STUB_VTBACKUP_EXIT: '1' } })).code).toBe(1);
    const text = await gateway.metrics();
    const series = (name: string) =>
      text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes('target="example-daily-commerce-x-x"'));
    expect(series('backup_cronjobs_success_total')).toMatch(/ 1$/);
    expect(series('backup_cronjobs_failure_total')).toMatch(/ 1$/);
    expect(series('backup_cronjobs_last_run_success')).toMatch(/ 0$/);
    expect(series('backup_cronjobs_last_success_timestamp_seconds')).toMatch(/ [0-9.e+]+$/);
    expect(series('backup_cronjobs_duration_seconds')).toBeDefined();
  } finally {
    await gateway.stop();
  }
});

describe('restore drill: a normal run restored the newest backup first', () => {
  /** The value of `<prefix>_<name>` in the run's group, undefined when the gateway has no such series. */
  const gauge = (text: string, name: string): number | undefined => {
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`backup_cronjobs_${name}{`) && l.includes('target="example-daily-commerce-x-x"'));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  const DRILL = [
    'restore_drill_success',
    'restore_drill_duration_seconds',
    'restore_drill_backup_age_seconds',
    'restore_drill_last_success_timestamp_seconds',
  ];

  async function withGateway(check: (url: string, metrics: () => Promise<string>) => Promise<void>) {
    const gateway = await startPushgateway();
    try {
      await check(gateway.url, () => gateway.metrics());
    } finally {
      await gateway.stop();
    }
  }

  test('success pushes the drill gauges; the backup age is the age of the newest listed backup, whose name is logged', async () => {
    await withGateway(async (url, metrics) => {
      const before = Math.floor(Date.now() / 1000);
      const r = await runBackup({ backups: BACKUPS }, { spec: { metrics: { pushgatewayUrl: url } } });
      const after = Math.ceil(Date.now() / 1000);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(
        / info restore drill passed: vtbackup restored 2025-02-26\.020000\.vtbackup-3141592653 before taking this backup$/m,
      );
      const text = await metrics();
      // BACKUPS[1] was taken at 2025-02-26 02:00:00 UTC (its name)
      const taken = Date.UTC(2025, 1, 26, 2, 0, 0) / 1000;
      expect(gauge(text, 'restore_drill_success')).toBe(1);
      expect(gauge(text, 'restore_drill_backup_age_seconds')).toBeGreaterThanOrEqual(before - taken);
      expect(gauge(text, 'restore_drill_backup_age_seconds')).toBeLessThanOrEqual(after - taken);
      expect(gauge(text, 'restore_drill_last_success_timestamp_seconds')).toBeGreaterThanOrEqual(before);
      expect(gauge(text, 'restore_drill_duration_seconds')).toBeGreaterThanOrEqual(0);
      // the drill's gauges sit beside the run's own metrics, in its group
      expect(gauge(text, 'last_run_success')).toBe(1);
    });
  });

  test('with incremental backups, the drill names the newest full (vtbackup) backup, which vtbackup restores, not a newer incremental one', async () => {
    const r = await runBackup(
      { backups: [...BACKUPS, '2025-02-26.021500.zone1-0000000102'] },
      {
        schedules: [
          {
            name: 'daily',
            schedule: '0 2 * * *',
            strategies: [{ keyspace: 'commerce', shards: ['-'] }],
            incremental: { schedule: '*/15 * * * *' },
          },
        ],
        cronJob: 'example-daily-commerce-x-x',
      },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      / info restore drill passed: vtbackup restored 2025-02-26\.020000\.vtbackup-3141592653 before taking this backup$/m,
    );
  });

  test('a newest backup whose name carries no time: the drill result without a backup age', async () => {
    await withGateway(async (url, metrics) => {
      const r = await runBackup(
        { backups: [BACKUPS[0], 'manual-before-upgrade'] },
        { spec: { metrics: { pushgatewayUrl: url } } },
      );
      expect(r.code).toBe(0);
      const text = await metrics();
      expect(gauge(text, 'restore_drill_success')).toBe(1);
      expect(gauge(text, 'restore_drill_backup_age_seconds')).toBeUndefined();
    });
  });

  test.each<[string, Shard, { allowFirstBackup?: boolean; env?: Record<string, string> }]>([
    ['an initial backup (no backup, no primary)', { backups: [] }, {}],
    [
      'a first backup (no backup, a primary, allowFirstBackup)',
      { backups: [], primary: true },
      { allowFirstBackup: true },
    ],
    ['a failed normal run', { backups: BACKUPS }, { env: { STUB_VTBACKUP_EXIT: '1' } }],
  ])('%s restores nothing: no drill gauge, no drill log line', async (_what, shard, opts) => {
    await withGateway(async (url, metrics) => {
      const r = await runBackup(shard, { ...opts, spec: { metrics: { pushgatewayUrl: url } } });
      expect(r.stderr).not.toContain('restore drill');
      const text = await metrics();
      expect(gauge(text, 'last_run_success')).toBeDefined();
      for (const name of DRILL) expect(gauge(text, name)).toBeUndefined();
    });
  });
});

describe('coverage drift: the serving shards of the keyspace that no CronJob of the policy backs up', () => {
  // customer/-80 nightly, customer/80- every 6 hours: together they cover the keyspace as it was
  const SCHEDULES: VitessSpec['schedules'] = [
    { name: 'nightly', schedule: '0 2 * * *', strategies: [{ keyspace: 'customer', shards: ['-80'] }] },
    { name: 'frequent', schedule: '0 */6 * * *', strategies: [{ keyspace: 'customer', shards: ['80-'] }] },
  ];
  const CRONJOB = 'example-nightly-customer-x-80';
  const FIND_CUSTOMER = '--server example-vtctld:15999 --action_timeout 30s FindAllShardsInKeyspace customer';
  const uncovered = (text: string): number | undefined => {
    const line = text
      .split('\n')
      .find((l) => l.startsWith('backup_cronjobs_uncovered_shards{') && l.includes(`target="${CRONJOB}"`));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  const warnings = (stderr: string) => stderr.split('\n').filter((l) => / warn /.test(l));

  async function drift(shards: string, env: Record<string, string> = {}) {
    const gateway = await startPushgateway();
    try {
      const r = await runBackup(
        { backups: BACKUPS },
        {
          schedules: SCHEDULES,
          cronJob: CRONJOB,
          spec: { metrics: { pushgatewayUrl: gateway.url } },
          env: { STUB_SHARDS: shards, ...env },
        },
      );
      return { ...r, uncovered: uncovered(await gateway.metrics()) };
    } finally {
      await gateway.stop();
    }
  }

  test('after a reshard of 80- into 80-c0 and c0-: both new serving shards are named in one line and counted; 80-, no longer serving, is not', async () => {
    const r = await drift('-80 80-:not-serving 80-c0 c0-');
    expect(r.code).toBe(0);
    expect(r.calls).toContain(FIND_CUSTOMER);
    expect(warnings(r.stderr)).toEqual([
      expect.stringMatching(
        / warn keyspace customer has 2 serving shard\(s\) that no CronJob of policy example backs up: 80-c0 c0-$/,
      ),
    ]);
    expect(r.uncovered).toBe(2);
  });

  test('covered means covered by any CronJob of the policy: -80 here, 80- under another schedule → 0', async () => {
    const r = await drift('-80 80-');
    expect(r.code).toBe(0);
    expect(warnings(r.stderr)).toEqual([]);
    expect(r.stderr).toMatch(
      / info every serving shard of keyspace customer is backed up by a CronJob of policy example$/m,
    );
    expect(r.uncovered).toBe(0);
  });

  test("a failed listing is one warning with vtctldclient's error, never a failed backup; nothing is pushed for coverage", async () => {
    const r = await drift('-80 80-', { STUB_FIND_SHARDS_FAILS: 'yes' });
    expect(r.code).toBe(0);
    expect(r.vtbackupArgs).toBeDefined();
    expect(warnings(r.stderr)).toEqual([
      expect.stringMatching(
        / warn shard coverage not checked: cannot list the shards of keyspace customer from vtctld example-vtctld:15999: rpc error: code = DeadlineExceeded desc = context deadline exceeded$/,
      ),
    ]);
    expect(r.uncovered).toBeUndefined();
  });

  test('a listing without shards is a warning, not "0 uncovered"', async () => {
    const r = await drift('');
    expect(r.code).toBe(0);
    expect(warnings(r.stderr)).toEqual([
      expect.stringMatching(
        / warn shard coverage not checked: vtctld example-vtctld:15999 lists no shard of keyspace customer$/,
      ),
    ]);
    expect(r.uncovered).toBeUndefined();
  });
});

/** Polls until `check` returns a value (not undefined); fails naming `what` if it never does. */
async function waitFor<T>(what: string, check: () => T | undefined): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const v = check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** The state letter of a process (R, S, Z, ...), undefined when it is gone. */
function processState(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
  } catch {
    return undefined;
  }
}

describe('deadline: a signal to the entry script (PID 1) while vtbackup runs', () => {
  /** Starts a backup whose vtbackup stand-in runs until stopped; resolves once the entry script waits for it. */
  async function startBlockedBackup(opts: Parameters<typeof startBackup>[1] = {}) {
    const state = join(mkdtempSync(join(scratch, 'stop-')), 'vtbackup-state');
    const run = await startBackup({ backups: BACKUPS }, { ...opts, env: { ...opts.env, STUB_VTBACKUP_STATE: state } });
    const [stubPid, scriptPid] = await waitFor('the vtbackup stand-in to start', () => {
      const m = existsSync(state) ? /^running (\d+) (\d+)$/m.exec(readFileSync(state, 'utf8')) : null;
      return m ? [Number(m[1]), Number(m[2])] : undefined;
    });
    // its parent is the entry script, the container's first process ...
    expect(readFileSync(`/proc/${scriptPid}/cmdline`, 'utf8').split('\0').slice(0, 3)).toEqual([
      '/bin/sh',
      '-c',
      expect.stringContaining('vitess-backup.sh'),
    ]);
    // ... asleep in `wait` for vtbackup
    await waitFor('the entry script to wait for vtbackup', () => (processState(scriptPid) === 'S' ? true : undefined));
    return { run, state, stubPid, scriptPid };
  }

  const series = (text: string, name: string) =>
    text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes('target="example-daily-commerce-x-x"'));

  test.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: vtbackup is stopped and waited for, a failure is pushed, exit 1 with one error line',
    async (signal) => {
      const gateway = await startPushgateway();
      try {
        const { run, state, stubPid, scriptPid } = await startBlockedBackup({
          spec: { metrics: { pushgatewayUrl: gateway.url } },
        });
        process.kill(scriptPid, signal);
        const r = await run.done;

        expect(r.code).toBe(1);
        expect(r.timedOut).toBe(false);
        expect(errorLines(r.stderr)).toEqual([
          expect.stringMatching(
            signal === 'SIGTERM'
              ? /error stopped by SIGTERM during vtbackup of commerce\/-: the Job reached its activeDeadlineSeconds \(raise timeout in the policy if runs need longer\) or the pod was deleted$/
              : /error stopped by SIGINT during vtbackup of commerce\/-: interrupted$/,
          ),
        ]);
        // vtbackup got TERM and finished its cleanup before the script exited
        expect(lines(state).slice(1)).toEqual(['stopping', 'stopped']);
        expect(processState(stubPid)).toBeUndefined();

        const text = await gateway.metrics();
        expect(series(text, 'backup_cronjobs_failure_total')).toMatch(/ 1$/);
        expect(series(text, 'backup_cronjobs_success_total')).toMatch(/ 0$/);
        expect(series(text, 'backup_cronjobs_last_run_success')).toMatch(/ 0$/);
      } finally {
        await gateway.stop();
      }
    },
  );

  test('a vtbackup that ignores TERM is killed after VITESS_STOP_WAIT_SECONDS; the run still fails with its error line', async () => {
    const { run, state, stubPid, scriptPid } = await startBlockedBackup({
      env: { STUB_VTBACKUP_IGNORE_TERM: 'yes', VITESS_STOP_WAIT_SECONDS: '1' },
    });
    process.kill(scriptPid, 'SIGTERM');
    const r = await run.done;
    expect(r.code).toBe(1);
    expect(r.timedOut).toBe(false);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(/error stopped by SIGTERM during vtbackup of commerce\/-: /),
    ]);
    expect(lines(state)).toHaveLength(1); // killed: no cleanup
    expect(processState(stubPid)).toBeUndefined();
  });
});
