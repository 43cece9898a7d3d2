// The etcd restore Job that `backup-cronjobs restore` prints: its pod, its
// name, the pod settings of the node's CronJob, and the requests it refuses.
import { renderPolicy, resolvePolicy, restoreJob } from '../../../../lib';
import { joinName } from '../../../../lib/kubernetes/names';
import type { BackupPolicy } from '../../../../lib';
import { expectValidManifests } from '../../../support/k8s-validate';
import { containerEnv } from '../../../support/run-container';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { containerOf, envOf, etcdPolicy, podOf, restoreJobOf } from './fixtures';
import { jobSpecOf, podTemplateOf } from '../../../support/kube';

const SNAPSHOT = 'etcd-snapshot_etcd_2026-01-01T00:00:00Z_cp-1.db';
const names = (list: { name: string }[] | undefined) => (list ?? []).map((c) => c.name);

describe('perNode: the Job restores a snapshot on the --target node', () => {
  const policy = etcdPolicy({
    mode: 'perNode',
    nodes: ['cp-1', 'cp-2'],
    restore: { initialCluster: 'cp-1=https://10.0.0.1:2380,cp-2=https://10.0.0.2:2380' },
  });
  const job = restoreJobOf(policy, ['--target', 'cp-2', '--snapshot', SNAPSHOT]);

  test('one batch/v1 Job, valid under the strict Kubernetes schema, not suspended, never retried, with the etcd deadline', () => {
    expect(job).toMatchObject({ apiVersion: 'batch/v1', kind: 'Job', metadata: { namespace: 'kube-system' } });
    expectValidManifests([job]);
    expect(jobSpecOf(job).suspend).toBeUndefined();
    expect(jobSpecOf(job)).toMatchObject({ backoffLimit: 0, activeDeadlineSeconds: 900 });
    // nothing for one deployment tool: the Job is applied by hand
    expect(JSON.stringify(job)).not.toMatch(/pulumi|skipAwait/i);
  });

  test('its name follows from the policy, the node and the snapshot: deterministic, distinct, a DNS label of at most 63', () => {
    // cp-1's snapshot restored on cp-2: both nodes named; a node's own snapshot names it once
    expect(job.metadata.name).toBe(joinName(['etcd', 'restore', 'cp-2', '2026-01-01T00:00:00Z', 'cp-1'], 63));
    expect(job.metadata.name).toMatch(/^etcd-restore-cp-2-2026-01-01t00-00-00z-cp-1-[0-9a-f]{8}$/);
    expect(restoreJobOf(policy, ['--target', 'cp-1', '--snapshot', SNAPSHOT]).metadata.name).toMatch(
      /^etcd-restore-cp-1-2026-01-01t00-00-00z-[0-9a-f]{8}$/,
    );
    expect(restoreJobOf(policy, ['--target', 'cp-2', '--snapshot', SNAPSHOT])).toEqual(job);
    expect(restoreJobOf(policy, ['--target', 'cp-1', '--snapshot', SNAPSHOT]).metadata.name).not.toBe(
      job.metadata.name,
    );
    expect(
      restoreJobOf(policy, ['--target', 'cp-2', '--snapshot', SNAPSHOT.replace('00:00:00Z', '06:00:00Z')]).metadata
        .name,
    ).not.toBe(job.metadata.name);
    const long = etcdPolicy(
      { mode: 'perNode', nodes: ['control-plane-node-number-one.eu-west-1.compute.internal'] },
      {},
      'a-rather-long-etcd-backup-policy-name',
    );
    const longJob = restoreJobOf(long, [
      '--target',
      'control-plane-node-number-one.eu-west-1.compute.internal',
      '--snapshot',
      'etcd-snapshot_a-rather-long-etcd-backup-policy-name_2026-01-01T00:00:00Z_control-plane-node-number-one.eu-west-1.compute.internal.db',
    ]);
    expect(longJob.metadata.name.length).toBeLessThanOrEqual(63);
    expectValidManifests([longJob]);
  });

  test('pinned to the node, off the host network, no certificates, the backups read-only, a new directory on the host', () => {
    const pod = podOf(job);
    expect(pod.nodeSelector).toEqual({ 'kubernetes.io/hostname': 'cp-2' });
    expect(pod.hostNetwork).toBeUndefined();
    expect(JSON.stringify(job)).not.toContain('etcd-certs');
    expect(names(pod.initContainers)).toEqual(['tools']);
    expect(names(pod.containers)).toEqual(['restore']);
    expect(containerOf(job, 'restore').volumeMounts?.[0]).toEqual({
      name: 'backup',
      mountPath: '/backup',
      readOnly: true,
    });
    expect(pod.volumes?.[2]).toEqual({
      name: 'restore',
      hostPath: { path: '/var/lib/etcd-restore', type: 'DirectoryOrCreate' },
    });
    expect(job.metadata.labels).toMatchObject({
      'app.kubernetes.io/component': 'restore',
      'backup-cronjobs.io/node': 'cp-2',
    });
    expect(job.metadata.annotations).toEqual({
      'backup-cronjobs.io/snapshot': SNAPSHOT,
      'backup-cronjobs.io/generator': expect.stringMatching(/^backup-cronjobs@/) as unknown,
      'backup-cronjobs.io/policy': 'etcd',
    });
    expect(envOf(job, 'restore')).toMatchObject({
      ETCD_RESTORE_SNAPSHOT: SNAPSHOT,
      ETCD_RESTORE_INITIAL_CLUSTER: 'cp-1=https://10.0.0.1:2380,cp-2=https://10.0.0.2:2380',
      ETCD_RESTORE_PEER_URL: 'https://$(ETCD_RESTORE_HOST_IP):2380',
      BACKUP_JOB: job.metadata.name,
    });
  });
});

