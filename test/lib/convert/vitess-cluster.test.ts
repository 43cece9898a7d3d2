// What a scheduled vtbackup pod takes from its VitessCluster (vitess.md §2.6-§2.8), through convert and
// synth: storage kinds and their secrets, images, topology, the first tablet pool; and what cannot be converted.
import { type KubeObject, argsOf, containerOf, podSpecOf } from '../../support/kube';
import { cluster, convertAndRender, errors, shardTemplate } from './fixtures';

const vtbackup = (o: KubeObject) => containerOf(o, 'vtbackup');
const daily = [
  { name: 'daily', schedule: '0 3 * * *', strategies: [{ name: 'x', keyspace: 'customer', shard: '-80' }] },
];

/** Cluster example with keyspace customer in 2 shards, backed up by `daily`, with this location and spec. */
function withLocation(location: Record<string, unknown>, spec: Record<string, unknown> = {}) {
  return cluster('example', { customer: 2 }, { backup: { locations: [location], schedules: daily }, ...spec });
}

// vitess.md §7 B, verbatim minus --initial_backup=false (added at run time by the entry script).
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

test('S3 on MinIO with a credentials Secret, builtin engine, mysql:8.0.40 (§7 B)', () => {
  const c = withLocation(
    {
      s3: {
        region: 'us-east-1',
        bucket: 'my-bucket',
        keyPrefix: 'vt/',
        endpoint: 'minio.minio.svc:9000',
        forcePathStyle: true,
        authSecret: { name: 's3-creds', key: 'credentials' },
      },
    },
    { images: { vtbackup: 'vitess/lite:mysql80', mysqld: { mysql80Compatible: 'mysql:8.0.40' } } },
  );
  const {
    notes,
    objects: [[cj]],
  } = convertAndRender([c]);
  expect(errors(notes)).toEqual([]);
  expect(vtbackup(cj).args).toEqual(VECTOR_B);
  expect(vtbackup(cj).env).toContainEqual({
    name: 'AWS_SHARED_CREDENTIALS_FILE',
    value: '/vt/secrets/s3-backup-auth/credentials',
  });
  expect(vtbackup(cj).volumeMounts).toContainEqual({
    name: 's3-backup-auth-secret',
    mountPath: '/vt/secrets/s3-backup-auth',
    readOnly: true,
  });
});

