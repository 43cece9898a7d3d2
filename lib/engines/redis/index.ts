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
 */
import type { Container, EnvVar, Volume } from '../../k8s';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../../cronjob';
import { joinName, labelValue } from '../../names';
import { IssueList, childPath, show } from '../../policy/errors';
import { pruneEnv, prunesAfterBackup } from '../../policy/retention-options';
import type { BackupPolicy, JobSettings, Placement, SecretKeyRef } from '../../policy/types';
import { retentionDestinationEnv } from '../../retention';
import { shellCommand } from '../../scripts';
import type { EnginePod, Target } from '../../target';
import { mergeSettings } from '../../target';
import { REDIS_DEFAULTS } from './defaults';
import { namedEntry, validateNamedEntries } from '../named-entries';
import { awsEnv, s3RetentionDestination, s3UploadEnv, validateS3 } from '../s3';
import type { RedisShardSpec, RedisSpec } from './types';

export * from './types';
export { REDIS_DEFAULTS } from './defaults';
export { s3KeyPrefix } from '../s3';

const LABEL_PREFIX = 'backup-cronjobs.io';
const SCRATCH = REDIS_DEFAULTS.scratchMountPath;
const TMP = REDIS_DEFAULTS.tmpMountPath;

/** A shard entry as a name plus its own settings (none for a plain name). */
export const shardEntry: (entry: string | RedisShardSpec) => { name: string; settings?: JobSettings } = namedEntry;

/** Object name prefix of one shard: `redis-backup_<shard>_` (the seed's naming). */
export function shardNamePrefix(shard: string): string {
  return `${REDIS_DEFAULTS.namePrefix}${shard}_`;
}

/** Checks beyond the schema (the per-shard settings levels included). */
export function validateRedis(spec: RedisSpec, path: string, issues: IssueList): void {
  validateNamedEntries(spec.shards, path, 'shards', 'shard', issues);

  const addresses = new Map<string, number>();
  spec.sentinel.addresses.forEach((address, i) => {
    const at = childPath(childPath(childPath(path, 'sentinel'), 'addresses'), i);
    const port = Number(address.slice(address.lastIndexOf(':') + 1));
    if (!(port >= 1 && port <= 65535)) issues.add(at, `received ${show(address)}; the port must be 1-65535`);
    const prev = addresses.get(address);
    if (prev !== undefined) issues.add(at, `received ${show(address)}; already listed at addresses[${prev}]`);
    else addresses.set(address, i);
  });

  const scratch = spec.scratch;
  if (scratch) {
    const at = childPath(path, 'scratch');
    if (scratch.size !== undefined && scratch.sizeLimit !== undefined) {
      issues.add(at, 'set either size (a per-run PVC) or sizeLimit (an emptyDir), not both');
    }
    if (scratch.storageClassName !== undefined && scratch.size === undefined) {
      issues.add(childPath(at, 'storageClassName'), 'only valid with size (a per-run PVC); an emptyDir has no StorageClass');
    }
  }

  validateS3(spec.s3, childPath(path, 's3'), issues);
}

/** One backup target per shard, in policy order, then one prune target per shard when retention has its own schedule. */
export function redisTargets(policy: BackupPolicy, spec: RedisSpec, path: string): Target[] {
  const shards = spec.shards.map((entry, i) => ({ ...shardEntry(entry), path: childPath(childPath(path, 'shards'), i) }));
  const backups = shards.map((s) => backupTarget(policy, spec, s));
  const pruneSchedule = policy.spec.retention?.schedule;
  if (pruneSchedule === undefined) return backups;
  return [...backups, ...shards.map((s) => pruneTarget(policy, spec, s, pruneSchedule))];
}

interface ShardRef {
  readonly name: string;
  readonly settings?: JobSettings;
  readonly path: string;
}

function shardLabels(shard: string): Record<string, string> {
  return { [`${LABEL_PREFIX}/shard`]: labelValue(shard) };
}

function backupTarget(policy: BackupPolicy, spec: RedisSpec, shard: ShardRef): Target {
  const settings = mergeSettings(policy.spec.defaults, shard.settings);
  return {
    id: `redis|${policy.metadata.name}|${shard.name}`,
    nameParts: [shard.name],
    component: 'backup',
    labels: shardLabels(shard.name),
    settings,
    settingsPath: shard.settings ? shard.path : 'spec.defaults',
    defaultTimeout: REDIS_DEFAULTS.timeout,
    pod: ({ env, metrics }) => backupPod(policy, spec, shard.name, settings, env, metrics),
  };
}

function pruneTarget(policy: BackupPolicy, spec: RedisSpec, shard: ShardRef, schedule: string): Target {
  const settings = mergeSettings(policy.spec.defaults, shard.settings);
  return {
    id: `redis|${policy.metadata.name}|${shard.name}|prune`,
    nameParts: [shard.name, 'prune'],
    component: 'retention-prune',
    labels: shardLabels(shard.name),
    settings,
    settingsPath: 'spec.retention',
    schedule,
    defaultTimeout: REDIS_DEFAULTS.timeout,
    pod: ({ env }) => prunePod(policy, spec, shard.name, settings, env),
  };
}

