// Rendered Vitess CronJobs against vitess-operator's own vectors (reference/vitess.md §7) and the rules.
import { renderPolicy, PolicyError } from '../../../../lib';
import { renderCronJobs } from '../../../support/render';
import { expectValidManifests } from '../../../support/k8s-validate';
import { vitessPolicy } from './fixtures';
import { type KubeObject, asCronJob, containerOf, podSpecOf } from '../../../support/kube';

const podOf = podSpecOf;
const vtbackup = (o: KubeObject) => containerOf(o, 'vtbackup');

// vitess.md §7 B, minus --initial_backup=false, which the entry script adds at run time.
const VECTOR_B = [
  '--backup_engine_implementation=builtin',
  '--backup_storage_implementation=s3',
  '--builtinbackup-incremental-restore-path=/vt/vtdataroot',
  '--concurrency=10',
  '--db_charset=utf8mb4',
  '--db_dba_user=vt_dba',
  '--init_db_name_override=vt_customer',
  '--init_db_sql_file=/vt/secrets/db-init-script/init_db.sql',
  '--init_keyspace=customer',
  '--init_shard=-80',
  '--logtostderr=true',
  '--min_backup_interval=0s',
  '--min_retention_count=1',
  '--min_retention_time=0s',
  '--mysql_server_version=8.0.40-Vitess',
  '--mysql_socket=/vt/socket/mysql.sock',
  '--s3_backup_aws_endpoint=minio.minio.svc:9000',
  '--s3_backup_aws_region=us-east-1',
  '--s3_backup_force_path_style=true',
  '--s3_backup_storage_bucket=my-bucket',
  '--s3_backup_storage_root=vt/example',
  '--topo_global_root=/vitess/example/global',
  '--topo_global_server_address=example-etcd-faf13de3-client.example.svc:2379',
  '--topo_implementation=etcd2',
];

// vitess.md §7 A (xtrabackup, file storage, cpu request 100m), minus --initial_backup=false.
const VECTOR_A = [
  '--backup_engine_implementation=xtrabackup',
  '--backup_storage_compress=true',
  '--backup_storage_implementation=file',
  '--builtinbackup-incremental-restore-path=/vt/vtdataroot',
  '--concurrency=10',
  '--db_charset=utf8mb4',
  '--db_dba_user=vt_dba',
  '--file_backup_storage_root=/vt/backups/example',
  '--init_db_name_override=vt_commerce',
  '--init_db_sql_file=/vt/secrets/db-init-script/init_db.sql',
  '--init_keyspace=commerce',
  '--init_shard=-',
  '--logtostderr=true',
  '--min_backup_interval=0s',
  '--min_retention_count=1',
  '--min_retention_time=0s',
  '--mysql_socket=/vt/socket/mysql.sock',
  '--topo_global_root=/vitess/example/global',
  '--topo_global_server_address=example-etcd-faf13de3-client.example.svc:2379',
  '--topo_implementation=etcd2',
  '--xbstream_restore_flags=--parallel=1',
  '--xtrabackup_backup_flags=--parallel=1',
  '--xtrabackup_stream_mode=xbstream',
  '--xtrabackup_stripes=8',
  '--xtrabackup_user=vt_dba',
];

