// A VitessBackupSchedule's timing and Job settings through convert and synth: the operator's frequency
// crons (vitess.md §4.4 vectors), suspend, timeout, history, concurrency, tolerations, and the notes
// for fields without an equivalent (§1.2).
import { SCHEDULE_FIELDS, STRATEGY_FIELDS } from '../../../lib/convert/vitess-schedules';
import { cronJobSpecOf, jobSpecOf, podSpecOf, podTemplateOf } from '../../support/kube';
import { backupSchedule, cluster, convertAndRender, errors, unwrapped } from './fixtures';

/** Cluster `name` with these keyspaces and one VitessBackupSchedule `s` with this spec. */
function run(name: string, keyspaces: Record<string, number>, spec: Record<string, unknown>) {
  return convertAndRender([cluster(name, keyspaces), backupSchedule('s', name, spec)]);
}

test.each([
  ['24h', 'cluster1', 'commerce', 2, '-80', 'daily', '15 19 * * *'],
  ['30m', 'cluster1', 'ks1', 1, '-', 'sched1', '18/30 * * * *'],
  ['1h', 'cluster1', 'ks1', 1, '-', 'sched1', '48 * * * *'],
  ['6h', 'cluster1', 'ks1', 1, '-', 'sched1', '48 0/6 * * *'],
  ['24h', 'cluster1', 'ks1', 1, '-', 'sched1', '48 0 * * *'],
  ['1m', 'c', 'ks1', 1, '-', 'any', '0/1 * * * *'],
])(
  "frequency %s, cluster %s, keyspace %s of %i shard(s), shard %s, Shard strategy %s: the operator's cron %s (§4.4)",
  (frequency, clusterName, keyspace, parts, shard, strategy, expected) => {
    const {
      notes,
      objects: [[cj]],
    } = run(clusterName, { [keyspace]: parts }, { frequency, strategies: [{ name: strategy, keyspace, shard }] });
    expect(errors(notes)).toEqual([]);
    expect(cronJobSpecOf(cj).schedule).toBe(expected);
  },
);

test('a Shard-scope frequency schedule with two shards: one schedule per cron, named after the strategies', () => {
  const {
    yaml,
    objects: [objects],
  } = run(
    'cluster1',
    { commerce: 2 },
    {
      frequency: '24h',
      strategies: [
        { name: 'daily', keyspace: 'commerce', shard: '-80' },
        { name: 'daily_b', keyspace: 'commerce', shard: '80-' },
      ],
    },
  );
  expect(objects.map((o) => o.metadata.name)).toEqual([
    'cluster1-daily-commerce-x-80',
    'cluster1-daily-b-commerce-80-x',
  ]);
  expect(unwrapped(yaml[0])).toContain(
    '# The operator\'s cron for frequency 24h of commerce/-80 (sha256 of "cluster1|commerce|-80|daily").',
  );
});

test('suspend, concurrencyPolicy, startingDeadlineSeconds and the history limits map to the CronJob', () => {
  const {
    objects: [[cj]],
  } = run(
    'example',
    { commerce: 1 },
    {
      schedule: '0 2 * * *',
      suspend: true,
      concurrencyPolicy: 'Allow',
      startingDeadlineSeconds: 120,
      successfulJobsHistoryLimit: 0,
      failedJobsHistoryLimit: 7,
      strategies: [{ name: 's', keyspace: 'commerce', shard: '-' }],
    },
  );
  const spec = cronJobSpecOf(cj);
  expect([
    spec.suspend,
    spec.concurrencyPolicy,
    spec.startingDeadlineSeconds,
    spec.successfulJobsHistoryLimit,
    spec.failedJobsHistoryLimit,
  ]).toEqual([true, 'Allow', 120, 0, 7]);
});

test("without jobTimeoutMinute, the operator's default 10 minutes; without history limits, 3 and a comment why", () => {
  const {
    yaml,
    objects: [[cj]],
  } = run(
    'example',
    { commerce: 1 },
    { schedule: '0 2 * * *', strategies: [{ name: 's', keyspace: 'commerce', shard: '-' }] },
  );
  expect(jobSpecOf(cj).activeDeadlineSeconds).toBe(600);
  expect([cronJobSpecOf(cj).successfulJobsHistoryLimit, cronJobSpecOf(cj).failedJobsHistoryLimit]).toEqual([3, 3]);
  expect(unwrapped(yaml[0])).toContain(
    'No successfulJobsHistoryLimit or failedJobsHistoryLimit: the operator keeps every such Job (and its PVC); a CronJob keeps 3 here.',
  );
  expect(unwrapped(yaml[0])).toContain("# jobTimeoutMinute unset: the operator's default 10;");
});

test("the schedule's tolerations replace the pool's; an empty list clears them (§1.2)", () => {
  const withTolerations = (tolerations: unknown) => {
    const c = cluster('example', { commerce: 1 });
    c.spec.keyspaces[0].partitionings[0].equal!.shardTemplate.tabletPools[0].tolerations = [
      { key: 'pool', operator: 'Exists' },
    ];
    const {
      objects: [[cj]],
    } = convertAndRender([
      c,
      backupSchedule('s', 'example', {
        schedule: '0 2 * * *',
        tolerations,
        strategies: [{ name: 's', keyspace: 'commerce', shard: '-' }],
      }),
    ]);
    return (podSpecOf(cj).tolerations ?? []).map((t) => t.key);
  };
  expect(withTolerations(undefined)).toEqual(['pool']);
  expect(withTolerations([{ key: 'sched', operator: 'Exists' }])).toEqual(['sched']);
  expect(withTolerations([])).toEqual([]);
});

