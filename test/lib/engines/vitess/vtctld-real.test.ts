// The Vitess scripts and `discover` against Vitess's own vtctld (tools/vitess, v24) on an etcd topology,
// with backups laid out in its file backup storage as vtbackup writes them (test/support/services/vtctld.ts).
// The rendered containers run for real under /bin/sh with the real vtctldclient; vtbackup is the stand-in
// (it needs a MySQL), and so is nothing else here. BackupShard needs tablets with a MySQL: its tests keep
// the stand-in (scripts/vitess-incremental.test.ts).
import { execFileSync } from 'child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parse } from 'yaml';
import { renderPolicy } from '../../../../lib';
import { BackupEntry, formatPlan, planRetention } from '../../../../lib/retention';
import { parseVitessBackupName } from '../../../../lib/engines/vitess/retention';
import { configMapsOf, runContainer } from '../../../support/run-container';
import { podSpecOf } from '../../../support/kube';
import { freePort } from '../../../support/services';
import { VtctldHandle, startVtctld } from '../../../support/services/vtctld';
import { baseEnv, runSh, writePruneScript } from '../../scripts/retention.harness';
import { run as runCli } from '../../cli/fixtures';
import { vitessPolicy } from './fixtures';

const FIXTURES = join(__dirname, 'fixtures');
const scratch = mkdtempSync(join(tmpdir(), 'bcj-vitess-real-'));
let vtctld: VtctldHandle;
/** An image's /vt/bin: the real vtctldclient (a symlink: the init container's cp -R keeps it one) and the vtbackup stand-in. */
let imageBin: string;

