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
 *    upload complete only after a good verdict and the content checks
 *    (`spec.contentChecks`: an empty or shrunken dump), verifies the stored
 *    size, pushes the metrics of either outcome, prunes this shard's old objects.
 * Either side ending early ends the other (the stream breaks, or a marker
 * file); each exits non-zero on failure (restartPolicy Never: the pod fails).
 * With `spec.encryption`, a third container `age-encrypt` (the age image)
 * encrypts the stream between them (redis-encrypt.sh). Each backup stores its
 * metadata `<name>.json` (key count, keys per database, encryption recipients).
 * With `spec.retention.schedule`, one retention-prune CronJob per shard; with
 * `spec.drill`, one restore-drill CronJob per shard (drill.ts).
 */
import type { EngineContainer, Volume } from '../../kubernetes/objects';
import { joinName } from '../../kubernetes/names';
import { mergeSettings } from '../../policy/settings';
import { pruneEnv, prunesAfterBackup } from '../../policy/retention-options';
import type { AgeEncryption, Placement } from '../../policy/types';
import { shellCommand } from '../../scripts';
import { contentCheckEnv } from '../../workload/content-checks';
import { ageContainer, ageRecipientsParts } from '../../workload/encryption';
import { STEP_RESOURCES } from '../../workload/resources';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../../workload/security';
import type { EnginePod, EngineTarget, PodContext, PolicyContext } from '../engine';
import { awsEnv, s3CaMounts, s3CaVolumes, s3UploadEnv } from '../s3';
import { s3CopiesEnv } from '../s3-copies';
import { REDIS_DEFAULTS } from './defaults';
import { drillPod } from './drill';
import {
  SCRATCH,
  TMP,
  destinationEnv,
  metricsEnv,
  scratchVolume,
  secretEnv,
  shardLabels,
  tmpEnv,
  tmpVolume,
} from './pod-parts';
import type { ResolvedRedis, ResolvedShard } from './resolve';

export { shardNamePrefix } from './pod-parts';

const ENGINE_DEFAULTS = { timeout: REDIS_DEFAULTS.timeout };

/**
 * One backup target per shard, in policy order, then one prune target per
 * shard when retention has its own schedule, then one restore-drill target
 * per shard with `spec.drill`.
 */
export function redisTargets(spec: ResolvedRedis, policy: PolicyContext): EngineTarget[] {
  const backups = spec.shards.map((s) => backupTarget(spec, policy, s));
  const pruneSchedule = policy.retention?.schedule;
  const prunes = pruneSchedule === undefined ? [] : spec.shards.map((s) => pruneTarget(spec, policy, s, pruneSchedule));
  const drills = policy.drill ? spec.shards.map((s) => drillTarget(spec, policy, s)) : [];
  return [...backups, ...prunes, ...drills];
}

function backupTarget(spec: ResolvedRedis, policy: PolicyContext, shard: ResolvedShard): EngineTarget {
  return {
    id: `redis|${policy.metadata.name}|${shard.name}`,
    nameParts: [shard.name],
    key: shard.name,
    component: 'backup',
    labels: shardLabels(shard.name),
    overrides: shard.settings,
    settingsPath: shard.settings ? shard.path : ['spec', 'defaults'],
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
    settingsPath: ['spec', 'retention'],
    schedule,
    defaults: ENGINE_DEFAULTS,
    pod: (ctx) => prunePod(spec, policy, shard.name, ctx),
  };
}

/** `<policy>-<shard>-drill`: settings of spec.defaults, then the shard's own level, then spec.drill. */
function drillTarget(spec: ResolvedRedis, policy: PolicyContext, shard: ResolvedShard): EngineTarget {
  return {
    id: `redis|${policy.metadata.name}|${shard.name}|drill`,
    nameParts: [shard.name, 'drill'],
    key: shard.name,
    component: 'restore-drill',
    labels: shardLabels(shard.name),
    overrides: mergeSettings(shard.settings, policy.drill),
    settingsPath: ['spec', 'drill'],
    defaults: { timeout: REDIS_DEFAULTS.drillTimeout },
    pod: (ctx) => drillPod(spec, policy, shard.name, ctx),
  };
}

/**
 * Grace period for the TERM the kubelet sends at the Job's deadline. s3-upload
 * then stops the upload and may need, one after the other: deleting the
 * object and its metadata (two S3 calls), aborting the multipart upload (list + abort: two), each
 * call one attempt of at most 5 s connect + 10 s read plus about 1 s of CLI
 * start-up; then the failure push (two curl calls of at most 10 s each) and
 * the coverage push (one);
 * plus 10 s for stopping the children. redis-dump needs at most one bounded
 * redis-cli call (REDIS_TIMEOUT_SECONDS, 10 s).
 */
