// What spec.drill renders for etcd: one restore-drill CronJob per backup target,
// placed by where the snapshots are, as unprivileged as that allows, with the
// settings levels merged, valid for the API server; and the policies it refuses.
import { renderPolicy, toYaml } from '../../../../lib';
import type { BackupPolicy, Manifest } from '../../../../lib';
import { expectValidManifests } from '../../../support/k8s-validate';
import { abbreviateScripts } from '../../../support/snapshots';
import { containerOf, cronJobs, envOf, etcdPolicy, podOf, problems } from './fixtures';
import { jobSpecOf } from '../../../support/kube';

const jobSpec = jobSpecOf;
const names = (list: { name: string }[] | undefined) => (list ?? []).map((c) => c.name);
const component = (o: Manifest) => (o.metadata.labels as Record<string, string>)['app.kubernetes.io/component'];
const drills = (policy: BackupPolicy) => cronJobs(renderPolicy(policy)).filter((o) => component(o) === 'restore-drill');

const DRILL = { drill: { schedule: '0 4 * * 0', maxBackupAge: '2d' } };
const S3 = { s3: { bucket: 'etcd-backups', region: 'eu-central-1', credentialsSecret: { name: 's3-creds' } } };
const PVC = { persistentVolumeClaim: { claimName: 'etcd-backups', subPath: 'etcd' } };

describe('perNode with a hostPath destination', () => {
  const policy = etcdPolicy({ mode: 'perNode', nodes: ['cp-1', 'cp-2', 'cp-3'] }, DRILL);
  const objs = renderPolicy(policy);
  const list = drills(policy);

  test('one drill CronJob per node, after the backups, on the drill schedule, with the drill deadline; valid for the API server', () => {
    expect(objs.map((o) => o.metadata.name)).toEqual([
      expect.stringMatching(/^etcd-scripts-[0-9a-f]{10}$/),
      'etcd-cp-1',
      'etcd-cp-2',
      'etcd-cp-3',
      'etcd-drill-cp-1',
      'etcd-drill-cp-2',
      'etcd-drill-cp-3',
    ]);
    for (const cj of list) {
      expect(cj.spec).toMatchObject({ schedule: '0 4 * * 0', concurrencyPolicy: 'Forbid' });
      expect(jobSpec(cj).activeDeadlineSeconds).toBe(30 * 60);
      expect(envOf(cj, 'report').BACKUP_DRILL_MAX_AGE_SECONDS).toBe(String(2 * 86400));
    }
    expectValidManifests(objs);
  });

  test('each runs on its own node (the snapshots are there), root without capabilities, the directory read-only', () => {
    list.forEach((cj, i) => {
      const node = `cp-${i + 1}`;
      const pod = podOf(cj);
      expect(pod.nodeSelector).toEqual({ 'kubernetes.io/hostname': node });
      expect(pod.tolerations?.map((t) => t.key)).toEqual([
        'node-role.kubernetes.io/control-plane',
        'node-role.kubernetes.io/master',
      ]);
      expect(pod.securityContext).toEqual({
        runAsUser: 0,
        runAsGroup: 0,
        runAsNonRoot: false,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod.volumes?.find((v) => v.name === 'backup')?.hostPath?.path).toBe('/var/lib/etcd-backup');
      for (const c of ['fetch', 'restore'])
        expect(containerOf(cj, c).volumeMounts).toContainEqual({
          name: 'backup',
          mountPath: '/backup',
          readOnly: true,
        });
      expect(envOf(cj, 'fetch')).toMatchObject({
        ETCD_BACKUP_NODE: node,
        BACKUP_NAME_SUFFIX: '_$(ETCD_BACKUP_NODE).db',
        BACKUP_DIR: '/backup',
      });
      expect((cj.metadata.labels as Record<string, string>)['backup-cronjobs.io/node']).toBe(node);
    });
  });

  test('never near the live cluster: no host network, no client certificates, no API token, no priority class, no serialization group', () => {
    for (const cj of list) {
      const pod = podOf(cj);
      expect(pod.hostNetwork).toBeUndefined();
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.priorityClassName).toBeUndefined();
      expect(pod.affinity?.podAntiAffinity).toBeUndefined();
      expect(names(pod.volumes)).toEqual(['backup', 'scratch', 'scripts']);
      expect(Object.keys(jobSpec(cj).template.metadata?.labels ?? {})).not.toContain(
        'backup-cronjobs.io/serialization-group',
      );
      for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
        expect(Object.keys(envOf(cj, c.name)).filter((n) => n.startsWith('ETCDCTL_') && n !== 'ETCDCTL_API')).toEqual(
          [],
        );
        expect(c.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
          readOnlyRootFilesystem: true,
        });
      }
    }
  });

  test('the steps: fetch (shell image), tools (busybox), restore (etcd image), then report; no decrypt without spec.encryption', () => {
    const pod = podOf(list[0]);
    expect(names(pod.initContainers)).toEqual(['fetch', 'tools', 'restore']);
    expect(names(pod.containers)).toEqual(['report']);
    expect(pod.initContainers?.map((c) => c.image)).toEqual([
      'busybox:1.36.1-musl',
      'busybox:1.36.1-musl',
      'registry.k8s.io/etcd:3.5.16-0',
    ]);
    expect(containerOf(list[0], 'restore').command?.[0]).toBe('$(ETCD_BACKUP_TOOLS)/sh');
  });

  test('as a reviewer reads it (scripts by hash)', () => {
    expect(toYaml(abbreviateScripts([list[0]]))).toMatchSnapshot();
  });
});

