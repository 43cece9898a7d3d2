// The rendered etcd backup pod with an S3 destination, for real: a real etcd
// with mTLS, s3rver on loopback, the aws CLI, and a Pushgateway. Then the
// restore Job fetches a snapshot back from S3 and restores it. A deadline is
// TERM sent to the finalize step's first process, as the kubelet does.
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { renderPolicy } from '../../../../../lib';
import type { S3Destination } from '../../../../../lib';
import { runContainer } from '../../../../support/run-container';
import {
  EtcdTlsHandle,
  PushgatewayHandle,
  S3Handle,
  awsCliPath,
  startEtcdFromDataDir,
  startEtcdFromSnapshot,
  startEtcdTls,
  startPushgateway,
  startS3,
  stopAll,
} from '../../../../support/services';
import {
  containerProcess,
  cronJobOf,
  errorLines,
  etcdPolicy,
  filesOf,
  metricValue,
  parseSnapshotMetadata,
  removeTempDirs,
  restoreJobOf,
  runPod,
  shortHeadObjectAws,
  stamp,
  tempDir,
  waitFor,
} from '../fixtures';

jest.setTimeout(120000);

const BUCKET = 'etcd-backups';
const PREFIX = 'prod/etcd/';
const NAME = /^prod\/etcd\/etcd-snapshot_etcd_(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)_(cp-\d)\.db$/;

let etcd: EtcdTlsHandle;
let s3: S3Handle;
let gateway: PushgatewayHandle;