const secretEnv = (name: string, ref: SecretKeyRef): EnvVar => ({ name, valueFrom: { secretKeyRef: { name: ref.name, key: ref.key } } });

/** Where this shard's objects live, in the retention contract's variables (also used by the upload). */
function destinationEnv(spec: RedisSpec, shard: string): EnvVar[] {
  return retentionDestinationEnv(s3RetentionDestination(spec.s3, { namePrefix: shardNamePrefix(shard), nameSuffix: REDIS_DEFAULTS.nameSuffix }));
}

function metricsEnv(policy: BackupPolicy, shard: string): EnvVar[] {
  if (!policy.spec.metrics?.pushgatewayUrl) return [];
  return [
    { name: 'BACKUP_METRICS_LABELS', value: `shard=${shard}` },
  ];
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

const tmpVolume: Volume = { name: 'tmp', emptyDir: { sizeLimit: REDIS_DEFAULTS.tmpSizeLimit } };
const tmpEnv: EnvVar[] = [{ name: 'HOME', value: TMP }, { name: 'TMPDIR', value: TMP }];

function scratchVolume(spec: RedisSpec): Volume {
  const scratch = spec.scratch;
  if (scratch?.size) {
    return {
      name: 'scratch',
      ephemeral: {
        volumeClaimTemplate: {
          metadata: { labels: { 'app.kubernetes.io/managed-by': 'backup-cronjobs' } },
          spec: {
            accessModes: ['ReadWriteOnce'],
            storageClassName: scratch.storageClassName,
            resources: { requests: { storage: scratch.size } },
          },
        },
      },
    };
  }
  return { name: 'scratch', emptyDir: scratch?.sizeLimit ? { sizeLimit: scratch.sizeLimit } : {} };
}

function backupPod(policy: BackupPolicy, spec: RedisSpec, shard: string, settings: JobSettings, commonEnv: readonly EnvVar[], metrics: boolean): EnginePod {
  const mounts = [{ name: 'scratch', mountPath: SCRATCH }, { name: 'tmp', mountPath: TMP }];
  const dump: Container = {
    name: 'redis-dump',
    image: spec.images?.redis ?? REDIS_DEFAULTS.redisImage,
    command: shellCommand('redis-dump.sh'),
    env: [
      ...commonEnv,
      ...tmpEnv,
      { name: 'BACKUP_SCRATCH_DIR', value: SCRATCH },
      { name: 'REDIS_SHARD', value: shard },
      { name: 'REDIS_SENTINEL_ADDRESSES', value: spec.sentinel.addresses.join(' ') },
      ...(spec.sentinel.username ? [{ name: 'REDIS_SENTINEL_USERNAME', value: spec.sentinel.username }] : []),
      ...(spec.sentinel.passwordSecret ? [secretEnv('REDIS_SENTINEL_PASSWORD', spec.sentinel.passwordSecret)] : []),
      ...(spec.username ? [{ name: 'REDIS_USERNAME', value: spec.username }] : []),
      ...(spec.passwordSecret ? [secretEnv('REDIS_PASSWORD', spec.passwordSecret)] : []),
      { name: 'REDIS_ALLOW_MASTER_FALLBACK', value: String(spec.allowMasterFallback ?? REDIS_DEFAULTS.allowMasterFallback) },
      { name: 'REDIS_GZIP_LEVEL', value: String(spec.compression?.level ?? REDIS_DEFAULTS.compressionLevel) },
      { name: 'REDIS_VERIFY_RDB', value: String(spec.verifyRdb ?? REDIS_DEFAULTS.verifyRdb) },
    ],
    volumeMounts: mounts,
    securityContext: restrictedContainerSecurity(),
  };
  const upload: Container = {
    name: 's3-upload',
    image: spec.images?.awsCli ?? REDIS_DEFAULTS.awsCliImage,
    command: shellCommand('redis-upload.sh', { metrics, retention: prunesAfterBackup(policy.spec.retention) }),
    env: [
      ...commonEnv,
      ...metricsEnv(policy, shard),
      ...tmpEnv,
      { name: 'BACKUP_SCRATCH_DIR', value: SCRATCH },
      { name: 'REDIS_SHARD', value: shard },
      ...awsEnv(spec.s3),
      ...destinationEnv(spec, shard),
      ...s3UploadEnv(spec.s3),
      // A separate retention-prune CronJob replaces pruning after each backup.
      ...(policy.spec.retention?.schedule === undefined ? pruneEnv(policy.spec.retention, settings.timeZone) : []),
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

function prunePod(policy: BackupPolicy, spec: RedisSpec, shard: string, settings: JobSettings, commonEnv: readonly EnvVar[]): EnginePod {
  const prune: Container = {
    name: 'retention-prune',
    image: spec.images?.awsCli ?? REDIS_DEFAULTS.awsCliImage,
    command: shellCommand('prune.sh'),
    env: [...commonEnv, ...tmpEnv, ...awsEnv(spec.s3), ...destinationEnv(spec, shard), ...pruneEnv(policy.spec.retention, settings.timeZone)],
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
function shardSerialization(policy: BackupPolicy, shard: string): Placement | undefined {
  if (policy.spec.retention?.schedule === undefined) return undefined;
  return { serializationGroup: { name: joinName([policy.metadata.name, shard], 63), scope: 'cluster' } };
}
