/**
 * Redis behind Sentinel: one CronJob per shard (Sentinel master name). Each
 * run's pod has two containers that run at the same time and share the
 * scratch volume, through which the backup streams in a named pipe (no copy
 * of the dump is stored in the pod):
 *  - `redis-dump` (redis image): asks Sentinel for the shard's replicas, picks
 *    a healthy read-only one (the master only when allowed), and streams
 *    `redis-cli --rdb` through `redis-check-rdb` and gzip into the pipe; its
 *    verdict is written before the stream ends.
 *  - `s3-upload` (aws CLI image): uploads the stream as it comes, lets the
 *    upload complete only after a good verdict, verifies the stored size,
 *    pushes the metrics of either outcome, prunes this shard's old objects.
 * Either side ending early ends the other (the stream breaks, or a marker
 * file); each exits non-zero on failure (restartPolicy Never: the pod fails).
 * With `spec.retention.schedule`, one retention-prune CronJob per shard.
 */
import type { EngineContainer, EnvVar, Volume } from '../../kubernetes/objects';
import { joinName, labelValue } from '../../kubernetes/names';
import { pruneEnv, prunesAfterBackup } from '../../policy/retention-options';
import type { Placement, SecretKeyRef } from '../../policy/types';
import { retentionDestinationEnv } from '../../retention';
import type { DestinationEnvVar } from '../../retention';
import { shellCommand } from '../../scripts';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../../workload/security';
import { emptyDirVolume, ephemeralClaimVolume } from '../../workload/volumes';
import type { EnginePod, EngineTarget, PodContext, PolicyContext } from '../engine';
import { awsEnv, s3RetentionDestination, s3UploadEnv } from '../s3';
import { REDIS_DEFAULTS } from './defaults';
import type { ResolvedRedis, ResolvedShard } from './resolve';

const LABEL_PREFIX = 'backup-cronjobs.io';
const SCRATCH = REDIS_DEFAULTS.scratchMountPath;
const TMP = REDIS_DEFAULTS.tmpMountPath;
const ENGINE_DEFAULTS = { timeout: REDIS_DEFAULTS.timeout };

/** Object name prefix of one shard: `redis-backup_<shard>_` (the seed's naming). */
export function shardNamePrefix(shard: string): string {
  return `${REDIS_DEFAULTS.namePrefix}${shard}_`;
}

/** One backup target per shard, in policy order, then one prune target per shard when retention has its own schedule. */
export function redisTargets(spec: ResolvedRedis, policy: PolicyContext): EngineTarget[] {
  const backups = spec.shards.map((s) => backupTarget(spec, policy, s));
  const pruneSchedule = policy.retention?.schedule;
  if (pruneSchedule === undefined) return backups;
  return [...backups, ...spec.shards.map((s) => pruneTarget(spec, policy, s, pruneSchedule))];
}

function shardLabels(shard: string): Record<string, string> {
  return { [`${LABEL_PREFIX}/shard`]: labelValue(shard) };
}

function backupTarget(spec: ResolvedRedis, policy: PolicyContext, shard: ResolvedShard): EngineTarget {
  return {
    id: `redis|${policy.metadata.name}|${shard.name}`,
    nameParts: [shard.name],
    key: shard.name,
    component: 'backup',
    labels: shardLabels(shard.name),
    overrides: shard.settings,
    settingsPath: shard.settings ? shard.path : 'spec.defaults',
    defaults: ENGINE_DEFAULTS,
    pod: (ctx) => backupPod(spec, policy, shard.name, ctx),
  };
}

function pruneTarget(spec: ResolvedRedis, policy: PolicyContext, shard: ResolvedShard, schedule: string): EngineTarget {
  return {
    id: `redis|${policy.metadata.name}|${shard.name}|prune`,
    nameParts: [shard.name, 'prune'],
    key: shard.name,
    component: 'retention-prune',
    labels: shardLabels(shard.name),
    overrides: shard.settings,
    settingsPath: 'spec.retention',
    schedule,
    defaults: ENGINE_DEFAULTS,
    pod: (ctx) => prunePod(spec, policy, shard.name, ctx),
  };
}

const secretEnv = (name: string, ref: SecretKeyRef): EnvVar => ({ name, valueFrom: { secretKeyRef: { name: ref.name, key: ref.key } } });

/** Where this shard's objects live, in the retention contract's variables (also used by the upload). */
function destinationEnv(spec: ResolvedRedis, shard: string): DestinationEnvVar[] {
  return retentionDestinationEnv(s3RetentionDestination(spec.s3, { namePrefix: shardNamePrefix(shard), nameSuffix: REDIS_DEFAULTS.nameSuffix }));
}

function metricsEnv(ctx: PodContext, shard: string): EnvVar[] {
  return ctx.metrics ? [{ name: 'BACKUP_METRICS_LABELS', value: `shard=${shard}` }] : [];
}

/**
 * Grace period for the TERM the kubelet sends at the Job's deadline. s3-upload
 * then stops the upload and may need, one after the other: deleting the
 * object (one S3 call), aborting the multipart upload (list + abort: two), each
 * call one attempt of at most 5 s connect + 10 s read plus about 1 s of CLI
 * start-up; then the failure push (two curl calls of at most 10 s each);
 * plus 10 s for stopping the children. redis-dump needs at most one bounded
 * redis-cli call (REDIS_TIMEOUT_SECONDS, 10 s).
 */
