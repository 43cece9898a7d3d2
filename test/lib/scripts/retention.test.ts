/**
 * retention.sh as a file: shellcheck-clean POSIX sh, no top-level side
 * effects, and its name parsing (which files/objects/backups count, and
 * their times) identical to the TypeScript reference for random names,
 * including invalid dates (Feb 29 of non-leap years, month 13, hour 24 …).
 */
import { spawnSync } from 'child_process';
import fc from 'fast-check';
import * as fs from 'fs';
import { parseVitessBackupName } from '../../../lib/engines/vitess/retention';
import { parseBackupName, parseListing } from '../../../lib/retention';
import { requireCommands } from '../../support/services/commands';
import {
  SCRIPTS,
  baseEnv,
  errorLines,
  runSh,
  standIns,
  tempDir,
  writePruneScript,
  writeScript,
} from './retention.harness';

/** The stand-in vtctldclient of the Vitess tests (what the real one prints, with its sources). */
const VTCTLDCLIENT = fs.readFileSync(`${__dirname}/../engines/vitess/fixtures/vtctldclient-stub.sh`, 'utf8');

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function dir(): string {
  const d = tempDir('retention-script');
  dirs.push(d);
  return d;
}

describe('retention.sh as a file', () => {
  test('shellcheck -s sh is clean for common.sh, retention.sh and prune.sh', () => {
    const r = spawnSync(
      requireCommands('shellcheck').shellcheck,
      ['-s', 'sh', 'common.sh', 'retention.sh', 'prune.sh'],
      { cwd: SCRIPTS, encoding: 'utf8' },
    );
    expect(r.error).toBeUndefined();
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  test('defining its functions has no side effects (no output, no exit, no files)', () => {
    const d = dir();
    const script = writeScript(d, 'only-functions.sh', 'echo loaded\n');
    const r = runSh(script, { env: baseEnv({ TMPDIR: d }) });
    expect(r).toEqual({ status: 0, stdout: 'loaded\n', stderr: '' });
    expect(fs.readdirSync(d)).toEqual(['only-functions.sh']);
  });

  test('retention_plan rejects exactly the listings parseListing rejects', () => {
    const d = dir();
    const script = writeScript(d, 'plan.sh', 'main() {\n  retention_plan\n}\nmain "$@"\n');
    const listings = [
      '1\t2\ta\n',
      '1\t2\n',
      '01\t2\ta\n',
      '1\t02\ta\n',
      '1\t-2\ta\n',
      '1\t2\ta\n3\t4\ta\n',
      '1\t2\t\n',
      '253402300799\t9007199254740991\tmax\n',
      '253402300800\t2\ta\n',
      '1\t9007199254740992\ta\n',
      'x\t1\ta\n',
      '1\t1\ta\tb\n',
      '\n\n1\t1\ta b c\n\n',
      ' 1\t1\ta\n',
    ];
    for (const listing of listings) {
      let tsOk = true;
      try {
        parseListing(listing);
      } catch {
        tsOk = false;
      }
      const r = runSh(script, { env: baseEnv({ RETENTION_NOW: '1000', RETENTION_KEEP_LAST: '1' }), input: listing });
      expect({ listing, ok: r.status === 0 }).toEqual({ listing, ok: tsOk });
      if (!tsOk) expect(r.stdout).toBe('');
    }
  });
});

const digits = (min: number, max: number, width: number): fc.Arbitrary<string> =>
  fc.integer({ min, max }).map((n) => String(n).padStart(width, '0'));
const anyTs = fc.record({
  y: fc.oneof(digits(1965, 2101, 4), fc.constantFrom('9999', '0000', '2000', '2100', '1970', '1969')),
  mo: digits(0, 13, 2),
  d: digits(0, 32, 2),
  h: digits(0, 25, 2),
  mi: digits(0, 61, 2),
  s: digits(0, 61, 2),
});
// mostly plausible fields (days up to 31 in every month: Feb 30, Apr 31, Feb 29 of non-leap years)
const plausibleTs = fc.record({
  y: fc.oneof(digits(1970, 2100, 4), fc.constantFrom('2000', '2100', '2024', '2023', '9999')),
  mo: digits(1, 12, 2),
  d: digits(1, 31, 2),
  h: digits(0, 23, 2),
  mi: digits(0, 59, 2),
  s: digits(0, 59, 2),
});
const tsParts = fc.oneof({ weight: 4, arbitrary: plausibleTs }, { weight: 1, arbitrary: anyTs });
const junk = fc.oneof(
  { weight: 12, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('x', '.partial', ' ', '-', 'Z', '0') },
);
const often = <T>(good: T, ...bad: T[]): fc.Arbitrary<T> =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(good) }, { weight: 1, arbitrary: fc.constantFrom(...bad) });

