/** What the Redis backup, prune and drill pods share: labels, volumes, env. */
import type { EnvVar, Volume } from '../../kubernetes/objects';
import { labelValue } from '../../kubernetes/names';
import type { SecretKeyRef } from '../../policy/types';
import { retentionDestinationEnv } from '../../retention';
import type { DestinationEnvVar } from '../../retention';
import { emptyDirVolume, ephemeralClaimVolume } from '../../workload/volumes';
import type { PodContext } from '../engine';
import { s3RetentionDestination } from '../s3';
import { REDIS_DEFAULTS } from './defaults';
import type { ResolvedRedis } from './resolve';

const LABEL_PREFIX = 'backup-cronjobs.io';
export const SCRATCH = REDIS_DEFAULTS.scratchMountPath;
export const TMP = REDIS_DEFAULTS.tmpMountPath;

/** Object name prefix of one shard: `redis-backup_<shard>_` (the naming of saas-operator's ShardedRedisBackup). */
export function shardNamePrefix(shard: string): string {
  return `${REDIS_DEFAULTS.namePrefix}${shard}_`;
}

export function shardLabels(shard: string): Record<string, string> {
  return { [`${LABEL_PREFIX}/shard`]: labelValue(shard) };
}

export const secretEnv = (name: string, ref: SecretKeyRef): EnvVar => ({
  name,
  valueFrom: { secretKeyRef: { name: ref.name, key: ref.key } },
});

/**
 * Where this shard's objects live, in the retention contract's variables (also
 * used by the upload and the drill); each backup's metadata `<name>.json` is
 * deleted with it.
 */
export function destinationEnv(spec: ResolvedRedis, shard: string): DestinationEnvVar[] {
  return retentionDestinationEnv(
    s3RetentionDestination(spec.s3, {
      namePrefix: shardNamePrefix(shard),
      nameSuffix: REDIS_DEFAULTS.nameSuffix,
      sidecarSuffixes: [REDIS_DEFAULTS.metadataSuffix],
    }),
  );
}

export function metricsEnv(ctx: PodContext, shard: string): EnvVar[] {
  return ctx.metrics ? [{ name: 'BACKUP_METRICS_LABELS', value: `shard=${shard}` }] : [];
}

export const tmpVolume: Volume = emptyDirVolume('tmp', REDIS_DEFAULTS.tmpSizeLimit);
export const tmpEnv: EnvVar[] = [
  { name: 'HOME', value: TMP },
  { name: 'TMPDIR', value: TMP },
];

/** `spec.redis.scratch`: an emptyDir (with its size limit) or a per-run PVC. */
export function scratchVolume(spec: ResolvedRedis): Volume {
  const { size, storageClassName, sizeLimit } = spec.scratch;
  return size
    ? ephemeralClaimVolume('scratch', { size, storageClassName, accessModes: ['ReadWriteOnce'] })
    : emptyDirVolume('scratch', sizeLimit);
}
