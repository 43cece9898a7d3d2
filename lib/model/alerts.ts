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
import { contentShrankRules, copyFailedRules, engineAlertRules, sourceAlarmRules } from './alerts-source';
import { recoveryPointRules } from './alerts-incremental';

/** Seconds after which a target that should have succeeded has not: intervals × its shortest interval + its deadline. */
export function staleAfterSeconds(t: ResolvedTarget, intervals: number): number {
  return (
    intervals * shortestIntervalMinutes(t.schedule.resolved, t.schedule.timeZone) * 60 +
    t.settings.activeDeadlineSeconds
  );
}

/** Targets grouped by a number, smallest first: one rule per group keeps the rule file short. */
function groupBy(targets: readonly ResolvedTarget[], key: (t: ResolvedTarget) => number): [number, string[]][] {
  const groups = new Map<number, string[]>();
  for (const t of targets) groups.set(key(t), [...(groups.get(key(t)) ?? []), t.name]);
  return [...groups.entries()].sort(([a], [b]) => a - b);
}

/** What one family of alerts watches: backups, drill CronJobs, or the drills that backup runs do themselves. */
interface Watched {
  /** Alert names start with it: `Backup`, `BackupRestoreDrill`. */
  readonly alert: string;
  readonly targets: readonly ResolvedTarget[];
  /** Pushed metric name parts after the prefix: the last success time and the last result. */
  readonly pushed: { readonly lastSuccess: string; readonly result: string };
  /** A successful Job of the CronJob means a success (kube-state-metrics counts). */
  readonly ksm: boolean;
  readonly text: {
    /** "scheduled backup", "restore drill" (summaries). */
    readonly what: string;
    /** "Backup", "Restore drill" (descriptions start with it and the CronJob). */
    readonly subject: string;
    /** "run", "restore drill": "without one successful …". */
    readonly success: string;
  };
}

