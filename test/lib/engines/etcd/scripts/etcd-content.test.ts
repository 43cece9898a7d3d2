// Content checks (spec.contentChecks) of the rendered etcd backup pod, for real: a real etcd with mutual TLS,
// a hostPath-like directory or s3rver as the destination, and a real Pushgateway. The keys at the snapshot's
// revision are compared with the keyCount of the newest earlier backup's metadata: deleting most keys makes
// the next run warn (stored) or fail (nothing stored), and an etcd without keys fails unless allowEmpty.
import { renderPolicy } from '../../../../../lib';
import {
  EtcdTlsHandle,
  PushgatewayHandle,
  S3Handle,
  requireCommands,
  startEtcdTls,
  startPushgateway,
  startS3,
  stopAll,
} from '../../../../support/services';
import { cronJobOf, errorLines, etcdPolicy, filesOf, metricValue, removeTempDirs, runPod, tempDir } from '../fixtures';

jest.setTimeout(180000);

const SNAPSHOT = /^etcd-snapshot_etcd_\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ_cp-1\.db$/;
const BUCKET = 'etcd-content';

let gateway: PushgatewayHandle;
let s3: S3Handle;

beforeAll(async () => {
  requireCommands('etcd', 'etcdctl', 'busybox', 'openssl', 'curl');
  [gateway, s3] = await Promise.all([startPushgateway(), startS3({ buckets: [BUCKET] })]);
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

/** An etcd with `count` keys under /registry/. */
async function etcdWithKeys(count: number): Promise<EtcdTlsHandle> {
  const etcd = await startEtcdTls();
  for (let i = 0; i < count; i++) await etcd.etcdctl(['put', `/registry/k${String(i).padStart(3, '0')}`, `v${i}`]);
  return etcd;
}

/** Keeps the first `keep` keys under /registry/. */
async function deleteAllBut(etcd: EtcdTlsHandle, keep: number, count: number): Promise<void> {
  for (let i = keep; i < count; i++) await etcd.etcdctl(['del', `/registry/k${String(i).padStart(3, '0')}`]);
}

function dirPolicy(etcd: EtcdTlsHandle, contentChecks?: Record<string, unknown>) {
  // curl for the metrics push comes with images.shell (the default busybox has none)
  return etcdPolicy(
    { endpoint: etcd.endpoint, images: { shell: 'curlimages/curl:8.10.1' } },
    { metrics: { pushgatewayUrl: gateway.url }, ...(contentChecks ? { contentChecks } : {}) },
  );
}

/** One run of the policy's backup pod into `dest` (a hostPath destination); waits a second so names differ. */
async function backUp(etcd: EtcdTlsHandle, policy: ReturnType<typeof dirPolicy>, dest: string) {
  renderPolicy(policy); // valid
  const cj = cronJobOf(policy);
  const run = await runPod(cj, { volumes: { backup: dest, 'etcd-certs': etcd.pkiDir } });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  return { run, target: cj.metadata.name };
}

const metric = (name: string, target: string) => metricValue(gateway, name, target);
const snapshots = (dir: string) => filesOf(dir).filter((f) => SNAPSHOT.test(f));

test('keys deleted between two runs: the second run warns with both counts and stores the snapshot (default onShrink: warn); the gauges say so', async () => {
  const etcd = await etcdWithKeys(40);
  const dest = tempDir('content-warn');
  const first = await backUp(etcd, dirPolicy(etcd), dest);
  expect(first.run.failed).toBeUndefined();
  expect(first.run.log).toContain('no earlier backup in');
  expect(await metric('etcd_backup_content_keys', first.target)).toBe(40);
  expect(await metric('etcd_backup_content_shrunk', first.target)).toBe(0);
  const [earlier] = snapshots(dest);

  await deleteAllBut(etcd, 10, 40);
  const second = await backUp(etcd, dirPolicy(etcd), dest);
  expect(second.run.failed).toBeUndefined();
  expect(second.run.log).toMatch(
    new RegExp(
      `warn .*the snapshot at revision \\d+ holds 10 keys, the newest earlier backup ${earlier.replace(/\./g, '\\.')} 40: less than 50% of them \\(spec\\.contentChecks\\.shrinkBelowPercent\\); stored all the same \\(onShrink: warn\\)`,
    ),
  );
  expect(snapshots(dest)).toHaveLength(2);
  expect(await metric('etcd_backup_content_keys', second.target)).toBe(10);
  expect(await metric('etcd_backup_content_shrunk', second.target)).toBe(1);

  // a shrink above the threshold is no shrink: 10 → 6 keys is 60% with the default 50
  await deleteAllBut(etcd, 6, 10);
  const third = await backUp(etcd, dirPolicy(etcd), dest);
  expect(third.run.failed).toBeUndefined();
  expect(third.run.log).not.toContain('less than');
  expect(await metric('etcd_backup_content_shrunk', third.target)).toBe(0);
});

test('onShrink fail and a higher threshold: the run fails with one line giving both counts, stores nothing, and pushes the failure with the shrink', async () => {
  const etcd = await etcdWithKeys(20);
  const dest = tempDir('content-fail');
  const checks = { onShrink: 'fail', shrinkBelowPercent: 90 };
  expect((await backUp(etcd, dirPolicy(etcd, checks), dest)).run.failed).toBeUndefined();
  const before = filesOf(dest);

  await deleteAllBut(etcd, 17, 20); // 85% of 20 keys, under 90%
  const { run, target } = await backUp(etcd, dirPolicy(etcd, checks), dest);
  expect(run.failed).toBe('finalize');
  const errors = errorLines(run.results.finalize);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    /the snapshot at revision \d+ holds 17 keys, the newest earlier backup \S+ 20: less than 90% of them \(spec\.contentChecks\.shrinkBelowPercent\); nothing stored \(onShrink: fail\)$/,
  );
  expect(filesOf(dest)).toEqual(before);
  expect(await metric('etcd_backup_last_run_success', target)).toBe(0);
  expect(await metric('etcd_backup_content_shrunk', target)).toBe(1);
});

test('an etcd without keys: the run fails and stores nothing, unless allowEmpty', async () => {
  const etcd = await etcdWithKeys(0);
  const dest = tempDir('content-empty');
  const refused = await backUp(etcd, dirPolicy(etcd), dest);
  expect(refused.run.failed).toBe('finalize');
  const errors = errorLines(refused.run.results.finalize);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    /the snapshot at revision \d+ holds no keys: an empty source is refused \(spec\.contentChecks\.allowEmpty: true stores it\); nothing stored$/,
  );
  expect(filesOf(dest)).toEqual([]);

  const allowed = await backUp(etcd, dirPolicy(etcd, { allowEmpty: true }), dest);
  expect(allowed.run.failed).toBeUndefined();
  expect(snapshots(dest)).toHaveLength(1);
  expect(await metric('etcd_backup_content_keys', allowed.target)).toBe(0);
});

