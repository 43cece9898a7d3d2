// BackupSourceAlarm: which policies get it, and promtool unit tests of when it fires and when it does not.
import { renderPolicy } from '../../../lib';
import type { Manifest } from '../../../lib';
import { ETCD_ALARMS } from '../../../lib/engines/etcd/defaults';
import { alertingRulesOf } from '../../support/kube';
import type { AlertingRule } from '../../support/kube';
import { etcdPolicy } from '../engines/etcd/fixtures';
import { redisPolicy } from '../engines/redis/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { promtoolTest } from './promtool.harness';

const prometheusRule = (objects: readonly Manifest[]) => objects.find((o) => o.kind === 'PrometheusRule');
const rulesOf = (objects: readonly Manifest[]): readonly AlertingRule[] => {
  const rule = prometheusRule(objects);
  return rule ? alertingRulesOf(rule) : [];
};
const alarmRulesOf = (objects: readonly Manifest[]) => rulesOf(objects).filter((r) => r.alert === 'BackupSourceAlarm');

const metrics = { metrics: { pushgatewayUrl: 'http://pushgateway:9091', prometheusRule: {} } };
const shell = { images: { shell: 'curlimages/curl:8.10.1' } };
const policy = etcdPolicy(shell, metrics);
const objects = renderPolicy(policy);
const backupNames = objects
  .filter((o) => o.kind === 'CronJob' && o.metadata.labels?.['app.kubernetes.io/component'] === 'backup')
  .map((o) => o.metadata.name);

test("one BackupSourceAlarm rule per etcd alarm, over the policy's backup targets, when an etcd policy pushes metrics", () => {
  expect(backupNames.length).toBeGreaterThan(0);
  const rules = alarmRulesOf(objects);
  expect(rules.map((r) => r.expr)).toEqual(
    Object.keys(ETCD_ALARMS).map(
      (alarm) =>
        `max by (namespace, policy, alarm) (etcd_backup_source_alarm{namespace="kube-system", policy="etcd", target=~"${backupNames.join('|')}", alarm="${alarm}"}) > 0`,
    ),
  );
  for (const r of rules) {
    expect(r.for).toBe('1m');
    expect(r.labels).toEqual({ severity: 'warning', policy: 'etcd' });
  }
  expect(rules[0].annotations.description).toContain('refuses writes');
});

test('no alarm rule without pushed metrics, nor for engines that report no alarms (Redis, Vitess)', () => {
  const ksmOnly = etcdPolicy(shell, { metrics: { prometheusRule: {} } });
  expect(rulesOf(renderPolicy(ksmOnly)).length).toBeGreaterThan(0);
  expect(alarmRulesOf(renderPolicy(ksmOnly))).toEqual([]);
  for (const other of [redisPolicy({}, metrics), vitessPolicy({}, metrics)]) {
    expect(rulesOf(renderPolicy(other)).length).toBeGreaterThan(0);
    expect(alarmRulesOf(renderPolicy(other))).toEqual([]);
  }
});

test('the finalize container is told which alarms to push as 0 only when the policy pushes metrics', () => {
  const alarmTypes = (p: typeof policy) =>
    renderPolicy(p)
      .filter((o) => o.kind === 'CronJob')
      .flatMap((o) => JSON.stringify(o).match(/"ETCD_BACKUP_ALARM_TYPES","value":"([A-Z ]+)"/)?.[1] ?? []);
  expect(alarmTypes(policy)).toEqual(backupNames.map(() => 'NOSPACE CORRUPT'));
  expect(alarmTypes(etcdPolicy(shell))).toEqual([]);
});

