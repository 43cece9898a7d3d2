/**
 * The retention-prune script against a real S3 server (s3rver on loopback)
 * with the real aws CLI: exactly the expected keys remain, other prefixes
 * and shards are untouched; dry run deletes nothing; S3 down → non-zero and
 * nothing deleted; a failed delete midway → non-zero and no further deletes;
 * ListObjectsV2 pagination handled by the CLI.
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import { BackupEntry, formatPlan, parseBackupName, planRetention } from '../../../lib/retention';
import { S3Handle, awsCliPath, freePort, s3rverScript, startS3 } from '../../support/services';
import { baseEnv, errorLines, runShAsync, standIns, tempDir, writePruneScript } from './retention.harness';

jest.setTimeout(120000);

const utc = (iso: string): number => Date.parse(iso) / 1000;
const NOW = utc('2024-01-10T12:00:00Z');
const BUCKET = 'backups';
const DIR = 'redis/';
const PREFIX = 'redis-backup_rs0_';
const SUFFIX = '.rdb.gz';
const key = (ts: string): string => `${DIR}${PREFIX}${ts}${SUFFIX}`;

/** [timestamp, size, sidecar] — keepLast 2, maxAge 1d, weekly 2 (UTC) keep the first, second and fourth. */
const BACKUPS: [string, number, boolean][] = [
  ['2024-01-10T06:00:00Z', 30, true],
  ['2024-01-09T18:00:00Z', 31, false],
  ['2024-01-09T06:00:00Z', 32, true],
  ['2024-01-07T06:00:00Z', 33, false], // Sunday of 2024-W01
  ['2024-01-03T06:00:00Z', 34, false],
  ['2023-12-20T06:00:00Z', 35, true],
];
const KEPT = [BACKUPS[0][0], BACKUPS[1][0], BACKUPS[3][0]];
const DELETED = [BACKUPS[2][0], BACKUPS[4][0], BACKUPS[5][0]];

const FOREIGN = [
  `${key('2024-01-10T07:00:00Z')}.partial`,
  `${DIR}redis-backup_rs01_2023-01-01T00:00:00Z${SUFFIX}`, // the shard rs01 extends rs0
  `other/${PREFIX}2023-01-01T00:00:00Z${SUFFIX}`,
  `${PREFIX}2023-01-01T00:00:00Z${SUFFIX}`, // bucket root
  `${key('2023-01-01T00:00:00Z')}/inner`,
  `${DIR}${PREFIX}2023-02-30T00:00:00Z${SUFFIX}`,
  `${key('2020-01-01T00:00:00Z')}.json`, // orphan sidecar
];

let s3: S3Handle;
let work: string;
let script: string;
let awsBin: string;

beforeAll(async () => {
  s3 = await startS3({ buckets: [BUCKET] });
  work = tempDir('prune-s3');
  script = writePruneScript(work, 's3');
  // `aws` on PATH for the script = the CLI the harness picked (Debian's v2 when present).
  awsBin = standIns(path.join(work, 'aws-real'), { aws: `#!/bin/sh\nexec ${awsCliPath()} "$@"\n` });
});