test.each([
  [
    'gcs',
    { gcs: { bucket: 'my-gcs' } },
    ['--backup_storage_implementation=gcs', '--gcs_backup_storage_bucket=my-gcs', '--gcs_backup_storage_root=example'],
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
  [
    'a volume',
    { volume: { persistentVolumeClaim: { claimName: 'vitess-backups' } }, volumeSubPath: 'vt' },
    ['--backup_storage_implementation=file', '--file_backup_storage_root=/vt/backups/example'],
  ],
])("%s location: the operator's storage flags (§7 C)", (_kind, location, expected) => {
  const {
    objects: [[cj]],
  } = convertAndRender([withLocation(location)]);
  expect(
    argsOf(cj, 'vtbackup').filter((a) => /^--(backup_storage_implementation|gcs_|azblob_|ceph_|file_|s3_)/.test(a)),
  ).toEqual(expected);
});

test('a hostPath volume location cannot be converted: file storage needs a PersistentVolumeClaim', () => {
  const { notes, yaml } = convertAndRender([
    withLocation({ volume: { hostPath: { path: '/backup', type: 'Directory' } } }),
  ]);
  expect(yaml).toEqual([]);
  expect(errors(notes)).toEqual([
    expect.objectContaining({
      object: 'VitessCluster example/example',
      path: 'spec.backup.locations[0].volume.hostPath',
    }),
  ]);
});

test('the first pool names a location that does not exist: the operator takes no backup', () => {
  const c = withLocation({ volume: { persistentVolumeClaim: { claimName: 'b' } } });
  c.spec.keyspaces[0].partitionings[0].equal!.shardTemplate = shardTemplate({ backupLocationName: 'elsewhere' });
  expect(errors(convertAndRender([c]).notes)).toEqual([
    expect.objectContaining({
      path: 'spec.keyspaces[0].partitionings[0].equal.shardTemplate.tabletPools[0].backupLocationName',
      message: 'no entry of spec.backup.locations is named "elsewhere": the operator takes no backup without it',
    }),
  ]);
});

test("no images: the operator's defaults vitess/lite:latest and mysql:8.0.40 (pkg/apis/planetscale/v2/defaults.go DefaultImages)", () => {
  const c = withLocation({ volume: { persistentVolumeClaim: { claimName: 'b' } } });
  delete c.spec.images;
  const {
    objects: [[cj]],
  } = convertAndRender([c]);
  expect(podSpecOf(cj).initContainers?.[0].image).toBe('vitess/lite:latest');
  expect(vtbackup(cj).image).toBe('mysql:8.0.40');
  expect(vtbackup(cj).args).toContain('--mysql_server_version=8.0.40-Vitess');
});

test("a keyspace's mysqld image overrides the cluster's (MergeVitessKeyspaceTemplateImages)", () => {
  const c = withLocation({ volume: { persistentVolumeClaim: { claimName: 'b' } } });
  c.spec.keyspaces[0].images = { mysqld: { mysql80Compatible: 'mysql:8.0.36' } };
  expect(vtbackup(convertAndRender([c]).objects[0][0]).args).toContain('--mysql_server_version=8.0.36-Vitess');
});

test('an external global lockserver gives the topology flags', () => {
  const c = withLocation(
    { volume: { persistentVolumeClaim: { claimName: 'b' } } },
    { globalLockserver: { external: { implementation: 'zk2', address: 'zk:2181', rootPath: '/vt/global' } } },
  );
  const args = argsOf(convertAndRender([c]).objects[0][0], 'vtbackup');
  expect(args.filter((a) => a.startsWith('--topo_'))).toEqual([
    '--topo_global_root=/vt/global',
    '--topo_global_server_address=zk:2181',
    '--topo_implementation=zk2',
  ]);
});

test("the first pool's tolerations, env and mounted volumes reach the pod", () => {
  const c = withLocation({ volume: { persistentVolumeClaim: { claimName: 'b' } } });
  c.spec.keyspaces[0].partitionings[0].equal!.shardTemplate = shardTemplate({
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }],
    extraEnv: [
      { name: 'A', value: '1' },
      { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      { name: 'C', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
    ],
    extraVolumes: [{ name: 'certs', secret: { secretName: 'tablet-certs' } }],
    extraVolumeMounts: [{ name: 'certs', mountPath: '/certs', readOnly: true }],
  });
  const {
    notes,
    objects: [[cj]],
  } = convertAndRender([c]);
  expect(podSpecOf(cj).tolerations).toContainEqual({
    key: 'dedicated',
    operator: 'Equal',
    value: 'db',
    effect: 'NoSchedule',
  });
  expect(vtbackup(cj).env).toEqual(
    expect.arrayContaining([
      { name: 'A', value: '1' },
      { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
    ]),
  );
  expect(vtbackup(cj).volumeMounts).toContainEqual({ name: 'certs', mountPath: '/certs', readOnly: true });
  expect(notes).toEqual([
    expect.objectContaining({
      level: 'note',
      path: 'spec.keyspaces[0].partitionings[0].equal.shardTemplate.tabletPools[0].extraEnv[2]',
    }),
  ]);
});

test('a keyspace with its own databaseName cannot be backed up with the same flags', () => {
  const c = withLocation({ volume: { persistentVolumeClaim: { claimName: 'b' } } });
  c.spec.keyspaces[0].databaseName = 'customers';
  const { notes, yaml } = convertAndRender([c]);
  expect(yaml).toEqual([]);
  expect(errors(notes)).toEqual([expect.objectContaining({ path: 'spec.keyspaces[0].databaseName' })]);
});

test('a cluster without spec.backup has nothing to convert', () => {
  const c = cluster('example', { customer: 2 });
  delete c.spec.backup;
  expect(errors(convertAndRender([c]).notes)).toEqual([expect.objectContaining({ path: 'spec.backup' })]);
});

test('custom partitionings: each shard with its own template; later partitionings win on a key range', () => {
  const c = withLocation({ volume: { persistentVolumeClaim: { claimName: 'b' } } });
  c.spec.keyspaces[0].partitionings = [
    { equal: { parts: 2, shardTemplate: shardTemplate() } },
    {
      custom: {
        shards: [{ keyRange: { end: '80' }, ...shardTemplate({ mysqld: { resources: { requests: { cpu: '3' } } } }) }],
      },
    },
  ];
  c.spec.backup!.schedules = [
    { name: 'daily', schedule: '0 3 * * *', strategies: [{ name: 'ks', scope: 'Keyspace', keyspace: 'customer' }] },
  ];
  const {
    objects: [objects],
  } = convertAndRender([c]);
  const cpu = Object.fromEntries(
    objects.map((o) => [o.metadata.labels?.['planetscale.com/shard'] ?? '', vtbackup(o).resources?.requests?.cpu]),
  );
  expect(cpu).toEqual({ 'x-80': '3', '80-x': '100m' });
});
