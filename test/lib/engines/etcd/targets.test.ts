// What the etcd engine renders: placement, privileges, the distroless-safe
// container layout, destinations, strict Kubernetes schema
// validity of every variation, and the policy errors (field path, value, what
// is allowed) that keep bad input from producing manifests.
import fc from 'fast-check';
import { Testing } from 'cdk8s';
import { EtcdBackupSchedule } from '../../../../constructs/cdk8s';
import { policySchema, renderPolicy, toYaml } from '../../../../lib';
import { renderCronJobs } from '../../../support/render';
import type { BackupPolicy, Manifest } from '../../../../lib';
import { expectValidManifests } from '../../../support/k8s-validate';
import { containerOf, cronJobs, envOf, etcdPolicy, podOf, problems, restoreJobOf } from './fixtures';
import { type KubeObject, cronJobSpecOf, jobSpecOf } from '../../../support/kube';
import { schemaAt } from '../../../support/json-schema';

const jobSpec = jobSpecOf;
const scheduleOf = (o: KubeObject): string => cronJobSpecOf(o).schedule;
const names = (list: { name: string }[] | undefined) => (list ?? []).map((c) => c.name);

describe('cluster mode with every default (kubeadm)', () => {
  const objs = renderPolicy(etcdPolicy());
  const [, cj] = objs;
  const pod = podOf(cj);

  test('one CronJob named after the policy, after its script ConfigMap, the etcd deadline, Forbid, a starting deadline', () => {
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      expect.stringMatching(/^ConfigMap\/etcd-scripts-[0-9a-f]{10}$/),
      'CronJob/etcd',
    ]);
    expect(cj.spec).toMatchObject({ schedule: '@daily', concurrencyPolicy: 'Forbid', startingDeadlineSeconds: 600 });
    expect(jobSpec(cj)).toMatchObject({ activeDeadlineSeconds: 900, backoffLimit: 1 });
    expectValidManifests(objs);
  });

  test('runs on a control-plane node, tolerating its taints, on the host network, system-node-critical', () => {
    expect(pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' }] },
    ]);
    expect(pod.tolerations).toEqual([
      { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    expect(pod.nodeSelector).toBeUndefined();
    expect(pod.hostNetwork).toBe(true);
    expect(pod.priorityClassName).toBe('system-node-critical');
  });

  test('one snapshot at a time in the whole cluster: a serialization group over kubernetes.io/os', () => {
    expect(jobSpec(cj).template.metadata?.labels?.['backup-cronjobs.io/serialization-group']).toBe('etcd-snapshot');
    expect(pod.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual([
      {
        labelSelector: { matchLabels: { 'backup-cronjobs.io/serialization-group': 'etcd-snapshot' } },
        topologyKey: 'kubernetes.io/os',
        namespaces: ['kube-system'],
      },
    ]);
  });

  test('least privilege: no API token, uid 0 without capabilities, no privilege escalation, read-only root, RuntimeDefault seccomp', () => {
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.serviceAccountName).toBeUndefined();
    expect(pod.securityContext).toEqual({
      runAsUser: 0,
      runAsGroup: 0,
      runAsNonRoot: false,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      expect(c.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        readOnlyRootFilesystem: true,
      });
    }
    expect(JSON.stringify(cj)).not.toMatch(/privileged|hostPID|hostIPC|SYS_ADMIN/);
  });

  test('steps: tools (busybox), snapshot in the etcd image, finalize (busybox): three containers to start, not five', () => {
    expect(names(pod.initContainers)).toEqual(['tools', 'snapshot']);
    expect(names(pod.containers)).toEqual(['finalize']);
    const images = Object.fromEntries([...(pod.initContainers ?? []), ...pod.containers].map((c) => [c.name, c.image]));
    expect(images).toEqual({
      tools: 'busybox:1.36.1-musl',
      snapshot: 'registry.k8s.io/etcd:3.5.16-0',
      finalize: 'busybox:1.36.1-musl',
    });
  });

  test('the snapshot step runs the busybox copied by tools inside the etcd image, not a shell of the image', () => {
    const c = containerOf(cj, 'snapshot');
    expect(c.command?.[0]).toBe('$(ETCD_BACKUP_TOOLS)/sh');
    expect(c.command?.[1]).toBe('-c');
    expect(c.command?.slice(3)).toEqual(['etcd-snapshot']);
    expect(envOf(cj, 'snapshot').PATH).toBe(
      '/scratch/tools:/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin',
    );
    expect(containerOf(cj, 'tools').command?.[0]).toBe('/bin/sh');
    expect(containerOf(cj, 'finalize').command?.[0]).toBe('/bin/sh');
  });

  test('the snapshot step talks to one endpoint with the kubeadm client certificate from env; only endpoint status has a timeout', () => {
    const env = envOf(cj, 'snapshot');
    expect(env).toMatchObject({
      ETCD_BACKUP_PARTIAL: '/backup/.etcd-snapshot_etcd_$(ETCD_BACKUP_NODE).partial',
      ETCD_BACKUP_RESTORE_CHECK_DIR: '/backup/.etcd-snapshot_etcd_$(ETCD_BACKUP_NODE).restore-check',
      ETCDCTL_API: '3',
      ETCDCTL_ENDPOINTS: 'https://127.0.0.1:2379',
      ETCDCTL_DIAL_TIMEOUT: '10s',
      ETCDCTL_CACERT: '/etc/etcd-backup/pki/ca.crt',
      ETCDCTL_CERT: '/etc/etcd-backup/pki/healthcheck-client.crt',
      ETCDCTL_KEY: '/etc/etcd-backup/pki/healthcheck-client.key',
      ETCD_BACKUP_STATUS_TIMEOUT: '15s',
      ETCD_BACKUP_FREE_SPACE_FACTOR: '2',
      ETCD_BACKUP_RESTORE_CHECK: 'true',
    });
    // etcdctl applies ETCDCTL_COMMAND_TIMEOUT to `snapshot save` too, which may take longer
    expect(env.ETCDCTL_COMMAND_TIMEOUT).toBeUndefined();
  });

  test("Kubernetes' default 30 s grace period after the deadline's TERM: the longest cleanup (finalize to S3) takes at most ~21 s", () => {
    // etcd-finalize.sh after a TERM: its object deletions (each <= 2 x (3 s connect + 5 s read) + the aws CLI's
    // start) and the failure push (curl: <= 10 s to read the counters + 10 s to push) run side by side
    expect(pod.terminationGracePeriodSeconds).toBeUndefined();
  });

  test("certificates: a read-only hostPath of kubeadm's etcd pki dir, mounted only where etcd is called", () => {
    expect(pod.volumes).toEqual([
      { name: 'etcd-certs', hostPath: { path: '/etc/kubernetes/pki/etcd', type: 'Directory' } },
      { name: 'backup', hostPath: { path: '/var/lib/etcd-backup', type: 'DirectoryOrCreate' } },
      { name: 'scratch', emptyDir: {} },
      { name: 'scripts', configMap: { name: objs[0].metadata.name } },
    ]);
    const mounting = [...(pod.initContainers ?? []), ...pod.containers]
      .filter((c) => c.volumeMounts?.some((m) => m.name === 'etcd-certs'))
      .map((c) => c.name);
    expect(mounting).toEqual(['snapshot']);
    for (const name of mounting) {
      expect(containerOf(cj, name).volumeMounts?.find((m) => m.name === 'etcd-certs')).toEqual({
        name: 'etcd-certs',
        mountPath: '/etc/etcd-backup/pki',
        readOnly: true,
      });
    }
  });

  test("finalize: retention of this policy's names on this node, after the verified snapshot", () => {
    const env = envOf(cj, 'finalize');
    expect(env).toMatchObject({
      BACKUP_DEST_KIND: 'dir',
      BACKUP_DIR: '/backup',
      BACKUP_NAME_PREFIX: 'etcd-snapshot_etcd_',
      BACKUP_NAME_SUFFIX: '_$(ETCD_BACKUP_NODE).db',
      BACKUP_SIDECAR_SUFFIXES: '.json .control-plane-files.tar.gz',
      ETCD_BACKUP_RETENTION_SCOPE: 'node',
    });
    // without rules, no RETENTION_* env: the run prunes nothing
    expect(Object.keys(env).filter((k) => k.startsWith('RETENTION_'))).toEqual([]);
    const order = (containerOf(cj, 'finalize').env ?? []).map((e) => e.name);
    expect(order.indexOf('ETCD_BACKUP_NODE')).toBeLessThan(order.indexOf('BACKUP_NAME_SUFFIX'));
    expect(containerOf(cj, 'finalize').command?.slice(3)).toEqual(['etcd-finalize']);
  });
});