test('an S3 destination: the newest earlier backup and its metadata are read from the bucket', async () => {
  const etcd = await etcdWithKeys(30);
  const policy = etcdPolicy(
    {
      endpoint: etcd.endpoint,
      destination: {
        s3: {
          bucket: BUCKET,
          path: 'prod',
          region: 'us-east-1',
          endpoint: s3.endpoint,
          credentialsSecret: { name: 's3-creds' },
        },
      },
    },
    { metrics: { pushgatewayUrl: gateway.url } },
  );
  const cj = cronJobOf(policy);
  const secrets = { 's3-creds': { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } };
  const run = () => runPod(cj, { secrets, volumes: { 'etcd-certs': etcd.pkiDir }, timeoutMs: 240_000 });
  expect((await run()).failed).toBeUndefined();
  const [first] = (await s3.listObjects(BUCKET, 'prod/')).map((o) => o.key).filter((k) => k.endsWith('.db'));
  await new Promise((resolve) => setTimeout(resolve, 1100));

  await deleteAllBut(etcd, 3, 30);
  const second = await run();
  expect(second.failed).toBeUndefined();
  expect(second.log).toMatch(
    new RegExp(`holds 3 keys, the newest earlier backup ${first.replace(/\./g, '\\.')} 30: less than 50% of them`),
  );
  expect(await metric('etcd_backup_content_shrunk', cj.metadata.name)).toBe(1);
}, 600_000);