beforeAll(async () => {
  vtctld = await startVtctld({
    keyspaces: {
      commerce: ['-'],
      first: ['-'],
      record: ['-'],
      fresh: ['-'],
      incr: ['-'],
      pruned: ['-80'],
      chains: ['-'],
      // a reshard of 80- into 80-c0 and c0- after the switch: 80- is created last, overlapping the serving
      // 80-c0 and c0-, so CreateShard leaves it not serving (go/vt/topo/shard.go, CreateShard)
      customer: ['-80', '80-c0', 'c0-', '80-'],
    },
  });
  imageBin = join(scratch, 'image-bin');
  mkdirSync(imageBin);
  symlinkSync(vtctld.tools.vtctldclient, join(imageBin, 'vtctldclient'));
  copyFileSync(join(FIXTURES, 'vtbackup-stub.sh'), join(imageBin, 'vtbackup'));
}, 120000);
afterAll(async () => {
  await vtctld?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const at = (iso: string) => new Date(iso);
const errorLines = (stderr: string): string[] => stderr.split('\n').filter((l) => / error /.test(l));
const warnLines = (stderr: string): string[] => stderr.split('\n').filter((l) => / warn /.test(l));

describe("vtctldclient's two output formats, from the real vtctld", () => {
  test('GetBackups: names only, oldest first, a backup without MANIFEST too; --json: {"backups": [...]} of the same names', async () => {
    const full = await vtctld.writeBackup('commerce', '-', {
      time: at('2025-02-26T02:00:00Z'),
      tabletAlias: 'vtbackup-3141592653',
    });
    const manual = await vtctld.writeBackup('commerce', '-', {
      time: at('2025-02-25T22:06:02Z'),
      tabletAlias: 'zone1-0000000101',
    });
    const died = await vtctld.writeBackup('commerce', '-', {
      time: at('2025-02-27T02:00:00Z'),
      tabletAlias: 'vtbackup-0000004711',
      complete: false,
    });
    expect(await vtctld.vtctldclient(['GetBackups', 'commerce/-'])).toBe(`${manual}\n${full}\n${died}\n`);
    const json = JSON.parse(await vtctld.vtctldclient(['GetBackups', '--json', 'commerce/-'])) as {
      backups: Record<string, unknown>[];
    };
    expect(json.backups.map((b) => b.name)).toEqual([manual, full, died]);
    expect(json.backups[0]).toEqual({
      name: manual,
      directory: 'commerce/-',
      keyspace: 'commerce',
      shard: '-',
      tablet_alias: { cell: 'zone1', uid: 101 },
      time: { seconds: String(Date.UTC(2025, 1, 25, 22, 6, 2) / 1000), nanoseconds: 0 },
      engine: '',
      // v24 prints enum names (go/cmd/vtctldclient/cli/json.go, DefaultMarshalOptions: UseEnumNumbers false)
      status: 'UNKNOWN',
    });
  });

  test('GetBackups of a shard without backups prints one empty line; --json an empty list', async () => {
    expect(await vtctld.vtctldclient(['GetBackups', 'fresh/-'])).toBe('\n');
    expect(JSON.parse(await vtctld.vtctldclient(['GetBackups', '--json', 'fresh/-']))).toEqual({ backups: [] });
  });

  test('GetShard: primary_alias null without a primary, the alias once the shard has one', async () => {
    const before = JSON.parse(await vtctld.vtctldclient(['GetShard', 'record/-'])) as {
      shard: Record<string, unknown>;
    };
    expect(before.shard.primary_alias).toBeNull();
    expect(before.shard.is_primary_serving).toBe(true);
    await vtctld.setPrimary('record', '-', 101);
    const after = JSON.parse(await vtctld.vtctldclient(['GetShard', 'record/-'])) as {
      keyspace: string;
      name: string;
      shard: Record<string, unknown>;
    };
    expect(after.keyspace).toBe('record');
    expect(after.name).toBe('-');
    expect(after.shard.primary_alias).toEqual({ cell: 'zone1', uid: 101 });
  });
});

/** What the stand-in vtctldclient prints for ARGS, given its state in env (STUB_BACKUP_NAMES as a list). */
function standIn(args: string[], env: Record<string, string>, backups: string[] = []): string {
  const dir = mkdtempSync(join(scratch, 'stand-in-'));
  writeFileSync(join(dir, 'names'), backups.map((b) => `${b}\n`).join(''));
  return execFileSync('sh', [join(FIXTURES, 'vtctldclient-stub.sh'), '--server', vtctld.server, ...args], {
    env: { PATH: process.env.PATH, STUB_CALLS: join(dir, 'calls'), STUB_BACKUP_NAMES: join(dir, 'names'), ...env },
    encoding: 'utf8',
  });
}

describe('the stand-in vtctldclient (kept for the failure modes and BackupShard) prints what the real one prints', () => {
  test('GetBackups, names only and --json, of the same backups', async () => {
    const real = await vtctld.vtctldclient(['GetBackups', 'commerce/-']);
    const names = real.trimEnd().split('\n');
    expect(standIn(['GetBackups', 'commerce/-'], {}, names)).toBe(real);
    expect(JSON.parse(standIn(['GetBackups', '--json', 'commerce/-'], {}, names))).toEqual(
      JSON.parse(await vtctld.vtctldclient(['GetBackups', '--json', 'commerce/-'])),
    );
    expect(standIn(['GetBackups', 'fresh/-'], {})).toBe(await vtctld.vtctldclient(['GetBackups', 'fresh/-']));
  });

  test('GetShard of a shard without a primary, and FindAllShardsInKeyspace during a reshard', async () => {
    expect(JSON.parse(standIn(['GetShard', 'fresh/-'], { STUB_SHARDS: '-' }))).toEqual(
      JSON.parse(await vtctld.vtctldclient(['GetShard', 'fresh/-'])),
    );
    expect(
      JSON.parse(standIn(['FindAllShardsInKeyspace', 'customer'], { STUB_SHARDS: '-80 80-:not-serving 80-c0 c0-' })),
    ).toEqual(JSON.parse(await vtctld.vtctldclient(['FindAllShardsInKeyspace', 'customer'])));
  });
});

/** Renders the policy, runs the init container and then the CronJob's vtbackup container against the real vtctld. */
async function runBackup(
  keyspace: string,
  opts: { allowFirstBackup?: boolean; shards?: string[]; server?: string; env?: Record<string, string> } = {},
) {
  const objects = renderPolicy(
    vitessPolicy({
      vtctldServer: opts.server ?? vtctld.server,
      allowFirstBackup: opts.allowFirstBackup ?? false,
      schedules: [{ name: 'daily', schedule: '0 2 * * *', strategies: [{ keyspace, shards: opts.shards ?? ['-'] }] }],
    }),
  );
  const cronJob = objects.find((o) => o.kind === 'CronJob');
  if (!cronJob) throw new Error('no CronJob');
  const pod = podSpecOf(cronJob);
  const configMaps = configMapsOf(objects);
  const work = mkdtempSync(join(scratch, 'run-'));
  const volumeDirs: Record<string, string> = {};
  const init = await runContainer(pod, 'init-vt-root', {
    volumeDirs,
    configMaps,
    env: { VT_BIN_SOURCE: imageBin, VT_CONFIG_SOURCE: join(work, 'no-config') },
  });
  expect(init.code).toBe(0);
  const argsFile = join(work, 'vtbackup-args');
  const r = await runContainer(pod, 'vtbackup', {
    volumeDirs,
    configMaps,
    env: { STUB_VTBACKUP_ARGS: argsFile, STUB_BACKUP_NAMES: join(work, 'names'), ...opts.env },
  });
  let vtbackupArgs: string[] | undefined;
  try {
    vtbackupArgs = readFileSync(argsFile, 'utf8').trimEnd().split('\n');
  } catch {
    vtbackupArgs = undefined;
  }
  return { ...r, vtbackupArgs, runArgs: r.argv.slice(4) };
}

describe('the backup-type decision against the real vtctld', () => {
  test('backups listed (one without MANIFEST among them) → a normal backup: --initial_backup=false', async () => {
    const r = await runBackup('commerce');
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.vtbackupArgs).toEqual([...r.runArgs, '--initial_backup=false']);
    expect(r.stderr).toMatch(
      /commerce\/- has 3 backup\(s\), the latest 2025-02-27\.020000\.vtbackup-0000004711: taking a normal backup/,
    );
  });

  test('no backup and no primary → an initial backup: --initial_backup=true', async () => {
    const r = await runBackup('fresh');
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.vtbackupArgs).toEqual([...r.runArgs, '--initial_backup=true']);
    expect(r.stderr).toMatch(/fresh\/- has no primary and no backup: taking an initial backup of the empty shard/);
  });

  test('no backup and a primary, allowFirstBackup → --initial_backup=false --allow_first_backup=true; without it: exit 1, vtbackup never runs', async () => {
    await vtctld.setPrimary('first', '-', 101);
    const allowed = await runBackup('first', { allowFirstBackup: true });
    expect(errorLines(allowed.stderr)).toEqual([]);
    expect(allowed.code).toBe(0);
    expect(allowed.vtbackupArgs).toEqual([...allowed.runArgs, '--initial_backup=false', '--allow_first_backup=true']);
    const refused = await runBackup('first');
    expect(refused.code).toBe(1);
    expect(refused.vtbackupArgs).toBeUndefined();
    expect(errorLines(refused.stderr)).toEqual([
      expect.stringContaining('first/- has a primary but no backup: refusing an automated first backup'),
    ]);
  });
  test("vtctld unreachable → exit 1 with the client's error, no backup started", async () => {
    // nothing listens there: the v24 client retries until its --action_timeout, VTCTLD_TIMEOUT
    const server = `127.0.0.1:${await freePort()}`;
    const r = await runBackup('commerce', { server, env: { VTCTLD_TIMEOUT: '2s' } });
    expect(r.code).toBe(1);
    expect(r.vtbackupArgs).toBeUndefined();
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `cannot list the backups of commerce/- from vtctld ${server}: rpc error: code = DeadlineExceeded desc = latest balancer error: connection error: desc = "transport: Error while dialing: dial tcp ${server}: connect: connection refused"; no backup started$`,
        ),
      ),
    ]);
  });
});