describe('perNode mode (three kubeadm control-plane nodes)', () => {
  const objs = renderCronJobs(
    etcdPolicy(
      { mode: 'perNode', nodes: ['cp-1', 'cp-2', { name: 'cp-3', schedule: '30 1 * * *' }] },
      { defaults: { schedule: '0 3 * * *' } },
    ),
  );

  test('one CronJob per node, pinned by hostname, its schedule staggered over 15 minutes', () => {
    expect(objs.map((o) => o.metadata.name)).toEqual(['etcd-cp-1', 'etcd-cp-2', 'etcd-cp-3']);
    expect(objs.map((o) => podOf(o).nodeSelector)).toEqual([
      { 'kubernetes.io/hostname': 'cp-1' },
      { 'kubernetes.io/hostname': 'cp-2' },
      { 'kubernetes.io/hostname': 'cp-3' },
    ]);
    // cp-1 and cp-2 share a schedule and are spread; cp-3 has its own
    expect(objs.map(scheduleOf)).toEqual(['0 3 * * *', '7 3 * * *', '30 1 * * *']);
    expect(objs.map((o) => o.metadata.labels?.['backup-cronjobs.io/node'])).toEqual(['cp-1', 'cp-2', 'cp-3']);
    expectValidManifests(objs);
  });

  test('all nodes share the cluster-wide serialization group', () => {
    for (const o of objs) {
      expect(podOf(o).affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0]?.topologyKey).toBe(
        'kubernetes.io/os',
      );
    }
  });

  test('a policy stagger or a hashed schedule replaces the default stagger', () => {
    const own = renderCronJobs(
      etcdPolicy(
        { mode: 'perNode', nodes: ['a', 'b'] },
        { defaults: { schedule: '0 3 * * *', stagger: { window: '1h' } } },
      ),
    );
    expect(own.map(scheduleOf)).toEqual(['0 3 * * *', '30 3 * * *']);
    const hashed = renderCronJobs(
      etcdPolicy({ mode: 'perNode', nodes: ['a', 'b'] }, { defaults: { schedule: 'H 3 * * *' } }),
    );
    expect(hashed.map(scheduleOf).every((s) => /^\d+ 3 \* \* \*$/.test(s))).toBe(true);
  });

  test('long node names get deterministic, hash-suffixed CronJob names of at most 52 characters', () => {
    const node = 'ip-10-0-123-45.eu-central-1.compute.internal';
    const [o] = renderCronJobs(etcdPolicy({ mode: 'perNode', nodes: [node] }, {}, 'production-etcd-backups'));
    expect(o.metadata.name.length).toBeLessThanOrEqual(52);
    expect(o.metadata.name).toMatch(/^production-etcd-backups-ip-10-0-123-45-.*-[0-9a-f]{8}$/);
    expect(podOf(o).nodeSelector).toEqual({ 'kubernetes.io/hostname': node });
    expectValidManifests([o]);
  });
});

