/**
 * BackupRecoveryPointTooOld: the newest incremental backup of a shard is older than the recovery
 * point the policy promises (`incremental.maxRecoveryPointAge`, else `staleAfterIntervals` of the
 * incremental schedule's shortest interval plus its deadline). With a Pushgateway it reads the
 * time the incremental runs push (`<prefix>_incremental_last_success_timestamp_seconds`, which a
 * run skipped for want of a full backup does not move); without one, the last successful Job of
 * the incremental CronJob (kube-state-metrics; a skipped run counts as a success there). A
 * second rule fires for an incremental CronJob that has existed longer than that without one.
 */
import { shortestIntervalMinutes } from '../schedule';
import { formatDuration } from '../units';
import type { ResolvedPolicy, ResolvedTarget } from './resolve';

/** Seconds the newest incremental backup of `t` may be old. */
export function recoveryPointSeconds(t: ResolvedTarget, staleAfterIntervals: number): number {
  return (
    t.maxRecoveryPointAgeSeconds ??
    staleAfterIntervals * shortestIntervalMinutes(t.schedule.resolved, t.schedule.timeZone) * 60 +
      t.settings.activeDeadlineSeconds
  );
}

/** The recovery-point rules of the policy's current, not suspended, incremental-backup targets (else none). */
export function recoveryPointRules(r: ResolvedPolicy, active: readonly ResolvedTarget[]): Record<string, unknown>[] {
  const options = r.rule;
  const incrementals = active.filter((t) => t.component === 'incremental-backup');
  if (!options || incrementals.length === 0) return [];
  const ns = `namespace="${r.namespace}"`;
  const groups = new Map<number, string[]>();
  for (const t of incrementals) {
    const seconds = recoveryPointSeconds(t, options.staleAfterIntervals);
    groups.set(seconds, [...(groups.get(seconds) ?? []), t.name]);
  }
  const lastIncremental = (names: readonly string[]) =>
    r.metrics
      ? `max by (namespace, cronjob) (label_replace(${r.metrics.prefix}_incremental_last_success_timestamp_seconds{${ns}, policy="${r.name}", target=~"${names.join('|')}"}, "cronjob", "$1", "target", "(.*)"))`
      : `max by (namespace, cronjob) (kube_cronjob_status_last_successful_time{${ns}, cronjob=~"${names.join('|')}"})`;
  const rule = (expr: string, description: string) => ({
    alert: 'BackupRecoveryPointTooOld',
    expr,
    for: '5m',
    labels: { severity: options.severity, policy: r.name },
    annotations: { summary: 'A shard cannot be restored to a recent enough point in time', description },
  });
  return [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .flatMap(([seconds, names]) => [
      rule(
        `time() - ${lastIncremental(names)} > ${seconds}`,
        `The newest incremental backup of {{ $labels.cronjob }} (policy ${r.name}) is {{ $value | humanizeDuration }} old; the policy promises a recovery point within ${formatDuration(seconds)}. See the logs of its last Jobs (skipped for want of a full backup, or failing).`,
      ),
      rule(
        `(time() - max by (namespace, cronjob) (kube_cronjob_created{${ns}, cronjob=~"${names.join('|')}"})) > ${seconds} unless on (namespace, cronjob) ${lastIncremental(names)}`,
        `Incremental backup CronJob {{ $labels.cronjob }} of policy ${r.name} has existed for {{ $value | humanizeDuration }} without one incremental backup; the policy promises a recovery point within ${formatDuration(seconds)}. Its runs skip while the shard has no full backup: see their logs.`,
      ),
    ]);
}