test("the schedule's annotations go on the pods", () => {
  const {
    objects: [[cj]],
  } = run(
    'example',
    { commerce: 1 },
    {
      schedule: '0 2 * * *',
      annotations: { 'example.com/team': 'db' },
      strategies: [{ name: 's', keyspace: 'commerce', shard: '-' }],
    },
  );
  expect(podTemplateOf(cj).metadata?.annotations).toMatchObject({ 'example.com/team': 'db' });
});

test('fields without an equivalent are converted as well as they can be, each with a note naming it', () => {
  const {
    notes,
    objects: [[cj]],
  } = run(
    'example',
    { commerce: 1 },
    {
      schedule: '0 2 * * *',
      backupMethod: 'vtctldclient',
      allowedMissedRun: 5,
      affinity: { nodeAffinity: {} },
      strategies: [{ name: 's', keyspace: 'commerce', shard: '-', extraFlags: { concurrency: '4' } }],
    },
  );
  expect(podSpecOf(cj).containers.map((c) => c.name)).toEqual(['vtbackup']);
  expect(notes.map((n) => [n.level, n.object, n.path])).toEqual([
    ['note', 'VitessBackupSchedule example/s', 'spec.backupMethod'],
    ['note', 'VitessBackupSchedule example/s', 'spec.allowedMissedRun'],
    ['note', 'VitessBackupSchedule example/s', 'spec.affinity'],
    ['note', 'VitessBackupSchedule example/s', 'spec.strategies[0].extraFlags'],
  ]);
});

describe('every field of a VitessBackupSchedule is carried over or noted with the reason', () => {
  // vitess.md §1.2 (VitessBackupScheduleSpec = the template + cluster, image, imagePullPolicy) and §1.3 (strategies)
  const SPEC_FIELDS = [
    'name',
    'cluster',
    'schedule',
    'frequency',
    'backupMethod',
    'strategies',
    'resources',
    'successfulJobsHistoryLimit',
    'failedJobsHistoryLimit',
    'suspend',
    'startingDeadlineSeconds',
    'concurrencyPolicy',
    'allowedMissedRun',
    'jobTimeoutMinute',
    'annotations',
    'affinity',
    'tolerations',
    'image',
    'imagePullPolicy',
  ];
  const STRATEGY = ['name', 'scope', 'keyspace', 'shard', 'extraFlags'];

  test("the module's lists are exactly the reference's fields", () => {
    expect([...SCHEDULE_FIELDS.carried, ...SCHEDULE_FIELDS.noted].sort()).toEqual([...SPEC_FIELDS].sort());
    expect([...STRATEGY_FIELDS.carried, ...STRATEGY_FIELDS.noted].sort()).toEqual([...STRATEGY].sort());
  });

  test('with every field set: each field it does not carry over has a note (resources included); an unknown field is noted too', () => {
    const spec = {
      schedule: '0 2 * * *',
      backupMethod: 'vtbackup',
      resources: { requests: { cpu: '100m', memory: '64Mi' } },
      successfulJobsHistoryLimit: 1,
      failedJobsHistoryLimit: 1,
      suspend: false,
      startingDeadlineSeconds: 60,
      concurrencyPolicy: 'Forbid',
      allowedMissedRun: 5,
      jobTimeoutMinute: 30,
      annotations: { a: 'b' },
      affinity: { nodeAffinity: {} },
      tolerations: [{ key: 'k', operator: 'Exists' }],
      image: 'vitess/vtctldclient:v21',
      imagePullPolicy: 'Always',
      futureField: 1,
      strategies: [{ name: 's', scope: 'Shard', keyspace: 'commerce', shard: '-', extraFlags: { a: 'b' }, weight: 2 }],
    };
    const {
      notes,
      objects: [[cj]],
    } = run('example', { commerce: 1 }, spec);
    expect(errors(notes)).toEqual([]);
    const noted = notes.filter((n) => n.object.startsWith('VitessBackupSchedule')).map((n) => n.path);
    expect(noted).toEqual(
      expect.arrayContaining([
        ...SCHEDULE_FIELDS.noted.filter((f) => f !== 'imagePullPolicy').map((f) => `spec.${f}`),
        'spec.futureField',
        'spec.strategies[0].extraFlags',
        'spec.strategies[0].weight',
      ]),
    );
    expect(notes.find((n) => n.path === 'spec.resources')!.message).toMatch(
      /^not carried over: the operator gives a schedule's resources only to the vtctldclient container; its vtbackup pods take the first tablet pool's mysqld\.resources/,
    );
    // the carried ones reach the CronJob
    const s = cronJobSpecOf(cj);
    expect([
      s.schedule,
      s.successfulJobsHistoryLimit,
      s.failedJobsHistoryLimit,
      s.suspend,
      s.startingDeadlineSeconds,
      s.concurrencyPolicy,
      jobSpecOf(cj).activeDeadlineSeconds,
    ]).toEqual(['0 2 * * *', 1, 1, false, 60, 'Forbid', 1800]);
    expect(podSpecOf(cj).tolerations?.map((t) => t.key)).toEqual(['k']);
    expect(podTemplateOf(cj).metadata?.annotations).toMatchObject({ a: 'b' });
  });
});