describe('node roles and tolerations', () => {
  test.each([
    [
      'master',
      'node-role.kubernetes.io/master',
      ['node-role.kubernetes.io/master:NoSchedule', 'node-role.kubernetes.io/control-plane:NoSchedule'],
    ],
    [
      'etcd',
      'node-role.kubernetes.io/etcd',
      [
        'node-role.kubernetes.io/etcd:NoExecute',
        'node-role.kubernetes.io/control-plane:NoSchedule',
        'CriticalAddonsOnly:NoExecute',
      ],
    ],
  ])('%s', (nodeRole, label, taints) => {
    const [o] = renderCronJobs(etcdPolicy({ nodeRole: nodeRole as 'master' | 'etcd' }));
    expect(
      podOf(o).affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]
        ?.matchExpressions,
    ).toEqual([{ key: label, operator: 'Exists' }]);
    expect(podOf(o).tolerations?.map((t) => `${t.key}:${t.effect}`)).toEqual(taints);
  });

  test("tolerateAllTaints tolerates everything (OpenShift style); policy placement adds to the engine's", () => {
    const [o] = renderCronJobs(
      etcdPolicy(
        { tolerateAllTaints: true },
        { defaults: { placement: { nodeSelector: { zone: 'a' }, tolerations: [{ key: 'x', operator: 'Exists' }] } } },
      ),
    );
    expect(podOf(o).tolerations).toEqual([{ operator: 'Exists' }, { key: 'x', operator: 'Exists' }]);
    expect(podOf(o).nodeSelector).toEqual({ zone: 'a' });
  });

  test('priorityClassName, hostNetwork, endpoint, certificates and timeout can be changed', () => {
    const [o] = renderCronJobs(
      etcdPolicy(
        {
          hostNetwork: false,
          endpoint: 'https://10.0.0.1:2379',
          certificates: {
            hostPath: '/var/lib/rancher/k3s/server/tls/etcd',
            caFile: 'server-ca.crt',
            certFile: 'client.crt',
            keyFile: 'client.key',
          },
        },
        { defaults: { timeout: '30m', pod: { priorityClassName: 'backup-critical' } } },
      ),
    );
    const pod = podOf(o);
    expect(pod.hostNetwork).toBeUndefined();
    expect(pod.priorityClassName).toBe('backup-critical');
    expect(jobSpec(o).activeDeadlineSeconds).toBe(1800);
    expect(pod.volumes?.[0]).toEqual({
      name: 'etcd-certs',
      hostPath: { path: '/var/lib/rancher/k3s/server/tls/etcd', type: 'Directory' },
    });
    expect(envOf(o, 'snapshot')).toMatchObject({
      ETCDCTL_ENDPOINTS: 'https://10.0.0.1:2379',
      ETCDCTL_CACERT: '/etc/etcd-backup/pki/server-ca.crt',
      ETCDCTL_KEY: '/etc/etcd-backup/pki/client.key',
    });
  });
});

