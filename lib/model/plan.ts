/**
 * `plan`: when each CronJob of the resolved policies runs, how long each run
 * may take (its window: start + timeout), and what may collide within a
 * horizon: runs of one serialization group or of one node whose windows
 * overlap, and local times a daylight-saving change skips or repeats. Read
 * from the resolved model only.
 */
import type { ResolvedJobSettings, ResolvedSerializationGroup } from '../policy/resolve-settings';
import { DstAmbiguity, dstAmbiguities, nextRuns, runsBetween } from '../schedule';
import type { ResolvedPolicy, ResolvedSchedule, ResolvedTarget } from './resolve';

/** At most this many runs of one CronJob within the horizon (a minutely schedule over 69 days). */
export const MAX_RUNS_PER_TARGET = 100_000;

/** What `planPolicies` looks at: from when, how many runs, how far ahead. */
export interface PlanOptions {
  /** The first moment looked at. */
  readonly from: Date;
  /** How many next runs to list per CronJob. */
  readonly count: number;
  /** The horizon in ms after `from`: overlaps and DST changes are looked for in [from, from + horizon). */
  readonly horizon: number;
}

/** One run: its start and the end of its window (start + activeDeadlineSeconds), ms since the epoch. */
export interface PlanRun {
  /** When the run starts. */
  readonly start: number;
  /** When its window ends. */
  readonly end: number;
}

/** One CronJob of a plan, with its runs. */
export interface PlanTarget {
  /** The policy's name. */
  readonly policy: string;
  /** The CronJob's namespace. */
  readonly namespace: string;
  /** The CronJob's name. */
  readonly name: string;
  /** What it does: `backup`, `prune`, `drill`, `incremental-backup`, … */
  readonly component: ResolvedTarget['component'];
  /** Its schedule as the CronJob has it, with its time zone. */
  readonly schedule: ResolvedSchedule;
  /** `suspend` is set: no runs. */
  readonly suspended: boolean;
  /** What a run does when the previous one is still going. */
  readonly concurrencyPolicy: ResolvedJobSettings['concurrencyPolicy'];
  /** The run window: activeDeadlineSeconds. */
  readonly windowSeconds: number;
  /** The serialization group its pods belong to. @default - none */
  readonly serializationGroup?: ResolvedSerializationGroup;
  /** The node it is pinned to (etcd `perNode`). @default - none */
  readonly node?: string;
  /** The database shard it backs up (ResolvedTarget.shard). @default - none */
  readonly shard?: string;
  /** The next `count` runs (none when suspended). */
  readonly next: readonly PlanRun[];
  /** Every run starting within the horizon (none when suspended). */
  readonly runs: readonly PlanRun[];
}

/** Two CronJobs (or two runs of one) whose run windows overlap within the horizon. */
export interface PlanOverlap {
  /**
   * `group`: the same serialization group (the later pod waits, Pending); `node`: pinned to the same node;
   * `shard`: a full and an incremental backup of the same database shard;
   * `self`: a run may still be going when the next one starts (concurrencyPolicy decides).
   */
  readonly reason: 'group' | 'node' | 'shard' | 'self';
  /** Indexes into `Plan.targets`, ascending (twice the same for `self`). */
  readonly targets: readonly [number, number];
  /** How many pairs of their runs overlap. */
  readonly count: number;
  /** The first overlapping pair, in target order. */
  readonly first: readonly [PlanRun, PlanRun];
  /** Where they overlap, merged, ascending. */
  readonly stretches: readonly PlanRun[];
}

/** A daylight-saving change that moves or doubles a target's runs. */
export interface PlanDst extends DstAmbiguity {
  /** Index into `Plan.targets`. */
  readonly target: number;
  /** The time zone of its schedule. */
  readonly timeZone: string;
}

/** What `backup-cronjobs plan` prints, as data: the runs of every CronJob, their overlaps and DST changes. */
export interface Plan {
  /** The first moment looked at, ms since the epoch. */
  readonly from: number;
  /** `from` + horizon. */
  readonly to: number;
  /** Every CronJob of the policies, in their order. */
  readonly targets: readonly PlanTarget[];
  /** Run windows that overlap within the horizon. */
  readonly overlaps: readonly PlanOverlap[];
  /** Daylight-saving changes within the horizon that move or double runs. */
  readonly dst: readonly PlanDst[];
}

/** The plan of every CronJob of `policies`, in policy and target order. Throws ScheduleError past MAX_RUNS_PER_TARGET. */
export function planPolicies(policies: readonly ResolvedPolicy[], options: PlanOptions): Plan {
  const from = options.from.getTime();
  const to = from + options.horizon;
  const targets = policies.flatMap((p) => p.targets.map((t) => planTarget(p, t, options, to)));
  const dst = targets.flatMap((t, i) =>
    (t.suspended ? [] : dstAmbiguities(t.schedule.resolved, t.schedule.timeZone, options.from, new Date(to))).map(
      (d) => ({ ...d, target: i, timeZone: t.schedule.zone }),
    ),
  );
  return { from, to, targets, overlaps: findOverlaps(targets), dst };
}

