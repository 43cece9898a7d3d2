/** The Redis engine: sharded Redis behind Sentinel, one CronJob per shard, RDB to S3. */
import type { EngineDefinition } from '../engine';
import { REDIS_DEFAULTS } from './defaults';
import { resolveRedis } from './resolve';
import { redisSchema } from './schema';
import { redisTargets, shardNamePrefix } from './targets';
import type { RedisSpec } from './types';
import type { RedisScheduleProps } from './props';
import { REDIS_PROPS } from './props';
import { validateRedis } from './validate';
import { shardedRedisBackupConverter } from './convert';
import { redisDiscover } from './discover';

export * from './types';
export { REDIS_DEFAULTS } from './defaults';
export { shardNamePrefix } from './targets';
export { redisSchedulePolicy } from './props';
export type { RedisScheduleProps } from './props';

export const redisEngine: EngineDefinition<RedisSpec, RedisScheduleProps> = {
  props: REDIS_PROPS,
  schema: redisSchema,
  metricsPrefix: REDIS_DEFAULTS.metricsPrefix,
  converters: [shardedRedisBackupConverter],
  discover: redisDiscover,
  retentionDestination: () => 's3',
  validate: (spec, policy, issues, accepted) => validateRedis(spec, policy.path, issues, accepted),
  targets: (spec, policy) => redisTargets(resolveRedis(spec, policy.path), policy),
  backupStores: (spec, policy) => {
    const { s3, shards } = resolveRedis(spec, policy.path);
    return shards.map(({ name }) => ({
      target: name,
      kind: 's3' as const,
      bucket: s3.bucket,
      keyPrefix: s3.keyPrefix,
      endpoint: s3.endpoint,
      region: s3.region,
      objectLock: s3.objectLock,
      namePrefix: shardNamePrefix(name),
      nameSuffix: REDIS_DEFAULTS.nameSuffix,
      metadataSuffix: REDIS_DEFAULTS.metadataSuffix,
      contentFacts: ['keyCount'],
    }));
  },
  encryption: true,
  drill: true,
  contentChecks: true,
  reportsCoverage: true,
  restoreHelp:
    "A Redis restore replaces a server's data and needs the server stopped, so there is no restore Job. On the server to restore: " +
    '`aws s3 cp s3://<bucket>/<path>/redis-backup_<shard>_<time>.rdb.gz - | gunzip > dump.rdb` (encrypted: `….rdb.gz.age - | age -d -i key.txt | gunzip > dump.rdb`), `redis-check-rdb dump.rdb`, ' +
    'stop the server, put dump.rdb in its `dir` (with `appendonly no`), start it (docs/operations/restore.md, Redis).',
};