describe('destinations', () => {
  test('a PVC (with subPath) instead of the hostPath', () => {
    const [o] = renderCronJobs(
      etcdPolicy({
        destination: { persistentVolumeClaim: { claimName: 'etcd-backups', subPath: 'cluster-a' } },
        retentionScope: 'cluster',
      }),
    );
    expect(podOf(o).volumes?.[1]).toEqual({ name: 'backup', persistentVolumeClaim: { claimName: 'etcd-backups' } });
    expect(containerOf(o, 'finalize').volumeMounts?.[0]).toEqual({
      name: 'backup',
      mountPath: '/backup',
      subPath: 'cluster-a',
    });
    expect(envOf(o, 'finalize').ETCD_BACKUP_RETENTION_SCOPE).toBe('cluster');
    expectValidManifests([o]);
  });

  test('S3: the snapshot is taken into scratch, finalize runs the aws CLI image with credentials from a Secret', () => {
    const [o] = renderCronJobs(
      etcdPolicy({
        destination: {
          s3: {
            bucket: 'b-1',
            path: 'prod/etcd',
            region: 'eu-west-1',
            endpoint: 'https://minio.example.com',
            credentialsSecret: { name: 'creds', sessionTokenKey: 'token' },
            serverSideEncryption: 'aws:kms',
            kmsKeyId: 'k1',
            storageClass: 'STANDARD_IA',
          },
        },
      }),
    );
    expect(podOf(o).volumes?.map((v) => v.name)).toEqual(['etcd-certs', 'scratch', 'scripts']);
    expect(containerOf(o, 'finalize').image).toBe('amazon/aws-cli:2.17.64');
    expect(envOf(o, 'snapshot').ETCD_BACKUP_PARTIAL).toBe('/scratch/.etcd-snapshot_etcd_$(ETCD_BACKUP_NODE).partial');
    expect(envOf(o, 'finalize')).toMatchObject({
      BACKUP_DEST_KIND: 's3',
      S3_BUCKET: 'b-1',
      S3_PREFIX: 'prod/etcd/',
      S3_ENDPOINT: 'https://minio.example.com',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: { secretKeyRef: { name: 'creds', key: 'AWS_ACCESS_KEY_ID' } },
      AWS_SECRET_ACCESS_KEY: { secretKeyRef: { name: 'creds', key: 'AWS_SECRET_ACCESS_KEY' } },
      AWS_SESSION_TOKEN: { secretKeyRef: { name: 'creds', key: 'token' } },
      S3_SSE: 'aws:kms',
      S3_SSE_KMS_KEY_ID: 'k1',
      S3_STORAGE_CLASS: 'STANDARD_IA',
    });
    expectValidManifests([o]);
  });

  test('an http endpoint mounts and passes no certificates', () => {
    const [o] = renderCronJobs(etcdPolicy({ endpoint: 'http://127.0.0.1:2379' }));
    expect(JSON.stringify(o)).not.toMatch(/etcd-certs|ETCDCTL_CACERT|ETCDCTL_KEY/);
  });
});

