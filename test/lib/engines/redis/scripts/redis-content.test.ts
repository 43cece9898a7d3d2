// Content checks (spec.contentChecks) of the rendered Redis backup pod, for real: real Redis + Sentinel,
// s3rver, a real Pushgateway. Before the upload may complete, the keys of the dump (redis-check-rdb's count;
// without verifyRdb, the server's INFO keyspace just before the dump) are compared with those the newest
// earlier backup's metadata records: a flushed shard fails the run (nothing stored) unless allowEmpty, keys
// deleted below the threshold warn (stored) or fail (nothing stored). The metadata records the keys per database.
import * as fs from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import type { RedisShard, S3Handle } from '../../../../support/services';
import { awsCliPath, findCommand } from '../../../../support/services';
import {
  BUCKET,
  KEYS,
  backupsUnder,
  errorLines,
  expectNoDumpAtRest,
  keysOfObject,
  keysUnder,
  metadataOf,
  metric,
  render,
  runBackupPod,
  standIn,
  startRedisServices,
  stopRedisServices,
  tempDir,
} from './fixtures';

jest.setTimeout(120000);

let shard01: RedisShard;
let shard02: RedisShard;
let shard03: RedisShard;
let s3: S3Handle;

beforeAll(async () => {
  ({ shard01, shard02, shard03, s3 } = await startRedisServices({
    replicas: { shard01: 1, shard02: 1, shard03: 1 },
    bigKeys: 16,
  }));
});

afterAll(stopRedisServices);

type Shard = 'shard01' | 'shard02' | 'shard03';

/** One run of `shard`'s backup pod into s3://BUCKET/<prefix>/; waits a second so that names differ. */
async function backUp(shard: Shard, prefix: string, spec: Record<string, unknown> = {}, redis = {}, policy = prefix) {
  const jobs = render({ ...redis, s3: { bucket: BUCKET, path: prefix, region: 'us-east-1' } }, spec, policy);
  const run = await runBackupPod(jobs[shard]);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  return run;
}

/** Until every replica of the shard has what its master has. */
async function synced(shard: RedisShard): Promise<void> {
  expect(await shard.master.cli(['WAIT', String(shard.replicas.length), '5000'])).toBe(String(shard.replicas.length));
}

/** Deletes the keys `<shard>:key:<i>` for i in [from, to). */
async function deleteKeys(shard: RedisShard, from: number, to: number): Promise<void> {
  const keys: string[] = [];
  for (let i = from; i < to; i++) keys.push(`${shard.name}:key:${i}`);
  await shard.master.cli(['DEL', ...keys]);
  await synced(shard);
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('a flushed shard: the next run fails with the reason and stores nothing (no object, no metadata); with allowEmpty it is stored', async () => {
  const first = await backUp('shard02', 'flushed');
  expect([first.dump.code, first.upload.code]).toEqual([0, 0]);
  expect(first.upload.stderr).toContain('no earlier backup in s3://backups/flushed/redis-backup_shard02_<time>.rdb.gz');
  const before = await keysUnder('flushed/');
  expect(before).toHaveLength(2); // the backup and its metadata
  expect(await metric('redis_backup_content_keys', 'shard02', 'flushed')).toBe(KEYS.shard02);
  expect(await metric('redis_backup_content_shrunk', 'shard02', 'flushed')).toBe(0);

  await shard02.master.cli(['FLUSHALL']);
  await synced(shard02);
  const refused = await backUp('shard02', 'flushed');
  expect(refused.dump.code).toBe(0); // the dump itself is good
  expect(refused.upload.code).toBe(1);
  const errors = errorLines(refused.upload);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    /backup of shard shard02 failed: the dump of 127\.0\.0\.1:\d+ holds no keys: an empty source is refused \(spec\.contentChecks\.allowEmpty: true stores it\); nothing stored$/,
  );
  expect(await keysUnder('flushed/')).toEqual(before);
  expectNoDumpAtRest(refused.scratch);
  expect(await metric('redis_backup_last_run_success', 'shard02', 'flushed')).toBe(0);
  expect(await metric('redis_backup_content_keys', 'shard02', 'flushed')).toBe(0);

  const allowed = await backUp('shard02', 'flushed', { contentChecks: { allowEmpty: true } });
  expect([allowed.dump.code, allowed.upload.code]).toEqual([0, 0]);
  const stored = (await backupsUnder('flushed/')).filter((k) => !before.includes(k));
  expect(stored).toHaveLength(1);
  expect(await keysOfObject(stored[0])).toBe(0);
  expect(await metadataOf(stored[0])).toMatchObject({ keyCount: 0, databases: {} });
  // 0 keys after 80 is a shrink too: allowed empty, it warns (onShrink: warn)
  expect(allowed.upload.stderr).toMatch(/warn .*holds 0 keys, the newest earlier backup \S+ 80: less than 50% of them/);
  expect(await metric('redis_backup_content_shrunk', 'shard02', 'flushed')).toBe(1);
});

