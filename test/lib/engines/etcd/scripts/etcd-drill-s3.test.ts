// Restore drills of etcd backups in S3, for real: a real etcd with mTLS, s3rver
// on loopback, the aws CLI, age and a Pushgateway. The backups are taken by the
// rendered backup CronJob on two nodes (cluster mode); the rendered drill
// CronJob downloads the newest of every node's snapshots, decrypts it when it
// is encrypted, restores it into a temporary member and pushes its result.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { renderPolicy } from '../../../../../lib';
import type { BackupPolicy, Manifest } from '../../../../../lib';
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
import {
  cronJobs,
  errorLines,
  etcdPolicy,
  filesOf,
  metricValue,
  removeTempDirs,
  runPod,
  stamp,
  tempDir,
  type SnapshotMetadata,
} from '../fixtures';

jest.setTimeout(180000);

const BUCKET = 'etcd-drills';
const PREFIX = 'prod/etcd/';

let etcd: EtcdTlsHandle;
let s3: S3Handle;
let gateway: PushgatewayHandle;

beforeAll(async () => {
  requireCommands('etcd', 'etcdctl', 'busybox', 'age', 'age-keygen', 'curl');
  [etcd, s3, gateway] = await Promise.all([startEtcdTls(), startS3({ buckets: [BUCKET] }), startPushgateway()]);
  for (let i = 0; i < 30; i++) await etcd.etcdctl(['put', `/registry/s3/k${i}`, `v${i}`]);
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

/** s3rver's fixed credentials, as the Secret the policy names. */
const S3_CREDS = { 's3-creds': { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } };

function s3Policy(name: string, spec: Record<string, unknown> = {}): BackupPolicy {
  return etcdPolicy(
    {
      endpoint: etcd.endpoint,
      destination: {
        s3: {
          bucket: BUCKET,
          path: 'prod/etcd',
          region: 'us-east-1',
          endpoint: s3.endpoint,
          credentialsSecret: { name: 's3-creds' },
        },
      },
    },
    { metrics: { pushgatewayUrl: gateway.url }, drill: { schedule: '@daily' }, ...spec },
    name,
  );
}

const component = (cj: Manifest) => (cj.metadata.labels as Record<string, string>)['app.kubernetes.io/component'];
const cronJobOfComponent = (policy: BackupPolicy, c: string) =>
  cronJobs(renderPolicy(policy)).find((cj) => component(cj) === c)!;
const keys = async (policy: BackupPolicy) =>
  (await s3.listObjects(BUCKET, `${PREFIX}etcd-snapshot_${policy.metadata.name}_`)).map((o) => o.key).sort();
const gauge = (policy: BackupPolicy, name: string) =>
  metricValue(gateway, `etcd_backup_restore_drill_${name}`, `${policy.metadata.name}-drill`);
const lastLine = (text: string) => text.replace(/\n+$/, '').split('\n').pop()!;

/** One backup run of the policy on `node`: the key of the snapshot it uploaded, and its metadata. */
async function backUp(policy: BackupPolicy, node: string): Promise<{ key: string; meta: SnapshotMetadata }> {
  const before = new Set(await keys(policy));
  const run = await runPod(cronJobOfComponent(policy, 'backup'), {
    secrets: S3_CREDS,
    volumes: { 'etcd-certs': etcd.pkiDir },
    pod: { nodeName: node },
  });
  if (run.failed) throw new Error(run.log);
  // encrypted: <key>.age, its metadata under the clear key
  const stored = (await keys(policy)).find((k) => !before.has(k) && /\.db(\.age)?$/.test(k))!;
  const key = stored.replace(/\.age$/, '');
  return { key, meta: JSON.parse((await s3.getObject(BUCKET, `${key}.json`)).toString()) as SnapshotMetadata };
}

/** Moves a snapshot and its metadata to the name it would have an hour earlier. */
async function anHourEarlier(key: string): Promise<string> {
  const time = Date.parse(/_(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)_/.exec(key)![1]) / 1000;
  const older = key.replace(stamp(time), stamp(time - 3600));
  for (const [from, to] of [
    [key, older],
    [`${key}.json`, `${older}.json`],
  ]) {
    await s3.putObject(BUCKET, to, await s3.getObject(BUCKET, from));
    await s3.deleteObject(BUCKET, from);
  }
  return older;
}

test("cluster mode: the newest snapshot of every node's is downloaded, restored and compared; the downloads are removed", async () => {
  const policy = s3Policy('s3drill');
  await anHourEarlier((await backUp(policy, 'cp-1')).key);
  await etcd.etcdctl(['put', '/registry/s3/newer', 'x']);
  const newest = await backUp(policy, 'cp-2');
  await s3.putObject(BUCKET, `${PREFIX}etcd-snapshot_other_2099-01-01T00:00:00Z_cp-3.db`, 'another policy');

  const run = await runPod(cronJobOfComponent(policy, 'restore-drill'), { secrets: S3_CREDS });
  expect(run.log).not.toMatch(/ error /);
  expect(run.failed).toBeUndefined();
  expect(run.results.fetch.stderr).toContain(`info downloaded s3://${BUCKET}/${newest.key} (`);
  expect(run.results.fetch.stderr).toContain(
    `drilling the newest backup of every node's snapshots at s3://${BUCKET}/${PREFIX}etcd-snapshot_s3drill_<time>_<node>.db: ${newest.key} (`,
  );
  expect(lastLine(run.results.report.stderr)).toContain(
    `${newest.key} restored, revision ${newest.meta.revision} and ${newest.meta.keyCount} keys, as recorded`,
  );
  expect(await gauge(policy, 'success')).toBe(1);
  expect(filesOf(path.join(run.volumeDirs.scratch, 'drill')).filter((f) => f.startsWith('etcd-snapshot_'))).toEqual([]);
});

describe('encrypted', () => {
  test('an encrypted newest snapshot is downloaded, decrypted with the identity and drilled; a missing metadata object fails the drill', async () => {
    const file = path.join(tempDir('age'), 'identity.txt');
    execFileSync('age-keygen', ['-o', file], { stdio: 'ignore' });
    const recipient = execFileSync('age-keygen', ['-y', file], { encoding: 'utf8' }).trim();
    const policy = s3Policy('s3sealed', {
      encryption: {
        age: {
          recipients: [recipient],
          identitySecret: { name: 'etcd-age', key: 'identity' },
          image: 'alpine-age:3.20',
        },
      },
    });
    const stored = await backUp(policy, 'cp-1');
    // stored by the backup as spec.encryption stores it: <name>.age, the metadata under the clear name
    expect(await keys(policy)).toEqual([`${stored.key}.age`, `${stored.key}.json`]);

    const secrets = { ...S3_CREDS, 'etcd-age': { identity: fs.readFileSync(file, 'utf8') } };
    const run = await runPod(cronJobOfComponent(policy, 'restore-drill'), { secrets });
    expect(run.log).not.toMatch(/ error /);
    expect(run.failed).toBeUndefined();
    expect(lastLine(run.results.report.stderr)).toContain(
      `${stored.key}.age restored, revision ${stored.meta.revision} and ${stored.meta.keyCount} keys, as recorded`,
    );
    expect(filesOf(path.join(run.volumeDirs.scratch, 'drill')).filter((f) => f.startsWith('etcd-snapshot_'))).toEqual(
      [],
    );
    expect(await gauge(policy, 'success')).toBe(1);

    await s3.deleteObject(BUCKET, `${stored.key}.json`);
    const missing = await runPod(cronJobOfComponent(policy, 'restore-drill'), { secrets });
    expect(missing.failed).toBe('report');
    expect(errorLines(missing.results.fetch)).toEqual([
      expect.stringContaining(`cannot find s3://${BUCKET}/${stored.key}.json: `),
    ]);
    expect(errorLines(missing.results.report)).toEqual([
      expect.stringMatching(
        new RegExp(
          `restore drill failed after \\d+s \\(${stored.key}\\.age, \\d+s old\\): cannot find s3://${BUCKET}/${stored.key}\\.json: `,
        ),
      ),
    ]);
    expect(await gauge(policy, 'success')).toBe(0);
  });
});
