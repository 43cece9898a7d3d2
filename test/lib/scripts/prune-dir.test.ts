/**
 * The retention-prune script (common.sh + retention.sh + prune.sh, run for
 * real under /bin/sh) against a directory destination (a PVC or hostPath
 * directory): exactly the expected files remain; foreign, partial and
 * invalid files are never touched; dry run deletes nothing; listing or
 * deletion failures exit non-zero and delete nothing (more).
 */
import * as fs from 'fs';
import * as path from 'path';
import { BackupEntry, formatPlan, parseBackupName, planRetention } from '../../../lib/retention';
import {
  baseEnv,
  busyboxBinary,
  busyboxPath,
  errorLines,
  runSh,
  standIns,
  tempDir,
  writePruneScript,
  writeScript,
} from './retention.harness';

const utc = (iso: string): number => Date.parse(iso) / 1000;
const NOW = utc('2024-01-10T12:00:00Z');
const PREFIX = 'etcd-node1-';
const SUFFIX = '.db';

/** Backups: [timestamp, size, has .json sidecar]. */
const BACKUPS: [string, number, boolean][] = [
  ['2024-01-10T06:00:00Z', 100, true],
  ['2024-01-10T00:00:00Z', 120, true],
  ['2024-01-09T18:00:00Z', 90, false],
  ['2024-01-09T06:00:00Z', 80, true],
  ['2024-01-08T06:00:00Z', 70, false],
  ['2024-01-01T06:00:00Z', 60, true],
  ['2023-12-01T06:00:00Z', 50, false],
];
/** Backups stored encrypted (spec.encryption): `<name>.age`, listed and pruned with the others. */
const ENCRYPTED = new Set(['2024-01-10T00:00:00Z', '2024-01-01T06:00:00Z']);
const name = (ts: string): string => `${PREFIX}${ts}${SUFFIX}${ENCRYPTED.has(ts) ? '.age' : ''}`;
/** A backup's sidecar: its name without ".age", then the suffix, then ".age" when it is encrypted too. */
const sidecarOf = (ts: string, suffix = '.json'): string => `${PREFIX}${ts}${SUFFIX}${suffix}`;

/** Files that are not backups of this policy/target: never listed, never deleted. */
const FOREIGN = [
  `${PREFIX}2024-01-10T07:00:00Z${SUFFIX}.partial`, // in progress
  `${PREFIX}2024-01-10T07:00:00Z${SUFFIX}.tmp`,
  `${PREFIX}2023-01-01T00:00:00Z${SUFFIX}.gz`,
  `${PREFIX}2023-01-01T00:00:00Z${SUFFIX}.age.partial`,
  `${PREFIX}2023-01-01T00:00:00Z.age`, // the suffix missing
  `${PREFIX}2023-01-01T00:00:00Z${SUFFIX}.agex`,
  'etcd-node2-2023-01-01T00:00:00Z.db', // another node
  'etcd-node10-2023-01-01T00:00:00Z.db', // a node whose name extends ours
  `${PREFIX}2024-02-30T00:00:00Z${SUFFIX}`, // no such day
  `${PREFIX}extra-2023-01-01T00:00:00Z${SUFFIX}`,
  `${PREFIX}2023-01-01 00:00:00Z${SUFFIX}`,
  `${PREFIX}2020-01-01T00:00:00Z${SUFFIX}.json`, // orphan sidecar
  'README',
];

interface Fixture {
  root: string;
  dir: string;
  script: string;
}

function fixture(): Fixture {
  const root = tempDir('prune-dir');
  const dir = path.join(root, 'backups');
  fs.mkdirSync(dir);
  fs.mkdirSync(path.join(root, 'tmp'));
  for (const [ts, size, sidecar] of BACKUPS) {
    fs.writeFileSync(path.join(dir, name(ts)), Buffer.alloc(size, 1));
    if (sidecar) fs.writeFileSync(path.join(dir, sidecarOf(ts)), '{}');
    if (ENCRYPTED.has(ts)) fs.writeFileSync(path.join(dir, sidecarOf(ts, '.json.age')), 'x');
  }
  for (const f of FOREIGN) fs.writeFileSync(path.join(dir, f), 'x');
  fs.mkdirSync(path.join(dir, `${PREFIX}2022-01-01T00:00:00Z${SUFFIX}`)); // a directory, not a backup file
  fs.symlinkSync(path.join(dir, name(BACKUPS[6][0])), path.join(dir, `${PREFIX}2021-01-01T00:00:00Z${SUFFIX}`));
  return { root, dir, script: writePruneScript(root, 'dir') };
}

