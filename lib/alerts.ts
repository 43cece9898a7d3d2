/** A PrometheusRule alerting on stale and failed backups, sized from each CronJob's schedule. */
import type { Manifest } from './k8s';
import { compact, nonEmpty } from './k8s';
import { JOB_DEFAULTS } from './policy/defaults';
import type { BackupPolicy } from './policy/types';
import { shortestIntervalMinutes } from './schedule';

interface CronJobView {
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string> };
  readonly spec: {
    readonly schedule: string;
    readonly timeZone?: string;
    readonly suspend?: boolean;
    readonly jobTemplate: { readonly spec: { readonly activeDeadlineSeconds?: number } };
  };
}

/** `1d2h`-style rendering of seconds, for alert text. */
export function humanDuration(seconds: number): string {
  const units: [string, number][] = [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]];
  let rest = seconds;
  let out = '';
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out || '0s';
}

/**
 * One rule group per policy. A backup target is stale when its last success is
 * older than `staleAfterIntervals` × its schedule's shortest interval plus its
 * run timeout; targets with the same threshold share one alert rule.
 */
export function prometheusRule(policy: BackupPolicy, objects: readonly Manifest[], metricsPrefix: string, labels: Record<string, string>): Manifest | undefined {
  const options = policy.spec.metrics?.prometheusRule;
  if (!options) return undefined;
  const namespace = policy.metadata.namespace ?? JOB_DEFAULTS.namespace;
  const intervals = options.staleAfterIntervals ?? JOB_DEFAULTS.staleAfterIntervals;
  const severity = options.severity ?? JOB_DEFAULTS.alertSeverity;
  const byThreshold = new Map<number, string[]>();
  for (const o of objects as unknown as CronJobView[]) {
    if ((o as unknown as Manifest).kind !== 'CronJob' || o.metadata.labels?.['app.kubernetes.io/component'] !== 'backup' || o.spec.suspend) continue;
    const threshold = intervals * shortestIntervalMinutes(o.spec.schedule, o.spec.timeZone) * 60 + (o.spec.jobTemplate.spec.activeDeadlineSeconds ?? 0);
    byThreshold.set(threshold, [...(byThreshold.get(threshold) ?? []), o.metadata.name]);
  }
  const selector = (extra: string) => `namespace="${namespace}", policy="${policy.metadata.name}"${extra}`;
  const stale = [...byThreshold.entries()].sort(([a], [b]) => a - b).map(([threshold, targets]) => ({
    alert: 'BackupStale',
    expr: `time() - max by (namespace, policy, target) (${metricsPrefix}_last_success_timestamp_seconds{${selector(`, target=~"${targets.join('|')}"`)}}) > ${threshold}`,
    for: '10m',
    labels: { severity },
    annotations: {
      summary: 'A scheduled backup has not succeeded in time',
      description: `Backup {{ $labels.target }} of policy ${policy.metadata.name} last succeeded {{ $value | humanizeDuration }} ago; expected within ${humanDuration(threshold)} (${intervals} schedule intervals plus the run timeout).`,
    },
  }));
  const failed = {
    alert: 'BackupFailed',
    expr: `max by (namespace, policy, target) (${metricsPrefix}_last_run_success{${selector('')}}) == 0`,
    labels: { severity },
    annotations: {
      summary: 'The last run of a scheduled backup failed',
      description: `The last run of backup {{ $labels.target }} of policy ${policy.metadata.name} failed; see the logs of its last Job.`,
    },
  };
  return compact({
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: `${policy.metadata.name}-backup-alerts`.slice(0, 253), namespace, labels: { ...labels, ...options.labels }, annotations: nonEmpty({ ...policy.metadata.annotations }) },
    spec: { groups: [{ name: `backup-cronjobs.${policy.metadata.name}`, rules: [...stale, failed] }] },
  }) as Manifest;
}
