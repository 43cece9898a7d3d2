import { VITESS_DEFAULTS } from './defaults';
import {
  PATTERNS,
  Schema,
  arr,
  bool,
  caBundleRef,
  cron,
  dnsLabel,
  duration,
  image,
  int,
  named,
  nonEmptyStr,
  obj,
  objectName,
  secretKeyRef,
  size,
  str,
  strEnum,
  stringMap,
  withMeta,
} from '../../policy/schema-builders';
import { jobSettingsProperties } from '../../policy/schema-settings';

const keyPrefix = str('Key prefix; the cluster name is appended.');

const storage = named(
  'VitessStorage',
  obj(
    'Backup storage: exactly one kind.',
    {
      s3: named(
        'VitessS3Storage',
        obj(
          'S3 or S3-compatible storage.',
          {
            region: nonEmptyStr('Region.'),
            bucket: withMeta(nonEmptyStr('Bucket.'), { passThrough: 'name' }),
            keyPrefix: withMeta(keyPrefix, { defaultText: "no prefix: backups go under '<cluster>/'" }),
            endpoint: withMeta(withMeta(nonEmptyStr('Endpoint (MinIO etc.).'), { passThrough: 'url' }), {
              defaultText: 'AWS',
            }),
            forcePathStyle: bool('Path-style addressing.', { default: VITESS_DEFAULTS.forcePathStyle }),
            minPartSize: withMeta(int('Minimum multipart part size in bytes.', 1, Number.MAX_SAFE_INTEGER), {
              defaultText: "vtbackup's default",
            }),
            authSecret: withMeta(secretKeyRef('Shared-credentials file in a Secret.'), {
              defaultText: "the pod's ambient credentials",
            }),
            caBundle: withMeta(
              caBundleRef(
                "CA bundle (PEM) that signs an https endpoint's certificate; vtbackup trusts it through SSL_CERT_DIR (default: the image's trusted CAs).",
              ),
              { defaultText: "the image's trusted CAs" },
            ),
          },
          ['region', 'bucket'],
        ),
      ),
      gcs: named(
        'VitessGcsStorage',
        obj(
          'Google Cloud Storage.',
          {
            bucket: withMeta(nonEmptyStr('Bucket.'), { passThrough: 'name' }),
            keyPrefix: withMeta(keyPrefix, { defaultText: 'no prefix' }),
            authSecret: withMeta(secretKeyRef('Service-account key in a Secret.'), {
              defaultText: 'workload identity',
            }),
          },
          ['bucket'],
        ),
      ),
      azblob: named(
        'VitessAzblobStorage',
        obj(
          'Azure Blob Storage.',
          {
            account: nonEmptyStr('Account.'),
            container: nonEmptyStr('Container.'),
            keyPrefix: withMeta(keyPrefix, { defaultText: 'no prefix' }),
            authSecret: secretKeyRef('Account key file in a Secret.'),
          },
          ['account', 'container', 'authSecret'],
        ),
      ),
      ceph: named(
        'VitessCephStorage',
        obj('Ceph.', { authSecret: secretKeyRef('Ceph JSON configuration in a Secret.') }, ['authSecret']),
      ),
      file: named(
        'VitessFileStorage',
        obj(
          'A shared PersistentVolumeClaim.',
          {
            claimName: objectName('PersistentVolumeClaim', 'Claim name.'),
            subPath: withMeta(str('Sub-path in the volume.'), { defaultText: "the volume's root" }),
          },
          ['claimName'],
        ),
      ),
    },
    [],
    { minProperties: 1, maxProperties: 1 },
  ),
);

const incremental = named(
  'VitessIncremental',
  obj(
    "Incremental backups of the strategies' shards (vtctldclient BackupShard --incremental-from-pos=auto, Vitess 18 and newer), once a full backup exists.",
    {
      schedule: cron('Cron of the incremental backups (5 fields or a macro; H fields hashed per shard).', {
        minLength: 1,
      }),
      timeout: duration('Deadline of one incremental run (activeDeadlineSeconds and --action_timeout).', {
        default: VITESS_DEFAULTS.incrementalTimeout,
      }),
      maxRecoveryPointAge: withMeta(
        duration(
          'BackupRecoveryPointTooOld fires past this age of the newest incremental backup (default: staleAfterIntervals of the shortest interval, plus the timeout).',
        ),
        {
          defaultText:
            "`spec.alerts.staleAfterIntervals` of the incremental schedule's shortest interval, plus its timeout",
        },
      ),
      allowPrimary: bool('Take it on the primary when the shard has no replica-type tablet (--allow-primary).', {
        default: VITESS_DEFAULTS.incrementalAllowPrimary,
      }),
      suspend: withMeta(bool("Pause the incremental CronJobs only (default: the schedule's suspend)."), {
        defaultText: "the schedule's `suspend`",
      }),
    },
    ['schedule'],
  ),
);

