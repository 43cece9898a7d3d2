import type { CaBundleRef, JobSettings, SecretKeyRef } from '../../policy/types';

export interface VitessS3Storage {
  readonly region: string;
  readonly bucket: string;
  /** @default - no prefix: backups go under '<cluster>/' */
  readonly keyPrefix?: string;
  /** S3-compatible endpoint (MinIO). @default - AWS */
  readonly endpoint?: string;
  /** @default false */
  readonly forcePathStyle?: boolean;
  /** Minimum multipart part size in bytes. @default - vtbackup's default */
  readonly minPartSize?: number;
  /** An AWS shared-credentials file in a Secret. @default - the pod's ambient credentials */
  readonly authSecret?: SecretKeyRef;
  /**
   * The CA bundle (PEM) that signs an `https://` endpoint's certificate (a
   * private CA): mounted read-only into vtbackup and added to its trusted
   * roots through `SSL_CERT_DIR` (vtbackup's S3 client refuses `AWS_CA_BUNDLE`).
   * @default - the image's trusted CAs
   */
  readonly caBundle?: CaBundleRef;
}

export interface VitessGcsStorage {
  readonly bucket: string;
  /** @default - no prefix */
  readonly keyPrefix?: string;
  /** A service-account JSON key in a Secret. @default - workload identity */
  readonly authSecret?: SecretKeyRef;
}

export interface VitessAzblobStorage {
  readonly account: string;
  readonly container: string;
  /** @default - no prefix */
  readonly keyPrefix?: string;
  /** The account key file. */
  readonly authSecret: SecretKeyRef;
}

export interface VitessCephStorage {
  /** The Ceph JSON configuration. */
  readonly authSecret: SecretKeyRef;
}

export interface VitessFileStorage {
  /** A PersistentVolumeClaim shared by all backup pods (ReadWriteMany for sharded keyspaces). */
  readonly claimName: string;
  /** @default - the volume's root */
  readonly subPath?: string;
}

/** Exactly one storage kind. */
export interface VitessStorage {
  readonly s3?: VitessS3Storage;
  readonly gcs?: VitessGcsStorage;
  readonly azblob?: VitessAzblobStorage;
  readonly ceph?: VitessCephStorage;
  readonly file?: VitessFileStorage;
}

export interface VitessScratch {
  /** Size of the per-run data directory PVC (generic ephemeral volume). @default - an emptyDir */
  readonly size?: string;
  /** @default - the cluster's default StorageClass */
  readonly storageClassName?: string;
  /** @default ['ReadWriteOnce'] */
  readonly accessModes?: readonly ('ReadWriteOnce' | 'ReadWriteOncePod' | 'ReadWriteMany' | 'ReadOnlyMany')[];
}

export interface VitessStrategy {
  readonly keyspace: string;
  /** Shard key ranges (`-`, `-80`, `80-`). */
  readonly shards: readonly string[];
}

/**
 * Incremental backups of a schedule's shards (Vitess 18 and newer): one CronJob per shard
 * runs `vtctldclient BackupShard --incremental-from-pos=auto`, which copies the binary logs
 * since the shard's last backup from one of its replica-type tablets, once a full backup of
 * this policy (vtbackup) exists. Together they restore a shard to a point in time
 * (`backup-cronjobs restore --time`).
 */
export interface VitessIncremental {
  /** Cron of the incremental backups (5 fields, `H` allowed), in the schedule's time zone, e.g. `*\/15 * * * *`. */
  readonly schedule: string;
  /** Deadline of one incremental run (`activeDeadlineSeconds`, and vtctldclient's `--action_timeout`). @default '10m' */
  readonly timeout?: string;
  /**
   * The recovery point promised: BackupRecoveryPointTooOld fires when a shard's newest incremental
   * backup is older than this.
   * @default - `spec.alerts.staleAfterIntervals` of the incremental schedule's shortest interval, plus its timeout
   */
  readonly maxRecoveryPointAge?: string;
  /**
   * Let vtctld take the incremental backup on the primary when the shard has no replica-type tablet
   * (`BackupShard --allow-primary`; an incremental backup only rotates and copies binary logs).
   * @default false
   */
  readonly allowPrimary?: boolean;
  /** Pause the incremental CronJobs only. @default - the schedule's `suspend` */
  readonly suspend?: boolean;
}

export interface VitessSchedule extends JobSettings {
  /** DNS-1123 label, part of every CronJob name. */
  readonly name: string;
  /**
   * The operator's `frequency` (`30m`, `6h`, `24h`): a cron derived from a hash of
   * cluster, keyspace, shard and name, as vitess-operator does. Exclusive with `schedule`.
   * @default - use `schedule`
   */
  readonly frequency?: string;
  readonly strategies: readonly VitessStrategy[];
  /** Incremental backups of the strategies' shards between the full backups. @default - none */
  readonly incremental?: VitessIncremental;
}

export interface VitessSpec {
  /** The Vitess cluster name (`planetscale.com/cluster`); part of the storage root. */
  readonly cluster: string;
  readonly images?: {
    /** Image with /vt/bin/vtbackup and /vt/bin/vtctldclient. @default 'vitess/lite:v21.0.4' */
    readonly vtbackup?: string;
    /** The mysqld image the backup runs in. @default 'vitess/lite:v21.0.4' */
    readonly mysqld?: string;
  };
  /** @default 'MySQL80' */
  readonly mysqlFlavor?: 'MySQL56' | 'MySQL80' | 'MariaDB' | 'MariaDB103';
  /** @default 'builtin' */
  readonly backupEngine?: 'builtin' | 'xtrabackup' | 'mysqlshell';
  readonly topology: {
    /** @default 'etcd2' */
    readonly implementation?: string;
    /** e.g. `example-etcd-faf13de3-client.example.svc:2379` */
    readonly globalServerAddress: string;
    /** @default '/vitess/<cluster>/global' */
    readonly globalRoot?: string;
  };
  /** vtctld gRPC address the entry script asks for backups and the primary (`host:port`). */
  readonly vtctldServer: string;
  readonly storage: VitessStorage;
  /** The database init script Secret (`--init_db_sql_file`). @default - none */
  readonly dbInitScriptSecret?: SecretKeyRef;
  /** Per-run scratch data directory. @default - an emptyDir */
  readonly scratch?: VitessScratch;
  /**
   * When the shard has no complete backup but has a primary, take a first backup
   * from it with `--allow_first_backup`. Otherwise the run fails with a message.
   * @default false
   */
  readonly allowFirstBackup?: boolean;
  /** vtbackup flag spelling: `underscore` (all versions) or `dashed` (Vitess 22 and newer). @default 'underscore' */
  readonly flagStyle?: 'underscore' | 'dashed';
  /** vtbackup's own retention flags. */
  readonly vtbackupRetention?: {
    /** @default '0s' */
    readonly minBackupInterval?: string;
    /** @default '0s' (vtbackup's own pruning disabled) */
    readonly minRetentionTime?: string;
    /** @default 1 */
    readonly minRetentionCount?: number;
  };
  /** Extra vtbackup flags (`key: value`, no leading dashes); may not override a required flag. @default - none */
  readonly extraFlags?: Readonly<Record<string, string>>;
  readonly schedules: readonly VitessSchedule[];
}
