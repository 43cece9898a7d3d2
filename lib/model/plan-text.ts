/** A plan as text for people (`plan`) and as JSON for programs (`plan -o json`). Times in UTC. */
import { formatDuration } from '../units';
import { maintenanceOverlaps } from './plan';
import type { Plan, PlanDst, PlanOverlap, PlanRun, PlanTarget } from './plan';

export interface PlanWarning {
  readonly kind: 'overlap' | 'dst' | 'collision' | 'retention';
  readonly message: string;
}

/** `2026-12-01T04:00Z` */
function isoMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16)}Z`;
}

/** `2026-12-01T04:00Z–04:15Z` (the end's date only when it differs). */
export function runWindow(r: PlanRun): string {
  const start = isoMinute(r.start);
  const end = isoMinute(r.end);
  return `${start}–${end.slice(0, 10) === start.slice(0, 10) ? end.slice(11) : end}`;
}

export const targetName = (t: PlanTarget): string => `${t.namespace}/${t.name}`;

/** The schedule as resolved, with what was written when it differs, and the time zone. */
function scheduleText(t: PlanTarget): string {
  const { written, resolved, timeZone, zone } = t.schedule;
  return `${resolved}${written !== resolved ? ` (written ${written})` : ''}, time zone ${timeZone ?? `${zone} (not set)`}`;
}

/** A CronJob's serialization group; of two CronJobs, the one with the wider scope (a cluster-wide term keeps both apart). */
function groupText(a: PlanTarget, b: PlanTarget = a): string | undefined {
  const g = b.serializationGroup?.scope === 'cluster' ? b.serializationGroup : a.serializationGroup;
  return g && `${g.name} (scope ${g.scope})`;
}

/** Every warning of the plan, collisions first. */
export function planWarnings(plan: Plan, collisions: readonly string[] = []): PlanWarning[] {
  return [
    ...collisions.map((message) => ({ kind: 'collision' as const, message })),
    ...plan.overlaps.map((o) => ({ kind: 'overlap' as const, message: overlapMessage(plan, o) })),
    ...plan.dst.map((d) => ({ kind: 'dst' as const, message: dstMessage(plan, d) })),
  ];
}

const times = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function overlapMessage(plan: Plan, o: PlanOverlap): string {
  const a = plan.targets[o.targets[0]];
  const b = plan.targets[o.targets[1]];
  const first = `first ${runWindow(o.first[0])} and ${runWindow(o.first[1])}`;
  const pairs = `${times(o.count, 'pair')} of runs ${o.count === 1 ? 'overlaps' : 'overlap'} (${first})`;
  if (o.reason === 'self') {
    const consequence = {
      Forbid: 'concurrencyPolicy Forbid skips a run while the previous one is still going',
      Allow: 'concurrencyPolicy Allow runs them at the same time',
      Replace: 'concurrencyPolicy Replace stops the running one',
    }[a.concurrencyPolicy];
    return `${targetName(a)}: a run may take ${formatDuration(a.windowSeconds)} (its timeout), longer than the time to the next one: ${pairs}; ${consequence}`;
  }
  if (maintenanceOverlaps(plan).includes(o)) {
    const [maintenance, other] = a.component === 'maintenance' ? [a, b] : [b, a];
    return (
      `${targetName(maintenance)} (maintenance) and ${targetName(other)} (${other.component}), serialization group ${groupText(a, b)}: ${pairs}; ` +
      'never both at once: the one that comes second waits (Pending) and its timeout keeps counting, so a defragmentation can delay a snapshot, ' +
      'or fail waiting for one: move the maintenance schedule off the backup window'
    );
  }
  if (o.reason === 'group') {
    return (
      `${targetName(a)} and ${targetName(b)}, serialization group ${groupText(a, b)}: ${pairs}; ` +
      'a pod of the group waits (Pending) while another runs, and its timeout keeps counting'
    );
  }
  if (o.reason === 'shard') {
    return (
      `${targetName(a)} and ${targetName(b)}, a full and an incremental backup of shard ${a.shard}: ${pairs}; ` +
      'both work on the shard at once (vtbackup replicates from its primary while a tablet rotates and copies its binary logs), ' +
      'and an incremental that ends before the full backup chains from the previous one: move the incremental schedule off the full backup window'
    );
  }
  return `${targetName(a)} and ${targetName(b)}, both on node ${a.node}: ${pairs}; they load the node at the same time`;
}

function dstMessage(plan: Plan, d: PlanDst): string {
  const t = plan.targets[d.target];
  const wall = (offset: number) => isoMinute(d.change.at + offset).slice(11, 16);
  const date = isoMinute(d.change.at + d.change.after).slice(0, 10);
  const list = listText(d.localTimes.map((l) => l.slice(11)));
  if (d.kind === 'skipped') {
    return (
      `${targetName(t)}: ${list} local time does not exist in ${d.timeZone} on ${date} ` +
      `(clocks go from ${wall(d.change.before)} to ${wall(d.change.after)}): ${d.localTimes.length === 1 ? 'that run is' : 'those runs are'} skipped`
    );
  }
  // the first occurrence is still on the offset before the change
  const firsts = d.localTimes.map((l) => isoMinute(Date.parse(`${l}:00Z`) - d.change.before).slice(11));
  return (
    `${targetName(t)}: ${list} local time occurs twice in ${d.timeZone} on ${date} ` +
    `(clocks go back from ${wall(d.change.before)} to ${wall(d.change.after)}): it runs once, at the first (${listText(firsts)})`
  );
}

/** `a, b`, or `a, b, …, z (60 runs)` for long lists. */
function listText(items: readonly string[]): string {
  return items.length <= 4
    ? items.join(', ')
    : `${items.slice(0, 2).join(', ')}, …, ${items[items.length - 1]} (${items.length} runs)`;
}

/** The plan for people: one block per CronJob, then the warnings. */
export function formatPlanText(plan: Plan, warnings: readonly PlanWarning[]): string {
  const out = [
    `Plan from ${isoMinute(plan.from)} to ${isoMinute(plan.to)} (horizon ${formatDuration((plan.to - plan.from) / 1000)}); times in UTC`,
    '',
  ];
  for (const t of plan.targets) {
    out.push(`${targetName(t)}${t.suspended ? ' (suspended)' : ''}`);
    out.push(`  schedule   ${scheduleText(t)}`);
    out.push(
      `  window     ${formatDuration(t.windowSeconds)} per run (timeout: activeDeadlineSeconds ${t.windowSeconds})`,
    );
    const group = groupText(t);
    if (group) out.push(`  group      ${group}`);
    if (t.node !== undefined) out.push(`  node       ${t.node}`);
    out.push(`  next runs  ${t.suspended ? 'none (suspended)' : t.next.map(runWindow).join('  ')}`);
    out.push('');
  }
  if (warnings.length === 0) out.push('No warnings: no overlapping run windows, no DST changes.');
  else {
    out.push(`Warnings (${warnings.length}):`);
    for (const w of warnings) out.push(`  ${w.kind.padEnd(9)} ${w.message}`);
  }
  return `${out.join('\n')}\n`;
}

/** The plan for programs: ISO times, every run within the horizon. */
export function planJson(plan: Plan, warnings: readonly PlanWarning[]): unknown {
  const run = (r: PlanRun) => ({ start: new Date(r.start).toISOString(), end: new Date(r.end).toISOString() });
  return {
    from: new Date(plan.from).toISOString(),
    to: new Date(plan.to).toISOString(),
    cronJobs: plan.targets.map((t) => ({
      namespace: t.namespace,
      name: t.name,
      policy: t.policy,
      component: t.component,
      schedule: { written: t.schedule.written, resolved: t.schedule.resolved, timeZone: t.schedule.timeZone ?? null },
      suspended: t.suspended,
      windowSeconds: t.windowSeconds,
      serializationGroup: t.serializationGroup
        ? { name: t.serializationGroup.name, scope: t.serializationGroup.scope }
        : null,
      node: t.node ?? null,
      nextRuns: t.next.map(run),
      runsInHorizon: t.runs.length,
    })),
    warnings: warnings.map((w) => ({ kind: w.kind, message: w.message })),
  };
}