describe('name parsing: retention.sh and the TypeScript reference agree', () => {
  test('dir/s3 names <prefix><YYYY-MM-DDTHH:MM:SSZ><suffix>: 1500 random names', () => {
    const prefix = 'redis-backup_rs0_';
    const suffix = '.rdb.gz';
    const names = fc.sample(
      fc
        .record({
          p: often(prefix, 'redis-backup_rs01_', 'redis-backup_rs0', ''),
          t: tsParts,
          sep: often('T', ' ', 't'),
          z: often('Z', 'z', ''),
          sfx: often(suffix, '.rdb', suffix + '.json', suffix + '.age', '.age', suffix + '.age.json'),
          j1: junk,
          j2: junk,
        })
        .map(
          ({ p, t, sep, z, sfx, j1, j2 }) => `${p}${j1}${t.y}-${t.mo}-${t.d}${sep}${t.h}:${t.mi}:${t.s}${z}${j2}${sfx}`,
        ),
      { numRuns: 1500, seed: 42 },
    );
    const unique = [...new Set(names)];
    const d = dir();
    const script = writeScript(
      d,
      'names.sh',
      'main() {\n  _rt_init\n  _rt_parse_names size_name "$1" "$2"\n}\nmain "$@"\n',
    );
    const r = runSh(script, { env: baseEnv(), args: [prefix, suffix], input: unique.map((n) => `7\t${n}\n`).join('') });
    expect(r.stderr).toBe('');
    const expected = unique
      .map((n) => [n, parseBackupName(n, prefix, suffix)] as const)
      .filter(([, t]) => t !== undefined)
      .map(([n, t]) => `${t}\t7\t${n}\n`)
      .join('');
    expect(r.stdout).toBe(expected);
    expect(expected.split('\n').length).toBeGreaterThan(100); // enough valid names were generated
  });

  test('vitess names YYYY-MM-DD.HHMMSS.<alias>, as retention-vitess.sh lists them: 1500 random names', () => {
    const names = fc.sample(
      fc
        .record({
          t: tsParts,
          alias: often('zone1-0000000101', 'vtbackup-1', '', 'a b', 'x/y', 'zone1-1.extra'),
          dot: often('.', '-'),
        })
        .map(({ t, alias, dot }) => `${t.y}-${t.mo}-${t.d}${dot}${t.h}${t.mi}${t.s}.${alias}`),
      { numRuns: 1500, seed: 7 },
    );
    const unique = [...new Set(names)];
    const d = dir();
    // the engine's module parses its own names: its listing of what the stand-in vtctldclient lists
    const script = writeScript(d, 'vnames.sh', 'main() {\n  retention_list\n}\nmain "$@"\n', 'vitess');
    fs.writeFileSync(`${d}/names`, unique.map((n) => `${n}\n`).join(''));
    const bin = standIns(d, { vtctldclient: VTCTLDCLIENT });
    const env = { VTCTLD_SERVER: 'vtctld:15999', VITESS_KEYSPACE: 'commerce', VITESS_SHARD: '-' };
    const stub = { STUB_BACKUP_NAMES: `${d}/names`, STUB_CALLS: `${d}/calls` };
    const r = runSh(script, { env: baseEnv({ ...env, ...stub, PATH: `${bin}:${process.env.PATH ?? ''}` }) });
    expect(r.stderr).toBe('');
    const expected = unique
      .map((n) => [n, parseVitessBackupName(n)] as const)
      .filter(([, t]) => t !== undefined)
      .map(([n, t]) => `${t}\t0\t${n}\n`)
      .join('');
    expect(r.stdout).toBe(expected);
    expect(expected.split('\n').length).toBeGreaterThan(100);
  });
});

describe('s3 listing output handling (stand-in aws printing fixed output)', () => {
  const run = (output: string, code = 0) => {
    const d = dir();
    const calls = `${d}/calls`;
    const bin = standIns(d, { aws: `#!/bin/sh\necho "$*" >> "${calls}"\nprintf '%s' '${output}'\nexit ${code}\n` });
    const r = runSh(writePruneScript(d, 's3'), {
      env: baseEnv({
        PATH: `${bin}:${process.env.PATH}`,
        BACKUP_DEST_KIND: 's3',
        S3_BUCKET: 'b',
        S3_PREFIX: 'p/',
        BACKUP_NAME_PREFIX: 'x_',
        RETENTION_KEEP_LAST: '1',
        RETENTION_NOW: '1704067200',
      }),
    });
    return { ...r, calls: fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8') : '' };
  };

  test('"None" (no object under the prefix) is an empty listing', () => {
    const r = run('None\n');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('# backups: 0, keep: 0, delete: 0\n');
    expect(r.calls).toBe(
      's3api list-objects-v2 --bucket b --prefix p/x_ --query Contents[].[Key,Size] --output text\n',
    );
  });

  test('rows of several pages, foreign keys ignored, deletes with delete-object per key', () => {
    const r = run(
      'p/x_2024-01-01T00:00:00Z\t5\np/x_2023-01-01T00:00:00Z\t6\np/x_2023-01-01T00:00:00Z.partial\t1\np/x_2022-01-01T00:00:00Z\t7\n',
    );
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.calls.split('\n').filter((l) => l.startsWith('s3api delete-object'))).toEqual([
      's3api delete-object --bucket b --key p/x_2023-01-01T00:00:00Z',
      's3api delete-object --bucket b --key p/x_2022-01-01T00:00:00Z',
    ]);
  });

  test('a backup row whose size is not a number fails the listing; nothing deleted', () => {
    const r = run('p/x_2024-01-01T00:00:00Z\t5\np/x_2023-01-01T00:00:00Z\tNone\n');
    expect(r.status).toBe(1);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(
        /listing the backups at s3:\/\/b\/p\/x_<time> failed \(unexpected output of aws s3api list-objects-v2\); nothing deleted$/,
      ),
    ]);
    expect(r.calls).not.toMatch(/delete-object/);
  });

  test('aws exiting non-zero after printing rows fails the listing; nothing deleted', () => {
    const r = run('p/x_2024-01-01T00:00:00Z\t5\np/x_2023-01-01T00:00:00Z\t6\n', 255);
    expect(r.status).toBe(1);
    expect(r.calls).not.toMatch(/delete-object/);
  });
});
