// S3 Object Lock (spec.etcd.destination.s3.objectLock) for real: the rendered etcd backup and
// retention-prune pods against a real etcd with mutual TLS and s3rver behind the Object Lock stand-in
// (test/support/services/s3-object-lock.ts, which answers as S3 does). Every object a run writes is
// locked until the time in its name plus the lock's period; retention never deletes a locked backup,
// says so and pushes how many it kept; once the lock has ended, the prune deletes each version by id.
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
import { ObjectLockProxy, startObjectLockProxy } from '../../../../support/services/s3-object-lock';
import { SnapshotMetadata, errorLines, etcdPolicy, metricValue, removeTempDirs, runPod } from '../fixtures';

jest.setTimeout(600_000);

const LOCKED = 'etcd-locked';
const PLAIN = 'etcd-unlocked';
const DAY = 86_400;

let gateway: PushgatewayHandle;
let s3: S3Handle;
let proxy: ObjectLockProxy;
let etcd: EtcdTlsHandle;

beforeAll(async () => {
  requireCommands('etcd', 'etcdctl', 'busybox', 'openssl', 'curl');
  [gateway, s3, etcd] = await Promise.all([startPushgateway(), startS3({ buckets: [LOCKED, PLAIN] }), startEtcdTls()]);
  for (let i = 0; i < 5; i++) await etcd.etcdctl(['put', `/registry/k${i}`, `v${i}`]);
});

// a proxy (and clock) of its own per test
beforeEach(async () => {
  proxy = await startObjectLockProxy(s3, { lockEnabledBuckets: [LOCKED] });
});

