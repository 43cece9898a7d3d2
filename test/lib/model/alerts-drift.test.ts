// BackupPolicyDrift: which policies get it, and promtool unit tests of when it fires and when it does not.
import { execFileSync } from 'child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { stringify } from 'yaml';
import { BackupPolicy, Manifest, renderPolicy } from '../../../lib';
import { AlertingRule, alertingRulesOf } from '../../support/kube';
import { requireCommands } from '../../support/services';
import { etcdPolicy } from '../engines/etcd/fixtures';
import { redisPolicy } from '../engines/redis/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';

const work = mkdtempSync(join(tmpdir(), 'bcj-drift-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const metrics = { metrics: { pushgatewayUrl: 'http://pushgateway:9091', prometheusRule: {} } };
// customer/-80 nightly, customer/80- hourly, commerce/- under a suspended schedule
const policy = vitessPolicy(
  {
    schedules: [
      { name: 'nightly', schedule: '0 2 * * *', strategies: [{ keyspace: 'customer', shards: ['-80'] }] },
      { name: 'hourly', schedule: '@hourly', strategies: [{ keyspace: 'customer', shards: ['80-'] }] },
      { name: 'paused', schedule: '0 3 * * *', suspend: true, strategies: [{ keyspace: 'commerce', shards: ['-'] }] },
    ],
  },
  metrics,
);
const NIGHTLY = 'example-nightly-customer-x-80';
const HOURLY = 'example-hourly-customer-80-x';
const PAUSED = 'example-paused-commerce-x-x';

const rulesOf = (objects: readonly Manifest[]): AlertingRule[] =>
  objects.filter((o) => o.kind === 'PrometheusRule').flatMap((o) => alertingRulesOf(o));
const driftOf = (objects: readonly Manifest[]) => rulesOf(objects).filter((r) => r.alert === 'BackupPolicyDrift');

test("one BackupPolicyDrift rule, over the policy's current and active backup targets, when an engine that reports coverage pushes metrics", () => {
  const [drift, ...more] = driftOf(renderPolicy(policy));
  expect(more).toEqual([]);
  expect(drift.expr).toBe(
    `max by (namespace, policy) (backup_cronjobs_uncovered_shards{namespace="example", policy="example", target=~"${NIGHTLY}|${HOURLY}"}) > 0`,
  );
  expect(drift.for).toBe('1h');
  expect(drift.labels).toEqual({ severity: 'warning', policy: 'example' });
  expect(drift.annotations.description).toMatch(
    /^Policy example leaves \{\{ \$value \}\} serving shard\(s\) of its cluster without a backup CronJob/,
  );
  expect(drift.annotations.description).toContain('backup-cronjobs discover');
});

test("Redis reports coverage too: one rule over its shards' backup CronJobs (not the drills)", () => {
  const [drift, ...more] = driftOf(renderPolicy(redisPolicy({}, { ...metrics, drill: { schedule: '0 4 * * *' } })));
  expect(more).toEqual([]);
  expect(drift.expr).toBe(
    'max by (namespace, policy) (redis_backup_uncovered_shards{namespace="example", policy="redis", target=~"redis-shard01|redis-shard02"}) > 0',
  );
});

test('no drift rule without pushed metrics, nor for an engine that does not report coverage (etcd)', () => {
  const { pushgatewayUrl, ...ksmMetrics } = policy.spec.metrics ?? {};
  const ksmOnly: BackupPolicy = { ...policy, spec: { ...policy.spec, metrics: ksmMetrics } };
  expect(rulesOf(renderPolicy(ksmOnly)).length).toBeGreaterThan(0);
  expect(driftOf(renderPolicy(ksmOnly))).toEqual([]);
  const etcd = renderPolicy(etcdPolicy({ images: { shell: 'curlimages/curl:8.10.1' } }, metrics));
  expect(rulesOf(etcd).length).toBeGreaterThan(0);
  expect(driftOf(etcd)).toEqual([]);
});

const gauge = (target: string, values: string) => ({
  series: `backup_cronjobs_uncovered_shards{namespace="example", policy="example", target="${target}", job="backup-cronjobs"}`,
  values,
});
const firing = (value: number) => ({
  exp_labels: { severity: 'warning', policy: 'example', namespace: 'example' },
  exp_annotations: {
    summary: 'The cluster has shards that the backup policy does not cover',
    description: `Policy example leaves ${value} serving shard(s) of its cluster without a backup CronJob (a reshard or a new shard?); the backup logs name them. Add them to the policy: \`backup-cronjobs discover\` prints the shards: list.`,
  },
});

/** Runs `promtool test rules` on the policy's rule file with these tests; returns its output. */
function promtoolTest(tests: unknown[]): string {
  requireCommands('promtool');
  const rules = join(work, `rules-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(rules, stringify(renderPolicy(policy).find((o) => o.kind === 'PrometheusRule')!.spec));
  const file = `${rules}.test.yaml`;
  writeFileSync(file, stringify({ rule_files: [rules], evaluation_interval: '1m', tests }));
  return execFileSync('promtool', ['test', 'rules', file], { encoding: 'utf8', stdio: 'pipe' });
}

test('promtool: fires after an hour of a positive count from any target, with the largest count; clears once the runs push 0', () => {
  const out = promtoolTest([
    {
      interval: '1m',
      input_series: [
        // the hourly run sees 2 uncovered shards from t=0 until its run at 3h (after the policy was fixed) pushes 0
        gauge(HOURLY, '2+0x179 0+0x60'),
        // the nightly run saw 1 (it ran before the second new shard appeared) and pushes 0 at 3h too
        gauge(NIGHTLY, '1+0x179 0+0x60'),
      ],
      alert_rule_test: [
        { eval_time: '50m', alertname: 'BackupPolicyDrift', exp_alerts: [] },
        { eval_time: '1h5m', alertname: 'BackupPolicyDrift', exp_alerts: [firing(2)] },
        { eval_time: '3h10m', alertname: 'BackupPolicyDrift', exp_alerts: [] },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});

test('promtool: does not fire when every run pushed 0, nor for counts left by a suspended or a removed CronJob', () => {
  const out = promtoolTest([
    {
      interval: '1m',
      input_series: [
        gauge(NIGHTLY, '0+0x240'),
        gauge(HOURLY, '0+0x240'),
        // the suspended schedule's last run saw a shard missing; it does not run, so its count is stale
        gauge(PAUSED, '3+0x240'),
        // a CronJob no longer in the policy (its shard was resharded away) left its last count behind
        gauge('example-nightly-customer-80-x', '2+0x240'),
      ],
      alert_rule_test: [
        { eval_time: '2h', alertname: 'BackupPolicyDrift', exp_alerts: [] },
        { eval_time: '4h', alertname: 'BackupPolicyDrift', exp_alerts: [] },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});
