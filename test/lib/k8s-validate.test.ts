import {
  expectValidManifests,
  sharedSchemaAvailable,
  supportedKinds,
  validateManifest,
  SHARED_SCHEMA_PATH,
  ValidateOptions,
} from '../support/k8s-validate';

type Json = Record<string, any>;

const POD = 'spec.jobTemplate.spec.template.spec';

function validCronJob(): Json {
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
                    { name: 'REDISCLI_AUTH', valueFrom: { secretKeyRef: { name: 'redis-auth', key: 'password', optional: false } } },
                    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                    { name: 'MEM_LIMIT', valueFrom: { resourceFieldRef: { containerName: 'backup', resource: 'limits.memory', divisor: '1Mi' } } },
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
              ],
              affinity: {
                nodeAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [
                      { matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] },
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
                        labelSelector: { matchLabels: { 'app.kubernetes.io/instance': 'redis-main' } },
                      },
                    },
                  ],
                },
              },
              tolerations: [
                { key: 'dedicated', operator: 'Equal', value: 'backup', effect: 'NoSchedule' },
                { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
              ],
              nodeSelector: { 'kubernetes.io/arch': 'amd64' },
            },
          },
        },
      },
    },
  };
}

function validJob(): Json {
  const cj = validCronJob();
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'redis-main-backup-manual', namespace: 'backups' },
    spec: cj.spec.jobTemplate.spec,
  };
}

function validPvc(): Json {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'backup-scratch', namespace: 'backups', labels: { 'app.kubernetes.io/name': 'backup-cronjobs' } },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', resources: { requests: { storage: '10Gi' } } },
  };
}

function validConfigMap(): Json {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'redis-main-backup', namespace: 'backups' },
    data: { 'policy.yaml': 'target: redis\n', RETENTION_DAYS: '7' },
    binaryData: { 'blob.bin': Buffer.from([1, 2, 3]).toString('base64') },
  };
}

function validSecret(): Json {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'backup-s3-credentials', namespace: 'backups' },
    type: 'Opaque',
    data: { 'access-key-id': Buffer.from('AKIA...').toString('base64') },
    stringData: { 'secret-access-key': 'plain' },
  };
}

function validServiceAccount(): Json {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'redis-main-backup', namespace: 'backups' },
    automountServiceAccountToken: false,
    imagePullSecrets: [{ name: 'ghcr' }],
  };
}

function validRole(): Json {
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

function validRoleBinding(): Json {
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

function validPrometheusRule(): Json {
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
              annotations: { summary: 'Backup {{ $labels.job }} is older than 26h', runbook_url: 'https://example.com/rb' },
            },
          ],
        },
      ],
    },
  };
}

/** Sets (or with `undefined` deletes) the value at a dotted path such as `spec.a[0].b`. */
function mutate(obj: Json, dotted: string, value: unknown): Json {
  const segs = dotted
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  let cur: any = obj;
  for (const s of segs.slice(0, -1)) cur = cur[s];
  const last = segs[segs.length - 1];
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  return obj;
}

const PATHS: [string, ValidateOptions][] = [
  ['packaged validators only', { useSharedSchema: false }],
  ['combined (packaged + shared strict schema when present)', {}],
];

function expectError(errors: string[], prefix: string, ...fragments: string[]): string {
  const hit = errors.find((e) => e.startsWith(prefix) && fragments.every((f) => e.includes(f)));
  if (!hit) {
    throw new Error(`expected an error starting with ${JSON.stringify(prefix)} containing ${JSON.stringify(fragments)}; got:\n${errors.join('\n')}`);
  }
  return hit;
}

beforeAll(() => {
  if (!sharedSchemaAvailable()) {
    // Not an error (also not with CI=true): outside users don't have the shared folder.
    // eslint-disable-next-line no-console
    console.log(`k8s-validate: strict shared schema not found at ${SHARED_SCHEMA_PATH}; combined path = packaged path`);
  }
});

