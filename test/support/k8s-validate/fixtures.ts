/**
 * Valid objects of every supported kind, and helpers to break them one field at a time, for the tests of
 * the validator's layers.
 */
import type {
  V1ConfigMap,
  V1PersistentVolumeClaim,
  V1Role,
  V1RoleBinding,
  V1Secret,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import type { Manifest } from '../../../lib/kubernetes/objects';
import type { SecurityContextConstraints } from '../scc-admission';
import { jobSpecOf } from '../kube';
import { ValidateOptions, validateManifest } from '.';

/** Dotted path of the pod spec inside a CronJob. */
export const POD = 'spec.jobTemplate.spec.template.spec';

/**
 * A CronJob using every field the validator knows. A `Manifest`, not a `V1CronJob`: some quantities are
 * JSON numbers (`cpu: 1`), which the API accepts and client-node's types do not; read it through the views
 * of test/support/kube.ts.
 */
export function validCronJob(): Manifest {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: {
      name: 'redis-main-backup',
      namespace: 'backups',
      labels: {
        'app.kubernetes.io/name': 'backup-cronjobs',
        'app.kubernetes.io/instance': 'redis-main',
        'backup-cronjobs.io/target': 'redis',
      },
      annotations: { 'backup-cronjobs.io/policy-hash': 'abc123', description: 'Nightly Redis backup' },
    },
    spec: {
      schedule: '17 3 * * *',
      timeZone: 'Europe/Berlin',
      concurrencyPolicy: 'Forbid',
      startingDeadlineSeconds: 300,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
      suspend: false,
      jobTemplate: {
        metadata: { labels: { 'app.kubernetes.io/name': 'backup-cronjobs' } },
        spec: {
          backoffLimit: 2,
          activeDeadlineSeconds: 3600,
          ttlSecondsAfterFinished: 86400,
          template: {
            metadata: {
              labels: { 'app.kubernetes.io/name': 'backup-cronjobs', 'app.kubernetes.io/component': 'backup-job' },
              annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' },
            },
            spec: {
              restartPolicy: 'Never',
              serviceAccountName: 'redis-main-backup',
              automountServiceAccountToken: false,
              securityContext: {
                runAsNonRoot: true,
                runAsUser: 65532,
                runAsGroup: 65532,
                fsGroup: 65532,
                seccompProfile: { type: 'RuntimeDefault' },
              },
              initContainers: [
                {
                  name: 'wait-for-redis',
                  image: 'docker.io/library/redis:7.2',
                  imagePullPolicy: 'IfNotPresent',
                  command: ['sh', '-c', 'until redis-cli -h "$REDIS_HOST" ping; do sleep 2; done'],
                  env: [{ name: 'REDIS_HOST', value: 'redis-main.redis.svc' }],
                  resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } },
                },
              ],
              containers: [
                {
                  name: 'backup',
                  image: 'ghcr.io/example/backup-runner:1.4.2',
                  imagePullPolicy: 'Always',
                  args: ['redis', '--output', '/scratch/dump.rdb'],
                  env: [
                    { name: 'REDIS_HOST', value: 'redis-main.redis.svc' },
                    {
                      name: 'REDISCLI_AUTH',
                      valueFrom: { secretKeyRef: { name: 'redis-auth', key: 'password', optional: false } },
                    },
                    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                    {
                      name: 'MEM_LIMIT',
                      valueFrom: {
                        resourceFieldRef: { containerName: 'backup', resource: 'limits.memory', divisor: '1Mi' },
                      },
                    },
                    { name: 'aws.region', value: 'eu-central-1' },
                  ],
                  envFrom: [{ configMapRef: { name: 'redis-main-backup' }, prefix: 'BACKUP_' }],
                  ports: [{ name: 'metrics', containerPort: 9100, protocol: 'TCP' }],
                  resources: {
                    requests: { cpu: '250m', memory: '256Mi', 'ephemeral-storage': '1Gi' },
                    limits: { cpu: 1, memory: '1Gi', 'ephemeral-storage': 2147483648 },
                  },
                  securityContext: {
                    allowPrivilegeEscalation: false,
                    readOnlyRootFilesystem: true,
                    capabilities: { drop: ['ALL'] },
                  },
                  livenessProbe: { httpGet: { path: '/healthz', port: 'metrics' }, periodSeconds: 30 },
                  readinessProbe: { tcpSocket: { port: 9100 } },
                  volumeMounts: [
                    { name: 'scratch', mountPath: '/scratch' },
                    { name: 'credentials', mountPath: '/etc/backup/credentials', readOnly: true },
                    { name: 'tmp', mountPath: '/tmp' },
                    { name: 'host-certs', mountPath: '/etc/ssl/certs', readOnly: true },
                  ],
                },
              ],
              volumes: [
                {
                  name: 'scratch',
                  ephemeral: {
                    volumeClaimTemplate: {
                      metadata: { labels: { 'app.kubernetes.io/name': 'backup-cronjobs' } },
                      spec: {
                        accessModes: ['ReadWriteOnce'],
                        storageClassName: 'fast-ssd',
                        volumeMode: 'Filesystem',
                        resources: { requests: { storage: '20Gi' } },
                      },
                    },
                  },
                },
                {
                  name: 'credentials',
                  secret: {
                    secretName: 'backup-s3-credentials',
                    defaultMode: 0o400,
                    items: [
                      { key: 'access-key-id', path: 'aws/access-key-id' },
                      { key: 'secret-access-key', path: 'aws/secret-access-key', mode: 0o400 },
                    ],
                  },
                },
                { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
                { name: 'host-certs', hostPath: { path: '/etc/ssl/certs', type: 'Directory' } },
                {
                  name: 'policy',
                  configMap: { name: 'redis-main-backup', items: [{ key: 'policy.yaml', path: 'conf/policy.yaml' }] },
                },
                {
                  name: 'bundle',
                  projected: {
                    sources: [
                      { secret: { name: 'backup-s3-credentials', items: [{ key: 'access-key-id', path: 'keys/id' }] } },
                      {
                        configMap: {
                          name: 'redis-main-backup',
                          items: [{ key: 'RETENTION_DAYS', path: 'retention-days' }],
                        },
                      },
                    ],
                  },
                },
              ],
              affinity: {
                nodeAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [
                      { matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] },
                      {
                        matchExpressions: [
                          { key: 'kubernetes.io/hostname', operator: 'In', values: ['cp-1.example.internal'] },
                        ],
                      },
                      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['cp-2'] }] },
                    ],
                  },
                  preferredDuringSchedulingIgnoredDuringExecution: [
                    { weight: 50, preference: { matchExpressions: [{ key: 'node-role/backup', operator: 'Exists' }] } },
                  ],
                },
                podAntiAffinity: {
                  preferredDuringSchedulingIgnoredDuringExecution: [
                    {
                      weight: 100,
                      podAffinityTerm: {
                        topologyKey: 'kubernetes.io/hostname',
                        labelSelector: {
                          matchLabels: { 'app.kubernetes.io/instance': 'redis-main' },
                          matchExpressions: [
                            { key: 'app.kubernetes.io/component', operator: 'In', values: ['backup-job'] },
                          ],
                        },
                        namespaces: ['backups'],
                      },
                    },
                  ],
                },
              },
              tolerations: [
                { key: 'dedicated', operator: 'Equal', value: 'backup', effect: 'NoSchedule' },
                {
                  key: 'node.kubernetes.io/unreachable',
                  operator: 'Exists',
                  effect: 'NoExecute',
                  tolerationSeconds: 60,
                },
              ],
              nodeSelector: { 'kubernetes.io/arch': 'amd64' },
              priorityClassName: 'backup-critical',
              topologySpreadConstraints: [
                {
                  maxSkew: 1,
                  topologyKey: 'topology.kubernetes.io/zone',
                  whenUnsatisfiable: 'ScheduleAnyway',
                  labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'backup-cronjobs' } },
                },
              ],
            },
          },
        },
      },
    },
  };
}