beforeAll(async () => {
  [etcd, s3, gateway] = await Promise.all([startEtcdTls(), startS3({ buckets: [BUCKET] }), startPushgateway()]);
  for (let i = 0; i < 50; i++) await etcd.etcdctl(['put', `/registry/s3/k${i}`, `v${i}`]);
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

/** s3rver's fixed credentials, as the Secret the policy names. */
const secrets = { 's3-creds': { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } };
const certs = () => ({ 'etcd-certs': etcd.pkiDir });

function s3Policy(
  over: Partial<S3Destination> = {},
  spec: Record<string, unknown> = {},
  etcdOver: Record<string, unknown> = {},
) {
  return etcdPolicy(
    {
      endpoint: etcd.endpoint,
      retentionScope: 'cluster',
      destination: {
        s3: {
          bucket: BUCKET,
          path: 'prod/etcd',
          region: 'us-east-1',
          endpoint: s3.endpoint,
          credentialsSecret: { name: 's3-creds' },
          ...over,
        },
      },
      ...etcdOver,
    },
    { metrics: { pushgatewayUrl: gateway.url }, ...spec },
  );
}

const keys = async () => (await s3.listObjects(BUCKET, PREFIX)).map((o) => o.key).sort();
const objectName = (t: number, node: string) => `${PREFIX}etcd-snapshot_etcd_${stamp(t)}_${node}.db`;

const metric = (name: string, target: string) => metricValue(gateway, name, target);

async function clearBucket(): Promise<void> {
  for (const k of await keys()) await s3.deleteObject(BUCKET, k);
}

test("cluster mode: uploads the metadata and the verified snapshot, checks the stored size, prunes every node's snapshots (scope cluster), pushes metrics", async () => {
  await clearBucket();
  const now = Math.floor(Date.now() / 1000);
  const earlier = [
    objectName(now - 3 * 3600, 'cp-1'),
    objectName(now - 2 * 3600, 'cp-2'),
    objectName(now - 3600, 'cp-1'),
  ];
  for (const k of earlier) {
    await s3.putObject(BUCKET, k, 'an earlier snapshot');
    await s3.putObject(BUCKET, `${k}.json`, '{}');
  }
  const foreign = [`${PREFIX}etcd-snapshot_other_2020-01-01T00:00:00Z_cp-1.db`, `${PREFIX}notes.txt`];
  for (const k of foreign) await s3.putObject(BUCKET, k, 'not ours');

  const cj = cronJobOf(s3Policy({}, { retention: { keepLast: 2 } }));
  const target = cj.metadata.name;
  // as the kubelet runs it: uid 0 without capabilities, a read-only root filesystem (a bound of minutes:
  // each aws CLI call takes seconds on a busy machine)
  const run = await runPod(cj, {
    secrets,
    volumes: certs(),
    pod: { nodeName: 'cp-3' },
    enforceSecurityContext: true,
    timeoutMs: 240_000,
  });
  expect(run.failed).toBeUndefined();
  expect(run.log).not.toMatch(/ error /);

  const all = await keys();
  const stored = all.filter((k) => NAME.test(k) && NAME.exec(k)![2] === 'cp-3');
  expect(stored).toHaveLength(1);
  const key = stored[0];
  // keepLast 2 over every node: the new one and the newest earlier one (cp-1, an hour ago)
  expect(all).toEqual([...foreign, key, `${key}.json`, earlier[2], `${earlier[2]}.json`].sort());

  const body = await s3.getObject(BUCKET, key);
  const meta = parseSnapshotMetadata(await s3.getObject(BUCKET, `${key}.json`));
  expect(meta).toMatchObject({ name: key.slice(PREFIX.length), node: 'cp-3', size: body.length, restoreChecked: true });
  expect(
    createHash('sha256')
      .update(body.subarray(0, body.length - 32))
      .digest('hex'),
  ).toBe(meta.sha256);
  expect(filesOf(run.volumeDirs.scratch).filter((f) => f.includes('partial'))).toEqual([]);

  // the uploaded snapshot restores
  const file = path.join(tempDir('download'), 'snap.db');
  fs.writeFileSync(file, body);
  const restored = await startEtcdFromSnapshot(file);
  try {
    expect(await restored.etcdctl(['get', '/registry/s3/k42', '--print-value-only'])).toBe('v42\n');
  } finally {
    await restored.stop();
  }

  expect(await metric('etcd_backup_last_run_success', target)).toBe(1);
  expect(await metric('etcd_backup_size_bytes', target)).toBe(body.length);
  expect(await metric('etcd_backup_success_total', target)).toBe(1);
}, 600_000);

test('a stored size that differs from the snapshot: both objects are removed, the run fails with one line, failure metrics', async () => {
  await clearBucket();
  const stub = shortHeadObjectAws();
  const cj = cronJobOf(s3Policy({}, {}, { restoreCheck: false }));
  const before = (await metric('etcd_backup_failure_total', cj.metadata.name)) ?? 0;
  const run = await runPod(cj, { secrets, volumes: certs(), pathPrepend: [stub] });
  expect(run.failed).toBe('finalize');
  const errors = errorLines(run.results.finalize);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(/holds \d+ bytes, the snapshot has \d+: upload removed/);
  expect(await keys()).toEqual([]);
  expect(await metric('etcd_backup_last_run_success', cj.metadata.name)).toBe(0);
  expect(await metric('etcd_backup_failure_total', cj.metadata.name)).toBe(before + 1);
});

test("TERM (the Job's deadline) during the snapshot's upload: the upload stopped, both objects removed, a failure pushed, exit 1 with one line", async () => {
  await clearBucket();
  const cj = cronJobOf(s3Policy({}, { retention: { keepLast: 1 } }, { restoreCheck: false }));
  const before = (await metric('etcd_backup_failure_total', cj.metadata.name)) ?? 0;
  const volumeDirs: Record<string, string> = {};
  expect(
    (await runPod(cj, { secrets, volumes: certs(), volumeDirs, only: ['tools', 'snapshot'] })).failed,
  ).toBeUndefined();

  // A stand-in aws CLI: every call runs the real one (so it prints exactly what the aws CLI prints). The
  // snapshot's upload really stores the object, then blocks like an upload still in flight, until stopped.
  const bin = tempDir('aws-bin');
  const uploaded = path.join(bin, 'uploaded');
  const stopped = path.join(bin, 'stopped');
  fs.writeFileSync(
    path.join(bin, 'aws'),
    [
      '#!/bin/sh',
      'for a in "$@"; do',
      '  if [ "$a" = "$ETCD_BACKUP_PARTIAL" ]; then',
      `    '${awsCliPath()}' "$@" || exit`,
      `    trap ': >'"'${stopped}'"'; exit 143' TERM`,
      `    : >'${uploaded}'`,
      '    while :; do sleep 0.02; done',
      '  fi',
      'done',
      `exec '${awsCliPath()}' "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );

  const finalize = runContainer(cj, 'finalize', {
    secrets,
    volumeDirs,
    pod: { nodeName: 'cp-1' },
    pathPrepend: [bin],
    timeoutMs: 60000,
  });
  await waitFor('the snapshot uploaded, its aws CLI still running', () => fs.existsSync(uploaded));
  const [key] = (await keys()).filter((k) => NAME.test(k));
  expect(await keys()).toEqual([key, `${key}.json`]);
  const step = await waitFor('the finalize step', () => containerProcess('etcd-finalize'));
  process.kill(step.pid, 'SIGTERM');
  const r = await finalize;

  expect(r.code).toBe(1);
  expect(r.timedOut).toBe(false);
  const errors = errorLines(r);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    new RegExp(
      `stopped by SIGTERM \\(the Job's deadline, or the pod was deleted\\) while uploading s3://${BUCKET}/${key}$`,
    ),
  );
  // the script stopped its child (a container's teardown would have killed it without a TERM)
  expect(fs.existsSync(stopped)).toBe(true);
  expect(await keys()).toEqual([]);
  expect(await metric('etcd_backup_last_run_success', cj.metadata.name)).toBe(0);
  expect(await metric('etcd_backup_failure_total', cj.metadata.name)).toBe(before + 1);
});

test('retention that cannot run after a stored snapshot: the snapshot stays, the metrics count a success, the Job fails', async () => {
  await clearBucket();
  const future = objectName(Math.floor(Date.now() / 1000) + 3600, 'cp-2');
  await s3.putObject(BUCKET, future, 'named in the future');
  const cj = cronJobOf(s3Policy({}, { retention: { keepLast: 1 } }, { restoreCheck: false }));
  const run = await runPod(cj, { secrets, volumes: certs() });
  expect(run.failed).toBe('finalize');
  expect(errorLines(run.results.finalize)[0]).toMatch(
    /refusing to prune .* is not the newest listed \(.*_cp-2\.db\); check clocks and names; nothing deleted/,
  );
  const stored = (await keys()).filter((k) => NAME.test(k) && k.endsWith('_cp-1.db'));
  expect(stored).toHaveLength(1);
  expect(await keys()).toContain(future);
  expect(await metric('etcd_backup_last_run_success', cj.metadata.name)).toBe(1);
});

test('an upload that fails (no such bucket): non-zero, nothing stored, nothing pruned', async () => {
  await clearBucket();
  const run = await runPod(cronJobOf(s3Policy({ bucket: 'missing-bucket' }, { retention: { keepLast: 1 } })), {
    secrets,
    volumes: certs(),
  });
  expect(run.failed).toBe('finalize');
  expect(errorLines(run.results.finalize)[0]).toMatch(/uploading s3:\/\/missing-bucket\/prod\/etcd\/.*\.json failed/);
  expect(await keys()).toEqual([]);
});

test("the retention-prune CronJob (retention.schedule) prunes the objects for real, each node's on their own (scope node)", async () => {
  // (scope cluster without a new snapshot is the same etcd_prune as the backups' own, above; see prune.test.ts for both scopes on a PVC)
  await clearBucket();
  const now = Math.floor(Date.now() / 1000);
  const ours = [
    objectName(now - 1 * 3600, 'cp-1'),
    objectName(now - 3 * 3600, 'cp-1'),
    objectName(now - 5 * 3600, 'cp-1'),
    objectName(now - 2 * 3600, 'cp-2'),
    objectName(now - 4 * 3600, 'cp-2'),
  ];
  const foreign = [
    `${PREFIX}etcd-snapshot_other_2020-01-01T00:00:00Z_cp-1.db`,
    `${PREFIX}notes.txt`,
    'elsewhere/etcd-snapshot_etcd_2020-01-01T00:00:00Z_cp-1.db',
  ];
  for (const k of ours) {
    await s3.putObject(BUCKET, k, 'a snapshot');
    await s3.putObject(BUCKET, `${k}.json`, '{}');
  }
  for (const k of foreign) await s3.putObject(BUCKET, k, 'not ours');

  // the workloads (runPod mounts the policy's scripts as its ConfigMap holds them)
  const objs = renderPolicy(
    s3Policy({}, { retention: { keepLast: 1, schedule: '30 5 * * *' } }, { retentionScope: 'node' }),
  ).filter((o) => o.kind !== 'ConfigMap');
  expect(objs.map((o) => o.metadata.name)).toEqual(['etcd', 'etcd-prune']);
  // as the kubelet runs it: uid 65534, no capabilities, a read-only root filesystem
  const run = await runPod(objs[1], { secrets, enforceSecurityContext: true, timeoutMs: 240_000 });
  expect(run.failed).toBeUndefined();
  expect(run.log).toContain('pruned the snapshots of 2 node(s)');
  const all = [...(await keys()), ...(await s3.listObjects(BUCKET, 'elsewhere/')).map((o) => o.key)].sort();
  expect(all).toEqual([...foreign, ours[0], `${ours[0]}.json`, ours[3], `${ours[3]}.json`].sort());
  await s3.deleteObject(BUCKET, foreign[2]);
}, 600_000);

test('the restore Job fetches the named snapshot from S3 (not the newest) and restores it on its node', async () => {
  await clearBucket();
  await etcd.etcdctl(['put', '/registry/s3/newer', 'yes']);
  const run = await runPod(cronJobOf(s3Policy()), { secrets, volumes: certs(), pod: { nodeName: 'cp-1' } });
  expect(run.failed).toBeUndefined();
  const taken = (await keys()).filter((k) => NAME.test(k))[0];
  // a newer snapshot of another node is there too
  await s3.putObject(BUCKET, objectName(Math.floor(Date.now() / 1000) + 3600, 'cp-2'), 'a newer snapshot');
  const name = taken.slice(PREFIX.length);

  const job = restoreJobOf(s3Policy(), ['--node', 'cp-3', '--snapshot', name]);
  expect(job.metadata.name).toMatch(/^etcd-restore-cp-3-/);
  const restoreDir = tempDir('restore');
  const restore = await runPod(job, { secrets, volumes: { restore: restoreDir }, pod: { nodeName: 'cp-3' } });
  expect(restore.failed).toBeUndefined();
  expect(restore.results.fetch.stderr).toContain(`downloaded s3://${BUCKET}/${taken}`);
  expect(filesOf(restoreDir)).toEqual([`${name}.restored`]);
  const restored = await startEtcdFromDataDir(path.join(restoreDir, `${name}.restored`), { name: 'cp-3' });
  try {
    expect(await restored.etcdctl(['get', '/registry/s3/newer', '--print-value-only'])).toBe('yes\n');
  } finally {
    await restored.stop();
  }
});

test('a snapshot that is not in the bucket: the fetch step fails with one line naming it', async () => {
  await clearBucket();
  const missing = 'etcd-snapshot_etcd_2026-01-01T00:00:00Z_cp-1.db';
  const job = restoreJobOf(s3Policy(), ['--node', 'cp-3', '--snapshot', missing]);
  const restoreDir = tempDir('restore');
  const restore = await runPod(job, { secrets, volumes: { restore: restoreDir }, pod: { nodeName: 'cp-3' } });
  expect(restore.failed).toBe('fetch');
  expect(errorLines(restore.results.fetch)).toEqual([
    expect.stringContaining(`cannot find s3://${BUCKET}/${PREFIX}${missing}`),
  ]);
  expect(filesOf(restoreDir)).toEqual([]);
});