describe('the drift check (FindAllShardsInKeyspace, JSON) against the real vtctld', () => {
  test('the policy backs up -80 only: the serving shards it misses are named (80- is not serving during the reshard)', async () => {
    const r = await runBackup('customer', { shards: ['-80'] });
    expect(r.code).toBe(0);
    expect(warnLines(r.stderr)).toEqual([
      expect.stringMatching(
        /keyspace customer has 2 serving shard\(s\) that no CronJob of policy example backs up: 80-c0 c0-$/,
      ),
    ]);
  });

  test('the policy backs up every serving shard: no warning', async () => {
    const r = await runBackup('customer', { shards: ['-80', '80-c0', 'c0-'] });
    expect(r.code).toBe(0);
    expect(warnLines(r.stderr)).toEqual([]);
    expect(r.stderr).toMatch(/every serving shard of keyspace customer is backed up by a CronJob of policy example/);
  });
});

describe('discover --vtctld against the real vtctld', () => {
  test('lists the serving shards of the keyspace (80- left out during the reshard); pasted into a policy it renders their CronJobs', () => {
    const saved = process.env.PATH;
    process.env.PATH = `${vtctld.tools.binDir}:${saved}`;
    let r;
    try {
      r = runCli(['discover', '--vtctld', vtctld.server, '--keyspace', 'customer']);
    } finally {
      process.env.PATH = saved;
    }
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^# Vitess keyspace customer: its serving shards \\(vtctld ${vtctld.server.replace(/\./g, '\\.')}\\), for a strategy with keyspace: customer\n# not serving, left out: 80-\nshards:\n`,
      ),
    );
    expect((parse(r.stdout) as { shards: string[] }).shards).toEqual(['-80', '80-c0', 'c0-']);
  });
});