function planTarget(p: ResolvedPolicy, t: ResolvedTarget, options: PlanOptions, to: number): PlanTarget {
  const { resolved, timeZone } = t.schedule;
  const window = t.settings.activeDeadlineSeconds * 1000;
  const run = (start: number): PlanRun => ({ start, end: start + window });
  const suspended = t.settings.suspend;
  return {
    policy: p.name,
    namespace: p.namespace,
    name: t.name,
    component: t.component,
    schedule: t.schedule,
    suspended,
    concurrencyPolicy: t.settings.concurrencyPolicy,
    windowSeconds: t.settings.activeDeadlineSeconds,
    serializationGroup: t.serializationGroup,
    node: t.node,
    ...(t.shard !== undefined ? { shard: t.shard } : {}),
    next: suspended ? [] : nextRuns(resolved, timeZone, options.from, options.count).map((d) => run(d.getTime())),
    runs: suspended ? [] : runsBetween(resolved, timeZone, options.from.getTime(), to, MAX_RUNS_PER_TARGET).map(run),
  };
}

/** Why two CronJobs' runs may not overlap, if they may not. */
function conflict(a: PlanTarget, b: PlanTarget): PlanOverlap['reason'] | undefined {
  if (a === b) return 'self';
  const ga = a.serializationGroup;
  const gb = b.serializationGroup;
  if (ga && gb && a.namespace === b.namespace && ga.name === gb.name) {
    // the scheduler applies each pod's anti-affinity to the other too: one cluster-wide term keeps them apart
    // anywhere; two per-node terms only on one node (pods pinned to different nodes never meet)
    const clusterWide = ga.scope === 'cluster' || gb.scope === 'cluster';
    if (clusterWide || a.node === undefined || b.node === undefined || a.node === b.node) return 'group';
  }
  if (a.node !== undefined && a.node === b.node) return 'node';
  const kinds = new Set([a.component, b.component]);
  if (a.shard !== undefined && a.shard === b.shard && kinds.has('backup') && kinds.has('incremental-backup'))
    return 'shard';
  return undefined;
}

/** Every pair of CronJobs with a conflict (and every CronJob) whose windows overlap: one sweep over all runs by start. */
function findOverlaps(targets: readonly PlanTarget[]): PlanOverlap[] {
  const runs = targets
    .flatMap((t, i) => t.runs.map((r) => ({ ...r, target: i })))
    .sort((x, y) => x.start - y.start || x.target - y.target);
  const reasons = new Map<string, PlanOverlap['reason'] | undefined>();
  const pairs = new Map<
    string,
    {
      reason: PlanOverlap['reason'];
      targets: [number, number];
      count: number;
      first: [PlanRun, PlanRun];
      stretches: PlanRun[];
    }
  >();
  let active: (PlanRun & { target: number })[] = [];
  for (const run of runs) {
    active = active.filter((a) => a.end > run.start);
    for (const other of active) {
      const [i, j] = other.target < run.target ? [other.target, run.target] : [run.target, other.target];
      const key = `${i},${j}`;
      if (!reasons.has(key)) reasons.set(key, conflict(targets[i], targets[j]));
      const reason = reasons.get(key);
      if (reason === undefined) continue;
      const stretch = { start: run.start, end: Math.min(run.end, other.end) };
      const found = pairs.get(key);
      if (!found) {
        const first: [PlanRun, PlanRun] = other.target === i ? [strip(other), strip(run)] : [strip(run), strip(other)];
        pairs.set(key, { reason, targets: [i, j], count: 1, first, stretches: [stretch] });
        continue;
      }
      found.count += 1;
      const last = found.stretches[found.stretches.length - 1];
      if (stretch.start <= last.end)
        found.stretches[found.stretches.length - 1] = { start: last.start, end: Math.max(last.end, stretch.end) };
      else found.stretches.push(stretch);
    }
    active.push(run);
  }
  return [...pairs.values()].sort((x, y) => x.targets[0] - y.targets[0] || x.targets[1] - y.targets[1]);
}

const strip = (r: PlanRun): PlanRun => ({ start: r.start, end: r.end });

/**
 * The overlaps of a maintenance CronJob (etcd's defragmentation) with a backup of its serialization group:
 * the hook of a warning that one waits for the other (the scheduler serializes them: the later pod is
 * Pending, its deadline counting). Among `plan.overlaps`, with reason `group`.
 */
export function maintenanceOverlaps(plan: Plan): PlanOverlap[] {
  const components = (o: PlanOverlap) => o.targets.map((i) => plan.targets[i].component).sort();
  return plan.overlaps.filter(
    (o) => o.reason === 'group' && components(o).join(',') === ['backup', 'maintenance'].join(','),
  );
}