function env(f: Fixture, extra: Record<string, string> = {}): Record<string, string> {
  return baseEnv({
    BACKUP_DEST_KIND: 'dir',
    BACKUP_DIR: f.dir,
    BACKUP_NAME_PREFIX: PREFIX,
    BACKUP_NAME_SUFFIX: SUFFIX,
    BACKUP_SIDECAR_SUFFIXES: '.json .sha256',
    RETENTION_KEEP_LAST: '2',
    RETENTION_DAILY: '3',
    RETENTION_TIME_ZONE: 'UTC',
    RETENTION_NOW: String(NOW),
    TMPDIR: path.join(f.root, 'tmp'),
    ...extra,
  });
}

/** The scripts leave no temporary files behind, whatever the outcome. */
function expectNoLeftovers(f: Fixture): void {
  expect(fs.readdirSync(path.join(f.root, 'tmp'))).toEqual([]);
}

const ls = (dir: string): string[] => fs.readdirSync(dir).sort();
const ALL_FILES = (f: Fixture): string[] => ls(f.dir);

// keepLast 2 keeps 01-10T06 and 01-10T00; daily 3 keeps the newest of 01-10, 01-09, 01-08.
const KEPT = ['2024-01-10T06:00:00Z', '2024-01-10T00:00:00Z', '2024-01-09T18:00:00Z', '2024-01-08T06:00:00Z'];
const DELETED = ['2024-01-09T06:00:00Z', '2024-01-01T06:00:00Z', '2023-12-01T06:00:00Z'];

