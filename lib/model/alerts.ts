/** A PrometheusRule alerting on stale and failed backups, sized from each target's schedule. */
import type { Manifest } from '../kubernetes/objects';
import { compact, nonEmpty } from '../kubernetes/objects';
import { shortestIntervalMinutes } from '../schedule';
import { formatDuration } from '../units';
import { ResolvedPolicy, commonLabels } from './resolve';

/**
 * One rule group per policy. A backup target is stale when its last success is
 * older than `staleAfterIntervals` × its schedule's shortest interval plus its
 * run timeout; targets with the same threshold share one alert rule.
 */
export function prometheusRule(r: ResolvedPolicy): Manifest | undefined {
  const options = r.metrics?.rule;
  if (!r.metrics || !options) return undefined;
  const prefix = r.metrics.prefix;
  const intervals = options.staleAfterIntervals;
  const byThreshold = new Map<number, string[]>();
  for (const t of r.targets) {
    if (t.component !== 'backup' || t.settings.suspend) continue;
    const threshold = intervals * shortestIntervalMinutes(t.schedule.resolved, t.schedule.timeZone) * 60 + t.settings.activeDeadlineSeconds;
    byThreshold.set(threshold, [...(byThreshold.get(threshold) ?? []), t.name]);
  }
  const selector = (extra: string) => `namespace="${r.namespace}", policy="${r.name}"${extra}`;
  const stale = [...byThreshold.entries()].sort(([a], [b]) => a - b).map(([threshold, targets]) => ({
    alert: 'BackupStale',
    expr: `time() - max by (namespace, policy, target) (${prefix}_last_success_timestamp_seconds{${selector(`, target=~"${targets.join('|')}"`)}}) > ${threshold}`,
    for: '10m',
    labels: { severity: options.severity },
    annotations: {
      summary: 'A scheduled backup has not succeeded in time',
      description: `Backup {{ $labels.target }} of policy ${r.name} last succeeded {{ $value | humanizeDuration }} ago; expected within ${formatDuration(threshold)} (${intervals} schedule intervals plus the run timeout).`,
    },
  }));
  const failed = {
    alert: 'BackupFailed',
    expr: `max by (namespace, policy, target) (${prefix}_last_run_success{${selector('')}}) == 0`,
    labels: { severity: options.severity },
    annotations: {
      summary: 'The last run of a scheduled backup failed',
      description: `The last run of backup {{ $labels.target }} of policy ${r.name} failed; see the logs of its last Job.`,
    },
  };
  return compact({
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name: `${r.name}-backup-alerts`.slice(0, 253),
      namespace: r.namespace,
      labels: { ...commonLabels(r.policy, r.engine, 'alerts'), ...options.labels },
      annotations: nonEmpty({ ...r.annotations }),
    },
    spec: { groups: [{ name: `backup-cronjobs.${r.name}`, rules: [...stale, failed] }] },
  }) as Manifest;
}