describe('vtbackup flags match vitess-operator', () => {
  test('S3 on MinIO, builtin engine, numeric mysqld tag (vector B)', () => {
    const [cj] = renderCronJobs(
      vitessPolicy({
        images: { mysqld: 'mysql:8.0.40' },
        dbInitScriptSecret: { name: 'example-cluster-config', key: 'init_db.sql' },
        storage: {
          s3: {
            region: 'us-east-1',
            bucket: 'my-bucket',
            keyPrefix: 'vt/',
            endpoint: 'minio.minio.svc:9000',
            forcePathStyle: true,
            authSecret: { name: 's3-creds', key: 'credentials' },
          },
        },
        schedules: [{ name: 'daily', strategies: [{ keyspace: 'customer', shards: ['-80'] }] }],
      }),
    );
    const c = vtbackup(cj);
    expect(c.args).toEqual(VECTOR_B);
    expect(c.command?.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(c.env).toContainEqual({
      name: 'AWS_SHARED_CREDENTIALS_FILE',
      value: '/vt/secrets/s3-backup-auth/credentials',
    });
    expect(c.volumeMounts).toContainEqual({
      name: 's3-backup-auth-secret',
      mountPath: '/vt/secrets/s3-backup-auth',
      readOnly: true,
    });
    expect(podOf(cj).volumes).toContainEqual({
      name: 's3-backup-auth-secret',
      secret: { secretName: 's3-creds', items: [{ key: 'credentials', path: 'credentials' }], defaultMode: 0o444 },
    });
  });

  test('xtrabackup to a file PVC with parallelism from the CPU request (vector A)', () => {
    const [cj] = renderCronJobs(
      vitessPolicy(
        {
          backupEngine: 'xtrabackup',
          images: { mysqld: 'vitess/lite:mysql80' },
          dbInitScriptSecret: { name: 'example-cluster-config', key: 'init_db.sql' },
          storage: { file: { claimName: 'vitess-backups' } },
        },
        {
          defaults: {
            pod: { resources: { requests: { cpu: '100m', memory: '512Mi' }, limits: { memory: '1024Mi' } } },
          },
        },
      ),
    );
    const c = vtbackup(cj);
    expect(c.args).toEqual(VECTOR_A);
    expect(c.resources).toEqual({ requests: { cpu: '100m', memory: '512Mi' }, limits: { memory: '1024Mi' } });
    expect(c.volumeMounts).toContainEqual({ name: 'vitess-backups', mountPath: '/vt/backups' });
    expect(podOf(cj).volumes).toContainEqual({
      name: 'vitess-backups',
      persistentVolumeClaim: { claimName: 'vitess-backups' },
    });
  });

  test('xtrabackup parallelism rounds the CPU request up (1500m → 2)', () => {
    const [cj] = renderCronJobs(
      vitessPolicy(
        { backupEngine: 'xtrabackup' },
        { defaults: { pod: { resources: { requests: { cpu: '1500m' } } } } },
      ),
    );
    expect(vtbackup(cj).args).toContain('--xtrabackup_backup_flags=--parallel=2');
  });

  test.each([
    [
      'gcs',
      { gcs: { bucket: 'my-gcs' } },
      [
        '--backup_storage_implementation=gcs',
        '--gcs_backup_storage_bucket=my-gcs',
        '--gcs_backup_storage_root=example',
      ],
    ],
    [
      'azblob',
      { azblob: { account: 'acct', container: 'cont', authSecret: { name: 'az', key: 'key' } } },
      [
        '--azblob_backup_account_key_file=/vt/secrets/azblob-backup-auth/key',
        '--azblob_backup_account_name=acct',
        '--azblob_backup_container_name=cont',
        '--azblob_backup_storage_root=example',
        '--backup_storage_implementation=azblob',
      ],
    ],
    [
      'ceph',
      { ceph: { authSecret: { name: 'ceph', key: 'ceph.json' } } },
      ['--backup_storage_implementation=ceph', '--ceph_backup_storage_config=/vt/secrets/ceph-backup-auth/ceph.json'],
    ],
  ])('%s storage flags (vector C)', (_kind, storage, expected) => {
    const [cj] = renderCronJobs(vitessPolicy({ storage }));
    const storageFlags = vtbackup(cj).args?.filter((a: string) =>
      /^--(backup_storage_implementation|gcs_|azblob_|ceph_|s3_)/.test(a),
    );
    expect(storageFlags).toEqual(expected);
  });

  test('vtbackup retention flags come from the policy, in Go duration form', () => {
    const [cj] = renderCronJobs(
      vitessPolicy({ vtbackupRetention: { minRetentionTime: '7d', minRetentionCount: 3, minBackupInterval: '90m' } }),
    );
    const args = vtbackup(cj).args;
    expect(args).toContain('--min_retention_time=168h0m0s');
    expect(args).toContain('--min_retention_count=3');
    expect(args).toContain('--min_backup_interval=1h30m0s');
  });

  test('extra flags are merged, sorted, and may override the restore path', () => {
    const [cj] = renderCronJobs(
      vitessPolicy({
        extraFlags: { tablet_manager_grpc_ca: '/certs/ca.pem', 'builtinbackup-incremental-restore-path': '/tmp/x' },
      }),
    );
    const args: string[] = vtbackup(cj).args ?? [];
    expect(args).toContain('--tablet_manager_grpc_ca=/certs/ca.pem');
    expect(args).toContain('--builtinbackup-incremental-restore-path=/tmp/x');
    expect([...args].sort()).toEqual(args);
  });

  test('extra flags may not override a required flag in either spelling', () => {
    expect(() =>
      renderPolicy(
        vitessPolicy({ extraFlags: { 'min-retention-time': '0s', init_keyspace: 'x', initial_backup: 'true' } }),
      ),
    ).toThrow(PolicyError);
    try {
      renderPolicy(vitessPolicy({ extraFlags: { 'min-retention-time': '0s', initial_backup: 'true' } }));
    } catch (e) {
      const msg = (e as Error).message;
      expect(msg).toContain(
        'spec.vitess.extraFlags.min-retention-time: --min-retention-time is set by backup-cronjobs (derived from the policy) and may not be overridden',
      );
      expect(msg).toContain(
        'spec.vitess.extraFlags.initial_backup: --initial_backup is set by backup-cronjobs (decided at run time by the entry script) and may not be overridden',
      );
    }
  });

  test('dashed spelling for Vitess >= 22', () => {
    const [cj] = renderCronJobs(vitessPolicy({ flagStyle: 'dashed' }));
    const args: string[] = vtbackup(cj).args ?? [];
    expect(args).toContain('--init-keyspace=commerce');
    expect(args).toContain('--s3-backup-storage-bucket=my-bucket');
    expect(args.some((a) => /^--[a-z0-9-]*_/.test(a))).toBe(false);
  });
});

describe('one CronJob per (schedule, keyspace, shard)', () => {
  const policy = vitessPolicy({
    schedules: [
      {
        name: 'nightly',
        schedule: '0 2 * * *',
        strategies: [
          { keyspace: 'commerce', shards: ['-'] },
          { keyspace: 'customer', shards: ['-80', '80-'] },
        ],
      },
      { name: 'hourly', schedule: '@hourly', strategies: [{ keyspace: 'customer', shards: ['-80'] }] },
    ],
  });
  const objects = renderCronJobs(policy);

  test('names, labels and shard env', () => {
    expect(objects.map((o) => o.metadata.name)).toEqual([
      'example-nightly-commerce-x-x',
      'example-nightly-customer-x-80',
      'example-nightly-customer-80-x',
      'example-hourly-customer-x-80',
    ]);
    const cj = asCronJob(objects[2]);
    expect(cj.metadata?.labels).toMatchObject({
      'backup-cronjobs.io/schedule': 'nightly',
      'backup-cronjobs.io/keyspace': 'customer',
      'backup-cronjobs.io/shard': '80-x',
      'app.kubernetes.io/managed-by': 'backup-cronjobs',
      'backup-cronjobs.io/policy': 'example',
      'backup-cronjobs.io/engine': 'vitess',
    });
    expect(podOf(cj).containers[0].env).toContainEqual({ name: 'VITESS_SHARD', value: '80-' });
    expect(vtbackup(cj).args).toContain('--init_shard=80-');
    expect(objects[3].spec).toMatchObject({ schedule: '@hourly' });
  });

  test('every object validates strictly against the Kubernetes schema', () => {
    expectValidManifests(objects);
  });

  test('defaults: Forbid, a starting deadline, history limits, deadline, backoff, Never, no API token, restricted pod security', () => {
    const spec = asCronJob(objects[0]).spec;
    expect(spec).toMatchObject({
      concurrencyPolicy: 'Forbid',
      startingDeadlineSeconds: 600,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 3,
      suspend: false,
    });
    expect(spec?.jobTemplate.spec).toMatchObject({ backoffLimit: 1, activeDeadlineSeconds: 7200 });
    expect(spec?.jobTemplate.spec?.ttlSecondsAfterFinished).toBeUndefined();
    const pod = podOf(objects[0]);
    expect(pod).toMatchObject({ restartPolicy: 'Never', automountServiceAccountToken: false });
    expect(pod.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 999,
      runAsGroup: 999,
      fsGroup: 999,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    }
  });

  test('scratch: emptyDir without a size, a generic ephemeral PVC with one', () => {
    expect(vtbackup(objects[0]).volumeMounts).toContainEqual({
      name: 'vt-root',
      mountPath: '/vt/vtdataroot',
      subPath: 'vtdataroot',
    });
    const [cj] = renderCronJobs(
      vitessPolicy({ scratch: { size: '50Gi', storageClassName: 'fast', accessModes: ['ReadWriteOncePod'] } }),
    );
    expect(podOf(cj).volumes).toContainEqual({
      name: 'persistent-volume-claim',
      ephemeral: {
        volumeClaimTemplate: {
          metadata: { labels: { 'app.kubernetes.io/managed-by': 'backup-cronjobs' } },
          spec: {
            accessModes: ['ReadWriteOncePod'],
            storageClassName: 'fast',
            resources: { requests: { storage: '50Gi' } },
          },
        },
      },
    });
    expect(vtbackup(cj).volumeMounts).toContainEqual({
      name: 'persistent-volume-claim',
      mountPath: '/vt/vtdataroot',
      subPath: 'vtdataroot',
    });
    expectValidManifests([cj]);
  });

  test('per-level overrides: schedule settings win over spec.defaults, field by field', () => {
    const [a, b] = renderCronJobs(
      vitessPolicy(
        {
          schedules: [
            { name: 'a', strategies: [{ keyspace: 'commerce', shards: ['-'] }] },
            {
              name: 'b',
              suspend: true,
              timeout: '30m',
              backoffLimit: 0,
              ttlAfterFinished: '1d',
              strategies: [{ keyspace: 'commerce', shards: ['-'] }],
            },
          ],
        },
        { defaults: { schedule: '15 4 * * *', timeout: '3h', suspend: false } },
      ),
    );
    expect(asCronJob(a).spec).toMatchObject({ schedule: '15 4 * * *', suspend: false });
    expect(asCronJob(a).spec?.jobTemplate.spec?.activeDeadlineSeconds).toBe(10800);
    expect(asCronJob(b).spec).toMatchObject({ schedule: '15 4 * * *', suspend: true });
    expect(asCronJob(b).spec?.jobTemplate.spec).toMatchObject({
      activeDeadlineSeconds: 1800,
      backoffLimit: 0,
      ttlSecondsAfterFinished: 86400,
    });
  });

  test('frequency uses the operator hash over cluster|keyspace|shard|expanded name', () => {
    const [cj] = renderCronJobs(
      vitessPolicy({
        cluster: 'example',
        schedules: [
          { name: 'customer-all', frequency: '6h', strategies: [{ keyspace: 'customer', shards: ['-8000', '8000-'] }] },
        ],
      }),
    );
    // reference/vitess.md §4.4: 6h, example, customer, -8000, customer-all-customer-x-8000 → 18 2/6 * * *
    expect(asCronJob(cj).spec?.schedule).toBe('18 2/6 * * *');
  });
});

describe('placement and serialization', () => {
  test('node selector, node affinity (hard and soft), tolerations, pod affinity, serialization group', () => {
    const [cj] = renderCronJobs(
      vitessPolicy(
        {},
        {
          defaults: {
            placement: {
              nodeSelector: { 'node-role.example.com/database': 'true' },
              nodeAffinity: [
                { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a', 'b'] },
                { key: 'disk', operator: 'Exists', weight: 50 },
              ],
              tolerations: [{ key: 'dedicated', value: 'database', effect: 'NoSchedule' }],
              podAffinity: [{ labels: { app: 'mysql' }, weight: 10 }],
              serializationGroup: { name: 'db-backups', scope: 'cluster' },
            },
          },
        },
      ),
    );
    const pod = podOf(cj);
    expect(pod.nodeSelector).toEqual({ 'node-role.example.com/database': 'true' });
    expect(pod.tolerations).toEqual([{ key: 'dedicated', operator: 'Equal', value: 'database', effect: 'NoSchedule' }]);
    expect(pod.affinity?.nodeAffinity).toEqual({
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a', 'b'] }] },
        ],
      },
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 50, preference: { matchExpressions: [{ key: 'disk', operator: 'Exists' }] } },
      ],
    });
    expect(pod.affinity?.podAffinity).toEqual({
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 10,
          podAffinityTerm: {
            labelSelector: { matchLabels: { app: 'mysql' } },
            topologyKey: 'kubernetes.io/hostname',
            namespaces: ['example'],
          },
        },
      ],
    });
    expect(pod.affinity?.podAntiAffinity).toEqual({
      requiredDuringSchedulingIgnoredDuringExecution: [
        {
          labelSelector: { matchLabels: { 'backup-cronjobs.io/serialization-group': 'db-backups' } },
          topologyKey: 'kubernetes.io/os',
          namespaces: ['example'],
        },
      ],
    });
    expect(
      asCronJob(cj).spec?.jobTemplate.spec?.template?.metadata?.labels?.['backup-cronjobs.io/serialization-group'],
    ).toBe('db-backups');
    expectValidManifests([cj]);
  });

  test('node-scoped group uses the hostname topology', () => {
    const [cj] = renderCronJobs(vitessPolicy({}, { defaults: { placement: { serializationGroup: { name: 'g' } } } }));
    expect(podOf(cj).affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0]?.topologyKey).toBe(
      'kubernetes.io/hostname',
    );
  });

  test('pod options: pull secrets, priority class, service account, extra env and volumes', () => {
    const [cj] = renderCronJobs(
      vitessPolicy(
        {},
        {
          defaults: {
            pod: {
              imagePullSecrets: ['regcred'],
              priorityClassName: 'backup',
              serviceAccountName: 'vitess-backup',
              imagePullPolicy: 'Always',
              env: [
                { name: 'TZ', value: 'UTC' },
                { name: 'TOKEN', secretKeyRef: { name: 'tok', key: 't' } },
              ],
              volumes: [{ name: 'tls', mountPath: '/certs', readOnly: true, secret: { secretName: 'vt-tls' } }],
              labels: { team: 'db' },
              annotations: { 'example.com/x': 'y' },
            },
          },
        },
      ),
    );
    const pod = podOf(cj);
    expect(pod).toMatchObject({
      imagePullSecrets: [{ name: 'regcred' }],
      priorityClassName: 'backup',
      serviceAccountName: 'vitess-backup',
      automountServiceAccountToken: false,
    });
    const c = vtbackup(cj);
    expect(c.imagePullPolicy).toBe('Always');
    expect(c.env).toContainEqual({ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'tok', key: 't' } } });
    expect(c.volumeMounts).toContainEqual({ name: 'tls', mountPath: '/certs', readOnly: true });
    expect(pod.volumes).toContainEqual({ name: 'tls', secret: { secretName: 'vt-tls' } });
    expect(asCronJob(cj).spec?.jobTemplate.spec?.template?.metadata).toMatchObject({
      labels: { team: 'db' },
      annotations: { 'example.com/x': 'y' },
    });
    expectValidManifests([cj]);
  });
});