const gauge = (target: string, alarm: string, values: string) => ({
  series: `etcd_backup_source_alarm{namespace="kube-system", policy="etcd", target="${target}", alarm="${alarm}", job="backup-cronjobs"}`,
  values,
});
const firing = (alarm: keyof typeof ETCD_ALARMS) => ({
  exp_labels: { severity: 'warning', policy: 'etcd', namespace: 'kube-system', alarm },
  exp_annotations: {
    summary: `The database that policy etcd backs up has raised the ${alarm} alarm`,
    description: `The last backup run of policy etcd saw the ${alarm} alarm raised: ${ETCD_ALARMS[alarm]}. Backups still run.`,
  },
});

test('promtool: fires for the raised alarm only, a minute after a run pushed it; clears once a run pushes 0', () => {
  const target = backupNames[0];
  const out = promtoolTest(prometheusRule(objects), [
    {
      interval: '1m',
      input_series: [
        // a run at 10m sees NOSPACE raised; the run at 70m, after the operators disarmed it, pushes 0
        gauge(target, 'NOSPACE', '0+0x9 1+0x59 0+0x30'),
        gauge(target, 'CORRUPT', '0+0x100'),
      ],
      alert_rule_test: [
        { eval_time: '5m', alertname: 'BackupSourceAlarm', exp_alerts: [] },
        { eval_time: '15m', alertname: 'BackupSourceAlarm', exp_alerts: [firing('NOSPACE')] },
        { eval_time: '80m', alertname: 'BackupSourceAlarm', exp_alerts: [] },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});

test('promtool: does not fire for a value left by a CronJob the policy no longer has', () => {
  const out = promtoolTest(prometheusRule(objects), [
    {
      interval: '1m',
      input_series: [gauge(`${backupNames[0]}-removed`, 'NOSPACE', '1+0x60')],
      alert_rule_test: [{ eval_time: '30m', alertname: 'BackupSourceAlarm', exp_alerts: [] }],
    },
  ]);
  expect(out).toContain('SUCCESS');
});

const shrankOf = (objects: readonly Manifest[]) => rulesOf(objects).filter((r) => r.alert === 'BackupContentShrank');

test('one BackupContentShrank rule for an engine with content checks, its description from the policy (threshold, what a shrunk backup does)', () => {
  const [rule, ...more] = shrankOf(objects);
  expect(more).toEqual([]);
  expect(rule.expr).toBe(
    `max by (namespace, policy, target) (etcd_backup_content_shrunk{namespace="kube-system", policy="etcd", target=~"${backupNames.join('|')}"}) > 0`,
  );
  expect(rule.annotations.description).toContain('fewer than 50% of the keys');
  expect(rule.annotations.description).toContain('It was stored (onShrink: warn)');
  const failing = shrankOf(
    renderPolicy(etcdPolicy(shell, { ...metrics, contentChecks: { onShrink: 'fail', shrinkBelowPercent: 80 } })),
  );
  expect(failing[0].annotations.description).toContain('fewer than 80% of the keys');
  expect(failing[0].annotations.description).toContain('It was not stored (onShrink: fail)');
  expect(shrankOf(renderPolicy(vitessPolicy({}, metrics)))).toEqual([]);
});

const redisObjects = renderPolicy(
  redisPolicy({ shards: ['shard01', 'shard02'] }, { ...metrics, contentChecks: { onShrink: 'fail' } }),
);
const redisBackups = redisObjects
  .filter((o) => o.kind === 'CronJob' && o.metadata.labels?.['app.kubernetes.io/component'] === 'backup')
  .map((o) => o.metadata.name);

test("Redis policies get BackupContentShrank over their shards' backup CronJobs, with the Redis metric prefix (content checks by default)", () => {
  expect(redisBackups).toEqual(['redis-shard01', 'redis-shard02']);
  const [rule, ...more] = shrankOf(redisObjects);
  expect(more).toEqual([]);
  expect(rule.expr).toBe(
    'max by (namespace, policy, target) (redis_backup_content_shrunk{namespace="example", policy="redis", target=~"redis-shard01|redis-shard02"}) > 0',
  );
  expect(rule.annotations.description).toContain('It was not stored (onShrink: fail)');
  // without spec.contentChecks the defaults apply: every Redis run checks, so the rule is there too
  const [byDefault] = shrankOf(renderPolicy(redisPolicy({}, metrics)));
  expect(byDefault.annotations.description).toContain('fewer than 50% of the keys');
  expect(byDefault.annotations.description).toContain('It was stored (onShrink: warn)');
});

test('spec.contentChecks is refused for Vitess, saying why (its listing has no fact to compare) and naming the engines that check', () => {
  expect(() => renderPolicy(vitessPolicy({}, { contentChecks: { allowEmpty: true } }))).toThrow(
    'spec.contentChecks: the vitess engine does not support content checks: vtctld lists a backup by name only (GetBackups: no size, no row count; its status is UNKNOWN), so there is no fact to compare with the newest earlier backup; vtbackup checks each backup itself, restoring the newest one before it takes the next (the restore drill metrics say so); supported by: redis, etcd',
  );
});

test('Redis accepts spec.contentChecks; its s3-upload container gets them as env, defaults filled in', () => {
  const env = (objects: readonly Manifest[]) =>
    objects
      .filter((o) => o.kind === 'CronJob' && o.metadata.labels?.['app.kubernetes.io/component'] === 'backup')
      .map((o) => {
        const containers = (
          o.spec as {
            jobTemplate: {
              spec: {
                template: { spec: { containers: { name: string; env?: { name: string; value?: string }[] }[] } };
              };
            };
          }
        ).jobTemplate.spec.template.spec.containers;
        return Object.fromEntries(
          containers.map((c) => [
            c.name,
            Object.fromEntries(
              (c.env ?? []).filter((e) => e.name.startsWith('BACKUP_CONTENT_')).map((e) => [e.name, e.value]),
            ),
          ]),
        );
      });
  const checked = { ...metrics, contentChecks: { allowEmpty: true, shrinkBelowPercent: 80 } };
  expect(env(renderPolicy(redisPolicy({ shards: ['shard01'] }, checked)))).toEqual([
    {
      'redis-dump': {},
      's3-upload': {
        BACKUP_CONTENT_ALLOW_EMPTY: 'true',
        BACKUP_CONTENT_SHRINK_BELOW_PERCENT: '80',
        BACKUP_CONTENT_ON_SHRINK: 'warn',
        BACKUP_CONTENT_METADATA_SUFFIX: '.json',
      },
    },
  ]);
  expect(env(renderPolicy(redisPolicy({}, {})))[0]['s3-upload']).toEqual({
    BACKUP_CONTENT_ALLOW_EMPTY: 'false',
    BACKUP_CONTENT_SHRINK_BELOW_PERCENT: '50',
    BACKUP_CONTENT_ON_SHRINK: 'warn',
    BACKUP_CONTENT_METADATA_SUFFIX: '.json',
  });
  for (const [value, allowed] of [
    [{ shrinkBelowPercent: 0 }, 'spec.contentChecks.shrinkBelowPercent'],
    [{ onShrink: 'stop' }, 'spec.contentChecks.onShrink'],
  ] as const) {
    expect(() => renderPolicy(redisPolicy({}, { contentChecks: value }))).toThrow(allowed);
  }
});

test('promtool: the Redis rule fires for the shard whose last run pushed a shrink, not for the other', () => {
  const [target, other] = redisBackups;
  const series = (t: string, values: string) => ({
    series: `redis_backup_content_shrunk{namespace="example", policy="redis", target="${t}", shard="${t.slice('redis-'.length)}", job="backup-cronjobs"}`,
    values,
  });
  const [rule] = shrankOf(redisObjects);
  const out = promtoolTest(prometheusRule(redisObjects), [
    {
      interval: '1m',
      input_series: [series(target, '0+0x9 1+0x59 0+0x30'), series(other, '0+0x100')],
      alert_rule_test: [
        { eval_time: '5m', alertname: 'BackupContentShrank', exp_alerts: [] },
        {
          eval_time: '15m',
          alertname: 'BackupContentShrank',
          exp_alerts: [
            {
              exp_labels: { severity: 'warning', policy: 'redis', namespace: 'example', target },
              exp_annotations: {
                summary: rule.annotations.summary,
                description: rule.annotations.description.replace('{{ $labels.target }}', target),
              },
            },
          ],
        },
        { eval_time: '80m', alertname: 'BackupContentShrank', exp_alerts: [] },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});

test('promtool: BackupContentShrank fires for the target whose last run pushed a shrink, and clears with the next good run', () => {
  const target = backupNames[0];
  const out = promtoolTest(prometheusRule(objects), [
    {
      interval: '1m',
      input_series: [
        {
          series: `etcd_backup_content_shrunk{namespace="kube-system", policy="etcd", target="${target}", job="backup-cronjobs"}`,
          values: '0+0x9 1+0x59 0+0x30',
        },
      ],
      alert_rule_test: [
        { eval_time: '5m', alertname: 'BackupContentShrank', exp_alerts: [] },
        {
          eval_time: '15m',
          alertname: 'BackupContentShrank',
          exp_alerts: [
            {
              exp_labels: { severity: 'warning', policy: 'etcd', namespace: 'kube-system', target },
              exp_annotations: {
                summary: shrankOf(objects)[0].annotations.summary,
                description: shrankOf(objects)[0].annotations.description.replace('{{ $labels.target }}', target),
              },
            },
          ],
        },
        { eval_time: '80m', alertname: 'BackupContentShrank', exp_alerts: [] },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});

const uncheckedOf = (objects: readonly Manifest[]) =>
  rulesOf(objects).filter((r) => r.alert === 'BackupContentUnchecked');

test('one BackupContentUnchecked rule beside BackupContentShrank, saying whether the unchecked backup was stored', () => {
  const [rule, ...more] = uncheckedOf(objects);
  expect(more).toEqual([]);
  expect(rule.expr).toBe(
    `min by (namespace, policy, target) (etcd_backup_content_checked{namespace="kube-system", policy="etcd", target=~"${backupNames.join('|')}"}) == 0`,
  );
  expect(rule.annotations.description).toContain('The backup was stored unchecked (onShrink: warn)');
  const failing = uncheckedOf(renderPolicy(etcdPolicy(shell, { ...metrics, contentChecks: { onShrink: 'fail' } })));
  expect(failing[0].annotations.description).toContain('Nothing was stored (onShrink: fail)');
  expect(uncheckedOf(renderPolicy(vitessPolicy({}, metrics)))).toEqual([]);
  expect(uncheckedOf(redisObjects)[0].expr).toContain('redis_backup_content_checked{');
});

test('promtool: BackupContentUnchecked fires for the target whose last run could not check its backup, and clears with the next run that checks', () => {
  const [target, other] = backupNames;
  const series = (t: string, values: string) => ({
    series: `etcd_backup_content_checked{namespace="kube-system", policy="etcd", target="${t}", job="backup-cronjobs"}`,
    values,
  });
  const [rule] = uncheckedOf(objects);
  const out = promtoolTest(prometheusRule(objects), [
    {
      interval: '1m',
      input_series: [series(target, '1+0x9 0+0x59 1+0x30'), series(other, '1+0x100')],
      alert_rule_test: [
        { eval_time: '5m', alertname: 'BackupContentUnchecked', exp_alerts: [] },
        {
          eval_time: '15m',
          alertname: 'BackupContentUnchecked',
          exp_alerts: [
            {
              exp_labels: { severity: 'warning', policy: 'etcd', namespace: 'kube-system', target },
              exp_annotations: {
                summary: rule.annotations.summary,
                description: rule.annotations.description.replace('{{ $labels.target }}', target),
              },
            },
          ],
        },
        { eval_time: '80m', alertname: 'BackupContentUnchecked', exp_alerts: [] },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});
