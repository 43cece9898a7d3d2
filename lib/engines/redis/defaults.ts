/** Redis defaults, defined once. */
export const REDIS_DEFAULTS = {
  /** Official image: busybox sh/gzip/timeout, redis-cli and redis-check-rdb (uid 999 = redis). */
  redisImage: 'redis:7.2.8-alpine',
  /** Amazon Linux 2 with aws CLI v2, bash, coreutils, gawk, curl. */
  awsCliImage: 'amazon/aws-cli:2.17.64',
  allowMasterFallback: false,
  compressionLevel: 1,
  verifyRdb: true,
  /** The default `timeout` of saas-operator's ShardedRedisBackup. */
  timeout: '10m',
  /** Deadline of a restore drill: a download, a decryption, a gunzip, a check and a load, each of the whole RDB. */
  drillTimeout: '30m',
  /** Seconds the drill's temporary redis-server may take to load the RDB. */
  drillLoadTimeoutSeconds: 900,
  /** Object names: `<path>/<namePrefix><shard>_<UTC RFC3339>.rdb.gz`, as saas-operator's ShardedRedisBackup names them. */
  namePrefix: 'redis-backup_',
  nameSuffix: '.rdb.gz',
  /** Each backup's metadata: `<name>.json` (clear name, also for `<name>.age`). */
  metadataSuffix: '.json',
  /** Metric names start with this; grouping adds the `shard` label. */
  metricsPrefix: 'redis_backup',
  /** uid/gid of the `redis` user of the official images; any non-root uid works for both steps. */
  uid: 999,
  scratchMountPath: '/scratch',
  tmpMountPath: '/tmp',
  tmpSizeLimit: '64Mi',
} as const;