describe('k8s-validate', () => {
  test('knows the supported kinds', () => {
    expect(supportedKinds()).toEqual(
      expect.arrayContaining([
        'batch/v1/CronJob',
        'batch/v1/Job',
        'v1/PersistentVolumeClaim',
        'v1/ConfigMap',
        'v1/Secret',
        'v1/ServiceAccount',
        'rbac.authorization.k8s.io/v1/Role',
        'rbac.authorization.k8s.io/v1/RoleBinding',
        'monitoring.coreos.com/v1/PrometheusRule',
      ]),
    );
  });

  test('sharedSchemaAvailable() reports a boolean and does not throw when the folder is missing', () => {
    expect(typeof sharedSchemaAvailable()).toBe('boolean');
  });

  describe.each(PATHS)('%s', (_label, opts) => {
    const v = (o: unknown) => validateManifest(o, opts);
    const shared = opts.useSharedSchema !== false && sharedSchemaAvailable();

    test('a realistic CronJob is valid', () => {
      expect(v(validCronJob())).toEqual([]);
    });

    test('valid Job, PVC, ConfigMap, Secret, ServiceAccount, Role, RoleBinding, PrometheusRule pass', () => {
      for (const o of [
        validJob(),
        validPvc(),
        validConfigMap(),
        validSecret(),
        validServiceAccount(),
        validRole(),
        validRoleBinding(),
        validPrometheusRule(),
      ]) {
        expect({ kind: o.kind, errors: v(o) }).toEqual({ kind: o.kind, errors: [] });
      }
      expect(() => expectValidManifests([validCronJob(), validPvc(), validPrometheusRule()], opts)).not.toThrow();
    });

    test('unknown field deep in the pod spec', () => {
      const errors = v(mutate(validCronJob(), `${POD}.containers[0].bogus`, 1));
      const e = expectError(errors, `${POD}.containers[0].bogus: unknown field`, 'client-node');
      if (shared) expect(e).toContain('k8s-1.28-schema');
      expectError(v(mutate(validCronJob(), `${POD}.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.request`, {})), `${POD}.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.request: unknown field`);
      expectError(v(mutate(validCronJob(), `${POD}.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologykey`, 'x')), `${POD}.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologykey: unknown field`);
      expectError(v(mutate(validCronJob(), 'spec.jobTemplate.spec.template.spec.containers[0].env[1].valueFrom.secretKeyRef.nmae', 'x')), 'spec.jobTemplate.spec.template.spec.containers[0].env[1].valueFrom.secretKeyRef.nmae: unknown field');
      expectError(v(mutate(validCronJob(), 'metadata.label', {})), 'metadata.label: unknown field');
      expectError(v(mutate(validCronJob(), 'specs', {})), 'specs: unknown field');
    });

    test('wrong primitive type', () => {
      const errors = v(mutate(validCronJob(), 'spec.successfulJobsHistoryLimit', '3'));
      const e = expectError(errors, 'spec.successfulJobsHistoryLimit: wrong type: expected integer, got string', 'kubernetes-models', 'client-node');
      if (shared) expect(e).toContain('k8s-1.28-schema');
      expectError(v(mutate(validCronJob(), 'spec.suspend', 'false')), 'spec.suspend: wrong type: expected boolean, got string');
      expectError(v(mutate(validCronJob(), `${POD}.containers[0].args`, 'redis')), `${POD}.containers[0].args: wrong type: expected array, got string`);
      expectError(v(mutate(validCronJob(), `${POD}.containers[0].readinessProbe.tcpSocket.port`, 1.5)), `${POD}.containers[0].readinessProbe.tcpSocket.port: wrong type: expected string or integer, got number`);
      expectError(v(mutate(validCronJob(), `${POD}.containers[0].resources.limits.cpu`, true)), `${POD}.containers[0].resources.limits.cpu: wrong type`);
      expectError(v(mutate(validCronJob(), 'metadata.labels.tier', 3)), 'metadata.labels.tier: wrong type: expected string, got integer');
    });

    test('quantities may be strings or numbers but must parse', () => {
      expect(v(mutate(validCronJob(), `${POD}.volumes[2].emptyDir.sizeLimit`, 67108864))).toEqual([]);
      expectError(v(mutate(validCronJob(), `${POD}.volumes[2].emptyDir.sizeLimit`, '64 MB')), `${POD}.volumes[2].emptyDir.sizeLimit: bad quantity "64 MB"`);
      expectError(
        v(mutate(validCronJob(), `${POD}.containers[0].resources.requests.memory`, '2Gi')),
        `${POD}.containers[0].resources.requests.memory: must be less than or equal to memory limit`,
      );
    });

    test('missing required fields', () => {
      const e1 = expectError(v(mutate(validCronJob(), 'spec.schedule', undefined)), 'spec.schedule: missing required field', 'kubernetes-models');
      if (shared) expect(e1).toContain('k8s-1.28-schema');
      const e2 = expectError(v(mutate(validCronJob(), `${POD}.containers[0].name`, undefined)), `${POD}.containers[0].name: missing required field`, 'kubernetes-models');
      if (shared) expect(e2).toContain('k8s-1.28-schema');
      expectError(v(mutate(validCronJob(), 'metadata.name', undefined)), 'metadata.name: missing required field');
      expectError(v(mutate(validCronJob(), `${POD}.restartPolicy`, undefined)), `${POD}.restartPolicy: missing required field`);
      expectError(v(mutate(validCronJob(), `${POD}.containers[0].image`, undefined)), `${POD}.containers[0].image: missing required field`);
      expectError(v(mutate(validCronJob(), `${POD}.containers`, [])), `${POD}.containers: must contain at least one container`);
      expectError(v({ kind: 'CronJob' }), 'apiVersion: missing required field');
    });

    test('enum violations', () => {
      expectError(v(mutate(validCronJob(), 'spec.concurrencyPolicy', 'Sometimes')), 'spec.concurrencyPolicy: value "Sometimes" not in enum', 'Forbid');
      expectError(v(mutate(validCronJob(), `${POD}.restartPolicy`, 'Sometimes')), `${POD}.restartPolicy: value "Sometimes" not in enum`);
      // Always is a valid pod restartPolicy, but not for Job pods (API-server rule)
      expectError(v(mutate(validCronJob(), `${POD}.restartPolicy`, 'Always')), `${POD}.restartPolicy: value "Always" not in enum ["OnFailure","Never"]`);
      expectError(v(mutate(validCronJob(), `${POD}.containers[0].imagePullPolicy`, 'Sometimes')), `${POD}.containers[0].imagePullPolicy: value "Sometimes" not in enum`);
      expectError(v(mutate(validCronJob(), `${POD}.volumes[3].hostPath.type`, 'Dir')), `${POD}.volumes[3].hostPath.type: value "Dir" not in enum`);
      expectError(v(mutate(validCronJob(), `${POD}.tolerations[0].operator`, 'Is')), `${POD}.tolerations[0].operator: value "Is" not in enum`);
    });

    test('CronJob name: DNS-1123 subdomain of at most 52 characters', () => {
      expect(v(mutate(validCronJob(), 'metadata.name', 'a'.repeat(52)))).toEqual([]);
      expectError(v(mutate(validCronJob(), 'metadata.name', 'a'.repeat(53))), 'metadata.name: bad name', 'no more than 52 characters');
      expectError(v(mutate(validCronJob(), 'metadata.name', 'Redis-Backup')), 'metadata.name: bad name "Redis-Backup"', 'DNS-1123 subdomain');
      expectError(v(mutate(validCronJob(), 'metadata.name', 'redis_backup')), 'metadata.name: bad name');
      expectError(v(mutate(validCronJob(), 'metadata.namespace', 'Backups')), 'metadata.namespace: bad name');
      expectError(v(mutate(validJob(), 'metadata.name', 'j'.repeat(64))), 'metadata.name: bad name', 'no more than 63 characters');
    });

    test('label keys and values', () => {
      expectError(v(mutate(validCronJob(), 'metadata.labels.tier', 'bad value!')), 'metadata.labels.tier: bad label value "bad value!"');
      expectError(v(mutate(validCronJob(), 'metadata.labels.tier', 'x'.repeat(64))), 'metadata.labels.tier: bad label value', '63');
      expectError(v(mutate(validCronJob(), 'metadata.labels.tier', '-x')), 'metadata.labels.tier: bad label value');
      expect(v(mutate(validCronJob(), 'metadata.labels.tier', ''))).toEqual([]);
      expectError(v(mutate(validCronJob(), 'metadata.labels', { 'Example.COM/x': 'y' })), 'metadata.labels["Example.COM/x"]: bad label key', 'prefix');
      expectError(v(mutate(validCronJob(), 'metadata.labels', { ['k'.repeat(64)]: 'y' })), 'metadata.labels.', 'bad label key', '63');
      expectError(v(mutate(validCronJob(), 'metadata.labels', { 'a/b/c': 'y' })), 'metadata.labels["a/b/c"]: bad label key');
      expectError(v(mutate(validCronJob(), 'spec.jobTemplate.spec.template.metadata.labels.x', 'a b')), 'spec.jobTemplate.spec.template.metadata.labels.x: bad label value');
      expectError(v(mutate(validCronJob(), `${POD}.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector.matchLabels.x`, 'a b')), `${POD}.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector.matchLabels.x: bad label value`);
      expectError(v(mutate(validCronJob(), 'metadata.annotations', { 'bad key!': 'x' })), 'metadata.annotations["bad key!"]: bad annotation key');
    });

    test('volumes: unique DNS-1123 label names, mounts must refer to existing volumes', () => {
      const dup = validCronJob();
      dup.spec.jobTemplate.spec.template.spec.volumes.push({ name: 'tmp', emptyDir: {} });
      expectError(v(dup), `${POD}.volumes[4].name: duplicate volume name "tmp"`);
      expectError(v(mutate(validCronJob(), `${POD}.containers[0].volumeMounts[0].name`, 'scratchh')), `${POD}.containers[0].volumeMounts[0].name: volume "scratchh" not found`);
      expectError(v(mutate(validCronJob(), `${POD}.volumes[2].name`, 'Tmp')), `${POD}.volumes[2].name: bad name "Tmp"`);
      expectError(v(mutate(validCronJob(), `${POD}.volumes[2].secret`, { secretName: 'x' })), `${POD}.volumes[2]: may not specify more than 1 volume type`);
      expectError(v(mutate(validCronJob(), `${POD}.volumes[1].secret.defaultMode`, 644)), `${POD}.volumes[1].secret.defaultMode: must be a number between 0 and 0777`);
      expectError(v(mutate(validCronJob(), `${POD}.volumes[1].secret.items[0].path`, '../x')), `${POD}.volumes[1].secret.items[0].path: must not contain ".."`);
      expectError(v(mutate(validCronJob(), `${POD}.containers[0].volumeMounts[2].mountPath`, '/scratch')), `${POD}.containers[0].volumeMounts[2].mountPath: duplicate mountPath`);
      expectError(v(mutate(validCronJob(), `${POD}.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes`, undefined)), `${POD}.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes: missing required field`);
    });

    test('containers: unique DNS-1123 label names, valid env var names', () => {
      expectError(v(mutate(validCronJob(), `${POD}.initContainers[0].name`, 'backup')), `${POD}.containers[0].name: duplicate container name "backup"`);
      expectError(v(mutate(validCronJob(), `${POD}.containers[0].name`, 'backup.main')), `${POD}.containers[0].name: bad name "backup.main"`, 'DNS-1123 label');
      expectError(v(mutate(validCronJob(), `${POD}.containers[0].env[0].name`, '1REDIS HOST')), `${POD}.containers[0].env[0].name: bad env var name`);
      expectError(v(mutate(validCronJob(), `${POD}.containers[0].env[1].value`, 'x')), `${POD}.containers[0].env[1]: may not have both value and valueFrom`);
      expectError(v(mutate(validCronJob(), `${POD}.containers[0].env[4].name`, 'REDIS_HOST')), `${POD}.containers[0].env[4].name: duplicate env var name`);
      expectError(v(mutate(validCronJob(), `${POD}.containers[0].env[2].valueFrom.fieldRef.fieldPath`, 'metadata.podName')), `${POD}.containers[0].env[2].valueFrom.fieldRef.fieldPath: value "metadata.podName" not in enum`);
      expect(v(mutate(validCronJob(), `${POD}.containers[0].env[2].valueFrom.fieldRef.fieldPath`, "metadata.labels['app.kubernetes.io/name']"))).toEqual([]);
      expectError(v(mutate(validCronJob(), `${POD}.containers[0].env[3].valueFrom.resourceFieldRef.resource`, 'memory')), `${POD}.containers[0].env[3].valueFrom.resourceFieldRef.resource: value "memory" not in enum`);
    });

    test('CronJob schedule, time zone and scheduling rules', () => {
      expect(v(mutate(validCronJob(), 'spec.schedule', '*/15 1-5 ? JAN-jun mon,FRI'))).toEqual([]);
      expect(v(mutate(validCronJob(), 'spec.schedule', '@daily'))).toEqual([]);
      expectError(v(mutate(validCronJob(), 'spec.schedule', '0 3 * *')), 'spec.schedule: bad cron schedule', '5 fields');
      expectError(v(mutate(validCronJob(), 'spec.schedule', '0 24 * * *')), 'spec.schedule: bad cron schedule', 'hour');
      expectError(v(mutate(validCronJob(), 'spec.schedule', 'TZ=UTC 0 3 * * *')), 'spec.schedule: bad cron schedule', 'timeZone');
      expectError(v(mutate(validCronJob(), 'spec.timeZone', 'Mars/Olympus')), 'spec.timeZone: bad time zone');
      expectError(v(mutate(validCronJob(), 'spec.timeZone', 'europe/berlin')), 'spec.timeZone: bad time zone');
      expectError(v(mutate(validCronJob(), 'spec.startingDeadlineSeconds', -1)), 'spec.startingDeadlineSeconds: must be greater than or equal to 0');
      expectError(v(mutate(validCronJob(), `${POD}.tolerations[0].tolerationSeconds`, 30)), `${POD}.tolerations[0].effect: must be "NoExecute"`);
      expectError(v(mutate(validCronJob(), `${POD}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight`, 0)), `${POD}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: must be in the range 1-100`);
    });

    test('broken PVC fails', () => {
      expectError(v(mutate(validPvc(), 'spec.accessModes', ['ReadWriteSometimes'])), 'spec.accessModes[0]: value "ReadWriteSometimes" not in enum');
      expectError(v(mutate(validPvc(), 'spec.accessModes', undefined)), 'spec.accessModes: missing required field');
      expectError(v(mutate(validPvc(), 'spec.resources.requests', {})), 'spec.resources.requests.storage: missing required field');
      const e = expectError(v(mutate(validPvc(), 'spec.storageClass', 'x')), 'spec.storageClass: unknown field');
      if (shared) expect(e).toContain('k8s-1.28-schema');
    });

    test('broken ConfigMap fails', () => {
      expectError(v(mutate(validConfigMap(), 'data.RETENTION_DAYS', 7)), 'data.RETENTION_DAYS: wrong type: expected string, got integer');
      expectError(v(mutate(validConfigMap(), 'data', { 'a b': 'x' })), 'data["a b"]: bad ConfigMap key');
      expectError(v(mutate(validConfigMap(), 'binaryData', { 'blob.bin': 'not base64!' })), 'binaryData["blob.bin"]: invalid base64 data');
      expectError(v(mutate(validConfigMap(), 'metadata.name', 'Redis')), 'metadata.name: bad name');
      expectError(v(mutate(validConfigMap(), 'datas', {})), 'datas: unknown field');
    });

    test('broken Secret fails', () => {
      expectError(v(mutate(validSecret(), 'data.token', 'not base64!')), 'data.token: invalid base64 data');
      expectError(v(mutate(validSecret(), 'stringdata', {})), 'stringdata: unknown field');
      expectError(v(mutate(validSecret(), 'type', 'kubernetes.io/tls')), 'data["tls.crt"]: missing required field');
    });

    test('broken ServiceAccount fails', () => {
      expectError(v(mutate(validServiceAccount(), 'automountServiceAccountToken', 'no')), 'automountServiceAccountToken: wrong type: expected boolean');
      expectError(v(mutate(validServiceAccount(), 'imagePullSecret', [])), 'imagePullSecret: unknown field');
      expectError(v(mutate(validServiceAccount(), 'metadata.name', 'Backup SA')), 'metadata.name: bad name');
    });

    test('broken Role fails', () => {
      expectError(v(mutate(validRole(), 'rules[0].verbs', [])), 'rules[0].verbs: must contain at least one value');
      expectError(v(mutate(validRole(), 'rules[0].verbs', undefined)), 'rules[0].verbs: missing required field');
      expectError(v(mutate(validRole(), 'rules[0].apiGroups', undefined)), 'rules[0].apiGroups: resource rules must supply at least one api group');
      expectError(v(mutate(validRole(), 'rules[0].resource', ['pods'])), 'rules[0].resource: unknown field');
      expectError(v(mutate(validRole(), 'metadata.name', 'a/b')), 'metadata.name: bad name');
      expect(v(mutate(validRole(), 'metadata.name', 'backup:reader'))).toEqual([]);
    });

    test('broken RoleBinding fails', () => {
      expectError(v(mutate(validRoleBinding(), 'roleRef', undefined)), 'roleRef: missing required field');
      expectError(v(mutate(validRoleBinding(), 'roleRef.kind', 'Rol')), 'roleRef.kind: value "Rol" not in enum');
      expectError(v(mutate(validRoleBinding(), 'roleRef.apiGroup', 'rbac')), 'roleRef.apiGroup: value "rbac" not in enum');
      expectError(v(mutate(validRoleBinding(), 'subjects[0].kind', 'Serviceaccount')), 'subjects[0].kind: value "Serviceaccount" not in enum');
      expectError(v(mutate(validRoleBinding(), 'subjects[0].namespaces', 'x')), 'subjects[0].namespaces: unknown field');
    });

    test('broken PrometheusRule fails', () => {
      expectError(v(mutate(validPrometheusRule(), 'spec.groups[0].rules[1].severity', 'x')), 'spec.groups[0].rules[1].severity: unknown field', 'prometheus-rule');
      expectError(v(mutate(validPrometheusRule(), 'spec.group', [])), 'spec.group: unknown field');
      expectError(v(mutate(validPrometheusRule(), 'metadata.lables', {})), 'metadata.lables: unknown field');
      expectError(v(mutate(validPrometheusRule(), 'spec.groups[0].rules[1].record', 'x')), 'spec.groups[0].rules[1]: must have exactly one of alert or record');
      expectError(v(mutate(validPrometheusRule(), 'spec.groups[0].rules[1].alert', undefined)), 'spec.groups[0].rules[1]: must have exactly one of alert or record');
      expectError(v(mutate(validPrometheusRule(), 'spec.groups[0].rules[0].expr', undefined)), 'spec.groups[0].rules[0].expr: missing required field');
      expectError(v(mutate(validPrometheusRule(), 'spec.groups[0].rules[1].expr', ['up'])), 'spec.groups[0].rules[1].expr: wrong type');
      expectError(v(mutate(validPrometheusRule(), 'spec.groups[0].rules[1].for', '15 minutes')), 'spec.groups[0].rules[1].for: bad duration');
      expectError(v(mutate(validPrometheusRule(), 'spec.groups[0].interval', 60)), 'spec.groups[0].interval: wrong type: expected string');
      expectError(v(mutate(validPrometheusRule(), 'spec.groups[0].name', undefined)), 'spec.groups[0].name: missing required field');
      expectError(v(mutate(validPrometheusRule(), 'spec.groups[0].rules[0].for', '5m')), 'spec.groups[0].rules[0].for: only allowed in alerting rules');
      expectError(v(mutate(validPrometheusRule(), 'spec.groups[0].rules[0].record', 'backup last')), 'spec.groups[0].rules[0].record: bad metric name');
      expectError(v(mutate(validPrometheusRule(), 'spec.groups[0].rules[1].labels', { 'bad-name': 'x' })), 'spec.groups[0].rules[1].labels.bad-name: bad label name');
      expectError(v(mutate(validPrometheusRule(), 'metadata.name', 'Backup')), 'metadata.name: bad name');
    });

    test('unknown kinds and non-objects', () => {
      expect(v({ apiVersion: 'batch/v1beta1', kind: 'CronJob', metadata: { name: 'x' } })).toEqual([
        '(root): no schema for batch/v1beta1/CronJob [api-rules]',
      ]);
      expect(v({ apiVersion: 'apps/v1', kind: 'Deployment' })[0]).toContain('no schema for apps/v1/Deployment');
      expect(v('CronJob')[0]).toContain('wrong type: expected object, got string');
    });
  });

  test('expectValidManifests lists all problems of all objects with kind/name prefixes', () => {
    const bad1 = mutate(validCronJob(), `${POD}.containers[0].bogus`, 1);
    const bad2 = mutate(validPvc(), 'spec.accessModes', undefined);
    let message = '';
    try {
      expectValidManifests([validConfigMap(), bad1, bad2]);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(`[1] CronJob/redis-main-backup: ${POD}.containers[0].bogus: unknown field`);
    expect(message).toContain('[2] PersistentVolumeClaim/backup-scratch: spec.accessModes: missing required field');
    expect(message).not.toMatch(/^\[0\]/m);
  });

  test('the combined path adds the strict schema layer when it is available', () => {
    const errors = validateManifest(mutate(validCronJob(), 'spec.jobTemplate.spec.template.spec.bogus', true));
    const hit = expectError(errors, `${POD}.bogus: unknown field`);
    expect(hit.includes('k8s-1.28-schema')).toBe(sharedSchemaAvailable());
    const packaged = validateManifest(mutate(validCronJob(), 'spec.jobTemplate.spec.template.spec.bogus', true), { useSharedSchema: false });
    expect(packaged.join('\n')).not.toContain('k8s-1.28-schema');
  });

  test('validates 2,000 CronJobs within a few seconds (both paths)', () => {
    const objs = Array.from({ length: 2000 }, (_, i) => mutate(validCronJob(), 'metadata.name', `backup-${i}`));
    for (const opts of [{ useSharedSchema: false }, {}] as ValidateOptions[]) {
      validateManifest(validCronJob(), opts); // warm-up: loads and compiles once
      const t0 = Date.now();
      expectValidManifests(objs, opts);
      const ms = Date.now() - t0;
      // eslint-disable-next-line no-console
      console.log(`k8s-validate: 2000 CronJobs in ${ms} ms (${opts.useSharedSchema === false ? 'packaged' : 'combined'}, shared schema ${sharedSchemaAvailable() ? 'present' : 'absent'})`);
      expect(ms).toBeLessThan(15000);
    }
  });
});