test('keys deleted to below half: the next run warns with both counts and the earlier backup, stores the backup and pushes content_shrunk 1; onShrink fail stores nothing', async () => {
  const first = await backUp('shard01', 'shrink');
  expect([first.dump.code, first.upload.code]).toEqual([0, 0]);
  const [earlier] = await backupsUnder('shrink/');

  await deleteKeys(shard01, 0, 100); // 150 keys -> 50: 33%
  const warned = await backUp('shard01', 'shrink');
  expect([warned.dump.code, warned.upload.code]).toEqual([0, 0]);
  expect(errorLines(warned.upload)).toEqual([]);
  expect(warned.upload.stderr).toMatch(
    new RegExp(
      `warn the dump of 127\\.0\\.0\\.1:\\d+ holds 50 keys, the newest earlier backup ${escaped(earlier)} 150: less than 50% of them \\(spec\\.contentChecks\\.shrinkBelowPercent\\); stored all the same \\(onShrink: warn\\)`,
    ),
  );
  const backups = await backupsUnder('shrink/');
  expect(backups).toHaveLength(2);
  const newer = backups.find((k) => k !== earlier)!;
  expect(await keysOfObject(newer)).toBe(50);
  expect(await metadataOf(newer)).toMatchObject({ keyCount: 50, databases: { '0': 50 } });
  expect(await metric('redis_backup_content_keys', 'shard01', 'shrink')).toBe(50);
  expect(await metric('redis_backup_content_shrunk', 'shard01', 'shrink')).toBe(1);
  expect(await metric('redis_backup_last_run_success', 'shard01', 'shrink')).toBe(1);

  // onShrink: fail, compared with the newest backup (50 keys): 20 keys are 40%
  await deleteKeys(shard01, 100, 130);
  const checks = { contentChecks: { onShrink: 'fail' } };
  const failed = await backUp('shard01', 'shrink', checks, {}, 'shrink-fail');
  expect(failed.dump.code).toBe(0);
  expect(failed.upload.code).toBe(1);
  const errors = errorLines(failed.upload);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    new RegExp(
      `backup of shard shard01 failed: the dump of 127\\.0\\.0\\.1:\\d+ holds 20 keys, the newest earlier backup ${escaped(newer)} 50: less than 50% of them \\(spec\\.contentChecks\\.shrinkBelowPercent\\); nothing stored \\(onShrink: fail\\)$`,
    ),
  );
  expect((await keysUnder('shrink/')).sort()).toEqual([earlier, `${earlier}.json`, newer, `${newer}.json`].sort());
  expectNoDumpAtRest(failed.scratch);
  expect(await metric('redis_backup_last_run_success', 'shard01', 'shrink-fail')).toBe(0);
  expect(await metric('redis_backup_content_keys', 'shard01', 'shrink-fail')).toBe(20);
  expect(await metric('redis_backup_content_shrunk', 'shard01', 'shrink-fail')).toBe(1);

  // a shrink above the threshold is none: 50 -> 20 keys is 40%, over a threshold of 30
  const kept = await backUp('shard01', 'shrink', { contentChecks: { onShrink: 'fail', shrinkBelowPercent: 30 } });
  expect([kept.dump.code, kept.upload.code]).toEqual([0, 0]);
  expect(kept.upload.stderr).not.toContain('less than');
  expect(await backupsUnder('shrink/')).toHaveLength(3);
});

