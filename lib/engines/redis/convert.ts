/**
 * 3scale saas-operator's `ShardedRedisBackup` (saas.3scale.net/v1alpha1) → a
 * Redis BackupPolicy (reference redis-and-peers.md Part A). The shards and the
 * Sentinel addresses come from the `Sentinel` named by `sentinelRef` when it
 * is in the input.
 */
import { API_VERSION, KIND } from '../../policy/types';
import { parseGoDuration } from '../../schedule';
import { formatDuration } from '../../units';
import {
  Draft,
  FieldComment,
  Notes,
  Obj,
  asArr,
  asBool,
  asInt,
  asObj,
  asStr,
  objectName,
  splitCronTimeZone,
} from '../convert';
import type { EngineConverter } from '../convert';

/** saas-operator defaults (api/v1alpha1/shardedredisbackup_types.go `Default()`, sentinel_types.go). */
const SRB_DEFAULTS = { timeout: '10m', historyLimit: 10 } as const;
const SENTINEL_DEFAULTS = { replicas: 3, port: 26379, component: 'redis-sentinel' } as const;
/** Every field of ShardedRedisBackup's spec and s3Options (shardedredisbackup_types.go@a10ed06, reference redis-and-peers.md A.3). */
export const SRB_FIELDS = {
  spec: [
    'schedule',
    'timeout',
    'historyLimit',
    'pause',
    'sentinelRef',
    'dbFile',
    'sshOptions',
    'pollInterval',
    's3Options',
  ],
  s3Options: ['bucket', 'path', 'region', 'credentialsSecretRef', 'serviceEndpoint'],
} as const;
const SRB_SOURCE = 'ShardedRedisBackup (saas-operator a10ed06)';

export function convertShardedRedisBackup(doc: Obj, sentinels: readonly Obj[], notes: Notes): Draft | undefined {
  const meta = asObj(doc.metadata);
  const object = objectName('ShardedRedisBackup', meta);
  const name = asStr(meta?.name);
  const namespace = asStr(meta?.namespace) ?? 'default';
  const spec = asObj(doc.spec) ?? {};
  const comments: FieldComment[] = [{ path: [], text: `Converted from ${object} by backup-cronjobs convert.` }];
  if (!name) {
    notes.error(object, 'metadata.name', 'a ShardedRedisBackup needs a name (the policy is named after it)');
    return undefined;
  }
  notes.unknownFields(object, 'spec', spec, SRB_FIELDS.spec, SRB_SOURCE);
  notes.unknownFields(object, 'spec.s3Options', asObj(spec.s3Options), SRB_FIELDS.s3Options, SRB_SOURCE);
  const defaults = jobSettings(spec, object, notes, comments);
  const sentinelRef = asStr(spec.sentinelRef);
  const sentinel = sentinels.find(
    (s) =>
      asStr(asObj(s.metadata)?.name) === sentinelRef &&
      (asStr(asObj(s.metadata)?.namespace) ?? namespace) === namespace,
  );
  const shards = shardNames(doc, sentinel, object, notes, comments);
  const s3 = s3Destination(asObj(spec.s3Options), object, notes, comments);
  if (!defaults || !shards || !s3) return undefined;
  const replicas = asInt(asObj(sentinel?.spec)?.replicas) ?? SENTINEL_DEFAULTS.replicas;
  const addresses = Array.from(
    { length: replicas },
    (_, i) => `${SENTINEL_DEFAULTS.component}-${i}.${namespace}.svc.cluster.local:${SENTINEL_DEFAULTS.port}`,
  );
  comments.push({
    path: ['spec', 'redis', 'sentinel', 'addresses'],
    text: `sentinelRef "${sentinelRef ?? ''}": the per-pod Services redis-sentinel-<i> that saas-operator makes for a Sentinel (SentinelURIs), ${replicas} ${sentinel ? 'as its spec.replicas says' : 'assumed (its default replicas; the Sentinel was not in the input)'}.`,
  });
  if (!sentinel)
    notes.note(
      object,
      'spec.sentinelRef',
      `the Sentinel "${sentinelRef ?? ''}" is not in the input: assumed ${replicas} replicas at redis-sentinel-<i>.${namespace}.svc.cluster.local:${SENTINEL_DEFAULTS.port}; check spec.redis.sentinel.addresses`,
    );
  for (const [field, why] of [
    [
      'sshOptions',
      'no SSH: the dump streams from the replica with redis-cli --rdb; the SSH key Secret is no longer needed',
    ],
    ['dbFile', 'not needed: no file is moved on the Redis host'],
    ['pollInterval', 'not needed: no BGSAVE/LASTSAVE polling'],
  ] as const) {
    if (spec[field] !== undefined) notes.note(object, `spec.${field}`, why);
  }
  notes.note(
    object,
    'spec.s3Options',
    'the operator tags each object Retention=90d|7d|24h (first of the day, first of the hour, other) for bucket lifecycle rules; these objects carry no such tag: keep them with spec.retention instead (see its comment) or your rules will not expire them',
  );
  comments.push({
    path: ['spec'],
    text: 'No spec.retention, like the operator, which deletes no object itself (its Retention tags feed bucket lifecycle rules). The same days and hours, pruned here:\n  retention: { maxAge: 1d, hourly: 168, daily: 90 }',
  });
  return {
    source: object,
    document: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name, namespace },
      spec: { defaults, redis: { sentinel: { addresses }, shards, s3 } },
    },
    comments,
    origins: {
      'spec.defaults.schedule': { object, path: 'spec.schedule' },
      'spec.defaults.timeout': { object, path: 'spec.timeout' },
      'spec.redis.s3.bucket': { object, path: 'spec.s3Options.bucket' },
      'spec.redis.s3.region': { object, path: 'spec.s3Options.region' },
      'spec.redis.s3.endpoint': { object, path: 'spec.s3Options.serviceEndpoint' },
    },
  };
}