describe('bad policies produce errors naming the field, the value and what is allowed', () => {
  test.each<[string, BackupPolicy, RegExp]>([
    [
      'perNode without nodes',
      etcdPolicy({ mode: 'perNode' }),
      /^spec\.etcd\.nodes: perNode mode needs the control-plane nodes/,
    ],
    ['nodes in cluster mode', etcdPolicy({ nodes: ['a'] }), /^spec\.etcd\.nodes: only valid with mode: perNode/],
    [
      'a node twice',
      etcdPolicy({ mode: 'perNode', nodes: ['a', { name: 'a' }] }),
      /^spec\.etcd\.nodes\[1\]\.name: received "a"; node names must be unique \(also at nodes\[0\]\)/,
    ],
    [
      'a bad node name',
      etcdPolicy({ mode: 'perNode', nodes: ['Node_1'] }),
      /^spec\.etcd\.nodes\[0\]: received "Node_1"; must be a DNS-1123 subdomain/,
    ],
    [
      'a bad per-node schedule',
      etcdPolicy({ mode: 'perNode', nodes: [{ name: 'a', schedule: '61 * * * *' }] }),
      /^spec\.etcd\.nodes\[0\]\.schedule: received "61 \* \* \* \*"/,
    ],
    [
      'scope cluster on hostPath',
      etcdPolicy({ retentionScope: 'cluster' }),
      /^spec\.etcd\.retentionScope: received "cluster"; a hostPath destination holds only its own node's snapshots/,
    ],
    [
      'a separate prune schedule for hostPath in cluster mode',
      etcdPolicy({}, { retention: { keepLast: 3, schedule: '0 * * * *' } }),
      /^spec\.retention\.schedule: a hostPath destination is pruned by one retention-prune CronJob per control-plane node .*cluster mode names no nodes: use mode: perNode and list the control-plane nodes in spec\.etcd\.nodes/,
    ],
    [
      'Gb (bits or bytes?)',
      etcdPolicy({}, { retention: { maxTotalSize: '10Gb' } }),
      /^spec\.retention\.maxTotalSize: received "10Gb"/,
    ],
    [
      'a bad mode',
      etcdPolicy({ mode: 'all' as never }),
      /^spec\.etcd\.mode: received "all"; allowed: "cluster", "perNode"/,
    ],
    [
      'an unknown field',
      etcdPolicy({ endpoints: ['x'] } as never),
      /^spec\.etcd\.endpoints: unknown field \(did you mean "endpoint"\?\)/,
    ],
    [
      'two endpoints',
      etcdPolicy({ endpoint: 'https://a:2379,https://b:2379' }),
      /^spec\.etcd\.endpoint: received "https:\/\/a:2379,https:\/\/b:2379"/,
    ],
    [
      'a relative hostPath',
      etcdPolicy({ destination: { hostPath: { path: 'backups' } } }),
      /^spec\.etcd\.destination\.hostPath\.path: received "backups"/,
    ],
    [
      'two destinations',
      etcdPolicy({ destination: { hostPath: {}, s3: { bucket: 'bkt', region: 'r' } } }),
      /^spec\.etcd\.destination: received \["hostPath","s3"\]; set exactly one of: hostPath, persistentVolumeClaim, s3/,
    ],
    [
      'kmsKeyId without aws:kms',
      etcdPolicy({ destination: { s3: { bucket: 'bkt', region: 'r', kmsKeyId: 'k' } } }),
      /^spec\.etcd\.destination\.s3\.kmsKeyId: only valid with serverSideEncryption: aws:kms/,
    ],
    [
      'certificates with an http endpoint',
      etcdPolicy({ endpoint: 'http://127.0.0.1:2379', certificates: { hostPath: '/x' } }),
      /^spec\.etcd\.certificates: only used with an https endpoint/,
    ],
    [
      'bucket rules outside UTC on busybox',
      etcdPolicy({}, { defaults: { timeZone: 'Europe/Berlin' }, retention: { daily: 7 } }),
      /^spec\.etcd\.images: bucket retention rules in time zone "Europe\/Berlin" need zoneinfo/,
    ],
    [
      'metrics on busybox',
      etcdPolicy({}, { metrics: { pushgatewayUrl: 'http://pgw:9091' } }),
      /^spec\.etcd\.images: metrics are pushed with curl/,
    ],
    [
      'restore fields that moved to the restore command',
      etcdPolicy({ restore: { snapshot: 'etcd-snapshot_etcd_2026-01-01T00:00:00Z_a.db' } as never }),
      /^spec\.etcd\.restore\.snapshot: unknown field; allowed fields: initialCluster, peerUrl, hostPath, bumpRevision/,
    ],
    [
      'a relative restore hostPath',
      etcdPolicy({ restore: { hostPath: 'restore' } }),
      /^spec\.etcd\.restore\.hostPath: received "restore"/,
    ],
  ])('%s', (_, policy, expected) => {
    const found = problems(policy);
    expect(found.some((p) => expected.test(p))).toBe(true);
  });

  test('a valid policy has no problems', () => {
    expect(problems(etcdPolicy())).toEqual([]);
  });
});