export function prometheusRule(r: ResolvedPolicy): Manifest | undefined {
  const options = r.rule;
  if (!options) return undefined;
  const active = r.targets.filter((t) => !t.settings.suspend);
  const backups = active.filter((t) => t.component === 'backup');
  const drills = active.filter((t) => t.component === 'restore-drill');
  const families: Watched[] = [
    {
      alert: 'Backup',
      targets: backups,
      pushed: { lastSuccess: 'last_success_timestamp_seconds', result: 'last_run_success' },
      ksm: true,
      text: { what: 'scheduled backup', subject: 'Backup', success: 'run' },
    },
    {
      alert: 'BackupRestoreDrill',
      targets: drills,
      pushed: DRILL_METRICS,
      ksm: true,
      text: { what: 'restore drill', subject: 'Restore drill', success: 'run' },
    },
    // drills done by the backup runs themselves can only be seen in the pushed metrics
    ...(r.metrics
      ? [
          {
            alert: 'BackupRestoreDrill',
            targets: backups.filter((t) => t.restoresFirst),
            pushed: DRILL_METRICS,
            ksm: false,
            text: { what: 'restore drill', subject: 'Backup', success: 'restore drill' },
          },
        ]
      : []),
  ].filter((f) => f.targets.length > 0);
  if (families.length === 0) return undefined;
  const ns = `namespace="${r.namespace}"`;
  const cronjobs = (names: readonly string[]) => `${ns}, cronjob=~"${names.join('|')}"`;
  /** A pushed metric of the targets `names` as kube-state-metrics series (label `cronjob`). */
  const pushedAsCronJob = (metric: string, names: readonly string[]) =>
    r.metrics &&
    `label_replace(${r.metrics.prefix}_${metric}{${ns}, policy="${r.name}", target=~"${names.join('|')}"}, "cronjob", "$1", "target", "(.*)")`;
  const rule = (alert: string, expr: string, summary: string, description: string, forDuration = '10m') => ({
    alert,
    expr,
    for: forDuration,
    labels: { severity: options.severity, policy: r.name },
    annotations: { summary, description },
  });

  const watchRules = (f: Watched) => {
    const lastSuccess = (names: readonly string[]) => {
      const ksm = `kube_cronjob_status_last_successful_time{${cronjobs(names)}}`;
      const sources = [pushedAsCronJob(f.pushed.lastSuccess, names), f.ksm ? ksm : undefined].filter(
        (x) => x !== undefined,
      );
      return `max by (namespace, cronjob) (${sources.join(' or ')})`;
    };
    const { what, subject, success } = f.text;
    const stale = groupBy(f.targets, (t) => staleAfterSeconds(t, options.staleAfterIntervals)).flatMap(
      ([seconds, names]) => [
        rule(
          `${f.alert}Stale`,
          `time() - ${lastSuccess(names)} > ${seconds}`,
          `A ${what} has not succeeded in time`,
          `${subject} {{ $labels.cronjob }} of policy ${r.name} last ${f.ksm ? 'succeeded' : 'restored its newest backup'} {{ $value | humanizeDuration }} ago; expected within ${formatDuration(seconds)} (${options.staleAfterIntervals} schedule intervals plus the run timeout).`,
        ),
        rule(
          `${f.alert}NeverSucceeded`,
          `(time() - max by (namespace, cronjob) (kube_cronjob_created{${cronjobs(names)}})) > ${seconds} unless on (namespace, cronjob) ${lastSuccess(names)}`,
          `A ${what} has never succeeded`,
          `${subject} {{ $labels.cronjob }} of policy ${r.name} has existed for {{ $value | humanizeDuration }} without one successful ${success}; expected within ${formatDuration(seconds)}.`,
        ),
      ],
    );
    const names = f.targets.map((t) => t.name);
    const pushedFailure = pushedAsCronJob(f.pushed.result, names);
    const pushedFailed = pushedFailure && `max by (namespace, cronjob) (${pushedFailure}) == 0`;
    const failed = f.ksm ? [ksmFailed(names, pushedFailed)] : pushedFailed ? [pushedFailed] : [];
    const subjectLower = subject.charAt(0).toLowerCase() + subject.slice(1);
    return [
      ...stale,
      ...failed.map((expr) =>
        rule(
          `${f.alert}Failed`,
          expr,
          `The last run of a ${what} failed`,
          `The last run of ${subjectLower} {{ $labels.cronjob }} of policy ${r.name} failed; see the logs of its last Job.`,
          '1m',
        ),
      ),
    ];
  };

  /**
   * The last Job of the CronJobs failed (kube-state-metrics), or the last run pushed a failure. A
   * failed Job is one whose Failed condition is true (`kube_job_failed`): `kube_job_status_failed`
   * counts failed pods, and a Job whose pod failed may still retry and succeed (backoffLimit).
   * A Job is the CronJob's by its controller owner reference (`kube_job_owner`), not by its name: a
   * Job made with `kubectl create job --from=cronjob/…` has a free name, and the CronJob controller
   * counts its success too (`lastSuccessfulTime`). The owner series are taken once per Job (`max by`),
   * so that two kube-state-metrics replicas do not make the match many-to-many.
   */
  const ksmFailed = (names: readonly string[], pushedFailed: string | undefined) => {
    const failedStart = `kube_job_status_start_time{${ns}} and on (namespace, job_name) (kube_job_failed{${ns}, condition="true"} == 1)`;
    const owner = `max by (namespace, job_name, owner_name) (kube_job_owner{${ns}, owner_kind="CronJob", owner_is_controller="true", owner_name=~"${names.join('|')}"})`;
    const lastFailedStart = `max by (namespace, cronjob) (label_replace((${failedStart}) * on (namespace, job_name) group_left (owner_name) ${owner}, "cronjob", "$1", "owner_name", "(.+)"))`;
    const ksmSuccess = `max by (namespace, cronjob) (kube_cronjob_status_last_successful_time{${cronjobs(names)}})`;
    return `${lastFailedStart} unless on (namespace, cronjob) (${ksmSuccess} >= on (namespace, cronjob) ${lastFailedStart})${pushedFailed ? ` or ${pushedFailed}` : ''}`;
  };

  // Vitess incremental backups: a failed run (a skipped one exits 0); their age is BackupRecoveryPointTooOld's
  const incrementals = active.filter((t) => t.component === 'incremental-backup').map((t) => t.name);
  const pushedIncrementalFailure = pushedAsCronJob('last_run_success', incrementals);
  const incrementalFailed =
    incrementals.length > 0
      ? [
          rule(
            'BackupIncrementalFailed',
            ksmFailed(
              incrementals,
              pushedIncrementalFailure && `max by (namespace, cronjob) (${pushedIncrementalFailure}) == 0`,
            ),
            'The last run of an incremental backup failed',
            `The last run of incremental backup {{ $labels.cronjob }} of policy ${r.name} failed; see the logs of its last Job.`,
            '1m',
          ),
        ]
      : [];

  const scheduled = [...backups, ...active.filter((t) => t.component === 'incremental-backup'), ...drills];
  const notScheduled = groupBy(scheduled, (t) => t.settings.startingDeadlineSeconds).map(([deadline, names]) =>
    rule(
      'BackupNotScheduled',
      `time() - max by (namespace, cronjob) (kube_cronjob_next_schedule_time{${cronjobs(names)}}) > ${deadline + 300}`,
      'A scheduled backup did not start',
      `CronJob {{ $labels.cronjob }} of policy ${r.name} was due {{ $value | humanizeDuration }} ago and has not started (its starting deadline is ${formatDuration(deadline)}); check the CronJob's events and the kube-controller-manager.`,
    ),
  );

  const pushedBackups = pushedAsCronJob(
    'last_success_timestamp_seconds',
    backups.map((t) => t.name),
  );
  const metricsMissing =
    pushedBackups && backups.length > 0
      ? [
          rule(
            'BackupMetricsMissing',
            `max by (namespace, cronjob) (kube_cronjob_status_last_successful_time{${cronjobs(backups.map((t) => t.name))}} > 0) unless on (namespace, cronjob) max by (namespace, cronjob) (${pushedBackups})`,
            'The Pushgateway has no metrics of a backup that ran',
            `Backup {{ $labels.cronjob }} of policy ${r.name} succeeded per kube-state-metrics, but the Pushgateway has none of its metrics: it is down, lost its state (run it with --persistence.file), or the pushes fail (see the Job's log).`,
            '30m',
          ),
        ]
      : [];

  const backupRules = families.filter((f) => f.alert === 'Backup').flatMap(watchRules);
  const drillRules = families.filter((f) => f.alert !== 'Backup').flatMap(watchRules);
  return compact({
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name: `${r.name}-backup-alerts`.slice(0, 253),
      namespace: r.namespace,
      labels: { ...commonLabels(r.policy, r.engine, 'alerts'), ...options.labels },
      annotations: nonEmpty({ ...r.annotations }),
    },
    spec: {
      groups: [
        {
          name: `backup-cronjobs.${r.name}`,
          rules: [
            ...backupRules,
            ...recoveryPointRules(r, active),
            ...incrementalFailed,
            ...notScheduled,
            ...metricsMissing,
            ...drillRules,
            ...driftRules(r, backups),
            ...sourceAlarmRules(r, [...backups, ...active.filter((t) => t.component === 'maintenance')]),
            ...contentShrankRules(r, backups),
            ...copyFailedRules(r, backups),
            ...engineAlertRules(r, active),
          ],
        },
      ],
    },
  });
}

/** The metric name parts drill.sh pushes. */
const DRILL_METRICS = {
  lastSuccess: 'restore_drill_last_success_timestamp_seconds',
  result: 'restore_drill_success',
} as const;
