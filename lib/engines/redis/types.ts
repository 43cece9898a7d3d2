import type { JobSettings, SecretKeyRef } from '../../policy/types';
import type { S3Destination } from '../s3';
import type { S3Copy } from '../s3-copies';

/** The Sentinels that know the shards (Sentinel master names). */
export interface RedisSentinel {
  /**
   * Sentinel addresses `host:port` (IPv6 as `[addr]:port`), asked in this
   * order until one answers.
   */
  readonly addresses: readonly string[];
  /** ACL user for the Sentinels. @default - none (password-only AUTH, or no AUTH) */
  readonly username?: string;
  /** The Sentinels' password (`requirepass`), passed as `REDISCLI_AUTH`. @default - no AUTH */
  readonly passwordSecret?: SecretKeyRef;
}

/**
 * Scratch space for the dump and its compressed copy (about the RDB size plus
 * the compressed size). Either an emptyDir (`sizeLimit`) or a generic
 * ephemeral PVC (`size`), not both.
 */
export interface RedisScratch {
  /** emptyDir size limit (the pod is evicted when exceeded). @default - no limit */
  readonly sizeLimit?: string;
  /** Size of a per-run PVC (generic ephemeral volume) instead of an emptyDir. @default - an emptyDir */
  readonly size?: string;
  /** Only with `size`. @default - the cluster's default StorageClass */
  readonly storageClassName?: string;
}

/** One shard with its own job settings (overriding `spec.defaults` field by field). */
export interface RedisShardSpec extends JobSettings {
  /** The Sentinel master name of the shard. */
  readonly name: string;
}

export interface RedisSpec {
  readonly sentinel: RedisSentinel;
  /** ACL user for the Redis servers. @default - none */
  readonly username?: string;
  /** The Redis servers' password (`requirepass`/`masterauth`), passed as `REDISCLI_AUTH`. @default - no AUTH */
  readonly passwordSecret?: SecretKeyRef;
  /** Shards (Sentinel master names): one CronJob each. A name, or an object with per-shard job settings. */
  readonly shards: readonly (string | RedisShardSpec)[];
  /**
   * Dump the master when the shard has no healthy read-only replica. Off by
   * default: a dump forks the server and its copy-on-write memory; on a master
   * this competes with the traffic.
   * @default false
   */
  readonly allowMasterFallback?: boolean;
  readonly compression?: {
    /** gzip level 1 (fastest, what saas-operator's ShardedRedisBackup runs, `gzip -1`) to 9. @default 1 */
    readonly level?: number;
  };
  /** Check the dump with `redis-check-rdb` before compressing it. @default true */
  readonly verifyRdb?: boolean;
  /** @default - an emptyDir without a size limit */
  readonly scratch?: RedisScratch;
  /**
   * S3 or any S3-compatible store (the `s3Options` of saas-operator's ShardedRedisBackup; its
   * `credentialsSecretRef` is `credentialsSecret`). Objects are
   * `<path>/redis-backup_<shard>_<time>.rdb.gz`.
   */
  readonly s3: S3Destination;
  /**
   * Further copies of every verified backup (with its metadata), each in its own S3 bucket, endpoint or
   * region: streamed from `s3` after the backup is stored (no copy of the dump in the pod), checked, with
   * their own retention rules; a failed copy is reported and never fails the backup.
   * @default - none
   */
  readonly copies?: readonly S3Copy[];
  readonly images?: {
    /** Dump step: sh, redis-cli (7.0 or newer), redis-check-rdb, gzip, timeout. @default 'redis:7.2.8-alpine' */
    readonly redis?: string;
    /** Upload step: sh, aws (CLI v2), curl (metrics), awk, sort, date, mktemp. @default 'amazon/aws-cli:2.17.64' */
    readonly awsCli?: string;
  };
}
