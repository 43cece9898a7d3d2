// ShardedRedisBackup (+ its Sentinel) → Redis policy → CronJobs, against what the 3scale operator does
// (redis-and-peers.md A.3 fields and defaults, A.4 scheduling, A.9 the CronJob mapping; the seed's object).
import { expectValidManifests } from '../../support/k8s-validate';
import { validatePolicy } from '../../../lib/model/validate';
import { parse } from 'yaml';
import { convertDocuments } from '../../../lib/convert';
import { convertedYaml } from '../../../lib/convert/command';
import { cronJobSpecOf, envOf, jobSpecOf } from '../../support/kube';
import { convertAndRender, errors, sentinel, shardedRedisBackup, unwrapped } from './fixtures';

test("the seed's object with its Sentinel: one CronJob per monitored shard, on the same schedule, deadline and S3 settings", () => {
  const {
    notes,
    objects: [objects],
  } = convertAndRender([shardedRedisBackup(), sentinel()]);
  expect(errors(notes)).toEqual([]);
  expectValidManifests(objects);
  expect(
    objects.map((o) => [
      o.metadata.namespace,
      o.metadata.name,
      cronJobSpecOf(o).schedule,
      cronJobSpecOf(o).suspend,
      jobSpecOf(o).activeDeadlineSeconds,
    ]),
  ).toEqual([
    ['default', 'backup-shard01', '* * * * *', false, 300],
    ['default', 'backup-shard02', '* * * * *', false, 300],
  ]);
  const upload = envOf(objects[0], 's3-upload');
  expect(upload).toMatchObject({
    AWS_REGION: 'us-east-1',
    S3_BUCKET: 'my-bucket',
    S3_PREFIX: 'backups/',
    S3_ENDPOINT: 'http://minio.default.svc.cluster.local:9000',
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: { secretKeyRef: { name: 'aws-credentials', key: 'AWS_ACCESS_KEY_ID' } },
    AWS_SECRET_ACCESS_KEY: { secretKeyRef: { name: 'aws-credentials', key: 'AWS_SECRET_ACCESS_KEY' } },
  });
  // saas-operator SentinelURIs: redis-sentinel-<i>.<namespace>.svc.cluster.local:26379 for each of spec.replicas
  expect(envOf(objects[0], 'redis-dump').REDIS_SENTINEL_ADDRESSES).toBe(
    'redis-sentinel-0.default.svc.cluster.local:26379 redis-sentinel-1.default.svc.cluster.local:26379 redis-sentinel-2.default.svc.cluster.local:26379',
  );
});

test('pause: true suspends the CronJobs', () => {
  const {
    objects: [objects],
  } = convertAndRender([shardedRedisBackup({ pause: true }), sentinel()]);
  expect(objects.map((o) => cronJobSpecOf(o).suspend)).toEqual([true, true]);
});

test('defaults: timeout 10m, historyLimit 10 (A.3)', () => {
  const srb = shardedRedisBackup();
  delete srb.spec.timeout;
  delete srb.spec.historyLimit;
  const {
    objects: [[cj]],
  } = convertAndRender([srb, sentinel()]);
  expect([
    jobSpecOf(cj).activeDeadlineSeconds,
    cronJobSpecOf(cj).successfulJobsHistoryLimit,
    cronJobSpecOf(cj).failedJobsHistoryLimit,
  ]).toEqual([600, 10, 10]);
});

test("historyLimit counts the operator's records of runs: it becomes the Jobs kept, and deletes no backup", () => {
  const {
    yaml,
    objects: [[cj]],
  } = convertAndRender([shardedRedisBackup({ historyLimit: 2 }), sentinel()]);
  expect([cronJobSpecOf(cj).successfulJobsHistoryLimit, cronJobSpecOf(cj).failedJobsHistoryLimit]).toEqual([2, 2]);
  expect(Object.keys(envOf(cj, 's3-upload')).filter((k) => k.startsWith('RETENTION_'))).toEqual([]);
  expect(unwrapped(yaml[0])).toContain('Its equivalent is the Jobs a CronJob keeps, not a retention rule.');
});

test("the retention the comment suggests for the operator's 90d/7d/24h tags is a valid policy", () => {
  const {
    policies: [policy],
  } = convertDocuments([shardedRedisBackup(), sentinel()], 'in');
  const suggested = /#\s+retention: (\{.*\})/.exec(convertedYaml(policy))?.[1];
  expect(suggested).toBe('{ maxAge: 1d, hourly: 168, daily: 90 }');
  const retention: unknown = parse(suggested!);
  expect(() => validatePolicy({ ...policy.document, spec: { ...policy.document.spec, retention } })).not.toThrow();
});

test("without the Sentinel: its default 3 replicas assumed, shards from the object's status, with a note", () => {
  const {
    notes,
    objects: [objects],
  } = convertAndRender([shardedRedisBackup()]);
  expect(objects.map((o) => o.metadata.name)).toEqual(['backup-shard01', 'backup-shard02']);
  expect(notes).toContainEqual(
    expect.objectContaining({ level: 'note', object: 'ShardedRedisBackup default/backup', path: 'spec.sentinelRef' }),
  );
});

test('without the Sentinel or a status the shards are unknown: cannot be converted', () => {
  const { notes, yaml } = convertAndRender([shardedRedisBackup({}, false)]);
  expect(yaml).toEqual([]);
  expect(errors(notes)).toEqual([expect.objectContaining({ path: 'spec.sentinelRef' })]);
});

test("the Sentinel's replicas give the addresses", () => {
  const {
    objects: [[cj]],
  } = convertAndRender([shardedRedisBackup(), sentinel({ replicas: 1 })]);
  expect(envOf(cj, 'redis-dump').REDIS_SENTINEL_ADDRESSES).toBe('redis-sentinel-0.default.svc.cluster.local:26379');
});

test('a CRON_TZ= prefix (robfig/cron) becomes timeZone; @every cannot be a CronJob schedule', () => {
  const {
    objects: [[cj]],
  } = convertAndRender([shardedRedisBackup({ schedule: 'CRON_TZ=Europe/Madrid */30 * * * *' }), sentinel()]);
  expect([cronJobSpecOf(cj).schedule, cronJobSpecOf(cj).timeZone]).toEqual(['*/30 * * * *', 'Europe/Madrid']);
  expect(errors(convertAndRender([shardedRedisBackup({ schedule: '@every 30m' }), sentinel()]).notes)).toEqual([
    expect.objectContaining({ path: 'spec.schedule' }),
  ]);
});

test('fields the CronJobs do not need (SSH, the RDB path, polling) get notes, and so do the lifecycle tags', () => {
  const { notes } = convertAndRender([shardedRedisBackup(), sentinel()]);
  expect(notes.map((n) => n.path)).toEqual(['spec.sshOptions', 'spec.dbFile', 'spec.pollInterval', 'spec.s3Options']);
});

test('a bad timeout is an error at spec.timeout', () => {
  expect(errors(convertAndRender([shardedRedisBackup({ timeout: 'soon' }), sentinel()]).notes)).toEqual([
    expect.objectContaining({ path: 'spec.timeout' }),
  ]);
});
