// Handles on what a construct generated: CronJobs by target key, Jobs, the PrometheusRule; child ids; escape hatches.
import { ApiObject, Chart, Duration, JsonPatch, Testing } from 'cdk8s';
import { BackupPolicy, EtcdBackupSchedule, RedisBackupSchedule, VitessBackupSchedule } from '../../../constructs/cdk8s';
import type { Manifest } from '../../../lib';
import { cronJobSpecOf, podSpecOf } from '../../support/kube';
import { vitessPolicy } from '../../lib/engines/vitess/fixtures';
import { etcdProps, redisProps, vitessProps } from './fixtures';

const names = (objects: ReadonlyMap<string, ApiObject>) => [...objects].map(([key, o]) => [key, `${o.kind} ${o.name}`]);

test('Redis: a CronJob per shard, a prune CronJob per shard, the PrometheusRule; ids <Kind>-<object name>', () => {
  const chart = Testing.chart();
  const schedule = new RedisBackupSchedule(chart, 'cache', redisProps);
  expect(names(schedule.backupCronJobs)).toEqual([
    ['shard01', 'CronJob cache-shard01'],
    ['shard02', 'CronJob cache-shard02'],
  ]);
  expect(names(schedule.pruneCronJobs)).toEqual([
    ['shard01', 'CronJob cache-shard01-prune'],
    ['shard02', 'CronJob cache-shard02-prune'],
  ]);
  expect(schedule.cronJob('shard02')).toBe(schedule.backupCronJobs.get('shard02'));
  expect(schedule.pruneCronJob('shard01').name).toBe('cache-shard01-prune');
  expect(schedule.prometheusRule?.name).toBe('cache-backup-alerts');
  expect(schedule.node.tryFindChild('CronJob-cache-shard01')).toBe(schedule.cronJob('shard01'));
  expect(schedule.node.tryFindChild('PrometheusRule-cache-backup-alerts')).toBe(schedule.prometheusRule);
});

test('Vitess: by <keyspace>/<shard> as written; a whole policy by <schedule>/<keyspace>/<shard>', () => {
  const chart = Testing.chart();
  const schedule = new VitessBackupSchedule(chart, 'nightly', vitessProps);
  expect(names(schedule.backupCronJobs)).toEqual([
    ['commerce/-80', 'CronJob shop-nightly-commerce-x-80'],
    ['commerce/80-', 'CronJob shop-nightly-commerce-80-x'],
  ]);
  const renamed = new VitessBackupSchedule(chart, 'other-id', { ...vitessProps, scheduleName: 'weekly' });
  expect(renamed.cronJob('commerce/-80').name).toBe('shop-weekly-commerce-x-80');
  const policy = new BackupPolicy(
    chart,
    'policy',
    vitessPolicy({ schedules: [{ name: 'daily', strategies: [{ keyspace: 'customer', shards: ['-80', '80-'] }] }] }),
  );
  expect(policy.cronJob('daily/customer/80-').name).toBe('example-daily-customer-80-x');
  expect(policy.prometheusRule).toBeUndefined();
});

test("Vitess incremental backups: incrementalCronJob by the key of the shard's backup CronJob", () => {
  const chart = Testing.chart();
  const schedule = new VitessBackupSchedule(chart, 'nightly', {
    ...vitessProps,
    incremental: { schedule: '*/15 4-23 * * *', maxRecoveryPointAge: Duration.hours(6) },
  });
  expect(names(schedule.incrementalCronJobs)).toEqual([
    ['commerce/-80', 'CronJob shop-nightly-commerce-x-80-incr'],
    ['commerce/80-', 'CronJob shop-nightly-commerce-80-x-incr'],
  ]);
  expect(schedule.incrementalCronJob('commerce/80-')).toBe(schedule.incrementalCronJobs.get('commerce/80-'));
  expect(schedule.cronJob('commerce/80-').name).toBe('shop-nightly-commerce-80-x');
  expect(() => schedule.incrementalCronJob()).toThrow(
    'test/nightly: incremental-backup CronJob: there are 2, name one (keys: "commerce/-80", "commerce/80-")',
  );
});

test("an engine's other CronJobs: extraCronJobs by role (its extraCronJobs in the registry), incrementalCronJobs its deprecated alias", () => {
  const chart = Testing.chart();
  const schedule = new VitessBackupSchedule(chart, 'nightly', {
    ...vitessProps,
    incremental: { schedule: '*/15 4-23 * * *', maxRecoveryPointAge: Duration.hours(6) },
  });
  expect([...schedule.extraCronJobs.keys()]).toEqual(['incremental-backup']);
  expect(schedule.extraCronJobs.get('incremental-backup')).toBe(schedule.incrementalCronJobs);
  expect(schedule.extraCronJob('incremental-backup', 'commerce/-80').name).toBe('shop-nightly-commerce-x-80-incr');
  expect(() => schedule.extraCronJob('maintenance')).toThrow('test/nightly: maintenance CronJob: there is none');
  const redis = new RedisBackupSchedule(chart, 'cache', redisProps);
  expect(redis.extraCronJobs.size).toBe(0);
  expect(redis.incrementalCronJobs.size).toBe(0);
});

test('etcd: by node; cluster mode: the one CronJob, key "cluster"', () => {
  const chart = Testing.chart();
  const perNode = new EtcdBackupSchedule(chart, 'per-node', etcdProps);
  expect(names(perNode.backupCronJobs)).toEqual([
    ['cp-1', 'CronJob etcd-cp-1'],
    ['cp-2', 'CronJob etcd-cp-2'],
  ]);
  const cluster = new EtcdBackupSchedule(chart, 'cluster', { name: 'etcd-cluster' });
  expect(cluster.cronJob()).toBe(cluster.cronJob('cluster'));
  expect(cluster.cronJob().name).toBe('etcd-cluster');
  // two objects (the script ConfigMap, the CronJob): no default child; inline, a single object is `Resource`
  expect(cluster.node.defaultChild).toBeUndefined();
  const inline = new EtcdBackupSchedule(chart, 'inline', { name: 'etcd-inline', scripts: { mode: 'inline' } });
  expect(inline.node.defaultChild).toBe(inline.cronJob());
});

