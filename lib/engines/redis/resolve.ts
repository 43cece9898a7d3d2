/** `spec.redis` with every default applied, once. */
import type { JobSettings, SecretKeyRef } from '../../policy/types';
import { namedEntry } from '../../policy/named-entries';
import type { PolicyPath } from '../../policy/errors';
import { ResolvedS3, resolveS3 } from '../s3';
import { ResolvedS3Copy, resolveS3Copies } from '../s3-copies';
import { REDIS_DEFAULTS } from './defaults';
import type { RedisSpec } from './types';

export interface ResolvedShard {
  readonly name: string;
  /** The shard's own settings (over spec.defaults). */
  readonly settings?: JobSettings;
  /** Path of the shard entry, for messages. */
  readonly path: PolicyPath;
}

export interface ResolvedRedis {
  readonly sentinel: {
    readonly addresses: readonly string[];
    readonly username?: string;
    readonly passwordSecret?: SecretKeyRef;
  };
  readonly username?: string;
  readonly passwordSecret?: SecretKeyRef;
  readonly shards: readonly ResolvedShard[];
  readonly allowMasterFallback: boolean;
  readonly compressionLevel: number;
  readonly verifyRdb: boolean;
  /** A per-run PVC of `size`, or an emptyDir (with `sizeLimit` when set). */
  readonly scratch: { readonly size?: string; readonly storageClassName?: string; readonly sizeLimit?: string };
  readonly s3: ResolvedS3;
  /** Further copies of every backup. */
  readonly copies: readonly ResolvedS3Copy[];
  readonly images: { readonly redis: string; readonly awsCli: string };
}

export function resolveRedis(spec: RedisSpec, path: PolicyPath): ResolvedRedis {
  return {
    sentinel: spec.sentinel,
    username: spec.username,
    passwordSecret: spec.passwordSecret,
    shards: spec.shards.map((entry, i) => ({ ...namedEntry(entry), path: [...path, 'shards', i] })),
    allowMasterFallback: spec.allowMasterFallback ?? REDIS_DEFAULTS.allowMasterFallback,
    compressionLevel: spec.compression?.level ?? REDIS_DEFAULTS.compressionLevel,
    verifyRdb: spec.verifyRdb ?? REDIS_DEFAULTS.verifyRdb,
    scratch: spec.scratch ?? {},
    s3: resolveS3(spec.s3),
    copies: resolveS3Copies(spec.copies),
    images: {
      redis: spec.images?.redis ?? REDIS_DEFAULTS.redisImage,
      awsCli: spec.images?.awsCli ?? REDIS_DEFAULTS.awsCliImage,
    },
  };
}