test('the published JSON Schema documents spec.etcd with its defaults', () => {
  const etcd = schemaAt(policySchema, 'spec', 'etcd');
  expect(etcd.additionalProperties).toBe(false);
  expect(schemaAt(etcd, 'mode').default).toBe('cluster');
  expect(schemaAt(etcd, 'endpoint').default).toBe('https://127.0.0.1:2379');
  expect(schemaAt(etcd, 'destination', 'hostPath', 'path').default).toBe('/var/lib/etcd-backup');
});

test('EtcdBackupSchedule (cdk8s) synthesizes exactly the objects of the equivalent policy', () => {
  const chart = Testing.chart();
  const schedule = new EtcdBackupSchedule(chart, 'etcd', {
    name: 'etcd',
    namespace: 'kube-system',
    mode: 'perNode',
    nodes: ['cp-1', 'cp-2'],
    schedule: '0 */6 * * *',
    retention: { keepLast: 4 },
    restore: { initialCluster: 'cp-1=https://10.0.0.1:2380,cp-2=https://10.0.0.2:2380' },
  });
  const expected = renderPolicy(
    etcdPolicy(
      {
        mode: 'perNode',
        nodes: ['cp-1', 'cp-2'],
        restore: { initialCluster: 'cp-1=https://10.0.0.1:2380,cp-2=https://10.0.0.2:2380' },
      },
      { defaults: { schedule: '0 */6 * * *' }, retention: { keepLast: 4 } },
    ),
  );
  expect(Testing.synth(chart)).toEqual(expected);
  expect(schedule.cronJobs.map((c) => c.name)).toEqual(['etcd-cp-1', 'etcd-cp-2']);
  expect(() => new EtcdBackupSchedule(chart, 'bad', { name: 'bad', mode: 'perNode' })).toThrow(
    / {2}nodes: perNode mode needs .* \(policy field spec\.etcd\.nodes\)/,
  );
});