const cleanups: string[] = [];
afterAll(() => cleanups.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function make(): Fixture {
  const f = fixture();
  cleanups.push(f.root);
  return f;
}

describe('prune.sh with BACKUP_DEST_KIND=dir', () => {
  test('deletes exactly what the plan does not keep, with their sidecars; foreign files stay; the plan printed equals the TS reference', () => {
    const f = make();
    const before = ALL_FILES(f);
    const r = runSh(f.script, { env: env(f) });
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.status).toBe(0);
    const expectedRemoved = [
      ...DELETED.map(name),
      sidecarOf('2024-01-09T06:00:00Z'),
      sidecarOf('2024-01-01T06:00:00Z'),
      sidecarOf('2024-01-01T06:00:00Z', '.json.age'),
    ].sort();
    expect(before.filter((x) => !ls(f.dir).includes(x)).sort()).toEqual(expectedRemoved);
    for (const ts of KEPT) expect(fs.existsSync(path.join(f.dir, name(ts)))).toBe(true);
    for (const x of FOREIGN) expect(fs.existsSync(path.join(f.dir, x))).toBe(true);

    // The script's listing (sizes from stat, times from names) and plan match the TS reference.
    const entries: BackupEntry[] = BACKUPS.map(([ts, size]) => ({
      name: name(ts),
      time: parseBackupName(name(ts), PREFIX, SUFFIX)!,
      size,
    }));
    const expected = formatPlan(planRetention(entries, { keepLast: 2, daily: 3 }, { now: NOW, timeZone: 'UTC' }));
    expect(r.stdout).toBe(expected);
    expect(r.stderr).toMatch(/info deleted etcd-node1-2023-12-01T06:00:00Z\.db/);

    // A second run finds nothing more to delete.
    const again = runSh(f.script, { env: env(f) });
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('# backups: 4, keep: 4, delete: 0\n');
    expectNoLeftovers(f);
  });

  test('RETENTION_DRY_RUN=true prints the same plan and deletes nothing', () => {
    const f = make();
    const before = ALL_FILES(f);
    const r = runSh(f.script, { env: env(f, { RETENTION_DRY_RUN: 'true' }) });
    expect(r.status).toBe(0);
    expect(ALL_FILES(f)).toEqual(before);
    expect(r.stdout).toContain('# backups: 7, keep: 4, delete: 3\n');
    expect(r.stdout).toContain(`delete\t2023-12-01T06:00:00Z\t50\t${name('2023-12-01T06:00:00Z')}\t-\n`);
    expect(r.stderr).toMatch(
      /dry run \(RETENTION_DRY_RUN=true\): 3 backup\(s\) at .* would be deleted; nothing deleted/,
    );
  });

  test('no rule set: the plan keeps everything and nothing is deleted', () => {
    const f = make();
    const before = ALL_FILES(f);
    const r = runSh(f.script, { env: env(f, { RETENTION_KEEP_LAST: '', RETENTION_DAILY: '' }) });
    expect(r.status).toBe(0);
    expect(ALL_FILES(f)).toEqual(before);
    expect(r.stdout).toContain('# rules: none (every backup is kept)\n');
  });

  test('a failing listing (stat cannot size a file) exits non-zero with one error line and deletes nothing', () => {
    const f = make();
    const before = ALL_FILES(f);
    const bin = standIns(f.root, { stat: '#!/bin/sh\necho "stat: read error" >&2\nexit 1\n' });
    const r = runSh(f.script, { env: env(f, { PATH: `${bin}:${process.env.PATH}` }) });
    expect(r.status).not.toBe(0);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(
        /error listing the backups at .* failed \(cannot read the size of a file in .*\); nothing deleted$/,
      ),
    ]);
    expect(ALL_FILES(f)).toEqual(before);
    expect(r.stdout).toBe('');
    expectNoLeftovers(f);
  });

  test('a missing directory exits non-zero with one error line', () => {
    const f = make();
    const r = runSh(f.script, { env: env(f, { BACKUP_DIR: path.join(f.root, 'nope') }) });
    expect(r.status).toBe(1);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(
        /listing the backups at .*nope.* failed \(directory .*nope does not exist\); nothing deleted$/,
      ),
    ]);
  });

  test('a failing deletion stops the run: non-zero exit, nothing deleted after it', () => {
    const f = make();
    // rm fails on the second backup file it is asked to delete (sidecars off for clarity).
    const counter = path.join(f.root, 'rm-count');
    const bin = standIns(f.root, {
      rm: `#!/bin/sh
for a in "$@"; do
  case $a in
    "${f.dir}"/*.db | "${f.dir}"/*.db.age)
      n=$(cat "${counter}" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "${counter}"
      if [ "$n" -eq 2 ]; then echo "rm: cannot remove '$a': Input/output error" >&2; exit 1; fi ;;
  esac
done
exec /bin/rm "$@"
`,
    });
    const before = ALL_FILES(f);
    const r = runSh(f.script, { env: env(f, { PATH: `${bin}:${process.env.PATH}`, BACKUP_SIDECAR_SUFFIXES: '' }) });
    expect(r.status).toBe(1);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(
        /deleting etcd-node1-2024-01-01T06:00:00Z\.db\.age at .* failed; stopped after 1 of 3 deletion\(s\)$/,
      ),
    ]);
    // Deletion order is newest first: 2024-01-09T06 deleted, 2024-01-01T06 failed, 2023-12-01T06 never tried.
    expect(before.filter((x) => !ls(f.dir).includes(x))).toEqual([name('2024-01-09T06:00:00Z')]);
    expect(fs.readFileSync(counter, 'utf8').trim()).toBe('2');
    expectNoLeftovers(f);
  });

  test.each([
    [{ RETENTION_DAILY: '0' }, /RETENTION_DAILY must be a positive integer without leading zeros, got '0'/],
    [{ RETENTION_KEEP_LAST: 'three' }, /RETENTION_KEEP_LAST must be a positive integer/],
    [{ BACKUP_NAME_PREFIX: '' }, /environment variable BACKUP_NAME_PREFIX is required but empty/],
    [{ BACKUP_NAME_PREFIX: 'a/b' }, /BACKUP_NAME_PREFIX must not contain '\/'/],
    [
      { BACKUP_DEST_KIND: 'ftp' },
      /BACKUP_DEST_KIND must be dir \(the destination this script was rendered for\), got 'ftp'/,
    ],
    [
      { BACKUP_DEST_KIND: 's3' },
      /BACKUP_DEST_KIND must be dir \(the destination this script was rendered for\), got 's3'/,
    ],
    [{ RETENTION_DRY_RUN: 'yes' }, /RETENTION_DRY_RUN must be true or false, got 'yes'/],
    [{ RETENTION_TIME_ZONE: '../../etc/passwd' }, /RETENTION_TIME_ZONE must be an IANA zone name/],
    [
      { RETENTION_TIME_ZONE: 'Europe/Berlin', TZDIR: '/nonexistent' },
      /time zone Europe\/Berlin: no zoneinfo file \/nonexistent\/Europe\/Berlin in this image \(install tzdata\); refusing to compute periods in UTC instead; nothing deleted/,
    ],
  ])('bad settings %j: non-zero exit, one error line, nothing deleted', (extra, message) => {
    const f = make();
    const before = ALL_FILES(f);
    const r = runSh(f.script, { env: env(f, extra) });
    expect(r.status).toBe(1);
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(message)]);
    expect(ALL_FILES(f)).toEqual(before);
    expectNoLeftovers(f);
  });

  test('a zone other than UTC uses its zoneinfo: Europe/Berlin days differ from UTC days', () => {
    const f = make();
    // 2024-01-09T23:30Z is 2024-01-10 in Berlin: with daily=1 only the newest backup of Berlin's 01-10 is kept.
    fs.writeFileSync(path.join(f.dir, name('2024-01-09T23:30:00Z')), 'x');
    const r = runSh(f.script, {
      env: env(f, {
        RETENTION_KEEP_LAST: '',
        RETENTION_DAILY: '2',
        RETENTION_TIME_ZONE: 'Europe/Berlin',
        RETENTION_DRY_RUN: 'true',
      }),
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      `keep\t2024-01-10T06:00:00Z\t100\t${name('2024-01-10T06:00:00Z')}\tnewest,daily:2024-01-10\n`,
    );
    expect(r.stdout).toContain(`delete\t2024-01-09T23:30:00Z\t1\t${name('2024-01-09T23:30:00Z')}\t-\n`);
    expect(r.stdout).toContain(`keep\t2024-01-09T18:00:00Z\t90\t${name('2024-01-09T18:00:00Z')}\tdaily:2024-01-09\n`);
  });

  test('prune.sh takes no arguments', () => {
    const f = make();
    const r = runSh(f.script, { env: env(f), args: ['--now'] });
    expect(r.status).toBe(1);
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/prune\.sh takes no arguments/)]);
  });
});