const STOP_S3_CALL_SECONDS = 16;
const STOP_GRACE_SECONDS = 4 * STOP_S3_CALL_SECONDS + 3 * 10 + 10;

function backupPod(spec: ResolvedRedis, policy: PolicyContext, shard: string, ctx: PodContext): EnginePod {
  const mounts = [
    { name: 'scratch', mountPath: SCRATCH },
    { name: 'tmp', mountPath: TMP },
  ];
  const age = policy.encryption?.age;
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
      { name: 'BACKUP_POLICY_SHARDS', value: spec.shards.map((s) => s.name).join(' ') },
      ...(age ? [{ name: 'REDIS_STREAM_READER', value: 'encrypt' }] : []),
    ],
    volumeMounts: mounts,
    resources: STEP_RESOURCES.redisDump,
    securityContext: restrictedContainerSecurity(),
  };
  const prunes = prunesAfterBackup(policy.retention);
  const upload: EngineContainer = {
    name: 's3-upload',
    image: spec.images.awsCli,
    command: shellCommand('redis-upload.sh', { metrics: ctx.metrics, retention: prunes, copy: spec.copies.length > 0 }),
    env: [
      ...ctx.env,
      ...metricsEnv(ctx, shard),
      ...tmpEnv,
      { name: 'BACKUP_SCRATCH_DIR', value: SCRATCH },
      { name: 'REDIS_SHARD', value: shard },
      ...(age ? [{ name: 'REDIS_ENCRYPTED', value: 'true' }] : []),
      ...awsEnv(spec.s3),
      ...destinationEnv(spec, shard),
      ...s3UploadEnv(spec.s3),
      ...s3CopiesEnv(spec.copies, ctx.settings.zone),
      ...contentCheckEnv(policy.contentChecks, REDIS_DEFAULTS.metadataSuffix),
      // A separate retention-prune CronJob replaces pruning after each backup.
      ...(policy.retention?.schedule === undefined ? pruneEnv(policy.retention, ctx.settings.zone) : []),
    ],
    volumeMounts: [...mounts, ...s3CaMounts(spec.s3)],
    resources: STEP_RESOURCES.awsCli,
    securityContext: restrictedContainerSecurity(),
  };
  const encrypt = age && encryptContainer(age, ctx);
  const containers = encrypt ? [dump, encrypt.container, upload] : [dump, upload];
  return {
    containers,
    mainContainers: containers.map((c) => c.name),
    volumes: [scratchVolume(spec), tmpVolume, ...(encrypt?.volumes ?? []), ...s3CaVolumes(spec.s3)],
    securityContext: restrictedPodSecurity(REDIS_DEFAULTS.uid),
    terminationGracePeriodSeconds: STOP_GRACE_SECONDS,
    placement: shardSerialization(policy, shard),
  };
}

/** `age-encrypt`: the age image between redis-dump and s3-upload, with the recipients. */
function encryptContainer(
  age: AgeEncryption,
  ctx: PodContext,
): { container: EngineContainer; volumes: readonly Volume[] } {
  const recipients = ageRecipientsParts(age);
  return {
    container: ageContainer('age-encrypt', age, 'redis-encrypt.sh', recipients, {
      env: [...ctx.env, ...tmpEnv, { name: 'BACKUP_SCRATCH_DIR', value: SCRATCH }],
      mounts: [
        { name: 'scratch', mountPath: SCRATCH },
        { name: 'tmp', mountPath: TMP },
      ],
    }),
    volumes: recipients.volumes,
  };
}

function prunePod(spec: ResolvedRedis, policy: PolicyContext, shard: string, ctx: PodContext): EnginePod {
  const prune: EngineContainer = {
    name: 'retention-prune',
    image: spec.images.awsCli,
    // with an Object Lock the prune pushes how many backups the lock still keeps
    command: shellCommand('prune.sh', { metrics: ctx.metrics && spec.s3.objectLock !== undefined }),
    env: [
      ...ctx.env,
      ...tmpEnv,
      ...awsEnv(spec.s3),
      ...destinationEnv(spec, shard),
      ...pruneEnv(policy.retention, ctx.settings.zone),
    ],
    volumeMounts: [{ name: 'tmp', mountPath: TMP }, ...s3CaMounts(spec.s3)],
    resources: STEP_RESOURCES.awsCli,
    securityContext: restrictedContainerSecurity(),
  };
  return {
    containers: [prune],
    mainContainers: ['retention-prune'],
    volumes: [tmpVolume, ...s3CaVolumes(spec.s3)],
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