test('etcd restore drills: drillCronJob by the key of the backups they drill', () => {
  const chart = Testing.chart();
  const policy = new BackupPolicy(chart, 'drills', {
    metadata: { name: 'etcd' },
    spec: { drill: { schedule: '0 4 * * 0' }, etcd: { mode: 'perNode', nodes: ['cp-1', 'cp-2'] } },
  });
  expect(names(policy.drillCronJobs)).toEqual([
    ['cp-1', 'CronJob etcd-drill-cp-1'],
    ['cp-2', 'CronJob etcd-drill-cp-2'],
  ]);
  expect(policy.drillCronJob('cp-2')).toBe(policy.drillCronJobs.get('cp-2'));
  expect(policy.cronJob('cp-2').name).toBe('etcd-cp-2');
  expect(policy.cronJobs.map((c) => c.name)).toEqual(['etcd-cp-1', 'etcd-cp-2', 'etcd-drill-cp-1', 'etcd-drill-cp-2']);
  expect(() => policy.drillCronJob()).toThrow(
    'test/drills: restore-drill CronJob: there are 2, name one (keys: "cp-1", "cp-2")',
  );
  const cluster = new BackupPolicy(chart, 'cluster', {
    metadata: { name: 'etcd-pvc' },
    spec: {
      drill: { schedule: '@weekly' },
      etcd: { destination: { persistentVolumeClaim: { claimName: 'etcd-snapshots' } } },
    },
  });
  expect(cluster.drillCronJob().name).toBe('etcd-pvc-drill');
  expect(cluster.drillCronJob('cluster')).toBe(cluster.drillCronJob());
  const without = new EtcdBackupSchedule(chart, 'plain', etcdProps);
  expect(() => without.drillCronJob('cp-1')).toThrow('test/plain: restore-drill CronJob: no key "cp-1"; there is none');
});

test('Redis restore drills from the schedule construct: drillCronJob by shard', () => {
  const chart = Testing.chart();
  const schedule = new RedisBackupSchedule(chart, 'drilled', {
    ...redisProps,
    drill: { schedule: '@daily', maxBackupAge: '2d' },
  });
  expect(names(schedule.drillCronJobs)).toEqual([
    ['shard01', 'CronJob cache-shard01-drill'],
    ['shard02', 'CronJob cache-shard02-drill'],
  ]);
  expect(schedule.drillCronJob('shard02').name).toBe('cache-shard02-drill');
  expect(schedule.cronJob('shard02').name).toBe('cache-shard02');
  expect(
    () => new RedisBackupSchedule(chart, 'bad', { ...redisProps, name: 'bad', drill: { schedule: 'daily' } }),
  ).toThrow(/drill\.schedule: received "daily"/);
});

test('an unknown key, or no key among several, names the construct and the keys there are', () => {
  const chart = Testing.chart();
  const schedule = new RedisBackupSchedule(chart, 'cache', redisProps);
  expect(() => schedule.cronJob('shard1')).toThrow(
    'test/cache: backup CronJob: no key "shard1" (did you mean "shard01"?); keys: "shard01", "shard02"',
  );
  expect(() => schedule.cronJob()).toThrow(
    'test/cache: backup CronJob: there are 2, name one (keys: "shard01", "shard02")',
  );
  const plain = new RedisBackupSchedule(chart, 'plain', { ...redisProps, name: 'plain', retention: undefined });
  expect(() => plain.pruneCronJob('shard01')).toThrow(
    'test/plain: retention-prune CronJob: no key "shard01"; there is none',
  );
});

test('escape hatches on a handle: a JSON patch and an annotation reach the synthesized CronJob, and only it', () => {
  // GIVEN
  const chart = new Chart(Testing.app(), 'backups', { namespace: 'cache' });
  const schedule = new RedisBackupSchedule(chart, 'cache', redisProps);
  // WHEN
  schedule
    .cronJob('shard01')
    .addJsonPatch(JsonPatch.add('/spec/jobTemplate/spec/template/spec/priorityClassName', 'backup-low'));
  schedule.cronJob('shard01').metadata.addAnnotation('example.com/owner', 'cache-team');
  ApiObject.of(schedule.pruneCronJob('shard02')).addJsonPatch(JsonPatch.replace('/spec/suspend', true));
  // THEN
  const byName = new Map((Testing.synth(chart) as Manifest[]).map((m) => [m.metadata.name, m]));
  expect(podSpecOf(byName.get('cache-shard01')!).priorityClassName).toBe('backup-low');
  expect(byName.get('cache-shard01')!.metadata.annotations).toEqual({
    'example.com/owner': 'cache-team',
    'backup-cronjobs.io/generator': expect.stringMatching(/^backup-cronjobs@/) as unknown,
    'backup-cronjobs.io/policy': 'cache',
  });
  expect(cronJobSpecOf(byName.get('cache-shard02-prune')!).suspend).toBe(true);
  expect(podSpecOf(byName.get('cache-shard02')!).priorityClassName).toBeUndefined();
  expect(byName.get('cache-shard02')!.metadata.annotations).not.toHaveProperty('example.com/owner');
  expect(cronJobSpecOf(byName.get('cache-shard01-prune')!).suspend).toBe(false);
});
