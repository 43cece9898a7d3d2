// The PrometheusRule: strict schema, promtool's own rule check, and promtool unit tests that fire the alerts.
import { BackupPolicy, renderPolicy } from '../../../lib';
import { expectValidManifests } from '../../support/k8s-validate';
import { KubeObject, alertingRulesOf } from '../../support/kube';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { failedJob, ksm, promtoolTest, pushed, retriedJob } from './promtool.harness';

const policy = vitessPolicy(
  {
    schedules: [
      {
        name: 'nightly',
        schedule: '0 2 * * *',
        strategies: [
          { keyspace: 'commerce', shards: ['-'] },
          { keyspace: 'customer', shards: ['-80'] },
        ],
      },
      { name: 'hourly', schedule: '@hourly', timeout: '30m', strategies: [{ keyspace: 'customer', shards: ['-80'] }] },
      { name: 'paused', suspend: true, strategies: [{ keyspace: 'customer', shards: ['80-'] }] },
    ],
  },
  { metrics: { pushgatewayUrl: 'http://pushgateway:9091', prometheusRule: { labels: { release: 'prometheus' } } } },
);

const objects = renderPolicy(policy);
const rule = objects[objects.length - 1];
/** The same policy without a Pushgateway: the rules read kube-state-metrics alone. */
const ksmOnly = (() => {
  const objs = renderPolicy(withoutPushgateway(policy));
  return objs[objs.length - 1];
})();

/** A copy of a policy without its Pushgateway URL. */
function withoutPushgateway(p: BackupPolicy): BackupPolicy {
  const { pushgatewayUrl, ...metrics } = p.spec.metrics ?? {};
  return { ...p, spec: { ...p.spec, metrics } };
}

const HOURLY = 'example-hourly-customer-x-80';
const COMMERCE = 'example-nightly-commerce-x-x';
const CUSTOMER = 'example-nightly-customer-x-80';

test("one PrometheusRule after the CronJobs; every alert sized from its targets' schedule and deadline; suspended targets left out", () => {
  expect(rule.kind).toBe('PrometheusRule');
  expect(rule.metadata).toMatchObject({
    name: 'example-backup-alerts',
    namespace: 'example',
    labels: { release: 'prometheus', 'app.kubernetes.io/component': 'alerts' },
  });
  const rules = alertingRulesOf(rule);
  expect(rules.map((r) => r.alert)).toEqual([
    'BackupStale',
    'BackupNeverSucceeded',
    'BackupStale',
    'BackupNeverSucceeded',
    'BackupFailed',
    'BackupNotScheduled',
    'BackupMetricsMissing',
    // Vitess backups drill themselves: per schedule group, stale and never succeeded, then failed
    'BackupRestoreDrillStale',
    'BackupRestoreDrillNeverSucceeded',
    'BackupRestoreDrillStale',
    'BackupRestoreDrillNeverSucceeded',
    'BackupRestoreDrillFailed',
    'BackupPolicyDrift',
  ]);
  // @hourly: 2 × 60 min + 30 min timeout; daily: 2 × 24 h + 2 h default timeout
  expect(rules[0].expr).toMatch(new RegExp(`cronjob=~"${HOURLY}".* > 9000$`));
  expect(rules[2].expr).toMatch(new RegExp(`cronjob=~"${COMMERCE}\\|${CUSTOMER}".* > 180000$`));
  // the starting deadline (10m default) plus 5 minutes
  expect(rules[5].expr).toMatch(/ > 900$/);
  expect(JSON.stringify(rule)).not.toContain('paused');
  expect(JSON.stringify(ksmOnly)).not.toContain('backup_cronjobs_');
  expect(alertingRulesOf(ksmOnly).map((r) => r.alert)).not.toContain('BackupMetricsMissing');
  expectValidManifests(objects);
});

