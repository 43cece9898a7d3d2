/**
 * The retention-prune script with Vitess's own destination (BACKUP_DEST_KIND=vitess:
 * lib/engines/vitess/scripts/retention-vitess.sh) and the
 * stand-in `vtctldclient` (../fixtures/vtctldclient-stub.sh) on PATH: it
 * keeps one list of backups, answers GetBackups like the real client (names,
 * oldest first; one empty line for a shard without backups), removes names on
 * RemoveBackup and records every call.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseVitessBackupName } from '../../../../../lib/engines/vitess/retention';
import { BackupEntry, formatPlan, planRetention } from '../../../../../lib/retention';
import { baseEnv, errorLines, runSh, standIns, tempDir, writePruneScript } from '../../../scripts/retention.harness';

const utc = (iso: string): number => Date.parse(iso) / 1000;
const NOW = utc('2024-01-10T12:00:00Z');
const VTCTLDCLIENT = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'vtctldclient-stub.sh'), 'utf8');

// Real names: <date>.<time>.<tablet alias>; vtbackup's alias is vtbackup-<10-digit uid>.
const BACKUPS = [
  '2023-12-01.060000.zone1-0000000101',
  '2024-01-08.060000.zone1-0000000101',
  '2024-01-09.060000.zone1-0000000102',
  '2024-01-09.180000.vtbackup-2718281828',
  '2024-01-10.000000.zone1-0000000101',
  '2024-01-10.060000.zone1-0000000101',
];
const NOT_BACKUPS = ['MANIFEST', 'lost+found', '2024-01-10.99.zone1-1'];

interface Fixture {
  root: string;
  state: string;
  calls: string;
  script: string;
  bin: string;
}

const roots: string[] = [];
afterAll(() => roots.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function fixture(listed: string[] = [...BACKUPS, ...NOT_BACKUPS]): Fixture {
  const root = tempDir('prune-vitess');
  roots.push(root);
  const state = path.join(root, 'backups');
  const calls = path.join(root, 'calls');
  fs.writeFileSync(state, listed.map((name) => `${name}\n`).join(''));
  fs.writeFileSync(calls, '');
  const bin = standIns(root, { vtctldclient: VTCTLDCLIENT });
  return { root, state, calls, bin, script: writePruneScript(root, 'vitess') };
}

function env(f: Fixture, extra: Record<string, string> = {}): Record<string, string> {
  return baseEnv({
    PATH: `${f.bin}:${process.env.PATH}`,
    STUB_CALLS: f.calls,
    STUB_BACKUP_NAMES: f.state,
    BACKUP_DEST_KIND: 'vitess',
    VTCTLD_SERVER: 'vtctld.vitess:15999',
    VITESS_KEYSPACE: 'commerce',
    VITESS_SHARD: '-80',
    RETENTION_KEEP_LAST: '2',
    RETENTION_DAILY: '3',
    RETENTION_TIME_ZONE: 'UTC',
    RETENTION_NOW: String(NOW),
    ...extra,
  });
}

const calls = (f: Fixture): string[] => fs.readFileSync(f.calls, 'utf8').split('\n').filter(Boolean);
const state = (f: Fixture): string[] => fs.readFileSync(f.state, 'utf8').split('\n').filter(Boolean);

describe('prune.sh with BACKUP_DEST_KIND=vitess', () => {
  test('lists with GetBackups, removes the unkept backups newest first with RemoveBackup, ignores names that are not backups', () => {
    const f = fixture();
    const r = runSh(f.script, { env: env(f) });
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.status).toBe(0);
    // keepLast 2: 01-10.06, 01-10.00; daily 3: 01-10.06, 01-09.18, 01-08.06 → delete 01-09.06 and 2023-12-01.
    expect(calls(f)).toEqual([
      '--server vtctld.vitess:15999 GetBackups commerce/-80',
      '--server vtctld.vitess:15999 RemoveBackup commerce/-80 2024-01-09.060000.zone1-0000000102',
      '--server vtctld.vitess:15999 RemoveBackup commerce/-80 2023-12-01.060000.zone1-0000000101',
    ]);
    expect(state(f)).toEqual([
      '2024-01-08.060000.zone1-0000000101',
      '2024-01-09.180000.vtbackup-2718281828',
      '2024-01-10.000000.zone1-0000000101',
      '2024-01-10.060000.zone1-0000000101',
      ...NOT_BACKUPS,
    ]);
    const entries: BackupEntry[] = BACKUPS.map((name) => ({ name, time: parseVitessBackupName(name)!, size: 0 }));
    expect(r.stdout).toBe(formatPlan(planRetention(entries, { keepLast: 2, daily: 3 }, { now: NOW, timeZone: 'UTC' })));
  });

  test('a shard without backups (GetBackups prints one empty line): an empty plan, nothing removed', () => {
    const f = fixture([]);
    const r = runSh(f.script, { env: env(f) });
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.status).toBe(0);
    expect(calls(f)).toEqual(['--server vtctld.vitess:15999 GetBackups commerce/-80']);
    expect(r.stdout).toBe(formatPlan(planRetention([], { keepLast: 2, daily: 3 }, { now: NOW, timeZone: 'UTC' })));
  });

  test('dry run calls only GetBackups', () => {
    const f = fixture();
    const r = runSh(f.script, { env: env(f, { RETENTION_DRY_RUN: 'true' }) });
    expect(r.status).toBe(0);
    expect(calls(f)).toEqual(['--server vtctld.vitess:15999 GetBackups commerce/-80']);
    expect(r.stdout).toContain('# backups: 6, keep: 4, delete: 2\n');
  });

  test('GetBackups failing: non-zero exit, one error line, no RemoveBackup', () => {
    const f = fixture();
    const r = runSh(f.script, { env: env(f, { STUB_UNREACHABLE: 'yes' }) });
    expect(r.status).toBe(1);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(
        /listing the backups at vitess commerce\/-80 via vtctld\.vitess:15999 failed \(vtctldclient GetBackups failed\); nothing deleted$/,
      ),
    ]);
    expect(calls(f)).toEqual(['--server vtctld.vitess:15999 GetBackups commerce/-80']);
  });

  test('RemoveBackup failing midway stops: non-zero exit, no further RemoveBackup', () => {
    const f = fixture();
    const r = runSh(f.script, {
      env: env(f, { STUB_REMOVE_FAILS: '2024-01-09.060000.zone1-0000000102', RETENTION_DAILY: '' }),
    });
    expect(r.status).toBe(1);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(
        /deleting 2024-01-09\.060000\.zone1-0000000102 at vitess commerce\/-80 via vtctld\.vitess:15999 failed; stopped after 1 of 4 deletion\(s\)$/,
      ),
    ]);
    expect(calls(f)).toEqual([
      '--server vtctld.vitess:15999 GetBackups commerce/-80',
      '--server vtctld.vitess:15999 RemoveBackup commerce/-80 2024-01-09.180000.vtbackup-2718281828',
      '--server vtctld.vitess:15999 RemoveBackup commerce/-80 2024-01-09.060000.zone1-0000000102',
    ]);
    expect(state(f)).toEqual([...BACKUPS.filter((b) => b !== '2024-01-09.180000.vtbackup-2718281828'), ...NOT_BACKUPS]);
  });

  test('maxTotalSize is refused for vitess (no sizes): non-zero before any call', () => {
    const f = fixture();
    const r = runSh(f.script, { env: env(f, { RETENTION_MAX_TOTAL_BYTES: '1000' }) });
    expect(r.status).toBe(1);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(/RETENTION_MAX_TOTAL_BYTES is not supported for vitess/),
    ]);
    expect(calls(f)).toEqual([]);
  });

  test('missing VTCTLD_SERVER or vtctldclient: non-zero before any call', () => {
    const f = fixture();
    const r1 = runSh(f.script, { env: env(f, { VTCTLD_SERVER: '' }) });
    expect(r1.status).toBe(1);
    expect(errorLines(r1.stderr)).toEqual([
      expect.stringMatching(/environment variable VTCTLD_SERVER is required but empty/),
    ]);
    const r2 = runSh(f.script, { env: env(f, { PATH: '/usr/bin:/bin' }) });
    expect(r2.status).toBe(1);
    expect(errorLines(r2.stderr)).toEqual([expect.stringMatching(/command 'vtctldclient' not found in this image/)]);
    expect(calls(f)).toEqual([]);
  });
});

describe('VITESS_INCREMENTAL_CHAINS=true: a full backup goes only with the incremental backups that need it', () => {
  // fulls A..D taken by vtbackup, incremental backups taken by a tablet after each; an orphan before A
  const CHAINS = [
    '2024-01-06.120000.zone1-0000000101',
    '2024-01-07.020000.vtbackup-1111111111',
    '2024-01-07.021500.zone1-0000000102',
    '2024-01-07.023000.zone1-0000000102',
    '2024-01-08.020000.vtbackup-2222222222',
    '2024-01-08.021500.zone1-0000000102',
    '2024-01-09.020000.vtbackup-3333333333',
    '2024-01-09.021500.zone1-0000000102',
    '2024-01-10.020000.vtbackup-4444444444',
    '2024-01-10.021500.zone1-0000000102',
    '2024-01-10.023000.zone1-0000000102',
  ];
  const remove = (name: string) => `--server vtctld.vitess:15999 RemoveBackup commerce/-80 ${name}`;

  test('the rules count full backups; each deleted full one goes after its chain (for the oldest, the orphans before it too), newest first', () => {
    const f = fixture(CHAINS);
    const r = runSh(f.script, { env: env(f, { VITESS_INCREMENTAL_CHAINS: 'true', RETENTION_DAILY: '' }) });
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('# backups: 4, keep: 2, delete: 2\n');
    expect(calls(f)).toEqual([
      '--server vtctld.vitess:15999 GetBackups commerce/-80',
      remove('2024-01-08.021500.zone1-0000000102'),
      remove('2024-01-08.020000.vtbackup-2222222222'),
      remove('2024-01-07.023000.zone1-0000000102'),
      remove('2024-01-07.021500.zone1-0000000102'),
      remove('2024-01-06.120000.zone1-0000000101'),
      remove('2024-01-07.020000.vtbackup-1111111111'),
    ]);
    expect(state(f)).toEqual(CHAINS.slice(6));
    expect(r.stderr).toContain(
      'deleted 2024-01-08.021500.zone1-0000000102 (an incremental chain member of 2024-01-08.020000.vtbackup-2222222222)',
    );
  });

  test('keepLast 1 keeps the newest full backup with every incremental backup after it', () => {
    const f = fixture(CHAINS);
    const r = runSh(f.script, {
      env: env(f, { VITESS_INCREMENTAL_CHAINS: 'true', RETENTION_KEEP_LAST: '1', RETENTION_DAILY: '' }),
    });
    expect(r.status).toBe(0);
    expect(state(f)).toEqual(CHAINS.slice(8));
  });

  test('without it the rules count every backup, and keepLast 2 would delete the full backup the 2 newest incremental backups need', () => {
    const f = fixture(CHAINS);
    const r = runSh(f.script, { env: env(f, { RETENTION_DAILY: '' }) });
    expect(r.status).toBe(0);
    expect(state(f)).toEqual(CHAINS.slice(9));
  });

  test('a failed deletion stops before the full backup of the chain: its incremental backups are never left without it', () => {
    const f = fixture(CHAINS);
    const r = runSh(f.script, {
      env: env(f, {
        VITESS_INCREMENTAL_CHAINS: 'true',
        RETENTION_DAILY: '',
        STUB_REMOVE_FAILS: '2024-01-08.021500.zone1-0000000102',
      }),
    });
    expect(r.status).toBe(1);
    expect(state(f)).toEqual(CHAINS);
  });
});