test("the policy's pod settings, and the node's own, reach the Job exactly as they reach the node's CronJob", () => {
  const pod = {
    serviceAccountName: 'etcd-backup',
    labels: { team: 'platform' },
    annotations: { 'example.com/owner': 'sre' },
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
    imagePullSecrets: ['registry'],
    priorityClassName: 'ops-critical',
    env: [{ name: 'HTTPS_PROXY', value: 'http://proxy:3128' }],
  };
  const own = { limits: { memory: '1Gi' } };
  const policy = etcdPolicy(
    { mode: 'perNode', nodes: ['cp-1', { name: 'cp-3', pod: { resources: own } }] },
    { defaults: { pod } },
  );
  const objects = renderPolicy(policy);
  // resource by resource: cp-3's own limit over spec.defaults' requests
  for (const [node, resources] of [
    ['cp-1', pod.resources],
    ['cp-3', { requests: pod.resources.requests, limits: own.limits }],
  ] as const) {
    const cronJob = objects.find((o) => o.metadata.name === `etcd-${node}`)!;
    const job = restoreJobOf(policy, ['--target', node, '--snapshot', SNAPSHOT]);
    const backupPod = podOf(cronJob);
    const restorePod = podOf(job);
    for (const field of [
      'serviceAccountName',
      'imagePullSecrets',
      'priorityClassName',
      'automountServiceAccountToken',
      'tolerations',
      'securityContext',
    ] as const) {
      expect({ node, field, value: restorePod[field] }).toEqual({ node, field, value: backupPod[field] });
    }
    const template = podTemplateOf;
    expect(template(job).metadata?.labels).toMatchObject({ team: 'platform' });
    expect(template(job).metadata?.annotations).toEqual({
      ...template(cronJob).metadata?.annotations,
      'backup-cronjobs.io/snapshot': SNAPSHOT,
    });
    expect(containerOf(job, 'restore').resources).toEqual(resources);
    expect(containerOf(cronJob, 'finalize').resources).toEqual(resources);
    expect(envOf(job, 'restore')).toMatchObject({ HTTPS_PROXY: 'http://proxy:3128' });
    expectValidManifests([job]);
  }
});

test('S3: a fetch step in the aws CLI image first; cluster mode restores on the --node given; the restore defaults apply', () => {
  const policy = etcdPolicy({
    destination: { s3: { bucket: 'bucket', region: 'us-east-1' } },
    restore: { bumpRevision: 1000000, hostPath: '/srv/etcd-restore' },
  });
  const job = restoreJobOf(policy, ['--node', 'cp-9', '--snapshot', 'etcd-snapshot_etcd_2026-01-01T00:00:00Z_cp-2.db']);
  expect(names(podOf(job).initContainers)).toEqual(['tools', 'fetch']);
  expect(podOf(job).nodeSelector).toEqual({ 'kubernetes.io/hostname': 'cp-9' });
  expect(envOf(job, 'fetch').ETCD_RESTORE_SNAPSHOT).toBe('etcd-snapshot_etcd_2026-01-01T00:00:00Z_cp-2.db');
  expect(envOf(job, 'restore')).toMatchObject({
    ETCD_RESTORE_BUMP_REVISION: '1000000',
    ETCD_RESTORE_HOST_DIR: '/srv/etcd-restore',
    ETCD_RESTORE_INITIAL_CLUSTER: '$(ETCD_RESTORE_NODE)=$(ETCD_RESTORE_PEER_URL)',
  });
  expectValidManifests([job]);
});

