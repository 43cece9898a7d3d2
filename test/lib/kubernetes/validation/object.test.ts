import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import type { V1CronJob } from '@kubernetes/client-node';
import { loadPolicies, renderPolicy } from '../../../../lib';
import { validateObject } from '../../../support/kubernetes-validation';
import { podTemplateOf, podSpecOf } from '../../../support/kube';

const paths = (problems: readonly { path: string }[]) => problems.map((p) => p.path);

/** `v`, a part the hand-made CronJob sets (the API types make it optional); throws naming `what` if it is missing. */
function given<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new Error(`the hand-made CronJob has no ${what}`);
  return v;
}

/** A CronJob shaped like the core's, valid as written. */
function cronJob(): V1CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: {
      name: 'etcd-cp-1',
      namespace: 'kube-system',
      labels: { 'app.kubernetes.io/name': 'backup-cronjobs' },
      annotations: { 'example.com/owner': 'ops' },
    },
    spec: {
      schedule: '0 */4 * * *',
      timeZone: 'Etc/UTC',
      concurrencyPolicy: 'Forbid',
      startingDeadlineSeconds: 600,
      jobTemplate: {
        metadata: { labels: { 'app.kubernetes.io/name': 'backup-cronjobs' } },
        spec: {
          backoffLimit: 0,
          activeDeadlineSeconds: 3600,
          template: {
            metadata: { labels: { 'backup-cronjobs.io/serialization-group': 'etcd' } },
            spec: {
              restartPolicy: 'Never',
              nodeSelector: { 'kubernetes.io/hostname': 'cp-1' },
              affinity: {
                nodeAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [
                      { matchExpressions: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' }] },
                    ],
                  },
                },
                podAntiAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: [
                    {
                      labelSelector: { matchLabels: { 'backup-cronjobs.io/serialization-group': 'etcd' } },
                      topologyKey: 'kubernetes.io/hostname',
                      namespaces: ['kube-system'],
                    },
                  ],
                },
              },
              tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
              initContainers: [
                {
                  name: 'snapshot',
                  image: 'registry.k8s.io/etcd:3.5.16-0',
                  volumeMounts: [{ name: 'backup', mountPath: '/backup' }],
                },
              ],
              containers: [
                {
                  name: 'upload',
                  image: 'busybox:1.36',
                  env: [
                    { name: 'BACKUP_JOB', value: 'etcd-cp-1' },
                    { name: 'BACKUP_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                  ],
                  volumeMounts: [
                    { name: 'backup', mountPath: '/backup' },
                    { name: 'certs', mountPath: '/certs', readOnly: true },
                  ],
                  resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
                },
              ],
              volumes: [
                { name: 'backup', hostPath: { path: '/var/lib/etcd-backup', type: 'DirectoryOrCreate' } },
                {
                  name: 'certs',
                  secret: { secretName: 'etcd-certs', defaultMode: 0o400, items: [{ key: 'ca.crt', path: 'ca.crt' }] },
                },
                {
                  name: 'scratch',
                  ephemeral: {
                    volumeClaimTemplate: {
                      spec: {
                        accessModes: ['ReadWriteOncePod'],
                        storageClassName: 'standard',
                        resources: { requests: { storage: '10Gi' } },
                      },
                    },
                  },
                },
              ],
            },
          },
        },
      },
    },
  };
}