function jobSettings(
  spec: Obj,
  object: string,
  notes: Notes,
  comments: FieldComment[],
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const schedule = asStr(spec.schedule);
  if (!schedule) {
    notes.error(object, 'spec.schedule', 'required (the operator refuses an object without it)');
    return undefined;
  }
  if (/^@every\s/.test(schedule)) {
    notes.error(
      object,
      'spec.schedule',
      `received "${schedule}": an interval from the operator's start, which a CronJob cannot express; write a cron such as "*/30 * * * *"`,
    );
    return undefined;
  }
  const split = splitCronTimeZone(schedule);
  out.schedule = split.schedule;
  if (split.timeZone) {
    out.timeZone = split.timeZone;
    comments.push({
      path: ['spec', 'defaults', 'timeZone'],
      text: "From the schedule's CRON_TZ= prefix, which the CronJob API refuses in a schedule.",
    });
  } else {
    comments.push({
      path: ['spec', 'defaults', 'schedule'],
      text: "The operator evaluates it in its own time zone (UTC in its image); a CronJob without timeZone uses the kube-controller-manager's (UTC almost everywhere).",
    });
  }
  if (asBool(spec.pause) === true) {
    out.suspend = true;
    comments.push({
      path: ['spec', 'defaults', 'suspend'],
      text: 'pause: true. The operator still runs a backup it had already scheduled; a suspended CronJob starts none.',
    });
  }
  const timeout = asStr(spec.timeout) ?? SRB_DEFAULTS.timeout;
  const ns = parseGoDuration(timeout);
  if (ns === undefined || ns <= 0n) {
    notes.error(object, 'spec.timeout', `received "${timeout}"; a Go duration such as 10m or 1h30m`);
    return undefined;
  }
  out.timeout = formatDuration(Number((ns + 999_999_999n) / 1_000_000_000n));
  comments.push({
    path: ['spec', 'defaults', 'timeout'],
    text: `timeout ${asStr(spec.timeout) ?? `unset: the operator's default ${SRB_DEFAULTS.timeout}`}, as the run's activeDeadlineSeconds.`,
  });
  const history = asInt(spec.historyLimit) ?? SRB_DEFAULTS.historyLimit;
  out.successfulJobsHistoryLimit = history;
  out.failedJobsHistoryLimit = history;
  comments.push({
    path: ['spec', 'defaults', 'successfulJobsHistoryLimit'],
    text: `historyLimit ${asInt(spec.historyLimit) ?? `unset: the operator's default ${SRB_DEFAULTS.historyLimit}`}: the operator keeps that many status.backups entries per shard, a record of runs, and deletes no backup. Its equivalent is the Jobs a CronJob keeps, not a retention rule.`,
  });
  return out;
}

/** The Sentinel's monitored shards (spec, else status), else the shards the operator's own status lists. */
function shardNames(
  doc: Obj,
  sentinel: Obj | undefined,
  object: string,
  notes: Notes,
  comments: FieldComment[],
): string[] | undefined {
  const config = asObj(asObj(sentinel?.spec)?.config);
  const fromSpec = [
    ...Object.keys(asObj(config?.monitoredShards) ?? {}),
    ...Object.keys(asObj(config?.clusterTopology) ?? {}),
  ];
  const fromStatus = asArr(asObj(sentinel?.status)?.monitoredShards)
    .map((s) => asStr(asObj(s)?.name))
    .filter((s): s is string => s !== undefined);
  const fromBackups = asArr(asObj(doc.status)?.backups)
    .map((b) => asStr(asObj(b)?.shard))
    .filter((s): s is string => s !== undefined);
  const [shards, why] =
    fromSpec.length > 0
      ? [fromSpec, "the Sentinel's spec.config (monitoredShards, clusterTopology)"]
      : fromStatus.length > 0
        ? [fromStatus, "the Sentinel's status.monitoredShards"]
        : [fromBackups, "this object's status.backups (the shards the operator backed up; check that none is missing)"];
  if (shards.length === 0) {
    notes.error(
      object,
      'spec.sentinelRef',
      'the shards are not known: give the Sentinel it names in the input (its spec.config.monitoredShards lists them), or this object with its status',
    );
    return undefined;
  }
  comments.push({
    path: ['spec', 'redis', 'shards'],
    text: `From ${why}: the operator backs up every shard the Sentinel monitors, at the same time.`,
  });
  return [...new Set(shards)].sort();
}

function s3Destination(
  options: Obj | undefined,
  object: string,
  notes: Notes,
  comments: FieldComment[],
): Record<string, unknown> | undefined {
  if (!options) {
    notes.error(object, 'spec.s3Options', 'required: where the backups go');
    return undefined;
  }
  const rawPath = asStr(options.path);
  const path = rawPath?.replace(/^\/+|\/+$/g, '');
  if (rawPath !== path)
    comments.push({
      path: ['spec', 'redis', 's3', 'path'],
      text: `s3Options.path "${rawPath}" without its leading and trailing "/" (the operator joins <path>/<file> the same way).`,
    });
  const endpoint = asStr(options.serviceEndpoint);
  const secret = asStr(asObj(options.credentialsSecretRef)?.name);
  if (endpoint)
    comments.push({
      path: ['spec', 'redis', 's3', 'endpoint'],
      text: 'serviceEndpoint; path-style addressing follows (forcePathStyle defaults to true with an endpoint), as MinIO needs.',
    });
  if (secret)
    comments.push({
      path: ['spec', 'redis', 's3', 'credentialsSecret'],
      text: 's3Options.credentialsSecretRef: the same keys, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
    });
  else
    notes.note(
      object,
      'spec.s3Options.credentialsSecretRef',
      "not set: the upload uses the pod's ambient credentials (e.g. IRSA)",
    );
  return {
    bucket: asStr(options.bucket) ?? '',
    ...(path ? { path } : {}),
    region: asStr(options.region) ?? '',
    ...(endpoint ? { endpoint } : {}),
    ...(secret ? { credentialsSecret: { name: secret } } : {}),
  };
}

/**
 * `convert` for saas-operator's ShardedRedisBackup objects: one Redis policy each (its Sentinel, named by
 * `sentinelRef`, gives the shards; a Sentinel that none names is noted).
 */
export const shardedRedisBackupConverter: EngineConverter = {
  kinds: [
    { apiVersion: 'saas.3scale.net/v1alpha1', kind: 'ShardedRedisBackup' },
    { apiVersion: 'saas.3scale.net/v1alpha1', kind: 'Sentinel' },
  ],
  convert: (of, notes) => {
    const drafts = of('ShardedRedisBackup').map((d) => convertShardedRedisBackup(d, of('Sentinel'), notes));
    for (const sentinel of of('Sentinel')) {
      const name = asStr(asObj(sentinel.metadata)?.name);
      if (!of('ShardedRedisBackup').some((b) => asStr(asObj(b.spec)?.sentinelRef) === name)) {
        notes.note(
          objectName('Sentinel', asObj(sentinel.metadata)),
          '(document)',
          "read only for a ShardedRedisBackup's sentinelRef, and none names it: nothing converted from it",
        );
      }
    }
    return drafts;
  },
};