/** The job of validCronJob as a Job (a `Manifest` for the same reason). */
export function validJob(): Manifest {
  const cj = validCronJob();
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'redis-main-backup-manual', namespace: 'backups' },
    spec: jobSpecOf(cj),
  };
}

export function validPvc(): V1PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'backup-scratch', namespace: 'backups', labels: { 'app.kubernetes.io/name': 'backup-cronjobs' } },
    spec: {
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'standard',
      resources: { requests: { storage: '10Gi' } },
    },
  };
}

export function validConfigMap(): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'redis-main-backup', namespace: 'backups' },
    data: { 'policy.yaml': 'target: redis\n', RETENTION_DAYS: '7' },
    binaryData: { 'blob.bin': Buffer.from([1, 2, 3]).toString('base64') },
  };
}

export function validSecret(): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'backup-s3-credentials', namespace: 'backups' },
    type: 'Opaque',
    data: { 'access-key-id': Buffer.from('AKIA...').toString('base64') },
    stringData: { 'secret-access-key': 'plain' },
  };
}

export function validServiceAccount(): V1ServiceAccount {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'redis-main-backup', namespace: 'backups' },
    automountServiceAccountToken: false,
    imagePullSecrets: [{ name: 'ghcr' }],
  };
}

export function validRole(): V1Role {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'redis-main-backup', namespace: 'backups' },
    rules: [
      { apiGroups: [''], resources: ['pods', 'pods/exec'], verbs: ['get', 'list', 'create'] },
      { apiGroups: ['apps'], resources: ['statefulsets'], resourceNames: ['redis-main'], verbs: ['get'] },
    ],
  };
}