const schedule: Schema = named(
  'VitessSchedule',
  obj(
    'A backup schedule: one CronJob per keyspace/shard of its strategies.',
    {
      name: dnsLabel('Schedule name, part of every CronJob name.'),
      frequency: withMeta(duration('The operator-style frequency (30m, 6h, 24h) instead of schedule.'), {
        defaultText: 'use `schedule`',
      }),
      strategies: arr(
        'Keyspaces and their shards.',
        named(
          'VitessStrategy',
          obj(
            'A keyspace and shards.',
            {
              keyspace: dnsLabel('Keyspace.'),
              shards: arr(
                'Shard key ranges such as "-", "-80", "80-".',
                str('Key range.', { pattern: '^([0-9a-f]*)-([0-9a-f]*)$' }),
                { minItems: 1 },
              ),
            },
            ['keyspace', 'shards'],
          ),
        ),
        { minItems: 1 },
      ),
      incremental: withMeta(incremental, { defaultText: 'none' }),
      ...jobSettingsProperties,
    },
    ['name', 'strategies'],
  ),
);

/** Schema of `spec.vitess`. */
export const vitessSchema = named(
  'VitessSpec',
  obj(
    'Vitess shards backed up with vtbackup.',
    {
      cluster: dnsLabel('Vitess cluster name.'),
      images: withMeta(
        named(
          'VitessImages',
          obj('Images.', {
            vtbackup: image('Image with /vt/bin/vtbackup and /vt/bin/vtctldclient.', {
              default: VITESS_DEFAULTS.image,
            }),
            mysqld: image('mysqld image the backup runs in.', { default: VITESS_DEFAULTS.image }),
          }),
        ),
        { passThroughFields: 'name' },
      ),
      mysqlFlavor: strEnum('MySQL flavor.', ['MySQL56', 'MySQL80', 'MariaDB', 'MariaDB103'], {
        default: VITESS_DEFAULTS.mysqlFlavor,
      }),
      backupEngine: strEnum('vtbackup engine.', ['builtin', 'xtrabackup', 'mysqlshell'], {
        default: VITESS_DEFAULTS.backupEngine,
      }),
      topology: named(
        'VitessTopology',
        obj(
          'Global topology server.',
          {
            implementation: nonEmptyStr('Topology implementation.', {
              default: VITESS_DEFAULTS.topologyImplementation,
            }),
            globalServerAddress: withMeta(nonEmptyStr('Global topology server address.'), { passThrough: 'address' }),
            globalRoot: nonEmptyStr('Global root (default /vitess/<cluster>/global).'),
          },
          ['globalServerAddress'],
        ),
      ),
      vtctldServer: withMeta(
        nonEmptyStr('vtctld gRPC address (host:port) asked for backups and the primary.', {
          pattern: '^[^\\s:]+:[0-9]+$',
        }),
        { passThrough: 'address' },
      ),
      storage,
      dbInitScriptSecret: withMeta(secretKeyRef('Database init script (--init_db_sql_file).'), { defaultText: 'none' }),
      scratch: withMeta(
        named(
          'VitessScratch',
          obj('Per-run scratch data directory.', {
            size: withMeta(size('PVC size; omit for an emptyDir.'), { defaultText: 'an emptyDir' }),
            storageClassName: withMeta(str('StorageClass.', { pattern: PATTERNS.dnsSubdomain, maxLength: 253 }), {
              defaultText: "the cluster's default StorageClass",
            }),
            accessModes: arr(
              'Access modes.',
              strEnum('Access mode.', ['ReadWriteOnce', 'ReadWriteOncePod', 'ReadWriteMany', 'ReadOnlyMany']),
              { minItems: 1, default: [...VITESS_DEFAULTS.scratchAccessModes] },
            ),
          }),
        ),
        { defaultText: 'an emptyDir' },
      ),
      allowFirstBackup: bool('Take a first backup from a shard that has a primary but no backup.', {
        default: VITESS_DEFAULTS.allowFirstBackup,
      }),
      flagStyle: strEnum('vtbackup flag spelling.', ['underscore', 'dashed'], { default: VITESS_DEFAULTS.flagStyle }),
      vtbackupRetention: named(
        'VitessVtbackupRetention',
        obj("vtbackup's own retention flags.", {
          minBackupInterval: duration('--min_backup_interval.', { default: VITESS_DEFAULTS.minBackupInterval }),
          minRetentionTime: duration('--min_retention_time.', { default: VITESS_DEFAULTS.minRetentionTime }),
          minRetentionCount: int('--min_retention_count.', 1, Number.MAX_SAFE_INTEGER, {
            default: VITESS_DEFAULTS.minRetentionCount,
          }),
        }),
      ),
      extraFlags: withMeta(stringMap('Extra vtbackup flags (key without dashes: value).'), { defaultText: 'none' }),
      schedules: arr('Backup schedules.', schedule, { minItems: 1 }),
    },
    ['cluster', 'topology', 'vtctldServer', 'storage', 'schedules'],
  ),
);