/** An expected alert: its labels, and its annotations as the rule's templates render them for `ago` (the alert's $value). */
function alert(name: string, cronjob: string, ago = ''): Record<string, unknown> {
  const annotations: Record<string, { summary: string; description: string }> = {
    BackupStale: {
      summary: 'A scheduled backup has not succeeded in time',
      description: `Backup ${cronjob} of policy example last succeeded ${ago} ago; expected within ${cronjob === HOURLY ? '2h30m' : '2d2h'} (2 schedule intervals plus the run timeout).`,
    },
    BackupNeverSucceeded: {
      summary: 'A scheduled backup has never succeeded',
      description: `Backup ${cronjob} of policy example has existed for ${ago} without one successful run; expected within ${cronjob === HOURLY ? '2h30m' : '2d2h'}.`,
    },
    BackupFailed: {
      summary: 'The last run of a scheduled backup failed',
      description: `The last run of backup ${cronjob} of policy example failed; see the logs of its last Job.`,
    },
    BackupNotScheduled: {
      summary: 'A scheduled backup did not start',
      description: `CronJob ${cronjob} of policy example was due ${ago} ago and has not started (its starting deadline is 10m); check the CronJob's events and the kube-controller-manager.`,
    },
    BackupMetricsMissing: {
      summary: 'The Pushgateway has no metrics of a backup that ran',
      description: `Backup ${cronjob} of policy example succeeded per kube-state-metrics, but the Pushgateway has none of its metrics: it is down, lost its state (run it with --persistence.file), or the pushes fail (see the Job's log).`,
    },
  };
  return {
    exp_labels: { severity: 'warning', policy: 'example', namespace: 'example', cronjob },
    exp_annotations: annotations[name],
  };
}

