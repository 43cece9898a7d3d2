import { REDIS_DEFAULTS } from './defaults';
import { PATTERNS, Schema, bool, int, nonEmptyStr, obj, quantity, secretKeyRef, str, strEnum, arr } from '../../policy/schema-builders';
import { jobSettingsProperties } from '../../policy/schema-settings';

/** A Sentinel master name: a label-value-like token, safe in object keys, labels and metric labels. */
export const SHARD_NAME_PATTERN = '^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$';
/** `host:port` or `[ipv6]:port`. */
export const ADDRESS_PATTERN = '^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?):[0-9]{1,5}$';
/** S3 key prefix: no whitespace, no leading or trailing `/`. */
export const S3_PATH_PATTERN = '^[^/\\s]([^\\s]*[^/\\s])?$';
/** S3 bucket naming rules. */
export const BUCKET_PATTERN = '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$';
const TOKEN_PATTERN = '^[^\\s]+$';
const SECRET_KEY_PATTERN = '^[-._a-zA-Z0-9]+$';

const shardName = str('Sentinel master name of the shard.', { pattern: SHARD_NAME_PATTERN, maxLength: 63 });

/**
 * A shard: its name, or an object with the name and per-shard job settings.
 * One schema for both (type-specific keywords apply to their type only).
 */
const shard: Schema = {
  type: ['string', 'object'],
  description: 'A shard (Sentinel master name), or {name, ...job settings} to override settings for this shard.',
  pattern: SHARD_NAME_PATTERN,
  maxLength: 63,
  additionalProperties: false,
  properties: { name: shardName, ...jobSettingsProperties },
  required: ['name'],
};

const secretKey = (description: string): Schema => nonEmptyStr(description, { pattern: SECRET_KEY_PATTERN });

/** Schema of `spec.redis`. */
export const redisSchema = obj('Sharded Redis behind Sentinel, dumped from a read-only replica with redis-cli --rdb and uploaded to S3.', {
  sentinel: obj('The Sentinels that monitor the shards.', {
    addresses: arr('Sentinel addresses host:port, tried in order until one answers.', str('host:port or [ipv6]:port.', { pattern: ADDRESS_PATTERN }), { minItems: 1 }),
    username: nonEmptyStr('ACL user for the Sentinels.', { pattern: TOKEN_PATTERN }),
    passwordSecret: secretKeyRef('The Sentinels\' password.'),
  }, ['addresses']),
  username: nonEmptyStr('ACL user for the Redis servers.', { pattern: TOKEN_PATTERN }),
  passwordSecret: secretKeyRef('The Redis servers\' password.'),
  shards: arr('Shards (Sentinel master names); one CronJob each.', shard, { minItems: 1 }),
  allowMasterFallback: bool('Dump the master when a shard has no healthy read-only replica.', { default: REDIS_DEFAULTS.allowMasterFallback }),
  compression: obj('Compression of the dump.', {
    level: int('gzip level (1 fastest .. 9 smallest).', 1, 9, { default: REDIS_DEFAULTS.compressionLevel }),
  }),
  verifyRdb: bool('Check the dump with redis-check-rdb before compressing it.', { default: REDIS_DEFAULTS.verifyRdb }),
  scratch: obj('Scratch space for the dump: an emptyDir (sizeLimit) or a per-run PVC (size).', {
    sizeLimit: quantity('emptyDir size limit.'),
    size: quantity('Size of a per-run PVC (generic ephemeral volume) instead of an emptyDir.'),
    storageClassName: str('StorageClass of the per-run PVC (only with size).', { pattern: PATTERNS.dnsSubdomain }),
  }),
  s3: obj('S3 or S3-compatible destination.', {
    bucket: str('Bucket.', { pattern: BUCKET_PATTERN }),
    path: str('Key prefix without leading or trailing "/".', { pattern: S3_PATH_PATTERN, maxLength: 900 }),
    region: nonEmptyStr('Region.', { pattern: TOKEN_PATTERN }),
    endpoint: str('S3-compatible endpoint URL (MinIO etc.).', { pattern: PATTERNS.url }),
    forcePathStyle: bool('Path-style addressing (default: true when endpoint is set).'),
    credentialsSecret: obj('Secret with the access key pair (default: ambient credentials).', {
      name: str('Secret name.', { pattern: PATTERNS.dnsSubdomain, maxLength: 253 }),
      accessKeyIdKey: secretKey('Key of the access key id.'),
      secretAccessKeyKey: secretKey('Key of the secret access key.'),
      sessionTokenKey: secretKey('Key of a session token.'),
    }, ['name']),
    storageClass: nonEmptyStr('Storage class of the objects, e.g. STANDARD_IA.', { pattern: '^[A-Z0-9_]+$' }),
    serverSideEncryption: strEnum('Server-side encryption.', ['AES256', 'aws:kms']),
    kmsKeyId: nonEmptyStr('KMS key id (serverSideEncryption aws:kms).', { pattern: TOKEN_PATTERN }),
  }, ['bucket', 'region']),
  images: obj('Images.', {
    redis: nonEmptyStr('Dump step image: sh, redis-cli >= 7.0, redis-check-rdb, gzip, timeout.', { default: REDIS_DEFAULTS.redisImage }),
    awsCli: nonEmptyStr('Upload step image: sh, aws CLI, curl, awk, sort, date, mktemp.', { default: REDIS_DEFAULTS.awsCliImage }),
  }),
}, ['sentinel', 'shards', 's3']);
