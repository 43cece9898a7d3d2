/**
 * A PrometheusRule that cannot stay silent. Every rule is sized from each
 * target's schedule and deadline, and works from kube-state-metrics alone
 * (CronJob and Job status); with a Pushgateway, the pushed metrics count too,
 * and a gateway that lost them is an alert of its own.
 */
import type { Manifest } from '../kubernetes/objects';
import { compact, nonEmpty } from '../kubernetes/objects';
import { shortestIntervalMinutes } from '../schedule';
import { formatDuration } from '../units';
import { ResolvedPolicy, ResolvedTarget, commonLabels } from './resolve';
import { driftRules } from './alerts-drift';

/** Seconds after which a target that should have succeeded has not: intervals × its shortest interval + its deadline. */
export function staleAfterSeconds(t: ResolvedTarget, intervals: number): number {
  return intervals * shortestIntervalMinutes(t.schedule.resolved, t.schedule.timeZone) * 60 + t.settings.activeDeadlineSeconds;
}

/** Targets grouped by a number, smallest first: one rule per group keeps the rule file short. */
function groupBy(targets: readonly ResolvedTarget[], key: (t: ResolvedTarget) => number): [number, string[]][] {
  const groups = new Map<number, string[]>();
  for (const t of targets) groups.set(key(t), [...(groups.get(key(t)) ?? []), t.name]);
  return [...groups.entries()].sort(([a], [b]) => a - b);
}

export function prometheusRule(r: ResolvedPolicy): Manifest | undefined {
  const options = r.rule;
  if (!options) return undefined;
  const watched = r.targets.filter((t) => t.component === 'backup' && !t.settings.suspend);
  if (watched.length === 0) return undefined;
  const ns = `namespace="${r.namespace}"`;
  const cronjobs = (names: readonly string[]) => `${ns}, cronjob=~"${names.join('|')}"`;
  const pushed = r.metrics && `${r.metrics.prefix}_last_success_timestamp_seconds{${ns}, policy="${r.name}"}`;
  /** The pushed last-success times as kube-state-metrics series (label `cronjob`). */
  const pushedAsCronJob = pushed && `label_replace(${pushed}, "cronjob", "$1", "target", "(.*)")`;
  const lastSuccess = (names: readonly string[]) => {
    const ksm = `kube_cronjob_status_last_successful_time{${cronjobs(names)}}`;
    return `max by (namespace, cronjob) (${pushedAsCronJob ? `${pushedAsCronJob} or ${ksm}` : ksm})`;
  };
  const rule = (alert: string, expr: string, summary: string, description: string, forDuration = '10m') => ({
    alert,
    expr,
    for: forDuration,
    labels: { severity: options.severity, policy: r.name },
    annotations: { summary, description },
  });

  const stale = groupBy(watched, (t) => staleAfterSeconds(t, options.staleAfterIntervals)).flatMap(([seconds, names]) => [
    rule('BackupStale', `time() - ${lastSuccess(names)} > ${seconds}`,
      'A scheduled backup has not succeeded in time',
      `Backup {{ $labels.cronjob }} of policy ${r.name} last succeeded {{ $value | humanizeDuration }} ago; expected within ${formatDuration(seconds)} (${options.staleAfterIntervals} schedule intervals plus the run timeout).`),
    rule('BackupNeverSucceeded',
      `(time() - max by (namespace, cronjob) (kube_cronjob_created{${cronjobs(names)}})) > ${seconds} unless on (namespace, cronjob) ${lastSuccess(names)}`,
      'A scheduled backup has never succeeded',
      `Backup {{ $labels.cronjob }} of policy ${r.name} has existed for {{ $value | humanizeDuration }} without one successful run; expected within ${formatDuration(seconds)}.`),
  ]);

  const failed = [watched.map((t) => t.name)].map((names) => {
    const jobs = `${ns}, job_name=~"(${names.join('|')})-[0-9]+"`;
    const lastFailedStart = `max by (namespace, cronjob) (label_replace(kube_job_status_start_time{${jobs}} and on (namespace, job_name) (kube_job_status_failed{${jobs}} > 0), "cronjob", "$1", "job_name", "^(.+)-[0-9]+$"))`;
    const ksmSuccess = `max by (namespace, cronjob) (kube_cronjob_status_last_successful_time{${cronjobs(names)}})`;
    return rule('BackupFailed',
        `${lastFailedStart} unless on (namespace, cronjob) (${ksmSuccess} >= on (namespace, cronjob) ${lastFailedStart})${
          r.metrics ? ` or max by (namespace, cronjob) (label_replace(${r.metrics.prefix}_last_run_success{${ns}, policy="${r.name}"}, "cronjob", "$1", "target", "(.*)")) == 0` : ''}`,
        'The last run of a scheduled backup failed',
        `The last run of backup {{ $labels.cronjob }} of policy ${r.name} failed; see the logs of its last Job.`, '1m');
  });

  const notScheduled = groupBy(watched, (t) => t.settings.startingDeadlineSeconds).map(([deadline, names]) =>
    rule('BackupNotScheduled', `time() - max by (namespace, cronjob) (kube_cronjob_next_schedule_time{${cronjobs(names)}}) > ${deadline + 300}`,
      'A scheduled backup did not start',
      `CronJob {{ $labels.cronjob }} of policy ${r.name} was due {{ $value | humanizeDuration }} ago and has not started (its starting deadline is ${formatDuration(deadline)}); check the CronJob's events and the kube-controller-manager.`));

  const metricsMissing = r.metrics && pushedAsCronJob
    ? [rule('BackupMetricsMissing',
      `max by (namespace, cronjob) (kube_cronjob_status_last_successful_time{${cronjobs(watched.map((t) => t.name))}} > 0) unless on (namespace, cronjob) max by (namespace, cronjob) (${pushedAsCronJob})`,
      'The Pushgateway has no metrics of a backup that ran',
      `Backup {{ $labels.cronjob }} of policy ${r.name} succeeded per kube-state-metrics, but the Pushgateway has none of its metrics: it is down, lost its state (run it with --persistence.file), or the pushes fail (see the Job's log).`, '30m')]
    : [];

  return compact({
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name: `${r.name}-backup-alerts`.slice(0, 253),
      namespace: r.namespace,
      labels: { ...commonLabels(r.policy, r.engine, 'alerts'), ...options.labels },
      annotations: nonEmpty({ ...r.annotations }),
    },
    spec: { groups: [{ name: `backup-cronjobs.${r.name}`, rules: [...stale, ...failed, ...notScheduled, ...metricsMissing, ...driftRules(r, watched)] }] },
  }) as Manifest;
}
