// Restore-drill alerts: drill CronJobs watched like backups (kube-state-metrics and the pushed drill
// metrics), and drills done by the backup runs themselves (Vitess) watched through the pushed metrics.
// The model is built from a resolved policy whose targets are recast as drills, so that the rules are
// tested apart from any engine's drill rendering (the engines' own tests render real drill CronJobs).
import { prometheusRule } from '../../../lib/model/alerts';
import { ResolvedPolicy, ResolvedTarget, resolvePolicy } from '../../../lib/model/resolve';
import { alertingRulesOf } from '../../support/kube';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { failedJob, ksm, promtoolTest, pushed } from './promtool.harness';

const DRILL = 'example-orders-drill';
const BACKUP = 'example-nightly-commerce-x-x';

function model(metrics: boolean): ResolvedPolicy {
  const r = resolvePolicy(
    vitessPolicy(
      {
        schedules: [
          {
            name: 'nightly',
            schedule: '15 * * * *',
            timeout: '30m',
            strategies: [{ keyspace: 'commerce', shards: ['-'] }],
          },
          {
            name: 'daily',
            schedule: '45 * * * *',
            timeout: '1h',
            strategies: [{ keyspace: 'customer', shards: ['-'] }],
          },
        ],
      },
      { metrics: { ...(metrics ? { pushgatewayUrl: 'http://pushgateway:9091' } : {}), prometheusRule: {} } },
    ),
  );
  const [nightly, daily] = r.targets;
  const drill: ResolvedTarget = { ...daily, name: DRILL, component: 'restore-drill', restoresFirst: false };
  return { ...r, targets: [{ ...nightly, restoresFirst: true }, drill] };
}
const rules = (r: ResolvedPolicy) => alertingRulesOf(prometheusRule(r));

const expected = (name: string, cronjob: string, description: string) => ({
  exp_labels: { severity: 'warning', policy: 'example', namespace: 'example', cronjob },
  exp_annotations: {
    summary: {
      BackupRestoreDrillStale: 'A restore drill has not succeeded in time',
      BackupRestoreDrillNeverSucceeded: 'A restore drill has never succeeded',
      BackupRestoreDrillFailed: 'The last run of a restore drill failed',
    }[name],
    description,
  },
});

test('drill CronJobs get stale, never-succeeded and failed alerts of their own; backups that drill themselves only with pushed metrics', () => {
  const withGateway = rules(model(true)).map((r) => r.alert);
  expect(withGateway.filter((a) => a.startsWith('BackupRestoreDrill'))).toEqual([
    'BackupRestoreDrillStale',
    'BackupRestoreDrillNeverSucceeded',
    'BackupRestoreDrillFailed', // the drill CronJob
    'BackupRestoreDrillStale',
    'BackupRestoreDrillNeverSucceeded',
    'BackupRestoreDrillFailed', // the backup that restores first
  ]);
  const ksmOnly = rules(model(false));
  expect(ksmOnly.filter((r) => r.alert.startsWith('BackupRestoreDrill')).map((r) => r.alert)).toEqual([
    'BackupRestoreDrillStale',
    'BackupRestoreDrillNeverSucceeded',
    'BackupRestoreDrillFailed',
  ]);
  for (const r of ksmOnly) expect(r.expr).not.toContain('backup_cronjobs_');
  // the drill CronJob is watched for not starting like every CronJob, and never for missing backup metrics
  expect(rules(model(true)).find((r) => r.alert === 'BackupNotScheduled')!.expr).toContain(DRILL);
  expect(rules(model(true)).find((r) => r.alert === 'BackupMetricsMissing')!.expr).not.toContain(DRILL);
});

test('promtool: a failed drill (pushed, or its Job failed), a stale drill, a drill that never succeeded', () => {
  // hourly schedules: the drill 2 × 1 h + 1 h = 10800 s; the backup 2 × 1 h + 30 m = 9000 s
  const out = promtoolTest(prometheusRule(model(true)), [
    {
      interval: '1m',
      input_series: [
        pushed('restore_drill_success', DRILL, '1+0x29 0+0x30'),
        pushed('restore_drill_last_success_timestamp_seconds', DRILL, '0+0x60'),
      ],
      alert_rule_test: [
        { eval_time: '20m', alertname: 'BackupRestoreDrillFailed', exp_alerts: [] },
        {
          eval_time: '40m',
          alertname: 'BackupRestoreDrillFailed',
          exp_alerts: [
            expected(
              'BackupRestoreDrillFailed',
              DRILL,
              `The last run of restore drill ${DRILL} of policy example failed; see the logs of its last Job.`,
            ),
          ],
        },
      ],
    },
    {
      interval: '1m',
      input_series: [ksm('kube_cronjob_created', DRILL, '0+0x10'), ...failedJob(DRILL, `${DRILL}-29000000`, 60, 10)],
      alert_rule_test: [
        {
          eval_time: '5m',
          alertname: 'BackupRestoreDrillFailed',
          exp_alerts: [
            expected(
              'BackupRestoreDrillFailed',
              DRILL,
              `The last run of restore drill ${DRILL} of policy example failed; see the logs of its last Job.`,
            ),
          ],
        },
      ],
    },
    {
      interval: '1m',
      input_series: [
        // the drill succeeded at t=0 and never again; the backup's own drill every minute
        ksm('kube_cronjob_status_last_successful_time', DRILL, '0+0x240'),
        pushed('restore_drill_last_success_timestamp_seconds', BACKUP, '0+60x240'),
      ],
      alert_rule_test: [
        { eval_time: '3h', alertname: 'BackupRestoreDrillStale', exp_alerts: [] },
        {
          eval_time: '4h',
          alertname: 'BackupRestoreDrillStale',
          exp_alerts: [
            expected(
              'BackupRestoreDrillStale',
              DRILL,
              `Restore drill ${DRILL} of policy example last succeeded 4h 0m 0s ago; expected within 3h (2 schedule intervals plus the run timeout).`,
            ),
          ],
        },
      ],
    },
    {
      interval: '1m',
      input_series: [
        // the backup CronJob exists and succeeds, but no run restored anything (only initial backups)
        ksm('kube_cronjob_created', BACKUP, '0+0x240'),
        ksm('kube_cronjob_status_last_successful_time', BACKUP, '0+60x240'),
      ],
      alert_rule_test: [
        { eval_time: '2h', alertname: 'BackupRestoreDrillNeverSucceeded', exp_alerts: [] },
        {
          eval_time: '3h',
          alertname: 'BackupRestoreDrillNeverSucceeded',
          exp_alerts: [
            expected(
              'BackupRestoreDrillNeverSucceeded',
              BACKUP,
              `Backup ${BACKUP} of policy example has existed for 3h 0m 0s without one successful restore drill; expected within 2h30m.`,
            ),
          ],
        },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});