describe('the incremental CronJob against the real vtctld', () => {
  async function runIncremental(keyspace: string) {
    const objects = renderPolicy(
      vitessPolicy({
        vtctldServer: vtctld.server,
        schedules: [
          {
            name: 'daily',
            schedule: '0 2 * * *',
            strategies: [{ keyspace, shards: ['-'] }],
            incremental: { schedule: '*/15 * * * *' },
          },
        ],
      }),
    );
    const name = `example-daily-${keyspace}-x-x-incr`;
    const cronJob = objects.find((x) => x.kind === 'CronJob' && x.metadata.name === name);
    if (!cronJob) throw new Error(`no CronJob ${name}`);
    return runContainer(podSpecOf(cronJob), 'incremental-backup', {
      configMaps: configMapsOf(objects),
      pathPrepend: [vtctld.tools.binDir],
    });
  }

  test('only backups taken by tablets (no full backup of vtbackup) → skipped: one warning, exit 0', async () => {
    await vtctld.writeBackup('incr', '-', { time: at('2025-02-26T02:15:00Z'), tabletAlias: 'zone1-0000000102' });
    const r = await runIncremental('incr');
    expect(r.code).toBe(0);
    expect(warnLines(r.stderr)).toEqual([
      expect.stringMatching(
        /skipping the incremental backup of incr\/-: no full backup yet \(vtctld lists 1 backup\(s\), none taken by vtbackup\)/,
      ),
    ]);
  });

  test('a full backup of vtbackup listed → not skipped: BackupShard asks vtctld, which has no tablet for it, and the run fails with its error', async () => {
    await vtctld.writeBackup('incr', '-', { time: at('2025-02-26T02:00:00Z'), tabletAlias: 'vtbackup-3141592653' });
    const r = await runIncremental('incr');
    expect(warnLines(r.stderr)).toEqual([]);
    expect(r.stderr).toMatch(
      /incr\/- has 2 backup\(s\), the latest full one 2025-02-26\.020000\.vtbackup-3141592653, the latest 2025-02-26\.021500\.zone1-0000000102: taking an incremental backup/,
    );
    expect(r.code).toBe(1);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(
        /incremental backup of incr\/- failed \(vtctldclient exit status 1\): .*no tablet available for backup/,
      ),
    ]);
  });
});