describe('retention', () => {
  test('with a prune schedule: one retention-prune CronJob per keyspace/shard, backups prune nothing themselves', () => {
    const objects = renderCronJobs(
      vitessPolicy(
        {
          schedules: [
            { name: 'nightly', strategies: [{ keyspace: 'customer', shards: ['-80', '80-'] }] },
            { name: 'hourly', schedule: '@hourly', strategies: [{ keyspace: 'customer', shards: ['-80'] }] },
          ],
        },
        { retention: { keepLast: 7, daily: 30, schedule: '30 5 * * *', dryRun: true } },
      ),
    );
    expect(objects.map((o) => o.metadata.name)).toEqual([
      'example-nightly-customer-x-80',
      'example-nightly-customer-80-x',
      'example-hourly-customer-x-80',
      'example-prune-customer-x-80',
      'example-prune-customer-80-x',
    ]);
    const prune = asCronJob(objects[3]);
    expect(prune.spec?.schedule).toBe('30 5 * * *');
    expect(prune.metadata?.labels?.['app.kubernetes.io/component']).toBe('retention-prune');
    const env = podOf(prune).containers[0].env;
    expect(env).toEqual(
      expect.arrayContaining([
        { name: 'BACKUP_DEST_KIND', value: 'vitess' },
        { name: 'VITESS_KEYSPACE', value: 'customer' },
        { name: 'VITESS_SHARD', value: '-80' },
        { name: 'RETENTION_KEEP_LAST', value: '7' },
        { name: 'RETENTION_DAILY', value: '30' },
        { name: 'RETENTION_DRY_RUN', value: 'true' },
      ]),
    );
    expect(vtbackup(objects[0]).env?.some((e) => e.name.startsWith('RETENTION_'))).toBe(false);
    expectValidManifests(objects);
  });

  test('without a prune schedule: every backup run prunes its shard after the backup', () => {
    const [cj] = renderCronJobs(vitessPolicy({}, { retention: { maxAge: '30d' } }));
    expect(vtbackup(cj).env).toContainEqual({ name: 'RETENTION_MAX_AGE_SECONDS', value: '2592000' });
    expect(vtbackup(cj).command?.[2].split('\n')[1]).toContain('. /scripts/retention.sh');
    const [inline] = renderCronJobs(vitessPolicy({}, { retention: { maxAge: '30d' }, scripts: { mode: 'inline' } }));
    expect(vtbackup(inline).command?.[2]).toContain('retention_apply()');
  });

  test('maxTotalSize is refused for Vitess (vtctld lists no sizes)', () => {
    expect(() => renderPolicy(vitessPolicy({}, { retention: { maxTotalSize: '10Gi' } }))).toThrow(
      /spec\.retention\.maxTotalSize/,
    );
  });
});

test('BACKUP_POLICY_SHARDS: per keyspace, every shard any schedule of the policy backs up (suspended ones too), sorted, once', () => {
  const objects = renderPolicy(
    vitessPolicy({
      schedules: [
        {
          name: 'nightly',
          schedule: '0 2 * * *',
          strategies: [
            { keyspace: 'customer', shards: ['-80'] },
            { keyspace: 'commerce', shards: ['-'] },
          ],
        },
        {
          name: 'frequent',
          schedule: '0 */6 * * *',
          suspend: true,
          strategies: [{ keyspace: 'customer', shards: ['80-', '-80'] }],
        },
      ],
    }),
  );
  const covered = Object.fromEntries(
    objects
      .filter((o) => o.kind === 'CronJob')
      .map((o) => [o.metadata?.name, vtbackup(o).env?.find((e) => e.name === 'BACKUP_POLICY_SHARDS')?.value]),
  );
  expect(covered).toEqual({
    'example-nightly-customer-x-80': '-80 80-',
    'example-nightly-commerce-x-x': '-',
    'example-frequent-customer-80-x': '-80 80-',
    'example-frequent-customer-x-80': '-80 80-',
  });
});