test('keys in db 0 and db 3: the metadata records both databases; without verifyRdb the check counts INFO keyspace', async () => {
  const args: string[] = [];
  for (let i = 0; i < 5; i++) args.push(`db3:key:${i}`, `v${i}`);
  await shard03.master.cli(['-n', '3', 'MSET', ...args]);
  await synced(shard03);
  const run = await backUp('shard03', 'databases');
  expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
  const [key] = await backupsUnder('databases/');
  expect(await keysOfObject(key)).toBe(21);
  expect(await metadataOf(key)).toMatchObject({ keyCount: 21, databases: { '0': 16, '3': 5 } });

  // verifyRdb: false: no keyCount; the check uses the server's count and the earlier backup's databases
  const unchecked = await backUp('shard03', 'databases', {}, { verifyRdb: false });
  expect([unchecked.dump.code, unchecked.upload.code]).toEqual([0, 0]);
  const second = (await backupsUnder('databases/')).find((k) => k !== key)!;
  const meta = await metadataOf(second);
  expect(meta).toMatchObject({ databases: { '0': 16, '3': 5 } });
  expect(meta).not.toHaveProperty('keyCount');

  await shard03.master.cli(['-n', '0', 'FLUSHDB']);
  await synced(shard03);
  const shrunk = await backUp('shard03', 'databases', {}, { verifyRdb: false });
  expect([shrunk.dump.code, shrunk.upload.code]).toEqual([0, 0]);
  expect(shrunk.upload.stderr).toMatch(
    new RegExp(
      `warn 127\\.0\\.0\\.1:\\d+ \\(INFO keyspace just before the dump, not read by redis-check-rdb: verifyRdb false\\) holds 5 keys, the newest earlier backup ${escaped(second)} 21: less than 50% of them`,
    ),
  );
  expect(await metric('redis_backup_content_keys', 'shard03', 'databases')).toBe(5);
});

test('the content lookup costs two aws calls (a listing and a read), and retention reuses that listing', async () => {
  const dir = tempDir('bcj-aws-calls-');
  const calls = path.join(dir, 'calls');
  const bin = standIn('aws', [`printf '%s\\n' "$*" >>"${calls}"`, `exec ${awsCliPath()} "$@"`]);
  const jobs = render(
    { s3: { bucket: BUCKET, path: 'calls', region: 'us-east-1' } },
    { retention: { keepLast: 1 } },
    'calls',
  );
  const older = 'calls/redis-backup_shard01_2023-09-20T08:30:01Z.rdb.gz';
  await s3.putObject(BUCKET, older, 'old');
  await s3.putObject(BUCKET, `${older}.json`, '{"keyCount": 30}'); // fewer keys than now: no shrink
  const run = await runBackupPod(jobs.shard01, { upload: { pathPrepend: [bin] } });
  expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
  expect(errorLines(run.upload)).toEqual([]);
  const [key] = await backupsUnder('calls/');
  expect(key).not.toBe(older); // keepLast: 1 pruned it
  const made = fs
    .readFileSync(calls, 'utf8')
    .trim()
    .split('\n')
    .map((l) =>
      l
        .replace(/^--endpoint-url \S+ /, '')
        .split(' ')
        .slice(0, 2)
        .join(' '),
    );
  expect(made.sort()).toEqual(
    [
      's3 cp', // the backup
      's3 cp', // its metadata
      's3api list-objects-v2', // the lookup's listing, reused by retention
      's3 cp', // the lookup's read of the earlier backup's metadata
      's3api delete-object', // retention: the older backup's metadata
      's3api delete-object', // ... its encrypted-name variant
      's3api delete-object', // ... and the backup
    ].sort(),
  );
});

test('onShrink fail on a stream longer than one multipart chunk: the upload is cancelled as after a bad verdict (nothing completes, its parts aborted)', async () => {
  // shard03 db 1: 16,000 random 1 KiB values, a gzip stream of about 12 MiB (the aws CLI's chunk: 8 MiB)
  for (let i = 0; i < 16000; i += 500) {
    const args: string[] = [];
    for (let j = i; j < i + 500; j++) args.push(`big:${j}`, randomBytes(768).toString('base64'));
    await shard03.master.cli(['-n', '1', 'MSET', ...args]);
  }
  await synced(shard03);
  const checks = { contentChecks: { onShrink: 'fail', shrinkBelowPercent: 90 } };
  const first = await backUp('shard03', 'bigshrink', checks);
  expect([first.dump.code, first.upload.code]).toEqual([0, 0]);
  const before = await keysUnder('bigshrink/');
  const [earlier] = await backupsUnder('bigshrink/');
  expect((await s3.listObjects(BUCKET, earlier))[0].size).toBeGreaterThan(8 * 1024 * 1024);

  const keys: string[] = [];
  for (let j = 0; j < 2400; j++) keys.push(`big:${j}`);
  await shard03.master.cli(['-n', '1', 'DEL', ...keys]);
  await synced(shard03);
  const failed = await backUp('shard03', 'bigshrink', checks);
  expect(failed.upload.code).toBe(1);
  const errors = errorLines(failed.upload);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    new RegExp(
      `the dump of 127\\.0\\.0\\.1:\\d+ holds 13605 keys, the newest earlier backup ${escaped(earlier)} 16005: less than 90% of them .*nothing stored \\(onShrink: fail\\)$`,
    ),
  );
  // its parts are to be aborted, which s3rver does not implement (as after a bad verdict: redis-backup.test.ts)
  expect(failed.upload.stderr).toMatch(
    / warn could not list the unfinished multipart uploads of s3:\/\/backups\/bigshrink\/.*NotImplemented/,
  );
  expect(await keysUnder('bigshrink/')).toEqual(before);
  expectNoDumpAtRest(failed.scratch);
});

