// The PrometheusRule: strict schema, promtool's own rule check, and promtool unit tests that fire the alerts.
import { execFileSync } from 'child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { stringify } from 'yaml';
import { PolicyError, renderPolicy } from '../../../lib';
import { expectValidManifests } from '../../support/k8s-validate';
import { requireCommands } from '../../support/services';
import { vitessPolicy } from '../engines/vitess/fixtures';

const work = mkdtempSync(join(tmpdir(), 'bcj-alerts-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const policy = vitessPolicy({
  schedules: [
    { name: 'nightly', schedule: '0 2 * * *', strategies: [{ keyspace: 'commerce', shards: ['-'] }, { keyspace: 'customer', shards: ['-80'] }] },
    { name: 'hourly', schedule: '@hourly', timeout: '30m', strategies: [{ keyspace: 'customer', shards: ['-80'] }] },
    { name: 'paused', suspend: true, strategies: [{ keyspace: 'customer', shards: ['80-'] }] },
  ],
}, { metrics: { pushgatewayUrl: 'http://pushgateway:9091', prometheusRule: { labels: { release: 'prometheus' } } } });

const objects = renderPolicy(policy);
const rule = objects[objects.length - 1] as any;

test('one PrometheusRule after the CronJobs, thresholds sized per schedule, suspended targets left out', () => {
  expect(rule.kind).toBe('PrometheusRule');
  expect(rule.metadata).toMatchObject({ name: 'example-backup-alerts', namespace: 'example', labels: { release: 'prometheus', 'app.kubernetes.io/component': 'alerts' } });
  const [hourly, nightly, failed] = rule.spec.groups[0].rules;
  // @hourly: 2 × 60 min + 30 min timeout; daily: 2 × 24 h + 2 h default timeout
  expect(hourly.expr).toBe('time() - max by (namespace, policy, target) (backup_cronjobs_last_success_timestamp_seconds{namespace="example", policy="example", target=~"example-hourly-customer-x-80"}) > 9000');
  expect(nightly.expr).toBe('time() - max by (namespace, policy, target) (backup_cronjobs_last_success_timestamp_seconds{namespace="example", policy="example", target=~"example-nightly-commerce-x-x|example-nightly-customer-x-80"}) > 180000');
  expect(failed.alert).toBe('BackupFailed');
  expect(JSON.stringify(rule)).not.toContain('paused');
  expectValidManifests(objects);
});

test('promtool accepts the rules and its unit test fires exactly the expected alerts', () => {
  requireCommands('promtool');
  const rules = join(work, 'rules.yaml');
  writeFileSync(rules, stringify(rule.spec));
  execFileSync('promtool', ['check', 'rules', rules], { stdio: 'pipe' });
  const series = (metric: string, target: string, values: string) => ({
    series: `${metric}{namespace="example", policy="example", target="${target}", job="backup-cronjobs"}`,
    values,
  });
  const test = {
    rule_files: [rules],
    evaluation_interval: '1m',
    tests: [{
      interval: '1m',
      input_series: [
        // last success at t=0, never again: stale after 9000 s for the hourly target
        series('backup_cronjobs_last_success_timestamp_seconds', 'example-hourly-customer-x-80', '0+0x240'),
        // the nightly target succeeds every minute: never stale
        series('backup_cronjobs_last_success_timestamp_seconds', 'example-nightly-commerce-x-x', '0+60x240'),
        series('backup_cronjobs_last_run_success', 'example-nightly-commerce-x-x', '1+0x240'),
        series('backup_cronjobs_last_run_success', 'example-hourly-customer-x-80', '1+0x29 0+0x210'),
      ],
      alert_rule_test: [
        { eval_time: '2h', alertname: 'BackupStale', exp_alerts: [] },
        {
          eval_time: '3h',
          alertname: 'BackupStale',
          exp_alerts: [{
            exp_labels: { severity: 'warning', namespace: 'example', policy: 'example', target: 'example-hourly-customer-x-80' },
            exp_annotations: {
              summary: 'A scheduled backup has not succeeded in time',
              description: 'Backup example-hourly-customer-x-80 of policy example last succeeded 3h 0m 0s ago; expected within 2h30m (2 schedule intervals plus the run timeout).',
            },
          }],
        },
        {
          eval_time: '1h',
          alertname: 'BackupFailed',
          exp_alerts: [{
            exp_labels: { severity: 'warning', namespace: 'example', policy: 'example', target: 'example-hourly-customer-x-80' },
            exp_annotations: {
              summary: 'The last run of a scheduled backup failed',
              description: 'The last run of backup example-hourly-customer-x-80 of policy example failed; see the logs of its last Job.',
            },
          }],
        },
      ],
    }],
  };
  const testFile = join(work, 'test.yaml');
  writeFileSync(testFile, stringify(test));
  const out = execFileSync('promtool', ['test', 'rules', testFile], { encoding: 'utf8', stdio: 'pipe' });
  expect(out).toContain('SUCCESS');
});

test('a PrometheusRule needs the Pushgateway', () => {
  expect(() => renderPolicy(vitessPolicy({}, { metrics: { prometheusRule: {} } }))).toThrow(PolicyError);
  expect(() => renderPolicy(vitessPolicy({}, { metrics: { prometheusRule: {} } }))).toThrow('spec.metrics.prometheusRule: alerts read the pushed metrics: set spec.metrics.pushgatewayUrl too');
});
