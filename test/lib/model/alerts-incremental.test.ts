// BackupRecoveryPointTooOld: the rules of a policy with Vitess incremental backups, and promtool unit tests of when they fire.
import { Manifest, renderPolicy } from '../../../lib';
import { AlertingRule, alertingRulesOf } from '../../support/kube';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { failedJob, ksm, promtoolTest, pushed } from './promtool.harness';

const metrics = { metrics: { pushgatewayUrl: 'http://pushgateway:9091', prometheusRule: {} } };
const schedules = (incremental: Record<string, unknown>) => ({
  schedules: [
    {
      name: 'daily',
      schedule: '0 2 * * *',
      strategies: [{ keyspace: 'commerce', shards: ['-'] }],
      incremental: { schedule: '*/15 * * * *', ...incremental },
    },
  ],
});
const INCR = 'example-daily-commerce-x-x-incr';
const rule = (objects: readonly Manifest[]) => objects.find((o) => o.kind === 'PrometheusRule');
const recoveryRules = (objects: readonly Manifest[]): AlertingRule[] =>
  objects
    .filter((o) => o.kind === 'PrometheusRule')
    .flatMap((o) => alertingRulesOf(o))
    .filter((r) => r.alert === 'BackupRecoveryPointTooOld');

test('two rules per promised recovery point: the default is 2 intervals of the incremental schedule plus its timeout (40m)', () => {
  const [stale, never, ...more] = recoveryRules(renderPolicy(vitessPolicy(schedules({}), metrics)));
  expect(more).toEqual([]);
  expect(stale.expr).toBe(
    `time() - max by (namespace, cronjob) (label_replace(backup_cronjobs_incremental_last_success_timestamp_seconds{namespace="example", policy="example", target=~"${INCR}"}, "cronjob", "$1", "target", "(.*)")) > 2400`,
  );
  expect(never.expr).toMatch(
    /^\(time\(\) - max by \(namespace, cronjob\) \(kube_cronjob_created\{namespace="example", cronjob=~"example-daily-commerce-x-x-incr"\}\)\) > 2400 unless on/,
  );
  expect(stale.annotations.description).toContain('the policy promises a recovery point within 40m');
});

test('maxRecoveryPointAge sets it; without a Pushgateway the last successful Job counts; no rule without incrementals or when suspended', () => {
  const [stale] = recoveryRules(renderPolicy(vitessPolicy(schedules({ maxRecoveryPointAge: '1h' }), metrics)));
  expect(stale.expr).toMatch(/> 3600$/);
  const ksmOnly = recoveryRules(renderPolicy(vitessPolicy(schedules({}), { metrics: { prometheusRule: {} } })));
  expect(ksmOnly[0].expr).toBe(
    `time() - max by (namespace, cronjob) (kube_cronjob_status_last_successful_time{namespace="example", cronjob=~"${INCR}"}) > 2400`,
  );
  expect(recoveryRules(renderPolicy(vitessPolicy({}, metrics)))).toEqual([]);
  expect(recoveryRules(renderPolicy(vitessPolicy(schedules({ suspend: true }), metrics)))).toEqual([]);
});

const firing = {
  exp_labels: { severity: 'warning', policy: 'example', namespace: 'example', cronjob: INCR },
};

