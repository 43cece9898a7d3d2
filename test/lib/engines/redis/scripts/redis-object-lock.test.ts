// S3 Object Lock (spec.redis.s3.objectLock) of the rendered Redis backup pod, for real: real Redis + Sentinel,
// moto's S3 server (a versioned bucket with Object Lock, which it enforces; and one without). The streamed
// backup and its metadata are locked once both are stored, until the time in the name plus the period
// (recorded in the metadata); a bucket without Object Lock fails the run and leaves nothing; a run that
// cannot lock removes what it stored version by version (a delete without a version id would only hide the
// data behind a delete marker), and says which object its lock keeps.
import { MotoHandle, RedisShard, awsCliPath, freePort, startMoto } from '../../../../support/services';
import {
  BUCKET,
  errorLines,
  render,
  runBackupPod,
  secrets,
  standIn,
  startRedisServices,
  stopRedisServices,
} from './fixtures';

jest.setTimeout(300_000);

const PLAIN = 'backups-unlocked';
const DAY = 86_400;

let shard01: RedisShard;
let moto: MotoHandle;

beforeAll(async () => {
  [{ shard01 }, moto] = await Promise.all([
    startRedisServices({ replicas: { shard01: 1, shard02: 0, shard03: 0 }, bigKeys: 0 }),
    startMoto({ buckets: [{ name: BUCKET, objectLock: true }, { name: PLAIN }] }),
  ]);
});

afterAll(async () => {
  await moto?.stop();
  await stopRedisServices();
});

const lock = { mode: 'COMPLIANCE' as const, period: '7d' };
const motoSecrets = () =>
  secrets({ 'aws-credentials': { AWS_ACCESS_KEY_ID: moto.accessKeyId, AWS_SECRET_ACCESS_KEY: moto.secretAccessKey } });
const jobsFor = (bucket: string, prefix: string) =>
  render({ s3: { bucket, path: prefix, region: 'us-east-1', endpoint: moto.endpoint, objectLock: lock } });
const keysUnder = async (bucket: string, prefix: string) => (await moto.listObjects(bucket, prefix)).map((o) => o.key);
const timeOf = (key: string) => /_(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\.rdb\.gz/.exec(key)![1];
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

test('the backup and its metadata are locked until the time in the name plus the period, which the metadata records', async () => {
  expect(shard01.replicas.length).toBe(1);
  const run = await runBackupPod(jobsFor(BUCKET, 'locked').shard01, { secrets: motoSecrets() });
  expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
  const [backup, meta] = await keysUnder(BUCKET, 'locked/');
  expect(meta).toBe(`${backup}.json`);
  const until = new Date(Date.parse(timeOf(backup)) + 7 * DAY * 1000);
  for (const key of [backup, meta])
    expect(await moto.retention(BUCKET, key)).toEqual({ mode: 'COMPLIANCE', retainUntil: until });
  const metadata = JSON.parse((await moto.getObject(BUCKET, meta)).toString('utf8')) as Record<string, unknown>;
  expect(metadata.objectLock).toEqual({ mode: 'COMPLIANCE', retainUntil: iso(until.getTime()) });
});

test("a bucket without Object Lock: the run fails with S3's answer and leaves neither object", async () => {
  const run = await runBackupPod(jobsFor(PLAIN, 'unlocked').shard01, { secrets: motoSecrets() });
  expect(run.upload.code).toBe(1);
  expect(errorLines(run.upload)).toEqual([
    expect.stringMatching(
      /cannot lock s3:\/\/backups-unlocked\/unlocked\/\S+\.rdb\.gz\.json \(s3\.objectLock; the bucket must have Object Lock enabled\): An error occurred \(InvalidRequest\) when calling the PutObjectRetention operation: Bucket is missing ObjectLockConfiguration; no object left under that name$/,
    ),
  ]);
  expect(await keysUnder(PLAIN, 'unlocked/')).toEqual([]);
  expect(await moto.listObjectVersions(PLAIN, 'unlocked/')).toEqual([]);
});

test('locking the backup fails after its metadata was locked: the run fails, the backup goes version by version, the locked metadata stays and the error says until when', async () => {
  // the aws CLI the pod runs, with its PutObjectRetention of the backup itself sent to a port where nothing listens
  const down = await freePort();
  const real = awsCliPath();
  const bin = standIn('aws', [
    'case " $* " in',
    `  *" put-object-retention "*".rdb.gz "*) [ "$1" = --endpoint-url ] && shift 2; exec ${real} --endpoint-url http://127.0.0.1:${down} "$@" ;;`,
    'esac',
    `exec ${real} "$@"`,
  ]);
  const run = await runBackupPod(jobsFor(BUCKET, 'half-locked').shard01, {
    secrets: motoSecrets(),
    upload: { pathPrepend: [bin] },
  });
  expect(run.upload.code).toBe(1);
  const [meta] = await keysUnder(BUCKET, 'half-locked/');
  expect(meta).toMatch(/\.rdb\.gz\.json$/);
  const backup = meta.replace(/\.json$/, '');
  const until = iso(Date.parse(timeOf(backup)) + 7 * DAY * 1000);
  const [metaVersion] = await moto.listObjectVersions(BUCKET, meta);
  const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  expect(errorLines(run.upload)).toEqual([
    expect.stringMatching(
      new RegExp(
        `cannot lock s3://${esc(`${BUCKET}/${backup}`)} \\(s3\\.objectLock; the bucket must have Object Lock enabled\\): ` +
          `Could not connect to the endpoint URL: "http://127\\.0\\.0\\.1:${down}/\\S+\\?retention"; ` +
          esc(
            `an object stays under that name: locked: S3 refused to delete ${meta} (version ${metaVersion.versionId}) as protected by Object Lock (COMPLIANCE until ${until})`,
          ) +
          '$',
      ),
    ),
  ]);
  // nothing of the backup is left, not even behind a delete marker; the metadata keeps its one version
  expect(await moto.listObjectVersions(BUCKET, backup).then((vs) => vs.filter((v) => v.key === backup))).toEqual([]);
  expect((await moto.listObjectVersions(BUCKET, meta)).map((v) => [v.key, v.deleteMarker])).toEqual([[meta, false]]);
});
