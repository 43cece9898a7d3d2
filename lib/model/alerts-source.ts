/**
 * What backup runs report about their source, as alerts over the policy's current, not suspended, backup
 * targets only (as BackupPolicyDrift does):
 * - BackupSourceAlarm: the database has raised an alarm (etcd's NOSPACE: the cluster refuses writes).
 *   Engines that declare `sourceAlarms` push `<prefix>_source_alarm{alarm}` from every run that reached
 *   the database, 1 while raised and 0 otherwise; one rule per alarm.
 * - BackupContentShrank: engines with content checks push `<prefix>_content_shrunk`, 1 when the run's
 *   backup held fewer keys than `spec.contentChecks.shrinkBelowPercent` of the newest earlier backup's.
 * - BackupContentUnchecked: they push `<prefix>_content_checked` too, 0 when the run could not check its
 *   backup (its keys, or the earlier backup's, could not be counted or read): a check never passes what
 *   it could not check (with onShrink warn the backup is stored, unchecked).
 * - BackupCopyFailed: with further copies (`spec.<engine>.copies`), each run pushes
 *   `<prefix>_copy_last_run_success` per copy (grouping label `copy`), 0 when that copy failed.
 */
import { CONTENT_CHECK_DEFAULTS } from '../policy/defaults';
import { engineDefinition } from '../registry';
import type { ResolvedPolicy, ResolvedTarget } from './resolve';

/** The series of `metric` that the runs of `watched` pushed (`matchers`: more label matchers). */
export function reportedSeries(
  r: ResolvedPolicy,
  prefix: string,
  metric: string,
  watched: readonly ResolvedTarget[],
  matchers = '',
): string {
  return `${prefix}_${metric}{namespace="${r.namespace}", policy="${r.name}", target=~"${watched.map((t) => t.name).join('|')}"${matchers}}`;
}

/** How long a value a backup run pushed (an alarm, a shrink) must be seen before its alert fires: once per run. */
export const REPORTED_FOR = '1m';

/**
 * The alarm rules of a policy whose engine reports alarms and whose runs push metrics (else none). The
 * maintenance runs (etcd's defragmentation) push the alarms too, and are watched with the backups.
 */
export function sourceAlarmRules(r: ResolvedPolicy, watched: readonly ResolvedTarget[]): Record<string, unknown>[] {
  const alarms = engineDefinition(r.engine).sourceAlarms;
  const { rule, metrics } = r;
  if (!rule || !metrics || !alarms || watched.length === 0) return [];
  const runs = watched.some((t) => t.component === 'maintenance') ? 'backup or maintenance run' : 'backup run';
  return Object.entries(alarms).map(([alarm, meaning]) => ({
    alert: 'BackupSourceAlarm',
    expr: `max by (namespace, policy, alarm) (${reportedSeries(r, metrics.prefix, 'source_alarm', watched, `, alarm="${alarm}"`)}) > 0`,
    for: REPORTED_FOR,
    labels: { severity: rule.severity, policy: r.name },
    annotations: {
      summary: `The database that policy ${r.name} backs up has raised the ${alarm} alarm`,
      description: `The last ${runs} of policy ${r.name} saw the ${alarm} alarm raised: ${meaning}. Backups still run.`,
    },
  }));
}

/** The shrink and unchecked rules of a policy whose engine checks content and whose runs push metrics (else none). */
export function contentShrankRules(r: ResolvedPolicy, watched: readonly ResolvedTarget[]): Record<string, unknown>[] {
  const { rule, metrics } = r;
  if (!rule || !metrics || engineDefinition(r.engine).contentChecks !== true || watched.length === 0) return [];
  const checks = { ...CONTENT_CHECK_DEFAULTS, ...r.policy.spec.contentChecks };
  const stored =
    checks.onShrink === 'fail'
      ? 'It was not stored (onShrink: fail), so the target gets no new backup until this is resolved.'
      : 'It was stored (onShrink: warn): retention may now remove older, fuller backups.';
  return [
    {
      alert: 'BackupContentShrank',
      expr: `max by (namespace, policy, target) (${reportedSeries(r, metrics.prefix, 'content_shrunk', watched)}) > 0`,
      for: REPORTED_FOR,
      labels: { severity: rule.severity, policy: r.name },
      annotations: {
        summary: 'A backup holds far fewer keys than the one before it',
        description: `The last backup of {{ $labels.target }} (policy ${r.name}) holds fewer than ${checks.shrinkBelowPercent}% of the keys of the newest earlier backup (spec.contentChecks.shrinkBelowPercent); its log gives both counts. Was data deleted, or did the source lose it? ${stored}`,
      },
    },
    {
      alert: 'BackupContentUnchecked',
      expr: `min by (namespace, policy, target) (${reportedSeries(r, metrics.prefix, 'content_checked', watched)}) == 0`,
      for: REPORTED_FOR,
      labels: { severity: rule.severity, policy: r.name },
      annotations: {
        summary: "A backup's content could not be checked",
        description: `The last run of {{ $labels.target }} (policy ${r.name}) could not count the keys of its backup, or read the newest earlier backup's count, so it could not check for an empty or shrunk backup (spec.contentChecks); its log says why. ${
          checks.onShrink === 'fail'
            ? 'Nothing was stored (onShrink: fail), so the target gets no new backup until this is resolved.'
            : 'The backup was stored unchecked (onShrink: warn).'
        }`,
      },
    },
  ];
}

/** The names of a policy's further copies (`spec.<engine>.copies`). */
function copyNames(r: ResolvedPolicy): string[] {
  const spec = (r.policy.spec as unknown as Record<string, { copies?: readonly { name: string }[] } | undefined>)[
    r.engine
  ];
  return (spec?.copies ?? []).map((c) => c.name);
}

/** The failed-copy rule of a policy with copies whose runs push metrics (else none). */
export function copyFailedRules(r: ResolvedPolicy, watched: readonly ResolvedTarget[]): Record<string, unknown>[] {
  const { rule, metrics } = r;
  const copies = copyNames(r);
  if (!rule || !metrics || copies.length === 0 || watched.length === 0) return [];
  return [
    {
      alert: 'BackupCopyFailed',
      expr: `min by (namespace, policy, target, copy) (${reportedSeries(r, metrics.prefix, 'copy_last_run_success', watched, `, copy=~"${copies.join('|')}"`)}) == 0`,
      for: REPORTED_FOR,
      labels: { severity: rule.severity, policy: r.name },
      annotations: {
        summary: 'A further copy of a backup failed',
        description: `The last run of {{ $labels.target }} (policy ${r.name}) could not copy its backup to {{ $labels.copy }}; the backup itself is stored. The run's log says why (a line "copy {{ $labels.copy }} failed: ..."). The copy's backups get older until a run copies again.`,
      },
    },
  ];
}

/** The engine's own rules (EngineDefinition.alertRules) of a policy that pushes metrics (else none). */
export function engineAlertRules(r: ResolvedPolicy, active: readonly ResolvedTarget[]): Record<string, unknown>[] {
  const { rule, metrics } = r;
  const definition = engineDefinition(r.engine);
  if (!rule || !metrics || !definition.alertRules) return [];
  return definition.alertRules(r.policy.spec[r.engine], {
    namespace: r.namespace,
    policy: r.name,
    prefix: metrics.prefix,
    severity: rule.severity,
    reportedFor: REPORTED_FOR,
    targets: (component) => active.filter((t) => t.component === component).map((t) => t.name),
    series: (metric, component, matchers) =>
      reportedSeries(
        r,
        metrics.prefix,
        metric,
        active.filter((t) => t.component === component),
        matchers,
      ),
  });
}
