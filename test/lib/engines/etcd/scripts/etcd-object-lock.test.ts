// S3 Object Lock (spec.etcd.destination.s3.objectLock, and a copy's) for real: the rendered etcd backup
// and retention-prune pods against a real etcd with mutual TLS and moto's S3 server (versioned buckets
// with Object Lock, which it enforces by its own clock). Every object a run writes is locked until the
// time in its name plus the lock's period; retention never deletes a locked backup, says so and pushes
// how many it kept; once the lock has ended, the prune deletes each version by id, leaving no version
// and no delete marker. A server's clock cannot be moved: where a test needs a lock that has ended, an
// administrator shortens the GOVERNANCE lock (PutObjectRetention with x-amz-bypass-governance-retention,
// as S3 allows) and the test waits the few seconds left, while the prune's own clock (RETENTION_NOW) is
// past the policy's period.
import { renderPolicy } from '../../../../../lib';
import {
  EtcdTlsHandle,
  MotoHandle,
  PushgatewayHandle,
  requireCommands,
  startEtcdTls,
  startMoto,
  startPushgateway,
  stopAll,
} from '../../../../support/services';
import { SnapshotMetadata, errorLines, etcdPolicy, metricValue, removeTempDirs, runPod } from '../fixtures';

jest.setTimeout(900_000);

const LOCKED = 'etcd-locked';
const PLAIN = 'etcd-unlocked';
const VAULT = 'etcd-vault';
const DAY = 86_400;

let gateway: PushgatewayHandle;
let moto: MotoHandle;
let etcd: EtcdTlsHandle;

beforeAll(async () => {
  requireCommands('etcd', 'etcdctl', 'busybox', 'openssl', 'curl');
  [gateway, etcd] = await Promise.all([startPushgateway(), startEtcdTls()]);
  for (let i = 0; i < 5; i++) await etcd.etcdctl(['put', `/registry/k${i}`, `v${i}`]);
});

// a server (and buckets) of its own per test
beforeEach(async () => {
  moto = await startMoto({
    buckets: [
      { name: LOCKED, objectLock: true },
      { name: VAULT, objectLock: true },
      { name: PLAIN }, // neither Object Lock nor versioning
    ],
  });
});