describe('validateObject on a hand-made CronJob', () => {
  test('the valid CronJob has no problem', () => {
    expect(validateObject(cronJob())).toEqual([]);
  });

  test('each class of problem is found at its path', () => {
    const c = cronJob();
    const metadata = given(c.metadata, 'metadata');
    const cronJobSpec = given(c.spec, 'spec');
    const pod = podTemplateOf(c);
    const spec = podSpecOf(c);
    const main = spec.containers[0];
    const podAntiAffinity = given(spec.affinity?.podAntiAffinity, 'podAntiAffinity');
    const volumes = given(spec.volumes, 'volumes');
    metadata.name = `etcd-${'x'.repeat(48)}`; // 53 characters
    metadata.namespace = 'Kube_System';
    given(metadata.labels, 'labels')['bad key!'] = 'x';
    given(metadata.annotations, 'annotations')['example.com/big'] = 'x'.repeat(262144);
    cronJobSpec.schedule = 'CRON_TZ=UTC 0 3 * * *';
    given(cronJobSpec.jobTemplate.metadata?.labels, 'job template labels')['app.kubernetes.io/instance'] = '-etcd';
    given(pod.metadata, 'pod metadata').annotations = { 'a b': '' };
    given(spec.nodeSelector, 'nodeSelector')['kubernetes.io/hostname'] = 'n'.repeat(64);
    given(
      spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]
        .matchExpressions?.[0],
      'node affinity requirement',
    ).values = ['x'];
    given(podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution?.[0], 'pod anti-affinity term').topologyKey =
      '';
    podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution = [
      {
        weight: 0,
        podAffinityTerm: { labelSelector: { matchLabels: { g: 'etcd!' } }, topologyKey: 'kubernetes.io/hostname' },
      },
    ];
    given(spec.tolerations, 'tolerations').push({ key: '', operator: 'Equal', value: 'x' });
    given(spec.initContainers, 'initContainers')[0].name = 'upload';
    given(main.env, 'env').push(
      { name: '1_BAD' },
      { name: 'SECRET', valueFrom: { secretKeyRef: { name: 'creds', key: 'a/b' } } },
    );
    given(main.volumeMounts, 'volumeMounts').push({ name: 'missing', mountPath: '/backup', subPath: '../etc' });
    given(main.resources?.requests, 'requests').memory = '1Gi';
    given(volumes[0].hostPath, 'hostPath').path = '/var/lib/../etc';
    given(volumes[1].secret?.items, 'secret items').push({ key: '..data', path: '/abs' });
    given(volumes[2].ephemeral?.volumeClaimTemplate, 'volumeClaimTemplate').spec = {
      accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'],
      storageClassName: 'Fast_SSD',
      resources: { requests: { storage: '0' } },
    };
    volumes.push({ name: 'backup', emptyDir: {} });

    const t = 'spec.jobTemplate.spec.template';
    const s = `${t}.spec`;
    expect(paths(validateObject(c)).sort()).toEqual(
      [
        'metadata.name',
        'metadata.namespace',
        'metadata.labels[bad key!]',
        'metadata.annotations',
        'spec.schedule',
        'spec.jobTemplate.metadata.labels[app.kubernetes.io/instance]',
        `${t}.metadata.annotations[a b]`,
        `${s}.nodeSelector[kubernetes.io/hostname]`,
        `${s}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values`,
        `${s}.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey`,
        `${s}.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight`,
        `${s}.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector.matchLabels[g]`,
        `${s}.tolerations[1].operator`,
        `${s}.initContainers[0].name`,
        `${s}.containers[0].env[2].name`,
        `${s}.containers[0].env[3].valueFrom.secretKeyRef.key`,
        `${s}.containers[0].volumeMounts[0].name`, // the volumes these mount are refused, so not found
        `${s}.containers[0].volumeMounts[1].name`,
        `${s}.initContainers[0].volumeMounts[0].name`,
        `${s}.containers[0].volumeMounts[2].name`,
        `${s}.containers[0].volumeMounts[2].mountPath`,
        `${s}.containers[0].volumeMounts[2].subPath`,
        `${s}.containers[0].resources.requests[memory]`,
        `${s}.volumes[0].hostPath.path`,
        `${s}.volumes[1].secret.items[1].key`,
        `${s}.volumes[1].secret.items[1].path`,
        `${s}.volumes[2].ephemeral.volumeClaimTemplate.spec.accessModes`,
        `${s}.volumes[2].ephemeral.volumeClaimTemplate.spec.resources[storage]`,
        `${s}.volumes[2].ephemeral.volumeClaimTemplate.spec.storageClassName`,
        `${s}.volumes[3].name`,
      ].sort(),
    );
  });

  test('messages name the value and the rule', () => {
    const c = cronJob();
    given(podSpecOf(c).containers[0].resources?.requests, 'requests').memory = '1Gi';
    expect(validateObject(c)).toEqual([
      {
        path: 'spec.jobTemplate.spec.template.spec.containers[0].resources.requests[memory]',
        message: 'received "1Gi"; must be less than or equal to memory limit of 512Mi',
      },
    ]);
  });
});

describe('validateObject on other kinds', () => {
  test('Job: name limited to 63 characters, restartPolicy OnFailure or Never', () => {
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'r'.repeat(64) },
      spec: { template: { spec: { restartPolicy: 'Always', containers: [{ name: 'c', image: 'i' }] } } },
    };
    expect(paths(validateObject(job))).toEqual(['metadata.name', 'spec.template.spec.restartPolicy']);
  });

  test('ConfigMap, ServiceAccount, Role, RoleBinding', () => {
    expect(
      paths(validateObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { 'a b': '' } })),
    ).toEqual(['data[a b]']);
    expect(paths(validateObject({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'Backup' } }))).toEqual([
      'metadata.name',
    ]);
    expect(
      paths(
        validateObject({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'backup:reader' },
          rules: [{ verbs: ['get'] }],
        }),
      ),
    ).toEqual(['rules[0].apiGroups', 'rules[0].resources']);
    expect(
      paths(
        validateObject({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'b' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
          subjects: [{ kind: 'ServiceAccount', name: 'Backup' }],
        }),
      ),
    ).toEqual(['subjects[0].name']);
  });

  test('PrometheusRule: custom resource name rule, rule labels', () => {
    const rule = {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      metadata: { name: 'Alerts' },
      spec: { groups: [{ name: 'g', rules: [{ alert: 'A', expr: 'up', labels: { 'team-name': 'x' } }] }] },
    };
    expect(paths(validateObject(rule))).toEqual(['metadata.name', 'spec.groups[0].rules[0].labels[team-name]']);
  });

  test('unknown kinds are checked by metadata only', () => {
    expect(
      paths(
        validateObject({
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w', labels: { a: '-' } },
          spec: { containers: 'anything' },
        }),
      ),
    ).toEqual(['metadata.labels[a]']);
  });

  test('not an object, no apiVersion or kind, no name', () => {
    expect(validateObject('x')).toEqual([{ path: '', message: 'received "x"; a Kubernetes object must be a map' }]);
    expect(paths(validateObject({ metadata: {} }))).toEqual(['apiVersion', 'kind', 'metadata.name']);
  });
});

describe('validateObject on the objects of every example policy', () => {
  const dir = join(__dirname, '..', '..', '..', '..', 'examples', 'policies');
  const files = readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();

  test('there are example policies', () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
  });

  test.each(files)('%s: no problem in any object', (file) => {
    const objects = loadPolicies(readFileSync(join(dir, file), 'utf8'), file).flatMap((policy) => renderPolicy(policy));
    expect(objects.length).toBeGreaterThan(0);
    expect(
      objects
        .map((o) => ({ object: `${o.kind}/${o.metadata.name}`, problems: validateObject(o) }))
        .filter((r) => r.problems.length > 0),
    ).toEqual([]);
  });
});