afterAll(async () => {
  await s3?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function populate(): Promise<string[]> {
  for (const o of await s3.listObjects(BUCKET)) await s3.deleteObject(BUCKET, o.key);
  for (const [ts, size, sidecar] of BACKUPS) {
    await s3.putObject(BUCKET, key(ts), Buffer.alloc(size, 7));
    if (sidecar) await s3.putObject(BUCKET, `${key(ts)}.json`, '{}');
  }
  for (const k of FOREIGN) await s3.putObject(BUCKET, k, 'x');
  return keys();
}

async function keys(): Promise<string[]> {
  return (await s3.listObjects(BUCKET)).map((o) => o.key).sort();
}

function env(
  extra: Record<string, string> = {},
  endpoint = s3.endpoint,
  pathDirs: string[] = [],
): Record<string, string> {
  return baseEnv({
    ...s3.awsEnv(),
    PATH: [...pathDirs, awsBin, process.env.PATH].join(':'),
    BACKUP_DEST_KIND: 's3',
    S3_BUCKET: BUCKET,
    S3_PREFIX: DIR,
    S3_ENDPOINT: endpoint,
    BACKUP_NAME_PREFIX: PREFIX,
    BACKUP_NAME_SUFFIX: SUFFIX,
    BACKUP_SIDECAR_SUFFIXES: '.json',
    RETENTION_KEEP_LAST: '2',
    RETENTION_MAX_AGE_SECONDS: '86400',
    RETENTION_WEEKLY: '2',
    RETENTION_TIME_ZONE: 'UTC',
    RETENTION_NOW: String(NOW),
    ...extra,
  });
}

function expectedPlan(): string {
  const entries: BackupEntry[] = BACKUPS.map(([ts, size]) => ({
    name: key(ts),
    time: parseBackupName(key(ts), DIR + PREFIX, SUFFIX)!,
    size,
  }));
  return formatPlan(planRetention(entries, { keepLast: 2, maxAge: '1d', weekly: 2 }, { now: NOW, timeZone: 'UTC' }));
}

describe('prune.sh with BACKUP_DEST_KIND=s3 against s3rver', () => {
  test('deletes exactly the planned objects and their sidecars; other prefixes, shards and partial uploads stay', async () => {
    const before = await populate();
    const r = await runShAsync(script, { env: env() });
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(expectedPlan());
    const gone = [...DELETED.map(key), `${key(BACKUPS[2][0])}.json`, `${key(BACKUPS[5][0])}.json`].sort();
    expect(await keys()).toEqual(before.filter((k) => !gone.includes(k)));
    for (const ts of KEPT) expect(await keys()).toContain(key(ts));
  });

  test('dry run prints the plan and deletes nothing', async () => {
    const before = await populate();
    const r = await runShAsync(script, { env: env({ RETENTION_DRY_RUN: 'true' }) });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(expectedPlan());
    expect(r.stderr).toMatch(
      /dry run .*3 backup\(s\) at s3:\/\/backups\/redis\/redis-backup_rs0_<time>\.rdb\.gz would be deleted; nothing deleted/,
    );
    expect(await keys()).toEqual(before);
  });

  test('S3 unreachable: the listing fails, exit non-zero with one error line, nothing deleted', async () => {
    const before = await populate();
    const deadPort = await freePort();
    const r = await runShAsync(script, { env: env({ AWS_MAX_ATTEMPTS: '1' }, `http://127.0.0.1:${deadPort}`) });
    expect(r.status).toBe(1);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(
        /listing the backups at s3:\/\/backups\/redis\/redis-backup_rs0_<time>\.rdb\.gz failed \(aws s3api list-objects-v2 failed\); nothing deleted$/,
      ),
    ]);
    expect(r.stdout).toBe('');
    expect(await keys()).toEqual(before);
  });

  test('a missing bucket fails the listing the same way', async () => {
    const before = await populate();
    const r = await runShAsync(script, { env: env({ S3_BUCKET: 'no-such-bucket', AWS_MAX_ATTEMPTS: '1' }) });
    expect(r.status).toBe(1);
    expect(errorLines(r.stderr)).toHaveLength(1);
    expect(await keys()).toEqual(before);
  });

  test('a delete that fails midway: non-zero exit, no further deletes', async () => {
    const before = await populate();
    const dir = tempDir('aws-flaky');
    try {
      const counter = path.join(dir, 'count');
      const calls = path.join(dir, 'calls');
      const bin = standIns(dir, {
        aws: `#!/bin/sh
for a in "$@"; do
  if [ "$a" = delete-object ]; then
    n=$(cat "${counter}" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "${counter}"
    echo "delete-object $n" >> "${calls}"
    if [ "$n" -eq 2 ]; then echo "An error occurred (AccessDenied) when calling the DeleteObject operation: Access Denied" >&2; exit 254; fi
  fi
done
exec ${awsCliPath()} "$@"
`,
      });
      const r = await runShAsync(script, { env: env({ BACKUP_SIDECAR_SUFFIXES: '' }, s3.endpoint, [bin]) });
      expect(r.status).toBe(1);
      expect(errorLines(r.stderr)).toEqual([
        expect.stringMatching(
          /deleting redis\/redis-backup_rs0_2024-01-03T06:00:00Z\.rdb\.gz at .* failed; stopped after 1 of 3 deletion\(s\)$/,
        ),
      ]);
      expect(fs.readFileSync(calls, 'utf8')).toBe('delete-object 1\ndelete-object 2\n');
      // newest-first order: 2024-01-09T06 deleted, 2024-01-03T06 failed, 2023-12-20T06 never tried
      expect(await keys()).toEqual(before.filter((k) => k !== key(BACKUPS[2][0])));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('S3_FORCE_PATH_STYLE=true with no AWS_CONFIG_FILE: aws runs with a generated config setting path style, removed afterwards', async () => {
    const before = await populate();
    const tmp = tempDir('aws-tmp');
    const dir = tempDir('aws-seen');
    try {
      const seen = path.join(dir, 'seen');
      const bin = standIns(dir, { aws: `#!/bin/sh\ncat "$AWS_CONFIG_FILE" >> "${seen}"\nexec ${awsCliPath()} "$@"\n` });
      const e = env({ S3_FORCE_PATH_STYLE: 'true', RETENTION_DRY_RUN: 'true', TMPDIR: tmp }, s3.endpoint, [bin]);
      delete e.AWS_CONFIG_FILE;
      const r = await runShAsync(script, { env: e });
      expect(errorLines(r.stderr)).toEqual([]);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(expectedPlan());
      expect(fs.readFileSync(seen, 'utf8')).toBe('[default]\ns3 =\n    addressing_style = path\n');
      expect(fs.readdirSync(tmp)).toEqual([]);
      expect(await keys()).toEqual(before);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ListObjectsV2 pagination (aws CLI auto-pagination with 2 keys per page)', () => {
  // s3rver's continuation tokens use DES, which Node 20's OpenSSL 3 only has in its legacy
  // provider: test/support/services.ts's startS3 does not enable it, so this test starts its
  // own s3rver with --openssl-legacy-provider (stopped by PID in finally).
  test('every page is listed and the same objects are deleted', async () => {
    const dir = tempDir('s3-pages');
    const port = await freePort();
    let child: ChildProcess | undefined;
    try {
      child = spawn(
        process.execPath,
        [
          '--openssl-legacy-provider',
          s3rverScript(),
          '-d',
          path.join(dir, 'data'),
          '-a',
          '127.0.0.1',
          '-p',
          String(port),
          '--configure-bucket',
          BUCKET,
        ],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      await waitHttp(port);
      const endpoint = `http://127.0.0.1:${port}`;
      // upload the fixture with one `aws s3 sync`
      const local = path.join(dir, 'upload');
      const files: Record<string, number> = {};
      for (const [ts, size] of BACKUPS) files[key(ts)] = size;
      for (const k of FOREIGN) files[k] = 1;
      for (const [k, size] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(local, k)), { recursive: true });
        fs.writeFileSync(path.join(local, k), Buffer.alloc(size, 7));
      }
      const awsEnv = env({}, endpoint);
      const sync = await runShAsync(
        shFile(
          dir,
          'sync.sh',
          `aws --endpoint-url "${endpoint}" s3 sync --only-show-errors "${local}" s3://${BUCKET}/\n`,
        ),
        { env: awsEnv },
      );
      expect(sync.stderr).toBe('');
      const log = path.join(dir, 'aws-calls');
      const bin = standIns(dir, {
        aws: `#!/bin/sh
echo "$*" >> "${log}"
for a; do shift; set -- "$@" "$a"; if [ "$a" = list-objects-v2 ]; then set -- "$@" --page-size 2; fi; done
exec ${awsCliPath()} "$@"
`,
      });
      const r = await runShAsync(script, { env: env({ BACKUP_SIDECAR_SUFFIXES: '' }, endpoint, [bin]) });
      expect(errorLines(r.stderr)).toEqual([]);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(expectedPlan());
      const list = await runShAsync(
        shFile(
          dir,
          'list.sh',
          `aws --endpoint-url "${endpoint}" s3api list-objects-v2 --bucket ${BUCKET} --query 'Contents[].Key' --output text\n`,
        ),
        { env: awsEnv },
      );
      const remaining = list.stdout.trim().split(/\s+/).sort();
      expect(remaining).toEqual(
        Object.keys(files)
          .filter((k) => !DELETED.map(key).includes(k))
          .sort(),
      );
      expect(
        fs
          .readFileSync(log, 'utf8')
          .split('\n')
          .filter((l) => l.includes('delete-object')),
      ).toHaveLength(3);
    } finally {
      if (child?.pid !== undefined && child.exitCode === null) {
        const exited = new Promise((resolve) => child!.once('exit', resolve));
        process.kill(child.pid, 'SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

function shFile(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

async function waitHttp(port: number): Promise<void> {
  const deadline = Date.now() + 15000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const r = http.get({ host: '127.0.0.1', port, path: '/', timeout: 1000 }, (res) => {
        res.resume();
        resolve(true);
      });
      r.on('error', () => resolve(false));
      r.on('timeout', () => {
        r.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`s3rver on port ${port} did not answer`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
