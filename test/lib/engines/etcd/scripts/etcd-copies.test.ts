// Further copies (spec.etcd.copies, issue 21.3) for real: a real etcd with mutual TLS, the snapshots in a
// hostPath-like directory or s3rver, each copy in a second s3rver, one copy pointed at a server that is
// down, and a real Pushgateway. A good copy holds the same bytes as the backup and is pruned by its own
// rules; a failed copy is a warning and a metric of its own and never fails the run; a failed backup is
// never copied.
import * as fs from 'fs';
import * as path from 'path';
import { renderPolicy } from '../../../../../lib';
import type { BackupPolicy } from '../../../../../lib';
import {
  EtcdTlsHandle,
  PushgatewayHandle,
  S3Handle,
  freePort,
  requireCommands,
  startEtcdTls,
  startPushgateway,
  startS3,
  stopAll,
} from '../../../../support/services';
import { errorLines, etcdPolicy, filesOf, removeTempDirs, runPod, tempDir } from '../fixtures';

jest.setTimeout(600_000);

const SNAPSHOT = /^etcd-snapshot_etcd_\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ_cp-1\.db$/;

let gateway: PushgatewayHandle;
let primary: S3Handle;
let offsite: S3Handle;
let etcd: EtcdTlsHandle;
let downPort: number;

beforeAll(async () => {
  requireCommands('etcd', 'etcdctl', 'busybox', 'openssl', 'curl', 'sha256sum');
  [gateway, primary, offsite, etcd, downPort] = await Promise.all([
    startPushgateway(),
    startS3({ buckets: ['etcd-primary'] }),
    startS3({ buckets: ['etcd-offsite'] }),
    startEtcdTls(),
    freePort(),
  ]);
  for (let i = 0; i < 5; i++) await etcd.etcdctl(['put', `/registry/k${i}`, `v${i}`]);
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

const creds = { name: 's3-creds' };
const secrets = { 's3-creds': { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } };
const copies = () => [
  {
    name: 'offsite',
    s3: {
      bucket: 'etcd-offsite',
      path: 'dr',
      region: 'eu-west-1',
      endpoint: offsite.endpoint,
      credentialsSecret: creds,
    },
    retention: { keepLast: 1 },
  },
  {
    name: 'broken',
    s3: {
      bucket: 'etcd-nowhere',
      region: 'eu-west-1',
      endpoint: `http://127.0.0.1:${downPort}`,
      credentialsSecret: creds,
    },
  },
];

/** The pushed value of a gauge with the label copy="<copy>". */
async function copyGauge(name: string, copy: string): Promise<number | undefined> {
  const line = (await gateway.metrics())
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && l.includes(`copy="${copy}"`) && l.includes('target="etcd"'));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

function backupCronJob(policy: BackupPolicy) {
  const cj = renderPolicy(policy).find((o) => o.kind === 'CronJob');
  if (!cj) throw new Error('no CronJob');
  return cj;
}

test('a hostPath backup and two copies, one of them down: the run succeeds, the good copy holds the same bytes and keeps its own rules, the failed one is a warning and a metric', async () => {
  const policy = etcdPolicy(
    { endpoint: etcd.endpoint, images: { shell: 'curlimages/curl:8.10.1' }, copies: copies() },
    { metrics: { pushgatewayUrl: gateway.url } },
  );
  const cj = backupCronJob(policy);
  const dest = tempDir('copies');
  const runs = [];
  for (let i = 0; i < 2; i++) {
    runs.push(await runPod(cj, { secrets, volumes: { backup: dest, 'etcd-certs': etcd.pkiDir }, timeoutMs: 300_000 }));
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }
  for (const run of runs) {
    expect(run.failed).toBeUndefined();
    expect(errorLines(run.results.finalize)).toEqual([]);
    expect(run.log).toMatch(
      /warn copy broken failed: uploading s3:\/\/etcd-nowhere\/\S+\.db\.json failed: .+; the backup itself is stored/,
    );
    expect(run.log).toMatch(
      /info copy offsite: stored and checked s3:\/\/etcd-offsite\/dr\/etcd-snapshot_etcd_\S+_cp-1\.db/,
    );
  }
  // the primary keeps both (no rules of its own); the copy keeps its newest (keepLast 1)
  const stored = filesOf(dest).filter((f) => SNAPSHOT.test(f));
  expect(stored).toHaveLength(2);
  const copied = (await offsite.listObjects('etcd-offsite')).map((o) => o.key);
  expect(copied).toEqual([`dr/${stored[1]}`, `dr/${stored[1]}.json`]);
  expect(runs[1].log).toContain(`deleted dr/${stored[0]}`);
  // the same bytes, the metadata included
  for (const name of [stored[1], `${stored[1]}.json`])
    expect((await offsite.getObject('etcd-offsite', `dr/${name}`)).equals(fs.readFileSync(path.join(dest, name)))).toBe(
      true,
    );
  expect(await copyGauge('etcd_backup_copy_last_run_success', 'offsite')).toBe(1);
  expect(await copyGauge('etcd_backup_copy_last_run_success', 'broken')).toBe(0);
  expect(await copyGauge('etcd_backup_copy_last_success_timestamp_seconds', 'offsite')).toBeGreaterThan(0);
  expect(await copyGauge('etcd_backup_copy_last_success_timestamp_seconds', 'broken')).toBeUndefined();
});

test('a failed backup (its S3 bucket is missing) is never copied', async () => {
  const policy = etcdPolicy(
    {
      endpoint: etcd.endpoint,
      destination: {
        s3: { bucket: 'no-such-bucket', region: 'us-east-1', endpoint: primary.endpoint, credentialsSecret: creds },
      },
      copies: [{ ...copies()[0], s3: { ...copies()[0].s3, path: 'from-s3' } }],
    },
    {},
    'failing',
  );
  const run = await runPod(backupCronJob(policy), {
    secrets,
    volumes: { 'etcd-certs': etcd.pkiDir },
    timeoutMs: 300_000,
  });
  expect(run.failed).toBe('finalize');
  expect(run.log).not.toContain('copy offsite');
  expect((await offsite.listObjects('etcd-offsite', 'from-s3/')).map((o) => o.key)).toEqual([]);
});
