/**
 * Vitess incremental backups: one CronJob per (schedule, keyspace, shard) of a schedule
 * with `incremental`, running vitess-incremental.sh, which asks vtctld for the shard's
 * backups and runs `vtctldclient BackupShard --incremental-from-pos=auto` once a full
 * backup of the policy exists.
 */
import type { PolicyPath } from '../../policy/errors';
import { labelValue, safeShard } from '../../kubernetes/names';
import { pickSettings } from '../../policy/settings';
import { shellCommand } from '../../scripts';
import { parseDuration } from '../../units';
import type { EnginePod, EngineTarget, PodContext } from '../engine';
import { VITESS_DEFAULTS } from './defaults';
import { goDuration } from './flags';
import type { ResolvedIncremental, ResolvedVitess, ResolvedVitessSchedule } from './resolve';
import { vtctldPod } from './vtctld-pod';

/** What the incremental target shares with the shard's other targets (made in targets.ts). */
export interface ShardParts {
  /** The shard's labels (keyspace, shard, cluster). */
  readonly labels: Readonly<Record<string, string>>;
  /** PATH of the Vitess images. */
  readonly path: string;
}

/** Seconds vitess-incremental.sh waits for a stopped vtctldclient before KILL (VITESS_STOP_WAIT_SECONDS). */
const STOP_WAIT_SECONDS = 30;

export function incrementalTarget(
  spec: ResolvedVitess,
  sched: ResolvedVitessSchedule & { readonly incremental: ResolvedIncremental },
  sPath: PolicyPath,
  keyspace: string,
  shard: string,
  parts: ShardParts,
): EngineTarget {
  const safe = safeShard(shard);
  const incremental = sched.incremental;
  return {
    id: `vitess|${spec.cluster}|${sched.name}|incremental|${keyspace}|${shard}`,
    nameParts: [sched.name, keyspace, safe, 'incr'],
    key: `${sched.name}/${keyspace}/${shard}`,
    component: 'incremental-backup',
    labels: { 'backup-cronjobs.io/schedule': labelValue(sched.name), ...parts.labels },
    // the schedule's settings, with the incremental's own schedule, deadline and suspend
    overrides: {
      ...pickSettings(sched),
      schedule: incremental.schedule,
      timeout: incremental.timeout,
      ...(incremental.suspend !== undefined ? { suspend: incremental.suspend } : {}),
    },
    settingsPath: [...sPath, 'incremental'],
    defaults: { timeout: VITESS_DEFAULTS.incrementalTimeout },
    shard: `${spec.cluster}/${keyspace}/${shard}`,
    ...(incremental.maxRecoveryPointAge !== undefined
      ? { maxRecoveryPointAgeSeconds: parseDuration(incremental.maxRecoveryPointAge) }
      : {}),
    pod: (ctx) => incrementalPod(spec, incremental, keyspace, shard, parts, ctx),
  };
}

function incrementalPod(
  spec: ResolvedVitess,
  incremental: ResolvedIncremental,
  keyspace: string,
  shard: string,
  parts: ShardParts,
  ctx: PodContext,
): EnginePod {
  // vtctldclient gives up (and logs why) before the Job's deadline stops the pod
  const actionTimeout = Math.max(30, ctx.settings.activeDeadlineSeconds - 30);
  return {
    ...vtctldPod(spec, {
      name: 'incremental-backup',
      command: shellCommand('vitess-incremental.sh', { metrics: ctx.metrics }),
      env: [
        ...ctx.env,
        { name: 'PATH', value: parts.path },
        { name: 'VTCTLD_SERVER', value: spec.vtctldServer },
        { name: 'VITESS_KEYSPACE', value: keyspace },
        { name: 'VITESS_SHARD', value: shard },
        {
          name: 'VITESS_INCREMENTAL_ALLOW_PRIMARY',
          value: String(incremental.allowPrimary),
        },
        { name: 'VITESS_INCREMENTAL_ACTION_TIMEOUT', value: goDuration(actionTimeout) },
        { name: 'VITESS_STOP_WAIT_SECONDS', value: String(STOP_WAIT_SECONDS) },
      ],
    }),
    terminationGracePeriodSeconds: VITESS_DEFAULTS.terminationGracePeriodSeconds,
  };
}