describe('any valid policy renders valid, deterministic manifests (property)', () => {
  const nodeName = fc
    .stringMatching(/^[a-z][a-z0-9-]{0,20}(\.[a-z][a-z0-9-]{0,10}){0,2}[a-z0-9]$/)
    .filter((n) => !/--|-\./.test(n) && !/-$/.test(n.split('.')[0]));
  const policyArb = fc.record({
    perNode: fc.boolean(),
    nodes: fc.uniqueArray(nodeName, { minLength: 1, maxLength: 5 }),
    nodeRole: fc.constantFrom('control-plane', 'master', 'etcd'),
    tolerateAllTaints: fc.boolean(),
    destination: fc.constantFrom<Record<string, unknown>>(
      { hostPath: {} },
      { persistentVolumeClaim: { claimName: 'backups' } },
      { s3: { bucket: 'bucket', region: 'us-east-1', endpoint: 'https://s3.example.com' } },
    ),
    schedule: fc.constantFrom('@daily', '0 */6 * * *', '15 2 * * 1-5', 'H H * * *'),
    keepLast: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
    pruneSchedule: fc.option(fc.constantFrom('30 5 * * *', '@hourly', '0 4 * * 0'), { nil: undefined }),
    restore: fc.boolean(),
    policyName: fc.stringMatching(/^[a-z][a-z0-9-]{0,40}[a-z0-9]$/).filter((n) => !n.includes('--')),
  });

  test('names fit, objects validate strictly, the same input gives the same bytes', () => {
    fc.assert(
      fc.property(policyArb, (p) => {
        const etcd: Record<string, unknown> = {
          nodeRole: p.nodeRole,
          tolerateAllTaints: p.tolerateAllTaints,
          destination: p.destination,
        };
        if (p.perNode) etcd.mode = 'perNode';
        if (p.perNode) etcd.nodes = p.nodes;
        if (p.restore) etcd.restore = { hostPath: '/var/lib/restore' };
        const hostPath = 'hostPath' in p.destination;
        // a separate prune schedule needs a rule, and node names for hostPath
        const pruneSchedule = p.keepLast && (p.perNode || !hostPath) ? p.pruneSchedule : undefined;
        const policy = etcdPolicy(
          etcd,
          {
            defaults: { schedule: p.schedule },
            retention: p.keepLast ? { keepLast: p.keepLast, schedule: pruneSchedule } : undefined,
          },
          p.policyName,
        );
        const objs: Manifest[] = renderPolicy(policy);
        const backups = p.perNode ? p.nodes.length : 1;
        const prunes = pruneSchedule === undefined ? 0 : hostPath ? p.nodes.length : 1;
        expect(cronJobs(objs)).toHaveLength(backups + prunes);
        expect(
          cronJobs(objs).filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] === 'retention-prune'),
        ).toHaveLength(prunes);
        for (const o of cronJobs(objs)) expect(o.metadata.name.length).toBeLessThanOrEqual(52);
        expect(new Set(objs.map((o) => o.metadata.name)).size).toBe(objs.length);
        expectValidManifests(objs);
        expect(toYaml(renderPolicy(policy))).toBe(toYaml(objs));
      }),
      { numRuns: 40 },
    );
  });
});

test("the embedded scripts survive the kubelet's $(VAR) expansion: no $$ and no $(NAME) of a container env var (either mode)", () => {
  const policy = etcdPolicy({ mode: 'perNode', nodes: ['a'], destination: { s3: { bucket: 'bucket', region: 'r' } } });
  const inline = etcdPolicy(policy.spec.etcd, { scripts: { mode: 'inline' } });
  const objs = [
    ...renderCronJobs(policy),
    ...renderCronJobs(inline),
    restoreJobOf(policy, ['--target', 'a', '--snapshot', 'etcd-snapshot_etcd_2026-01-01T00:00:00Z_a.db']),
  ];
  for (const o of objs) {
    const pod = podOf(o);
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      if (c.command?.[1] !== '-c') continue;
      const script: string = c.command?.[2];
      expect(script).not.toContain('$$');
      const envNames = new Set((c.env ?? []).map((e) => e.name));
      const refs = [...script.matchAll(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g)].map((m) => m[1]);
      expect(refs.filter((r) => envNames.has(r))).toEqual([]);
    }
  }
});