describe('retention_apply right after a verified backup (as the engines call it)', () => {
  const entry = 'main() {\n  retention_apply "$1"\n}\nmain "$@"\n';

  test('prunes when the backup just verified is the newest listed', () => {
    const f = make();
    const script = writeScript(f.root, 'after-backup.sh', entry);
    const r = runSh(script, { env: env(f), args: [name('2024-01-10T06:00:00Z')] });
    expect(r.status).toBe(0);
    for (const ts of DELETED) expect(fs.existsSync(path.join(f.dir, name(ts)))).toBe(false);
  });

  test('refuses (non-zero, nothing deleted) when another backup looks newer, e.g. a clock skew', () => {
    const f = make();
    fs.writeFileSync(path.join(f.dir, name('2030-01-01T00:00:00Z')), 'x');
    const before = ALL_FILES(f);
    const script = writeScript(f.root, 'after-backup.sh', entry);
    const r = runSh(script, { env: env(f), args: [name('2024-01-10T06:00:00Z')] });
    expect(r.status).toBe(1);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(
        /refusing to prune .*: the backup just verified \(etcd-node1-2024-01-10T06:00:00Z\.db\) is not the newest listed \(etcd-node1-2030-01-01T00:00:00Z\.db\); check clocks and names; nothing deleted/,
      ),
    ]);
    expect(ALL_FILES(f)).toEqual(before);
  });

  test('refuses when the backup just verified is not listed at all', () => {
    const f = make();
    const before = ALL_FILES(f);
    const script = writeScript(f.root, 'after-backup.sh', entry);
    const r = runSh(script, { env: env(f), args: [`${PREFIX}2024-01-10T07:00:00Z${SUFFIX}.partial`] });
    expect(r.status).toBe(1);
    expect(ALL_FILES(f)).toEqual(before);
  });
});

describe('prune.sh under busybox (sh, awk, sort, date, stat, rm, mktemp)', () => {
  test('deletes exactly the same files as under dash (fails without Debian package busybox)', () => {
    const bb = busyboxBinary();
    const f = make();
    const dir = busyboxPath();
    cleanups.push(dir);
    const r = runSh(f.script, { env: env(f, { PATH: dir }), shell: [bb, 'sh'] });
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.status).toBe(0);
    for (const ts of KEPT) expect(fs.existsSync(path.join(f.dir, name(ts)))).toBe(true);
    for (const ts of DELETED) {
      expect(fs.existsSync(path.join(f.dir, name(ts)))).toBe(false);
      expect(fs.existsSync(path.join(f.dir, name(ts) + '.json'))).toBe(false);
    }
    for (const x of FOREIGN) expect(fs.existsSync(path.join(f.dir, x))).toBe(true);
  });
});