describe('requests that do not fit the policy are refused, each flag named', () => {
  const perNode = etcdPolicy({ mode: 'perNode', nodes: ['cp-1', 'cp-2'] });
  const refused = (policy: BackupPolicy, request: { target?: string; node?: string; snapshot: string }) =>
    restoreJob(resolvePolicy(policy), request);

  test.each<[string, BackupPolicy, { target?: string; node?: string; snapshot: string }, string[]]>([
    [
      'perNode without --target',
      perNode,
      { snapshot: SNAPSHOT },
      ['--target is required: the node to restore on, one of cp-1, cp-2'],
    ],
    [
      'a node that is not listed',
      perNode,
      { target: 'cp-9', snapshot: SNAPSHOT },
      ['--target: received "cp-9"; must be a node of spec.etcd.nodes: cp-1, cp-2'],
    ],
    [
      '--node in perNode mode',
      perNode,
      { target: 'cp-1', node: 'cp-1', snapshot: SNAPSHOT },
      ['--node: received "cp-1"; perNode mode restores on the node named by --target: drop --node'],
    ],
    [
      'cluster mode without --node',
      etcdPolicy(),
      { snapshot: SNAPSHOT },
      ['--node is required: cluster mode names no nodes; give the control-plane node to restore on'],
    ],
    [
      '--target in cluster mode',
      etcdPolicy(),
      { target: 'cp-1', node: 'cp-1', snapshot: SNAPSHOT },
      [
        '--target: received "cp-1"; cluster mode has one CronJob and no per-node targets: name the node to restore on with --node',
      ],
    ],
    [
      'a node name Kubernetes refuses',
      etcdPolicy(),
      { node: 'Node_1', snapshot: SNAPSHOT },
      [expect.stringMatching(/^--node: .*Node_1/)],
    ],
    [
      'a snapshot of another policy',
      perNode,
      { target: 'cp-1', snapshot: 'etcd-snapshot_other_2026-01-01T00:00:00Z_cp-1.db' },
      [
        '--snapshot: received "etcd-snapshot_other_2026-01-01T00:00:00Z_cp-1.db"; a snapshot of this policy is named etcd-snapshot_etcd_<time>_<node>.db, or .age after that when encrypted',
      ],
    ],
    [
      'a path',
      perNode,
      { target: 'cp-1', snapshot: `../${SNAPSHOT}` },
      [expect.stringMatching(/^--snapshot: received "\.\.\/etcd-snapshot_.*"; must be a file name \(no "\/"/)],
    ],
    [
      'the prefix alone',
      perNode,
      { target: 'cp-1', snapshot: 'etcd-snapshot_etcd_.db' },
      [
        '--snapshot: received "etcd-snapshot_etcd_.db"; a snapshot of this policy is named etcd-snapshot_etcd_<time>_<node>.db, or .age after that when encrypted',
      ],
    ],
    [
      'every problem at once',
      etcdPolicy(),
      { target: 'x', snapshot: 'x.db' },
      [
        '--target: received "x"; cluster mode has one CronJob and no per-node targets: name the node to restore on with --node',
        '--node is required: cluster mode names no nodes; give the control-plane node to restore on',
        '--snapshot: received "x.db"; a snapshot of this policy is named etcd-snapshot_etcd_<time>_<node>.db, or .age after that when encrypted',
      ],
    ],
  ])('%s', (_, policy, request, problems) => {
    expect(refused(policy, request)).toEqual({ kind: 'refused', problems });
  });

  test('a multi-member policy without initialCluster: the Job restores a one-member cluster, and says so', () => {
    const outcome = restoreJob(resolvePolicy(perNode), { target: 'cp-2', snapshot: SNAPSHOT });
    expect(outcome.kind === 'job' && outcome.notes).toEqual([
      'spec.etcd.restore.initialCluster is not set: cp-2 restores as a one-member cluster. To restore all 2 members, set it to every member (name=peerURL,...) and restore the same snapshot on each node (docs/operations/restore.md).',
    ]);
  });

  test("pod settings that clash with the restore pod are the policy's error, at their path", () => {
    const clash = etcdPolicy(
      { mode: 'perNode', nodes: ['cp-1'] },
      { defaults: { pod: { volumes: [{ name: 'restore', mountPath: '/extra', emptyDir: {} }] } } },
    );
    expect(() => restoreJob(resolvePolicy(clash), { target: 'cp-1', snapshot: SNAPSHOT })).toThrow(
      /spec\.defaults\.pod\.volumes\[0\]\.name: received "restore"; the engine's pod already has a volume of that name/,
    );
  });
});

describe('an encrypted snapshot (<name>.age, spec.encryption)', () => {
  const age = {
    image: 'example.com/age:1',
    recipients: ['age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p'],
  };
  const identitySecret = { name: 'etcd-age-identity', key: 'key.txt' };
  const encrypted = (withIdentity: boolean) =>
    etcdPolicy(
      { mode: 'perNode', nodes: ['cp-1'] },
      { encryption: { age: withIdentity ? { ...age, identitySecret } : age } },
    );

  test('a decrypt step in the age image, with the identity Secret read-only (0400), between the tools and the restore; the restore reads scratch only', () => {
    const job = restoreJobOf(encrypted(true), ['--target', 'cp-1', '--snapshot', `${SNAPSHOT}.age`]);
    expect(names(podOf(job).initContainers)).toEqual(['tools', 'decrypt']);
    const decrypt = containerOf(job, 'decrypt');
    expect(decrypt.image).toBe('example.com/age:1');
    expect(envOf(job, 'decrypt')).toMatchObject({
      ETCD_RESTORE_SNAPSHOT: `${SNAPSHOT}.age`,
      ETCD_RESTORE_ENCRYPTED_DIR: '/backup',
      BACKUP_AGE_IDENTITY_FILE: '/etc/backup-cronjobs/age-identity/identity.txt',
    });
    expect(decrypt.volumeMounts).toEqual(
      expect.arrayContaining([
        { name: 'backup', mountPath: '/backup', readOnly: true },
        { name: 'age-identity', mountPath: '/etc/backup-cronjobs/age-identity', readOnly: true },
      ]),
    );
    expect(podOf(job).volumes).toContainEqual({
      name: 'age-identity',
      secret: {
        secretName: 'etcd-age-identity',
        items: [{ key: 'key.txt', path: 'identity.txt' }],
        defaultMode: 0o400,
      },
    });
    // the clear snapshot is decrypted into scratch: the restore step does not even mount the backups
    expect(envOf(job, 'restore').ETCD_RESTORE_SOURCE_DIR).toBe('/scratch');
    expect(names(containerOf(job, 'restore').volumeMounts)).toEqual(['scratch', 'restore']);
    // the same snapshot stamp names the Job as for the clear name
    expect(job.metadata.name).toBe(
      restoreJobOf(encrypted(true), ['--target', 'cp-1', '--snapshot', SNAPSHOT]).metadata.name,
    );
    expectValidManifests([job]);
  });

  test('S3: fetch, then decrypt in scratch', () => {
    const policy = etcdPolicy(
      { destination: { s3: { bucket: 'bucket', region: 'us-east-1' } } },
      { encryption: { age: { ...age, identitySecret } } },
    );
    const job = restoreJobOf(policy, ['--node', 'cp-1', '--snapshot', `${SNAPSHOT}.age`]);
    expect(names(podOf(job).initContainers)).toEqual(['tools', 'fetch', 'decrypt']);
    expect(envOf(job, 'decrypt').ETCD_RESTORE_ENCRYPTED_DIR).toBe('/scratch');
    expectValidManifests([job]);
  });

  test('without spec.encryption.age.identitySecret the command refuses, naming the field', () => {
    for (const policy of [encrypted(false), etcdPolicy({ mode: 'perNode', nodes: ['cp-1'] })]) {
      expect(restoreJob(resolvePolicy(policy), { target: 'cp-1', snapshot: `${SNAPSHOT}.age` })).toEqual({
        kind: 'refused',
        problems: [
          `--snapshot: received "${SNAPSHOT}.age", an encrypted snapshot; the restore Job decrypts it with the age identity in spec.encryption.age.identitySecret, which this policy does not set: add it (a Secret key holding the identity file, AGE-SECRET-KEY-1...)`,
        ],
      });
    }
  });

  test('a clear name under an encrypting policy restores without decrypting, and says how the encrypted ones are named', () => {
    const outcome = restoreJob(resolvePolicy(encrypted(true)), { target: 'cp-1', snapshot: SNAPSHOT });
    expect(outcome.kind === 'job' && outcome.notes).toEqual([
      `the policy encrypts its snapshots (spec.encryption): ${SNAPSHOT} is restored as a clear snapshot; those stored encrypted are named ${SNAPSHOT}.age.`,
    ]);
    expect(
      names(podOf(restoreJobOf(encrypted(true), ['--target', 'cp-1', '--snapshot', SNAPSHOT])).initContainers),
    ).toEqual(['tools']);
  });
});

test('a --snapshot with "$" reaches the restore container exactly as written (kubelet expansion)', () => {
  const snapshot = 'etcd-snapshot_etcd_$(AWS_SECRET_ACCESS_KEY)$$_cp-1.db';
  const policy = etcdPolicy({ mode: 'perNode', nodes: ['cp-1'] });
  const job = restoreJobOf(policy, ['--target', 'cp-1', '--snapshot', snapshot]);
  const dir = mkdtempSync(join(tmpdir(), 'bcj-restore-env-'));
  const env = containerEnv(job, 'restore', { volumes: { backup: dir, restore: dir } });
  rmSync(dir, { recursive: true, force: true });
  expect(env.ETCD_RESTORE_SNAPSHOT).toBe(snapshot);
  expect(job.metadata.annotations?.['backup-cronjobs.io/snapshot']).toBe(snapshot);
});
