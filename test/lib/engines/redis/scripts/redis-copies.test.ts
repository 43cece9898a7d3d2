// Further copies (spec.redis.copies, issue 21.3) of the rendered Redis backup pod, for real: real Redis +
// Sentinel, the backup's s3rver, a second s3rver for a copy, a copy whose server is down, and a real
// Pushgateway. The copy is streamed from the backup's own bucket (with the backup's credentials) into the
// copy's (with its own), counted and hashed on the way and read back; a failed copy never fails the run.
import type { PushgatewayHandle, S3Handle } from '../../../../support/services';
import { freePort, startS3 } from '../../../../support/services';
import { BUCKET, errorLines, keysUnder, render, runBackupPod, startRedisServices, stopRedisServices } from './fixtures';

jest.setTimeout(180000);

let s3: S3Handle;
let gateway: PushgatewayHandle;
let offsite: S3Handle;
let downPort: number;

beforeAll(async () => {
  ({ s3, gateway } = await startRedisServices({ replicas: { shard01: 1, shard02: 0, shard03: 0 }, bigKeys: 0 }));
  [offsite, downPort] = await Promise.all([startS3({ buckets: ['redis-offsite'] }), freePort()]);
});

afterAll(stopRedisServices);

/** The pushed value of a copy gauge of shard01's backup. */
async function copyGauge(name: string, copy: string): Promise<number | undefined> {
  const line = (await gateway.metrics())
    .split('\n')
    .find(
      (l) => l.startsWith(`redis_backup_${name}{`) && l.includes(`copy="${copy}"`) && l.includes('shard="shard01"'),
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('a good copy holds the same bytes and keeps its own rules; a copy whose server is down is a warning and a metric, and the run succeeds', async () => {
  const copies = [
    {
      name: 'offsite',
      s3: {
        bucket: 'redis-offsite',
        path: 'dr',
        region: 'eu-west-1',
        endpoint: offsite.endpoint,
        credentialsSecret: { name: 'aws-credentials' },
      },
      retention: { keepLast: 1 },
    },
    {
      name: 'broken',
      s3: {
        bucket: 'redis-nowhere',
        region: 'eu-west-1',
        endpoint: `http://127.0.0.1:${downPort}`,
        credentialsSecret: { name: 'aws-credentials' },
      },
    },
  ];
  const jobs = render({ s3: { bucket: BUCKET, path: 'copied', region: 'us-east-1' }, copies });
  for (let i = 0; i < 2; i++) {
    const run = await runBackupPod(jobs.shard01);
    expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
    expect(errorLines(run.upload)).toEqual([]);
    expect(run.upload.stderr).toMatch(
      /warn copy broken failed: uploading s3:\/\/redis-nowhere\/\S+\.json failed: .+; the backup itself is stored/,
    );
    expect(run.upload.stderr).toMatch(
      /info copy offsite: stored and checked s3:\/\/redis-offsite\/dr\/redis-backup_shard01_\S+\.rdb\.gz/,
    );
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }
  // the backup keeps both (no rules of its own); the copy its newest, with its metadata
  const stored = (await keysUnder('copied/')).filter((k) => !k.endsWith('.json'));
  expect(stored).toHaveLength(2);
  const newest = stored[1].replace(/^copied\//, '');
  expect((await offsite.listObjects('redis-offsite')).map((o) => o.key)).toEqual([`dr/${newest}`, `dr/${newest}.json`]);
  for (const name of [newest, `${newest}.json`])
    expect(
      (await offsite.getObject('redis-offsite', `dr/${name}`)).equals(await s3.getObject(BUCKET, `copied/${name}`)),
    ).toBe(true);
  expect(await copyGauge('copy_last_run_success', 'offsite')).toBe(1);
  expect(await copyGauge('copy_last_run_success', 'broken')).toBe(0);
  expect(await copyGauge('copy_last_success_timestamp_seconds', 'broken')).toBeUndefined();
});