export function validRoleBinding(): V1RoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'redis-main-backup', namespace: 'backups' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'redis-main-backup' },
    subjects: [
      { kind: 'ServiceAccount', name: 'redis-main-backup', namespace: 'backups' },
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccounts:ops' },
    ],
  };
}

export function validPrometheusRule(): Manifest {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'backup-cronjobs', namespace: 'monitoring', labels: { release: 'kube-prometheus-stack' } },
    spec: {
      groups: [
        {
          name: 'backup-cronjobs.rules',
          interval: '1m',
          rules: [
            {
              record: 'backup:last_success_age_seconds',
              expr: 'time() - backup_last_success_timestamp_seconds',
              labels: { team: 'platform' },
            },
            {
              alert: 'BackupTooOld',
              expr: 'backup:last_success_age_seconds > 26 * 3600',
              for: '15m',
              keep_firing_for: '5m',
              labels: { severity: 'warning' },
              annotations: {
                summary: 'Backup {{ $labels.job }} is older than 26h',
                runbook_url: 'https://example.com/rb',
              },
            },
          ],
        },
      ],
    },
  };
}

/**
 * Sets (or with `undefined` deletes) the value at a dotted path such as `spec.a[0].b`, or at a list of
 * segments when a key contains dots (`[...path, 'kubernetes.io/hostname']`).
 */
export function mutate<T extends object>(obj: T, dotted: string | (string | number)[], value: unknown): T {
  const segs = Array.isArray(dotted)
    ? dotted
    : dotted
        .replace(/\[(\d+)\]/g, '.$1')
        .split('.')
        .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  let cur = containerAt(obj, []);
  segs.slice(0, -1).forEach((s, i) => (cur = containerAt(cur[s], segs.slice(0, i + 1))));
  const last = segs[segs.length - 1];
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  return obj;
}

/** An object or array on mutate's path, as a record of its fields or items; throws naming the path if there is none. */
function containerAt(v: unknown, path: (string | number)[]): Record<string | number, unknown> {
  if (v === null || typeof v !== 'object') throw new Error(`mutate: nothing to set into at ${path.join('.')}`);
  return v as Record<string | number, unknown>;
}

export const PATHS: [string, ValidateOptions][] = [
  ['packaged validators only', { useSharedSchema: false }],
  ['combined (packaged + shared strict schema when present)', {}],
];

/** The first error that starts with `prefix` (a path, maybe with the start of the message) and contains every fragment. */
export function expectError(errors: string[], prefix: string, ...fragments: string[]): string {
  const hit = errors.find((e) => e.startsWith(prefix) && fragments.every((f) => e.includes(f)));
  if (!hit) {
    throw new Error(
      `expected an error starting with ${JSON.stringify(prefix)} containing ${JSON.stringify(fragments)}; got:\n${errors.join('\n')}`,
    );
  }
  return hit;
}

/** Asserts that the api-rules layer reports exactly `path` with every fragment in its message. */
export function expectApiRule(obj: unknown, path: string, ...fragments: string[]): string {
  return expectError(validateManifest(obj), `${path}: `, ...fragments, 'api-rules]');
}

/** A rule, an object that breaks only it, the path it must be reported at, and fragments of the message. */
export type RuleCase = [rule: string, bad: () => object, path: string, ...fragments: string[]];

/** A valid edge case: the rule must not reject it. */
export type AcceptedCase = [what: string, good: () => object];

/**
 * OpenShift's default SCC restricted-v2 as `oc get scc restricted-v2 -o yaml` prints it (4.11+; quoted in
 * the install docs of the Kernel Module Management operator): a valid SCC written by OpenShift itself.
 */
export function validSecurityContextConstraints(): SecurityContextConstraints {
  return {
    allowHostDirVolumePlugin: false,
    allowHostIPC: false,
    allowHostNetwork: false,
    allowHostPID: false,
    allowHostPorts: false,
    allowPrivilegeEscalation: false,
    allowPrivilegedContainer: false,
    allowedCapabilities: ['NET_BIND_SERVICE'],
    apiVersion: 'security.openshift.io/v1',
    defaultAddCapabilities: null,
    fsGroup: { type: 'MustRunAs' },
    groups: [],
    kind: 'SecurityContextConstraints',
    metadata: { name: 'restricted-v2' },
    priority: null,
    readOnlyRootFilesystem: false,
    requiredDropCapabilities: ['ALL'],
    runAsUser: { type: 'MustRunAsRange' },
    seLinuxContext: { type: 'MustRunAs' },
    seccompProfiles: ['runtime/default'],
    supplementalGroups: { type: 'RunAsAny' },
    users: [],
    volumes: ['configMap', 'downwardAPI', 'emptyDir', 'persistentVolumeClaim', 'projected', 'secret'],
  };
}