const STOP_S3_CALL_SECONDS = 16;
const STOP_GRACE_SECONDS = 3 * STOP_S3_CALL_SECONDS + 2 * 10 + 10;

const tmpVolume: Volume = emptyDirVolume('tmp', REDIS_DEFAULTS.tmpSizeLimit);
const tmpEnv: EnvVar[] = [{ name: 'HOME', value: TMP }, { name: 'TMPDIR', value: TMP }];

function scratchVolume(spec: ResolvedRedis): Volume {
  const { size, storageClassName, sizeLimit } = spec.scratch;
  return size ? ephemeralClaimVolume('scratch', { size, storageClassName, accessModes: ['ReadWriteOnce'] }) : emptyDirVolume('scratch', sizeLimit);
}

function backupPod(spec: ResolvedRedis, policy: PolicyContext, shard: string, ctx: PodContext): EnginePod {
  const mounts = [{ name: 'scratch', mountPath: SCRATCH }, { name: 'tmp', mountPath: TMP }];
  const dump: EngineContainer = {
    name: 'redis-dump',
    image: spec.images.redis,
    command: shellCommand('redis-dump.sh'),
    env: [
      ...ctx.env,
      ...tmpEnv,
      { name: 'BACKUP_SCRATCH_DIR', value: SCRATCH },
      { name: 'REDIS_SHARD', value: shard },
      { name: 'REDIS_SENTINEL_ADDRESSES', value: spec.sentinel.addresses.join(' ') },
      ...(spec.sentinel.username ? [{ name: 'REDIS_SENTINEL_USERNAME', value: spec.sentinel.username }] : []),
      ...(spec.sentinel.passwordSecret ? [secretEnv('REDIS_SENTINEL_PASSWORD', spec.sentinel.passwordSecret)] : []),
      ...(spec.username ? [{ name: 'REDIS_USERNAME', value: spec.username }] : []),
      ...(spec.passwordSecret ? [secretEnv('REDIS_PASSWORD', spec.passwordSecret)] : []),
      { name: 'REDIS_ALLOW_MASTER_FALLBACK', value: String(spec.allowMasterFallback) },
      { name: 'REDIS_GZIP_LEVEL', value: String(spec.compressionLevel) },
      { name: 'REDIS_VERIFY_RDB', value: String(spec.verifyRdb) },
    ],
    volumeMounts: mounts,
    securityContext: restrictedContainerSecurity(),
  };
  const prunes = prunesAfterBackup(policy.retention);
  const upload: EngineContainer = {
    name: 's3-upload',
    image: spec.images.awsCli,
    command: shellCommand('redis-upload.sh', { metrics: ctx.metrics, retention: prunes }),
    env: [
      ...ctx.env,
      ...metricsEnv(ctx, shard),
      ...tmpEnv,
      { name: 'BACKUP_SCRATCH_DIR', value: SCRATCH },
      { name: 'REDIS_SHARD', value: shard },
      ...awsEnv(spec.s3),
      ...destinationEnv(spec, shard),
      ...s3UploadEnv(spec.s3),
      // A separate retention-prune CronJob replaces pruning after each backup.
      ...(policy.retention?.schedule === undefined ? pruneEnv(policy.retention, ctx.settings.timeZone) : []),
    ],
    volumeMounts: mounts,
    securityContext: restrictedContainerSecurity(),
  };
  return {
    containers: [dump, upload],
    mainContainers: ['redis-dump', 's3-upload'],
    volumes: [scratchVolume(spec), tmpVolume],
    securityContext: restrictedPodSecurity(REDIS_DEFAULTS.uid),
    terminationGracePeriodSeconds: STOP_GRACE_SECONDS,
    placement: shardSerialization(policy, shard),
  };
}

function prunePod(spec: ResolvedRedis, policy: PolicyContext, shard: string, ctx: PodContext): EnginePod {
  const prune: EngineContainer = {
    name: 'retention-prune',
    image: spec.images.awsCli,
    command: shellCommand('prune.sh'),
    env: [...ctx.env, ...tmpEnv, ...awsEnv(spec.s3), ...destinationEnv(spec, shard), ...pruneEnv(policy.retention, ctx.settings.timeZone)],
    volumeMounts: [{ name: 'tmp', mountPath: TMP }],
    securityContext: restrictedContainerSecurity(),
  };
  return {
    containers: [prune],
    mainContainers: ['retention-prune'],
    volumes: [tmpVolume],
    securityContext: restrictedPodSecurity(REDIS_DEFAULTS.uid),
    placement: shardSerialization(policy, shard),
  };
}

/**
 * With a separate prune CronJob, a shard's backup and prune pods share a
 * cluster-wide serialization group, so a prune never runs while an upload is
 * being verified. A serialization group in the policy replaces this one.
 */
function shardSerialization(policy: PolicyContext, shard: string): Placement | undefined {
  if (policy.retention?.schedule === undefined) return undefined;
  return { serializationGroup: { name: joinName([policy.metadata.name, shard], 63), scope: 'cluster' } };
}