test('INFO keyspace refused (an ACL user without it): a warning, no databases in the metadata, the dump still checked and stored', async () => {
  const real = findCommand('redis-cli')!;
  const bin = standIn('redis-cli', [
    'case " $* " in',
    `  *" INFO keyspace "*) echo "(error) NOPERM this user has no permissions to run the 'info' command" >&2; exit 1 ;;`,
    'esac',
    `exec ${real} "$@"`,
  ]);
  const jobs = render({ s3: { bucket: BUCKET, path: 'noinfo', region: 'us-east-1' } }, {}, 'noinfo');
  const run = await runBackupPod(jobs.shard01, { dump: { pathPrepend: [bin] } });
  expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
  expect(run.dump.stderr).toMatch(
    /warn INFO keyspace of 127\.0\.0\.1:\d+ failed: \(error\) NOPERM .*; the metadata records no keys per database/,
  );
  const [key] = await backupsUnder('noinfo/');
  const meta = await metadataOf(key);
  expect(meta).not.toHaveProperty('databases');
  expect(meta.keyCount).toBe(await keysOfObject(key));
  expect(await metric('redis_backup_content_keys', 'shard01', 'noinfo')).toBe(meta.keyCount);
});

test('no key count at all (verifyRdb false and INFO keyspace refused): onShrink fail stores nothing; warn stores it with a warning and pushes content_checked 0 (BackupContentUnchecked)', async () => {
  const real = findCommand('redis-cli')!;
  const bin = standIn('redis-cli', [
    'case " $* " in',
    `  *" INFO keyspace "*) echo "(error) NOPERM this user has no permissions to run the 'info' command" >&2; exit 1 ;;`,
    'esac',
    `exec ${real} "$@"`,
  ]);
  const s3 = { s3: { bucket: BUCKET, path: 'uncounted', region: 'us-east-1' } };
  const counted = await runBackupPod(render(s3, {}, 'uncounted').shard01);
  expect([counted.dump.code, counted.upload.code]).toEqual([0, 0]);
  expect(await metric('redis_backup_content_checked', 'shard01', 'uncounted')).toBe(1);
  const before = await keysUnder('uncounted/');
  await new Promise((resolve) => setTimeout(resolve, 1100));

  const uncounted = { ...s3, verifyRdb: false };
  const refused = await runBackupPod(render(uncounted, { contentChecks: { onShrink: 'fail' } }, 'uncounted').shard01, {
    dump: { pathPrepend: [bin] },
  });
  expect(refused.dump.code).toBe(0);
  expect(refused.upload.code).toBe(1);
  const errors = errorLines(refused.upload);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    /backup of shard shard01 failed: the dump of 127\.0\.0\.1:\d+ has no key count \(neither redis-check-rdb \(verifyRdb\) nor the server's INFO keyspace just before the dump counted its keys: see the redis-dump log\): its content cannot be checked; nothing stored \(onShrink: fail\)$/,
  );
  expect(await keysUnder('uncounted/')).toEqual(before);
  expectNoDumpAtRest(refused.scratch);
  expect(await metric('redis_backup_last_run_success', 'shard01', 'uncounted')).toBe(0);
  expect(await metric('redis_backup_content_checked', 'shard01', 'uncounted')).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, 1100));

  const stored = await runBackupPod(render(uncounted, {}, 'uncounted').shard01, { dump: { pathPrepend: [bin] } });
  expect([stored.dump.code, stored.upload.code]).toEqual([0, 0]);
  expect(stored.upload.stderr).toMatch(
    /warn the dump of 127\.0\.0\.1:\d+ has no key count \(.*\): its content cannot be checked; stored all the same \(onShrink: warn\)/,
  );
  expect(await backupsUnder('uncounted/')).toHaveLength(2);
  expect(await metric('redis_backup_last_run_success', 'shard01', 'uncounted')).toBe(1);
  expect(await metric('redis_backup_content_checked', 'shard01', 'uncounted')).toBe(0);
});