afterEach(async () => {
  await proxy.close();
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

function lockedPolicy(bucket: string) {
  return etcdPolicy(
    {
      endpoint: etcd.endpoint,
      destination: {
        s3: {
          bucket,
          region: 'us-east-1',
          endpoint: proxy.endpoint,
          credentialsSecret: { name: 's3-creds' },
          objectLock: { mode: 'GOVERNANCE', period: '30d' },
        },
      },
    },
    { metrics: { pushgatewayUrl: gateway.url }, retention: { keepLast: 1, schedule: '0 5 * * *' } },
  );
}

const secrets = { 's3-creds': { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } };

function cronJob(policy: ReturnType<typeof lockedPolicy>, component: string) {
  const cj = renderPolicy(policy).find(
    (o) => o.kind === 'CronJob' && o.metadata.labels?.['app.kubernetes.io/component'] === component,
  );
  if (!cj) throw new Error(`no ${component} CronJob`);
  return cj;
}

const keys = async (bucket: string) => (await s3.listObjects(bucket)).map((o) => o.key);
const epochOf = (key: string) => Date.parse(/(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)/.exec(key)![1]) / 1000;

test('every object a run writes is locked for the period; retention keeps a locked backup, says until when, and pushes the count; after the lock the prune deletes it version by version', async () => {
  const policy = lockedPolicy(LOCKED);
  const backup = cronJob(policy, 'backup');
  const run = () => runPod(backup, { secrets, volumes: { 'etcd-certs': etcd.pkiDir }, timeoutMs: 240_000 });

  const first = await run();
  expect(first.failed).toBeUndefined();
  const [firstDb] = (await keys(LOCKED)).filter((k) => k.endsWith('.db'));
  const firstMeta = `${firstDb}.json`;
  const until = new Date((epochOf(firstDb) + 30 * DAY) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  for (const key of [firstDb, firstMeta]) {
    expect(proxy.retention(LOCKED, key)).toEqual({ mode: 'GOVERNANCE', retainUntil: new Date(until) });
  }
  const metadata = JSON.parse((await s3.getObject(LOCKED, firstMeta)).toString('utf8')) as SnapshotMetadata & {
    objectLock?: { mode: string; retainUntil: string };
  };
  expect(metadata.objectLock).toEqual({ mode: 'GOVERNANCE', retainUntil: until });
  await new Promise((resolve) => setTimeout(resolve, 1100));

  // keepLast 1 would delete the first backup: the prune keeps it while it is locked
  const second = await run();
  expect(second.failed).toBeUndefined();
  const prune = cronJob(policy, 'retention-prune');
  const early = await runPod(prune, { secrets, timeoutMs: 240_000 });
  expect(early.failed).toBeUndefined();
  expect(early.log).toContain(`not deleted yet: ${firstDb} is locked (S3 Object Lock, GOVERNANCE) until ${until}`);
  expect(early.log).toMatch(/deleted 0 backup\(s\); 1 more are due but still locked \(S3 Object Lock\)/);
  expect((await keys(LOCKED)).filter((k) => k.endsWith('.db'))).toHaveLength(2);
  expect(await metricValue(gateway, 'etcd_backup_retention_locked', prune.metadata.name)).toBe(1);
  // nothing was even tried against a lock the plan knew of
  expect(proxy.requests.filter((r) => r.startsWith('DeleteObject'))).toEqual([]);

  // 31 days later (the prune's clock and S3's): the first backup's lock has ended
  proxy.advance(31 * DAY);
  const now = String(Math.floor(Date.now() / 1000) + 31 * DAY);
  const pruned = await runPod(prune, { secrets, env: { RETENTION_NOW: now }, timeoutMs: 240_000 });
  expect(pruned.failed).toBeUndefined();
  expect(pruned.log).toContain(`deleted ${firstDb}`);
  expect(await keys(LOCKED)).not.toContain(firstDb);
  expect(await keys(LOCKED)).not.toContain(firstMeta);
  expect(proxy.requests).toContain(`DeleteObject ${LOCKED}/${firstDb}?versionId`);
  expect(proxy.requests.filter((r) => r === `DeleteObject ${LOCKED}/${firstDb}`)).toEqual([]);
  expect(await metricValue(gateway, 'etcd_backup_retention_locked', prune.metadata.name)).toBe(0);
});

test('a lock longer than the policy says (set by someone else): S3 refuses the delete, the prune keeps the backup, counts it and succeeds', async () => {
  const policy = lockedPolicy(LOCKED);
  const backup = cronJob(policy, 'backup');
  for (let i = 0; i < 2; i++) {
    const r = await runPod(backup, { secrets, volumes: { 'etcd-certs': etcd.pkiDir }, timeoutMs: 240_000 });
    expect(r.failed).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }
  const dbs = (await keys(LOCKED)).filter((k) => k.endsWith('.db')).sort();
  const older = dbs[dbs.length - 2];
  // a year-long lock on the older one, beyond the policy's 30 days
  const far = new Date((epochOf(older) + 365 * DAY) * 1000).toISOString();
  await proxy.aws([
    's3api',
    'put-object-retention',
    '--bucket',
    LOCKED,
    '--key',
    older,
    '--retention',
    `Mode=GOVERNANCE,RetainUntilDate=${far}`,
  ]);
  proxy.advance(31 * DAY);
  const prune = cronJob(policy, 'retention-prune');
  const now = String(Math.floor(Date.now() / 1000) + 62 * DAY);
  const pruned = await runPod(prune, { secrets, env: { RETENTION_NOW: now }, timeoutMs: 240_000 });
  expect(pruned.failed).toBeUndefined();
  expect(pruned.log).toMatch(
    new RegExp(
      `not deleted yet: ${older.replace(/\./g, '\\.')} is locked: S3 refused to delete \\S+ \\(version \\S+\\) as protected by Object Lock`,
    ),
  );
  expect(await keys(LOCKED)).toContain(older);
  expect(await metricValue(gateway, 'etcd_backup_retention_locked', prune.metadata.name)).toBeGreaterThanOrEqual(1);
});

test("a bucket without Object Lock: the run fails with S3's answer and keeps nothing", async () => {
  const backup = cronJob(lockedPolicy(PLAIN), 'backup');
  const run = await runPod(backup, { secrets, volumes: { 'etcd-certs': etcd.pkiDir }, timeoutMs: 240_000 });
  expect(run.failed).toBe('finalize');
  const errors = errorLines(run.results.finalize);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    /cannot lock s3:\/\/etcd-unlocked\/\S+\.json \(spec\.\.\.s3\.objectLock; the bucket must have Object Lock enabled\): An error occurred \(InvalidRequest\) when calling the PutObjectRetention operation: Bucket is missing Object Lock Configuration$/,
  );
  // the failed run removes what it uploaded
  for (let i = 0; i < 50 && (await keys(PLAIN)).length > 0; i++) await new Promise((r) => setTimeout(r, 200));
  expect(await keys(PLAIN)).toEqual([]);
});
