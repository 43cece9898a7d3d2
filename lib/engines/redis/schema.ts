import { REDIS_DEFAULTS } from './defaults';
import {
  PATTERNS,
  Schema,
  arr,
  bool,
  image,
  int,
  named,
  nonEmptyStr,
  obj,
  secretKeyRef,
  size,
  str,
  withMeta,
} from '../../policy/schema-builders';
import { jobSettingsProperties } from '../../policy/schema-settings';
import { s3DestinationSchema } from '../s3';
import { s3CopiesSchema } from '../s3-copies';

/** A Sentinel master name: a label-value-like token, safe in object keys, labels and metric labels. */
export const SHARD_NAME_PATTERN = '^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$';
/** `host:port` or `[ipv6]:port`. */
export const ADDRESS_PATTERN = '^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?):[0-9]{1,5}$';
const TOKEN_PATTERN = '^[^\\s]+$';

const shardName = str('Sentinel master name of the shard.', { pattern: SHARD_NAME_PATTERN, maxLength: 63 });

/**
 * A shard: its name, or an object with the name and per-shard job settings.
 * One schema for both (type-specific keywords apply to their type only).
 */
const shard: Schema = named('RedisShardSpec', {
  type: ['string', 'object'],
  description: 'A shard (Sentinel master name), or {name, ...job settings} to override settings for this shard.',
  pattern: SHARD_NAME_PATTERN,
  maxLength: 63,
  additionalProperties: false,
  properties: { name: shardName, ...jobSettingsProperties },
  required: ['name'],
});

/** Schema of `spec.redis`. */
export const redisSchema = named(
  'RedisSpec',
  obj(
    'Sharded Redis behind Sentinel, dumped from a read-only replica with redis-cli --rdb and uploaded to S3.',
    {
      sentinel: named(
        'RedisSentinel',
        obj(
          'The Sentinels that monitor the shards.',
          {
            addresses: arr(
              'Sentinel addresses host:port, tried in order until one answers.',
              withMeta(str('host:port or [ipv6]:port.', { pattern: ADDRESS_PATTERN }), { passThrough: 'address' }),
              { minItems: 1 },
            ),
            username: withMeta(nonEmptyStr('ACL user for the Sentinels.', { pattern: TOKEN_PATTERN }), {
              defaultText: 'none (password-only AUTH, or no AUTH)',
            }),
            passwordSecret: withMeta(secretKeyRef("The Sentinels' password."), { defaultText: 'no AUTH' }),
          },
          ['addresses'],
        ),
      ),
      username: withMeta(nonEmptyStr('ACL user for the Redis servers.', { pattern: TOKEN_PATTERN }), {
        defaultText: 'none',
      }),
      passwordSecret: withMeta(secretKeyRef("The Redis servers' password."), { defaultText: 'no AUTH' }),
      shards: arr('Shards (Sentinel master names); one CronJob each.', shard, { minItems: 1 }),
      allowMasterFallback: bool('Dump the master when a shard has no healthy read-only replica.', {
        default: REDIS_DEFAULTS.allowMasterFallback,
      }),
      compression: named(
        'RedisCompression',
        obj('Compression of the dump.', {
          level: int('gzip level (1 fastest .. 9 smallest).', 1, 9, { default: REDIS_DEFAULTS.compressionLevel }),
        }),
      ),
      verifyRdb: bool('Check the dump with redis-check-rdb before compressing it.', {
        default: REDIS_DEFAULTS.verifyRdb,
      }),
      scratch: withMeta(
        named(
          'RedisScratch',
          obj('Scratch space for the dump: an emptyDir (sizeLimit) or a per-run PVC (size).', {
            sizeLimit: withMeta(size('emptyDir size limit.'), { defaultText: 'no limit' }),
            size: withMeta(size('Size of a per-run PVC (generic ephemeral volume) instead of an emptyDir.'), {
              defaultText: 'an emptyDir',
            }),
            storageClassName: withMeta(
              str('StorageClass of the per-run PVC (only with size).', {
                pattern: PATTERNS.dnsSubdomain,
                maxLength: 253,
              }),
              { defaultText: "the cluster's default StorageClass" },
            ),
          }),
        ),
        { defaultText: 'an emptyDir without a size limit' },
      ),
      s3: s3DestinationSchema('S3 or S3-compatible destination.', 'S3-compatible endpoint URL (MinIO etc.).'),
      copies: withMeta(s3CopiesSchema('S3-compatible endpoint URL (MinIO etc.).'), { defaultText: 'none' }),
      images: withMeta(
        named(
          'RedisImages',
          obj('Images.', {
            redis: image('Dump step image: sh, redis-cli >= 7.0, redis-check-rdb, gzip, timeout.', {
              default: REDIS_DEFAULTS.redisImage,
            }),
            awsCli: image('Upload step image: sh, aws CLI, curl, awk, sort, date, mktemp.', {
              default: REDIS_DEFAULTS.awsCliImage,
            }),
          }),
        ),
        { passThroughFields: 'name' },
      ),
    },
    ['sentinel', 'shards', 's3'],
  ),
);