afterEach(async () => {
  await moto?.stop();
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

function lockedPolicy(bucket: string, extra: Record<string, unknown> = {}) {
  return etcdPolicy(
    {
      endpoint: etcd.endpoint,
      destination: {
        s3: {
          bucket,
          region: 'us-east-1',
          endpoint: moto.endpoint,
          credentialsSecret: { name: 's3-creds' },
          objectLock: { mode: 'GOVERNANCE', period: '30d' },
        },
      },
      ...extra,
    },
    { metrics: { pushgatewayUrl: gateway.url }, retention: { keepLast: 1, schedule: '0 5 * * *' } },
  );
}

const secrets = () => ({
  's3-creds': { AWS_ACCESS_KEY_ID: moto.accessKeyId, AWS_SECRET_ACCESS_KEY: moto.secretAccessKey },
});

function cronJob(policy: ReturnType<typeof lockedPolicy>, component: string) {
  const cj = renderPolicy(policy).find(
    (o) => o.kind === 'CronJob' && o.metadata.labels?.['app.kubernetes.io/component'] === component,
  );
  if (!cj) throw new Error(`no ${component} CronJob`);
  return cj;
}

const keys = async (bucket: string) => (await moto.listObjects(bucket)).map((o) => o.key);
const dbs = async (bucket: string) => (await keys(bucket)).filter((k) => k.endsWith('.db')).sort();
const epochOf = (key: string) => Date.parse(/(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)/.exec(key)![1]) / 1000;
const iso = (epoch: number) => new Date(epoch * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function backup(policy: ReturnType<typeof lockedPolicy>) {
  const run = await runPod(cronJob(policy, 'backup'), {
    secrets: secrets(),
    volumes: { 'etcd-certs': etcd.pkiDir },
    timeoutMs: 300_000,
  });
  await sleep(1100); // the next run's name is a second later
  return run;
}

/** As an administrator with s3:BypassGovernanceRetention: the GOVERNANCE lock of `key` ends in `seconds`. */
async function shortenLock(bucket: string, key: string, seconds: number): Promise<void> {
  await moto.aws([
    's3api',
    'put-object-retention',
    '--bucket',
    bucket,
    '--key',
    key,
    '--bypass-governance-retention',
    '--retention',
    `Mode=GOVERNANCE,RetainUntilDate=${iso(Math.ceil(Date.now() / 1000) + seconds)}`,
  ]);
}

/** Waits until every lock of `key` (as HeadObject tells) has ended by the wall clock the server uses. */
async function waitUnlocked(bucket: string, key: string): Promise<void> {
  const r = await moto.retention(bucket, key);
  if (r) await sleep(Math.max(0, r.retainUntil.getTime() - Date.now()) + 1100);
}

test('every object a run writes is locked for the period; retention keeps a locked backup, says until when, and pushes the count; after the lock the prune deletes it version by version', async () => {
  const policy = lockedPolicy(LOCKED);
  const first = await backup(policy);
  expect(first.failed).toBeUndefined();
  const [firstDb] = await dbs(LOCKED);
  const firstMeta = `${firstDb}.json`;
  const until = iso(epochOf(firstDb) + 30 * DAY);
  for (const key of [firstDb, firstMeta])
    expect(await moto.retention(LOCKED, key)).toEqual({ mode: 'GOVERNANCE', retainUntil: new Date(until) });
  const metadata = JSON.parse((await moto.getObject(LOCKED, firstMeta)).toString('utf8')) as SnapshotMetadata & {
    objectLock?: { mode: string; retainUntil: string };
  };
  expect(metadata.objectLock).toEqual({ mode: 'GOVERNANCE', retainUntil: until });

  // keepLast 1 would delete the first backup: the prune keeps it while it is locked
  expect((await backup(policy)).failed).toBeUndefined();
  const prune = cronJob(policy, 'retention-prune');
  const early = await runPod(prune, { secrets: secrets(), timeoutMs: 300_000 });
  expect(early.failed).toBeUndefined();
  expect(early.log).toContain(`not deleted yet: ${firstDb} is locked (S3 Object Lock, GOVERNANCE) until ${until}`);
  expect(early.log).toMatch(/deleted 0 backup\(s\); 1 more are due but still locked \(S3 Object Lock\)/);
  expect(await dbs(LOCKED)).toHaveLength(2);
  expect(await metricValue(gateway, 'etcd_backup_retention_locked', prune.metadata.name)).toBe(1);
  // nothing was even tried against a lock the plan knew of
  expect(moto.requests().filter((r) => r.startsWith('DELETE '))).toEqual([]);

  // 31 days later by the prune's clock; S3's lock on the first backup ends in a few seconds (shortened)
  for (const key of [firstDb, firstMeta]) await shortenLock(LOCKED, key, 3);
  for (const key of [firstDb, firstMeta]) await waitUnlocked(LOCKED, key);
  const now = String(epochOf(firstDb) + 31 * DAY);
  const pruned = await runPod(prune, { secrets: secrets(), env: { RETENTION_NOW: now }, timeoutMs: 300_000 });
  expect(pruned.failed).toBeUndefined();
  expect(pruned.log).toContain(`deleted ${firstDb}`);
  expect(await keys(LOCKED)).not.toContain(firstDb);
  // every version went, by its id: no version and no delete marker is left of either object
  expect(await moto.listObjectVersions(LOCKED, firstDb)).toEqual([]);
  const deletes = moto.requests().filter((r) => r.startsWith('DELETE '));
  expect(deletes.length).toBeGreaterThanOrEqual(2);
  for (const r of deletes) expect(r).toMatch(/\?versionId=\S+ 204$/);
  expect(await metricValue(gateway, 'etcd_backup_retention_locked', prune.metadata.name)).toBe(0);
});

test('a lock longer than the policy says (COMPLIANCE, set by someone else): S3 refuses to delete that version, the prune keeps the backup, says until when, counts it and succeeds', async () => {
  const policy = lockedPolicy(LOCKED);
  for (let i = 0; i < 2; i++) expect((await backup(policy)).failed).toBeUndefined();
  const [older] = await dbs(LOCKED);
  // a year-long COMPLIANCE lock on the older snapshot, beyond the policy's 30 days (from GOVERNANCE: with the bypass)
  const far = iso(Math.floor(Date.now() / 1000) + 365 * DAY);
  await moto.aws([
    's3api',
    'put-object-retention',
    '--bucket',
    LOCKED,
    '--key',
    older,
    '--bypass-governance-retention',
    '--retention',
    `Mode=COMPLIANCE,RetainUntilDate=${far}`,
  ]);
  // its metadata's lock (the policy's) ends in a few seconds
  await shortenLock(LOCKED, `${older}.json`, 3);
  await waitUnlocked(LOCKED, `${older}.json`);
  const [version] = (await moto.listObjectVersions(LOCKED, older)).filter((v) => v.key === older);

  const prune = cronJob(policy, 'retention-prune');
  const now = String(epochOf(older) + 31 * DAY);
  const pruned = await runPod(prune, { secrets: secrets(), env: { RETENTION_NOW: now }, timeoutMs: 300_000 });
  expect(pruned.failed).toBeUndefined();
  for (const r of Object.values(pruned.results)) expect(errorLines(r)).toEqual([]);
  expect(pruned.log).toContain(
    `not deleted yet: ${older} is locked: S3 refused to delete ${older} (version ${version.versionId}) as protected by Object Lock (COMPLIANCE until ${far})`,
  );
  expect(moto.requests()).toContain(`DELETE /${LOCKED}/${older}?versionId=${version.versionId} 403`);
  expect(await keys(LOCKED)).toContain(older);
  expect(await moto.retention(LOCKED, older)).toEqual({ mode: 'COMPLIANCE', retainUntil: new Date(far) });
  expect(await metricValue(gateway, 'etcd_backup_retention_locked', prune.metadata.name)).toBe(1);
});

test("a bucket without Object Lock: the run fails with S3's answer and keeps nothing", async () => {
  const run = await backup(lockedPolicy(PLAIN));
  expect(run.failed).toBe('finalize');
  const errors = errorLines(run.results.finalize);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    /cannot lock s3:\/\/etcd-unlocked\/\S+\.json \(spec\.\.\.s3\.objectLock; the bucket must have Object Lock enabled\): An error occurred \(InvalidRequest\) when calling the PutObjectRetention operation: Bucket is missing ObjectLockConfiguration$/,
  );
  // the failed run removes what it uploaded
  for (let i = 0; i < 50 && (await keys(PLAIN)).length > 0; i++) await sleep(200);
  expect(await keys(PLAIN)).toEqual([]);
  expect(await moto.listObjectVersions(PLAIN)).toEqual([]);
});

test("copies: each copied object is locked with the copy's own lock; a copy into a bucket without Object Lock is a warning, and the run succeeds", async () => {
  const copy = (name: string, bucket: string, objectLock: Record<string, string>) => ({
    name,
    s3: {
      bucket,
      path: 'dr',
      region: 'us-east-1',
      endpoint: moto.endpoint,
      credentialsSecret: { name: 's3-creds' },
      objectLock,
    },
  });
  const policy = lockedPolicy(LOCKED, {
    copies: [
      copy('vault', VAULT, { mode: 'COMPLIANCE', period: '2d' }),
      copy('nolock', PLAIN, { mode: 'GOVERNANCE', period: '1d' }),
    ],
  });
  const run = await backup(policy);
  expect(run.failed).toBeUndefined();
  const [db] = await dbs(LOCKED);
  expect(run.log).toContain(`info copy vault: stored and checked s3://${VAULT}/dr/${db}`);
  expect(run.log).toMatch(
    new RegExp(
      `warn copy nolock failed: cannot lock s3://${PLAIN}/dr/${db.replace(/\./g, '\\.')}\\.json: An error occurred \\(InvalidRequest\\) when calling the PutObjectRetention operation: Bucket is missing ObjectLockConfiguration; the backup itself is stored`,
    ),
  );
  expect(await keys(VAULT)).toEqual([`dr/${db}`, `dr/${db}.json`]);
  for (const key of await keys(VAULT))
    expect(await moto.retention(VAULT, key)).toEqual({
      mode: 'COMPLIANCE',
      retainUntil: new Date(iso(epochOf(db) + 2 * DAY)),
    });
  // the same bytes as the backup's own objects
  for (const name of [db, `${db}.json`])
    expect((await moto.getObject(VAULT, `dr/${name}`)).equals(await moto.getObject(LOCKED, name))).toBe(true);
});
