// promtool for the PrometheusRule tests: the rule file checked by promtool, unit tests run by `promtool test rules`, and series builders.
import { execFileSync } from 'child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { stringify } from 'yaml';
import { KubeObject, prometheusRuleSpecOf } from '../../support/kube';
import { requireCommands } from '../../support/services';

const work = mkdtempSync(join(tmpdir(), 'bcj-alerts-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const labels = (metric: string, extra: Record<string, string>) =>
  `${metric}{${Object.entries({ namespace: 'example', ...extra })
    .map(([k, v]) => `${k}="${v}"`)
    .join(', ')}}`;
/** A metric pushed by a run of `target` of policy `example` (prefix backup_cronjobs). */
export const pushed = (metric: string, target: string, values: string) => ({
  series: labels(`backup_cronjobs_${metric}`, { policy: 'example', target, job: 'backup-cronjobs' }),
  values,
});
/** A kube-state-metrics CronJob series. */
export const ksm = (metric: string, cronjob: string, values: string) => ({
  series: labels(metric, { cronjob, job: 'kube-state-metrics' }),
  values,
});
/** A kube-state-metrics Job series. */
export const jobSeries = (metric: string, jobName: string, values: string, extra: Record<string, string> = {}) => ({
  series: labels(metric, { job_name: jobName, job: 'kube-state-metrics', ...extra }),
  values,
});
/**
 * The owner series kube-state-metrics exports of a Job whose controller is CronJob `cronjob` (the
 * CronJob controller's Jobs and `kubectl create job --from=cronjob/…`'s, whatever their name).
 */
export const jobOwner = (cronjob: string, jobName: string, points: number) =>
  jobSeries('kube_job_owner', jobName, `1+0x${points}`, {
    owner_kind: 'CronJob',
    owner_name: cronjob,
    owner_is_controller: 'true',
  });
/**
 * The series kube-state-metrics (v2.19.1, as test/kube/alerts-ksm.test.ts sees them) exports of a
 * Job of CronJob `cronjob` that started at `start` (seconds) and failed, for `points` more points:
 * its owner, `kube_job_failed` by condition (its Failed condition is true), and
 * `kube_job_status_failed` by reason, 1 for the reason of its Failed condition and 0 for the other
 * known ones (not the number of failed pods).
 */
export const failedJob = (
  cronjob: string,
  jobName: string,
  start: number,
  points: number,
  reason = 'BackoffLimitExceeded',
) => [
  jobOwner(cronjob, jobName, points),
  jobSeries('kube_job_status_start_time', jobName, `${start}+0x${points}`),
  ...['true', 'false', 'unknown'].map((condition) =>
    jobSeries('kube_job_failed', jobName, `${condition === 'true' ? 1 : 0}+0x${points}`, { condition }),
  ),
  ...['BackoffLimitExceeded', 'DeadlineExceeded', 'Evicted'].map((r) =>
    jobSeries('kube_job_status_failed', jobName, `${r === reason ? 1 : 0}+0x${points}`, { reason: r }),
  ),
];
/**
 * The same of a Job one of whose pods failed and that retried (backoffLimit), still running or
 * succeeded since: its failed pods under reason "", and no `kube_job_failed` (no Failed condition).
 */
export const retriedJob = (cronjob: string, jobName: string, start: number, points: number) => [
  jobOwner(cronjob, jobName, points),
  jobSeries('kube_job_status_start_time', jobName, `${start}+0x${points}`),
  jobSeries('kube_job_status_failed', jobName, `1+0x${points}`, { reason: '' }),
];

/** Runs `promtool test rules` with the rule file of `r` and the given tests; returns its output. */
export function promtoolTest(r: KubeObject | undefined, tests: unknown[]): string {
  if (!r) throw new Error('promtoolTest: no PrometheusRule');
  requireCommands('promtool');
  const rules = join(work, `rules-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(rules, stringify(prometheusRuleSpecOf(r)));
  execFileSync('promtool', ['check', 'rules', rules], { stdio: 'pipe' });
  const file = `${rules}.test.yaml`;
  writeFileSync(file, stringify({ rule_files: [rules], evaluation_interval: '1m', tests }));
  return execFileSync('promtool', ['test', 'rules', file], { encoding: 'utf8', stdio: 'pipe' });
}