test('promtool: stale from the pushed metrics, and the annotations explain the threshold', () => {
  const out = promtoolTest(rule, [
    {
      interval: '1m',
      input_series: [
        // last success at t=0, never again: stale after 9000 s for the hourly target
        pushed('last_success_timestamp_seconds', HOURLY, '0+0x240'),
        // the nightly targets succeed every minute: never stale
        pushed('last_success_timestamp_seconds', COMMERCE, '0+60x240'),
        pushed('last_success_timestamp_seconds', CUSTOMER, '0+60x240'),
      ],
      alert_rule_test: [
        { eval_time: '2h', alertname: 'BackupStale', exp_alerts: [] },
        {
          eval_time: '3h',
          alertname: 'BackupStale',
          exp_alerts: [alert('BackupStale', HOURLY, '3h 0m 0s')],
        },
        { eval_time: '3h', alertname: 'BackupNeverSucceeded', exp_alerts: [] },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});

test('promtool: without a Pushgateway (or when it lost its state), kube-state-metrics alone finds stale, never-succeeded, failed and unscheduled backups', () => {
  const cases = (r: KubeObject) => [
    {
      interval: '1m',
      input_series: [
        ksm('kube_cronjob_created', HOURLY, '0+0x240'),
        ksm('kube_cronjob_created', COMMERCE, '0+0x240'),
        ksm('kube_cronjob_created', CUSTOMER, '0+0x240'),
        // hourly: succeeded once at t=0 → stale at 3h
        ksm('kube_cronjob_status_last_successful_time', HOURLY, '0+0x240'),
        // commerce: a Job failed after its last success → failed; customer: never succeeded
        ksm('kube_cronjob_status_last_successful_time', COMMERCE, '60+0x240'),
        ...failedJob(COMMERCE, `${COMMERCE}-29000000`, 3600, 240),
        // an older failed Job of hourly, before its success, raises nothing
        ...failedJob(HOURLY, `${HOURLY}-28999999`, -60, 240),
        // nor does a Job of customer whose pod failed and that is retrying: kube_job_status_failed
        // counts failed pods, the Job has not failed
        ...retriedJob(CUSTOMER, `${CUSTOMER}-29000001`, 3600, 240),
        // customer's next run was due at t=0 and never started; the others are due in the future
        ksm('kube_cronjob_next_schedule_time', CUSTOMER, '0+0x240'),
        ksm('kube_cronjob_next_schedule_time', HOURLY, '100000+0x240'),
        ksm('kube_cronjob_next_schedule_time', COMMERCE, '100000+0x240'),
      ],
      alert_rule_test: [
        { eval_time: '3h', alertname: 'BackupStale', exp_alerts: [alert('BackupStale', HOURLY, '3h 0m 0s')] },
        { eval_time: '2h', alertname: 'BackupStale', exp_alerts: [] },
        { eval_time: '3h', alertname: 'BackupFailed', exp_alerts: [alert('BackupFailed', COMMERCE)] },
        { eval_time: '20m', alertname: 'BackupNotScheduled', exp_alerts: [] },
        {
          eval_time: '30m',
          alertname: 'BackupNotScheduled',
          exp_alerts: [alert('BackupNotScheduled', CUSTOMER, '30m 0s')],
        },
        // 180000 s for the nightly targets: not yet at 3h
        { eval_time: '3h', alertname: 'BackupNeverSucceeded', exp_alerts: [] },
        // kube-state-metrics saw commerce succeed (hourly's time is 0: no success to miss), the gateway has nothing
        ...(r === rule
          ? [
              {
                eval_time: '3h',
                alertname: 'BackupMetricsMissing',
                exp_alerts: [alert('BackupMetricsMissing', COMMERCE)],
              },
            ]
          : []),
      ],
    },
    {
      // never succeeded: the hourly target exists for 3h with no success anywhere
      interval: '1m',
      input_series: [ksm('kube_cronjob_created', HOURLY, '0+0x240')],
      alert_rule_test: [
        { eval_time: '2h', alertname: 'BackupNeverSucceeded', exp_alerts: [] },
        {
          eval_time: '3h',
          alertname: 'BackupNeverSucceeded',
          exp_alerts: [alert('BackupNeverSucceeded', HOURLY, '3h 0m 0s')],
        },
      ],
    },
  ];
  expect(promtoolTest(ksmOnly, cases(ksmOnly))).toContain('SUCCESS');
  // with a Pushgateway that lost its state, the same series raise the same alerts, plus the missing metrics
  expect(promtoolTest(rule, cases(rule))).toContain('SUCCESS');
});

test("promtool: a Job is its CronJob's by its controller owner reference, not by its name", () => {
  const out = promtoolTest(ksmOnly, [
    {
      interval: '1m',
      input_series: [
        // a Job made by hand from commerce (kubectl create job --from=cronjob/…): a free name, and
        // it failed after commerce's last success → BackupFailed for commerce
        ksm('kube_cronjob_status_last_successful_time', COMMERCE, '60+0x240'),
        ...failedJob(COMMERCE, 'manual-commerce', 3600, 240),
        // a Job named like a run of customer but owned by another CronJob: not customer's
        ...failedJob('other', `${CUSTOMER}-29000000`, 3600, 240),
      ],
      alert_rule_test: [{ eval_time: '3h', alertname: 'BackupFailed', exp_alerts: [alert('BackupFailed', COMMERCE)] }],
    },
  ]);
  expect(out).toContain('SUCCESS');
});

test('promtool: a failure pushed by the last run, and a success in either source, decide', () => {
  const out = promtoolTest(rule, [
    {
      interval: '1m',
      input_series: [
        pushed('last_run_success', HOURLY, '1+0x29 0+0x210'),
        pushed('last_success_timestamp_seconds', HOURLY, '0+60x240'),
        // kube-state-metrics saw an old success only; the fresh pushed one counts
        ksm('kube_cronjob_status_last_successful_time', COMMERCE, '0+0x240'),
        pushed('last_success_timestamp_seconds', COMMERCE, '0+60x240'),
      ],
      alert_rule_test: [
        { eval_time: '20m', alertname: 'BackupFailed', exp_alerts: [] },
        { eval_time: '1h', alertname: 'BackupFailed', exp_alerts: [alert('BackupFailed', HOURLY)] },
        { eval_time: '3h', alertname: 'BackupStale', exp_alerts: [] },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});

test('a PrometheusRule without a Pushgateway reads kube-state-metrics only', () => {
  expect(ksmOnly.kind).toBe('PrometheusRule');
  for (const r of alertingRulesOf(ksmOnly)) expect(r.expr).toMatch(/kube_(cronjob|job)_/);
});