test('promtool: fires once the newest incremental is older than promised (skipped runs do not move it), clears after the next one', () => {
  const objects = renderPolicy(vitessPolicy(schedules({ maxRecoveryPointAge: '1h' }), metrics));
  // an incremental at 0 (t=60 s); runs skip from then on (no full backup: the time stays); a new one at 2h
  const out = promtoolTest(rule(objects), [
    {
      interval: '1m',
      input_series: [
        pushed('incremental_last_success_timestamp_seconds', INCR, '60+0x119 7200+0x60'),
        ksm('kube_cronjob_created', INCR, '0+0x180'),
      ],
      alert_rule_test: [
        { eval_time: '50m', alertname: 'BackupRecoveryPointTooOld', exp_alerts: [] },
        {
          eval_time: '1h10m',
          alertname: 'BackupRecoveryPointTooOld',
          exp_alerts: [
            {
              ...firing,
              exp_annotations: {
                summary: 'A shard cannot be restored to a recent enough point in time',
                description: `The newest incremental backup of ${INCR} (policy example) is 1h 9m 0s old; the policy promises a recovery point within 1h. See the logs of its last Jobs (skipped for want of a full backup, or failing).`,
              },
            },
          ],
        },
        { eval_time: '2h10m', alertname: 'BackupRecoveryPointTooOld', exp_alerts: [] },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});

test('promtool: fires for an incremental CronJob that never took one (every run skipped) once it is older than promised', () => {
  const objects = renderPolicy(vitessPolicy(schedules({ maxRecoveryPointAge: '1h' }), metrics));
  const out = promtoolTest(rule(objects), [
    {
      interval: '1m',
      input_series: [ksm('kube_cronjob_created', INCR, '0+0x120'), pushed('incremental_skipped', INCR, '1+0x120')],
      alert_rule_test: [
        { eval_time: '50m', alertname: 'BackupRecoveryPointTooOld', exp_alerts: [] },
        {
          eval_time: '1h10m',
          alertname: 'BackupRecoveryPointTooOld',
          exp_alerts: [
            {
              ...firing,
              exp_annotations: {
                summary: 'A shard cannot be restored to a recent enough point in time',
                description: `Incremental backup CronJob ${INCR} of policy example has existed for 1h 10m 0s without one incremental backup; the policy promises a recovery point within 1h. Its runs skip while the shard has no full backup: see their logs.`,
              },
            },
          ],
        },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});

test('BackupIncrementalFailed: a failed incremental Job or a pushed failure fires it (a skipped run exits 0 and pushes none); BackupNotScheduled watches the incremental CronJobs too', () => {
  const objects = renderPolicy(vitessPolicy(schedules({}), metrics));
  const rules = objects.filter((o) => o.kind === 'PrometheusRule').flatMap((o) => alertingRulesOf(o));
  expect(rules.filter((r) => r.alert === 'BackupIncrementalFailed')).toHaveLength(1);
  expect(rules.find((r) => r.alert === 'BackupNotScheduled')?.expr).toContain(INCR);
  const out = promtoolTest(rule(objects), [
    {
      interval: '1m',
      input_series: [
        // a run at 15m pushed a failure; the next one at 30m a success
        pushed('last_run_success', INCR, '_x15 0+0x14 1+0x30'),
        ksm('kube_cronjob_created', INCR, '0+0x60'),
      ],
      alert_rule_test: [
        { eval_time: '10m', alertname: 'BackupIncrementalFailed', exp_alerts: [] },
        {
          eval_time: '20m',
          alertname: 'BackupIncrementalFailed',
          exp_alerts: [
            {
              ...firing,
              exp_annotations: {
                summary: 'The last run of an incremental backup failed',
                description: `The last run of incremental backup ${INCR} of policy example failed; see the logs of its last Job.`,
              },
            },
          ],
        },
        { eval_time: '40m', alertname: 'BackupIncrementalFailed', exp_alerts: [] },
      ],
    },
    {
      // without a push: a failed Job of the incremental CronJob, made by hand (a free name; its
      // controller owner reference links it), and none of its successes
      interval: '1m',
      input_series: [ksm('kube_cronjob_created', INCR, '0+0x60'), ...failedJob(INCR, 'manual-incremental', 60, 60)],
      alert_rule_test: [
        {
          eval_time: '20m',
          alertname: 'BackupIncrementalFailed',
          exp_alerts: [
            {
              ...firing,
              exp_annotations: {
                summary: 'The last run of an incremental backup failed',
                description: `The last run of incremental backup ${INCR} of policy example failed; see the logs of its last Job.`,
              },
            },
          ],
        },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});