test("settings: spec.defaults, then the node's own level, then spec.drill, field by field", () => {
  const policy = etcdPolicy(
    { mode: 'perNode', nodes: [{ name: 'cp-1', timeZone: 'Europe/Berlin', suspend: true, timeout: '5m' }, 'cp-2'] },
    {
      defaults: { successfulJobsHistoryLimit: 7, timeout: '20m' },
      drill: { schedule: '@weekly', timeout: '45m', pod: { resources: { limits: { memory: '2Gi' } } } },
    },
  );
  const [one, two] = drills(policy);
  expect(one.spec).toMatchObject({
    schedule: '@weekly',
    timeZone: 'Europe/Berlin',
    suspend: true,
    successfulJobsHistoryLimit: 7,
  });
  expect(two.spec).toMatchObject({ schedule: '@weekly', suspend: false, successfulJobsHistoryLimit: 7 });
  expect((two.spec as { timeZone?: string }).timeZone).toBeUndefined();
  for (const cj of [one, two]) {
    expect(jobSpec(cj).activeDeadlineSeconds).toBe(45 * 60);
    // spec.drill's limit over the step's default requests (docs/operations/resources.md)
    expect(containerOf(cj, 'restore').resources).toEqual({
      requests: { cpu: '100m', memory: '256Mi' },
      limits: { memory: '2Gi' },
    });
  }
});

test('a drill schedule the API server refuses is reported at spec.drill.schedule', () => {
  expect(problems(etcdPolicy({ mode: 'perNode', nodes: ['cp-1'] }, { drill: { schedule: '0 0 * * 7' } }))).toEqual([
    expect.stringMatching(/^spec\.drill\.schedule: received "0 0 \* \* 7"; /),
  ]);
});