describe('the retention prune (GetBackups, RemoveBackup) against the real vtctld', () => {
  const NOW = Date.parse('2024-01-10T12:00:00Z') / 1000;
  const pruneEnv = (keyspace: string, shard: string, extra: Record<string, string> = {}) =>
    baseEnv({
      PATH: `${vtctld.tools.binDir}:${process.env.PATH}`,
      BACKUP_DEST_KIND: 'vitess',
      VTCTLD_SERVER: vtctld.server,
      VITESS_KEYSPACE: keyspace,
      VITESS_SHARD: shard,
      RETENTION_TIME_ZONE: 'UTC',
      RETENTION_NOW: String(NOW),
      ...extra,
    });

  test('removes the backups the rules do not keep from the storage, and nothing else', async () => {
    const names: string[] = [];
    for (const [iso, alias] of [
      ['2023-12-01T06:00:00Z', 'zone1-0000000101'],
      ['2024-01-08T06:00:00Z', 'zone1-0000000101'],
      ['2024-01-09T06:00:00Z', 'zone1-0000000102'],
      ['2024-01-09T18:00:00Z', 'vtbackup-2718281828'],
      ['2024-01-10T00:00:00Z', 'zone1-0000000101'],
      ['2024-01-10T06:00:00Z', 'zone1-0000000101'],
    ]) {
      names.push(await vtctld.writeBackup('pruned', '-80', { time: at(iso), tabletAlias: alias }));
    }
    const dir = mkdtempSync(join(scratch, 'prune-'));
    const r = runSh(writePruneScript(dir, 'vitess'), {
      env: pruneEnv('pruned', '-80', { RETENTION_KEEP_LAST: '2', RETENTION_DAILY: '3' }),
    });
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.status).toBe(0);
    // keepLast 2: 01-10.06, 01-10.00; daily 3: 01-10.06, 01-09.18, 01-08.06 → 01-09.06 and 2023-12-01 go
    expect(vtctld.storedBackups('pruned', '-80')).toEqual([names[1], names[3], names[4], names[5]]);
    expect(await vtctld.vtctldclient(['GetBackups', 'pruned/-80'])).toBe(
      `${[names[1], names[3], names[4], names[5]].join('\n')}\n`,
    );
    const entries: BackupEntry[] = names.map((name) => ({ name, time: parseVitessBackupName(name)!, size: 0 }));
    expect(r.stdout).toBe(formatPlan(planRetention(entries, { keepLast: 2, daily: 3 }, { now: NOW, timeZone: 'UTC' })));
  });

  test('incremental chains: a full backup goes with the incremental backups after it, a kept one keeps its chain', async () => {
    const full1 = await vtctld.writeBackup('chains', '-', {
      time: at('2024-01-08T02:00:00Z'),
      tabletAlias: 'vtbackup-0000000001',
    });
    const inc1 = await vtctld.writeBackup('chains', '-', {
      time: at('2024-01-08T02:15:00Z'),
      tabletAlias: 'zone1-0000000102',
      incrementalFrom: full1,
    });
    const full2 = await vtctld.writeBackup('chains', '-', {
      time: at('2024-01-09T02:00:00Z'),
      tabletAlias: 'vtbackup-0000000002',
    });
    const inc2 = await vtctld.writeBackup('chains', '-', {
      time: at('2024-01-09T02:15:00Z'),
      tabletAlias: 'zone1-0000000102',
      incrementalFrom: full2,
    });
    const dir = mkdtempSync(join(scratch, 'prune-'));
    const r = runSh(writePruneScript(dir, 'vitess'), {
      env: pruneEnv('chains', '-', { RETENTION_KEEP_LAST: '1', VITESS_INCREMENTAL_CHAINS: 'true' }),
    });
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.status).toBe(0);
    expect(vtctld.storedBackups('chains', '-')).toEqual([full2, inc2]);
    expect(r.stderr).toContain(`deleted ${inc1} (an incremental chain member of ${full1})`);
  });
});
