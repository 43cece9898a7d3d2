// S3 Object Lock (spec.redis.s3.objectLock) of the rendered Redis backup pod, for real: real Redis + Sentinel,
// s3rver behind the Object Lock stand-in (test/support/services/s3-object-lock.ts, answering as S3 does). The
// streamed backup and its metadata are locked once both are stored, until the time in the name plus the
// period (recorded in the metadata); a bucket without Object Lock fails the run and leaves nothing.
import type { RedisShard, S3Handle } from '../../../../support/services';
import { ObjectLockProxy, startObjectLockProxy } from '../../../../support/services/s3-object-lock';
import {
  BUCKET,
  errorLines,
  keysUnder,
  metadataOf,
  render,
  runBackupPod,
  startRedisServices,
  stopRedisServices,
} from './fixtures';

jest.setTimeout(120000);

let shard01: RedisShard;
let s3: S3Handle;
let locking: ObjectLockProxy;
let plain: ObjectLockProxy;

beforeAll(async () => {
  ({ shard01, s3 } = await startRedisServices({ replicas: { shard01: 1, shard02: 0, shard03: 0 }, bigKeys: 0 }));
  [locking, plain] = await Promise.all([
    startObjectLockProxy(s3, { lockEnabledBuckets: [BUCKET] }),
    startObjectLockProxy(s3, { lockEnabledBuckets: [] }),
  ]);
});

afterAll(async () => {
  await Promise.all([locking?.close(), plain?.close()]);
  await stopRedisServices();
});

const lock = { mode: 'COMPLIANCE' as const, period: '7d' };

test('the backup and its metadata are locked until the time in the name plus the period, which the metadata records', async () => {
  expect(shard01.replicas.length).toBe(1);
  const jobs = render({
    s3: { bucket: BUCKET, path: 'locked', region: 'us-east-1', endpoint: locking.endpoint, objectLock: lock },
  });
  const run = await runBackupPod(jobs.shard01);
  expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
  const [backup, meta] = await keysUnder('locked/');
  expect(meta).toBe(`${backup}.json`);
  const time = /_(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\.rdb\.gz$/.exec(backup)![1];
  const until = new Date(Date.parse(time) + 7 * 86_400_000);
  for (const key of [backup, meta])
    expect(locking.retention(BUCKET, key)).toEqual({ mode: 'COMPLIANCE', retainUntil: until });
  expect((await metadataOf(backup)).objectLock).toEqual({
    mode: 'COMPLIANCE',
    retainUntil: until.toISOString().replace('.000Z', 'Z'),
  });
});

test("a bucket without Object Lock: the run fails with S3's answer and leaves neither object", async () => {
  const jobs = render({
    s3: { bucket: BUCKET, path: 'unlocked', region: 'us-east-1', endpoint: plain.endpoint, objectLock: lock },
  });
  const run = await runBackupPod(jobs.shard01);
  expect(run.upload.code).toBe(1);
  expect(errorLines(run.upload)).toEqual([
    expect.stringMatching(
      /cannot lock s3:\/\/backups\/unlocked\/\S+\.rdb\.gz\.json \(s3\.objectLock; the bucket must have Object Lock enabled\): An error occurred \(InvalidRequest\) when calling the PutObjectRetention operation: Bucket is missing Object Lock Configuration; no object left under that name$/,
    ),
  ]);
  expect(await keysUnder('unlocked/')).toEqual([]);
});