test("cluster mode with a PVC: one drill over every node's snapshots, on the control-plane nodes (where the volume is mounted), root, read-only", () => {
  const policy = etcdPolicy({ destination: PVC }, DRILL);
  const list = drills(policy);
  expect(list.map((o) => o.metadata.name)).toEqual(['etcd-drill']);
  const pod = podOf(list[0]);
  expect(pod.nodeSelector).toBeUndefined();
  expect(pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms).toEqual([
    { matchExpressions: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' }] },
  ]);
  expect(pod.securityContext?.runAsUser).toBe(0);
  expect(containerOf(list[0], 'fetch').volumeMounts).toContainEqual({
    name: 'backup',
    mountPath: '/backup',
    subPath: 'etcd',
    readOnly: true,
  });
  const env = envOf(list[0], 'fetch');
  expect(env.ETCD_BACKUP_NODE).toBeUndefined();
  // no node suffix: the fetch step lists every node's snapshots
  expect(env.BACKUP_NAME_SUFFIX).toBeUndefined();
  expectValidManifests(renderPolicy(policy));
});

test("S3: anywhere (off the control plane's disks), non-root, no volume but scratch, the aws CLI image for fetch and report", () => {
  const policy = etcdPolicy({ mode: 'perNode', nodes: ['cp-1', 'cp-2'], destination: S3 }, DRILL);
  const list = drills(policy);
  expect(list.map((o) => o.metadata.name)).toEqual(['etcd-drill-cp-1', 'etcd-drill-cp-2']);
  for (const cj of list) {
    const pod = podOf(cj);
    expect(pod.nodeSelector).toBeUndefined();
    expect(pod.affinity).toBeUndefined();
    expect(pod.tolerations).toBeUndefined();
    expect(pod.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65534,
      runAsGroup: 65534,
      fsGroup: 65534,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(names(pod.volumes)).toEqual(['scratch', 'scripts']);
    expect(containerOf(cj, 'fetch').image).toBe('amazon/aws-cli:2.17.64');
    expect(containerOf(cj, 'report').image).toBe('amazon/aws-cli:2.17.64');
    expect(envOf(cj, 'fetch').AWS_ACCESS_KEY_ID).toEqual({
      secretKeyRef: { name: 's3-creds', key: 'AWS_ACCESS_KEY_ID' },
    });
    expect(envOf(cj, 'report').AWS_ACCESS_KEY_ID).toBeUndefined();
  }
  // a literal node name: the drill of cp-2 reads cp-2's snapshots wherever it runs
  expect(envOf(list[1], 'fetch').ETCD_BACKUP_NODE).toBe('cp-2');
  expectValidManifests(renderPolicy(policy));
});

describe('with spec.encryption', () => {
  test('a decrypt step runs the age image with the identity Secret (owner-read only), mounted in that step only', () => {
    const policy = etcdPolicy(
      { mode: 'perNode', nodes: ['cp-1'] },
      {
        ...DRILL,
        encryption: {
          age: {
            recipientsSecret: { name: 'age-recipients', key: 'recipients.txt' },
            identitySecret: { name: 'etcd-age', key: 'identity' },
            image: 'registry.example.com/age:1.1',
          },
        },
      },
    );
    const [cj] = drills(policy);
    const pod = podOf(cj);
    expect(names(pod.initContainers)).toEqual(['fetch', 'decrypt', 'tools', 'restore']);
    const decrypt = containerOf(cj, 'decrypt');
    expect(decrypt.image).toBe('registry.example.com/age:1.1');
    expect(envOf(cj, 'decrypt').BACKUP_AGE_IDENTITY_FILE).toBe('/etc/backup-cronjobs/age-identity/identity.txt');
    expect(pod.volumes).toContainEqual({
      name: 'age-identity',
      secret: { secretName: 'etcd-age', items: [{ key: 'identity', path: 'identity.txt' }], defaultMode: 0o400 },
    });
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      expect((c.volumeMounts ?? []).some((m) => m.name === 'age-identity')).toBe(c.name === 'decrypt');
    }
    // the drill never encrypts: no recipients
    expect(JSON.stringify(cj)).not.toContain('age-recipients');
    expectValidManifests(renderPolicy(policy));
  });
});

test('cluster mode with a hostPath destination is refused: no drill knows which node holds the newest snapshot', () => {
  expect(problems(etcdPolicy({}, DRILL))).toEqual([
    'spec.drill: a hostPath destination keeps each snapshot on the node that took it, and cluster mode names no nodes, so no drill knows where the newest snapshot is: use mode: perNode and list the control-plane nodes in spec.etcd.nodes (one drill per node, on that node), or a persistentVolumeClaim or s3 destination',
  ]);
});

test('metrics from a hostPath or PVC drill need a shell image with curl, as the backups do', () => {
  const policy = etcdPolicy(
    { mode: 'perNode', nodes: ['cp-1'] },
    { ...DRILL, metrics: { pushgatewayUrl: 'http://pushgateway.monitoring.svc:9091' } },
  );
  expect(problems(policy)).toEqual([expect.stringMatching(/^spec\.etcd\.images: metrics are pushed with curl/)]);
  const ok = etcdPolicy(
    { mode: 'perNode', nodes: ['cp-1'], images: { shell: 'curlimages/curl:8.10.1' } },
    { ...DRILL, metrics: { pushgatewayUrl: 'http://pushgateway.monitoring.svc:9091' } },
  );
  expect(containerOf(drills(ok)[0], 'report').image).toBe('curlimages/curl:8.10.1');
});
