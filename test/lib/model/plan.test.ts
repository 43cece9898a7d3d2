// The plan model: run windows, overlaps by serialization group, node and
// CronJob, and DST changes, all read from the resolved model.
import { resolvePolicy } from '../../../lib';
import * as schedule from '../../../lib/schedule';
import type { BackupPolicy } from '../../../lib';
import { MAX_RUNS_PER_TARGET, planPolicies } from '../../../lib/model/plan';
import { planWarnings } from '../../../lib/model/plan-text';
import { etcdPolicy } from '../engines/etcd/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const FROM = new Date('2026-12-01T00:00:00Z');
const t = (iso: string) => Date.parse(iso);

const plan = (policies: BackupPolicy[], horizon = 3 * DAY, count = 3) =>
  planPolicies(
    policies.map((p) => resolvePolicy(p)),
    { from: FROM, count, horizon },
  );

test('each CronJob: its schedules, window (start + activeDeadlineSeconds), group, node and runs, from the resolved model', () => {
  const policy = etcdPolicy({ mode: 'perNode', nodes: ['a'] }, { defaults: { schedule: '0 3 * * *', timeout: '40m' } });
  const [target] = resolvePolicy(policy).targets;
  const p = plan([policy]);
  expect(p.from).toBe(FROM.getTime());
  expect(p.to).toBe(FROM.getTime() + 3 * DAY);
  expect(p.targets).toEqual([
    {
      policy: 'etcd',
      namespace: 'kube-system',
      name: 'etcd-a',
      component: 'backup',
      schedule: target.schedule,
      suspended: false,
      concurrencyPolicy: 'Forbid',
      windowSeconds: 2400,
      serializationGroup: { name: 'etcd-snapshot', scope: 'cluster', topologyKey: 'kubernetes.io/os' },
      node: 'a',
      next: [1, 2, 3].map((d) => ({ start: t(`2026-12-0${d}T03:00:00Z`), end: t(`2026-12-0${d}T03:40:00Z`) })),
      runs: [1, 2, 3].map((d) => ({ start: t(`2026-12-0${d}T03:00:00Z`), end: t(`2026-12-0${d}T03:40:00Z`) })),
    },
  ]);
  expect(target.schedule).toEqual({
    written: '0 3 * * *',
    resolved: '0 3 * * *',
    timeZone: undefined,
    zone: 'UTC',
  });
});

test('the next runs may reach past the horizon; the runs stop at it', () => {
  const [target] = plan([etcdPolicy({}, { defaults: { schedule: '0 3 * * 1' } })], DAY, 2).targets;
  expect(target.next.map((r) => new Date(r.start).toISOString())).toEqual([
    '2026-12-07T03:00:00.000Z',
    '2026-12-14T03:00:00.000Z',
  ]);
  expect(target.runs).toEqual([]);
});

describe('overlaps', () => {
  test('one serialization group (scope cluster): where two windows overlap, each day, counted and stretched', () => {
    // perNode stagger over 10m: a at :00, b at :05; 15m windows overlap from :05 to :15
    const p = plan([
      etcdPolicy(
        { mode: 'perNode', nodes: ['a', 'b'] },
        { defaults: { schedule: '0 3 * * *', stagger: { window: '10m' } } },
      ),
    ]);
    expect(p.targets.map((x) => x.schedule.resolved)).toEqual(['0 3 * * *', '5 3 * * *']);
    expect(p.overlaps).toEqual([
      {
        reason: 'group',
        targets: [0, 1],
        count: 3,
        first: [
          { start: t('2026-12-01T03:00:00Z'), end: t('2026-12-01T03:15:00Z') },
          { start: t('2026-12-01T03:05:00Z'), end: t('2026-12-01T03:20:00Z') },
        ],
        stretches: [1, 2, 3].map((d) => ({ start: t(`2026-12-0${d}T03:05:00Z`), end: t(`2026-12-0${d}T03:15:00Z`) })),
      },
    ]);
  });

  test('windows that only touch do not overlap', () => {
    const p = plan([
      etcdPolicy(
        { mode: 'perNode', nodes: ['a', 'b'] },
        { defaults: { schedule: '0 3 * * *', stagger: { window: '30m' }, timeout: '15m' } },
      ),
    ]);
    expect(p.targets.map((x) => x.schedule.resolved)).toEqual(['0 3 * * *', '15 3 * * *']);
    expect(p.overlaps).toEqual([]);
  });

  test('scope node: pods pinned to different nodes never meet; unpinned ones may', () => {
    const group = { placement: { serializationGroup: { name: 'g', scope: 'node' } } };
    expect(
      plan([etcdPolicy({ mode: 'perNode', nodes: ['a', 'b'] }, { defaults: { schedule: '0 3 * * *', ...group } })])
        .overlaps,
    ).toEqual([]);
    const unpinned = vitessPolicy(
      {
        schedules: [
          { name: 'daily', schedule: '0 2 * * *', strategies: [{ keyspace: 'commerce', shards: ['-80', '80-'] }] },
        ],
      },
      { defaults: group },
    );
    const p = plan([unpinned]);
    expect(p.overlaps.map((o) => [o.reason, o.targets, o.count])).toEqual([['group', [0, 1], 3]]);
  });

  test('one group name, one of the two cluster-wide: they never meet on any node (each pod’s anti-affinity holds for the other)', () => {
    const on = (node: string, scope: 'node' | 'cluster') =>
      etcdPolicy(
        { mode: 'perNode', nodes: [{ name: node, placement: { serializationGroup: { name: 'g', scope } } }] },
        { defaults: { schedule: '0 3 * * *' } },
        `etcd-${node}`,
      );
    expect(plan([on('a', 'cluster'), on('b', 'node')]).overlaps.map((o) => [o.reason, o.targets])).toEqual([
      ['group', [0, 1]],
    ]);
    expect(plan([on('a', 'node'), on('b', 'node')]).overlaps).toEqual([]);
  });

  test('one node, different groups: reason node', () => {
    const on = (name: string, group: string) =>
      etcdPolicy(
        { mode: 'perNode', nodes: ['cp-1'] },
        { defaults: { schedule: '0 3 * * *', placement: { serializationGroup: { name: group, scope: 'cluster' } } } },
        name,
      );
    const p = plan([on('one', 'g1'), on('two', 'g2')], DAY);
    expect(p.overlaps.map((o) => [o.reason, o.targets.map((i) => p.targets[i].name)])).toEqual([
      ['node', ['one-cp-1', 'two-cp-1']],
    ]);
    expect(planWarnings(p)).toEqual([
      {
        kind: 'overlap',
        message:
          'kube-system/one-cp-1 and kube-system/two-cp-1, both on node cp-1: 1 pair of runs overlaps (first 2026-12-01T03:00Z–03:15Z and 2026-12-01T03:00Z–03:15Z); they load the node at the same time',
      },
    ]);
  });

  test('a window longer than the time to the next run: reason self, with what the concurrency policy does', () => {
    const p = plan([etcdPolicy({}, { defaults: { schedule: '*/10 * * * *', timeout: '25m' } })], HOUR);
    // runs at :10 … :50 (from is excluded): each overlaps the next two, the last two have fewer partners
    expect(p.overlaps.map((o) => [o.reason, o.targets, o.count])).toEqual([['self', [0, 0], 7]]);
    // the overlaps run from the second start (00:20) until the next-to-last run ends (00:40 + 25m)
    expect(p.overlaps[0].stretches).toEqual([{ start: t('2026-12-01T00:20:00Z'), end: t('2026-12-01T01:05:00Z') }]);
    expect(planWarnings(p)[0].message).toBe(
      'kube-system/etcd: a run may take 25m (its timeout), longer than the time to the next one: 7 pairs of runs overlap ' +
        '(first 2026-12-01T00:10Z–00:35Z and 2026-12-01T00:20Z–00:45Z); concurrencyPolicy Forbid skips a run while the previous one is still going',
    );
  });

  test('suspended CronJobs have no runs and overlap nothing', () => {
    const p = plan([
      etcdPolicy({ mode: 'perNode', nodes: ['a', 'b'] }, { defaults: { schedule: '0 3 * * *', suspend: true } }),
    ]);
    expect(p.targets.map((x) => [x.suspended, x.next, x.runs])).toEqual([
      [true, [], []],
      [true, [], []],
    ]);
    expect(p.overlaps).toEqual([]);
  });
});

test('DST: a local time the schedule names that a change skips or repeats, within the horizon only', () => {
  const berlin = etcdPolicy({}, { defaults: { schedule: '30 2 * * *', timeZone: 'Europe/Berlin' } });
  const p = planPolicies([resolvePolicy(berlin)], {
    from: new Date('2026-03-28T00:00:00Z'),
    count: 1,
    horizon: 2 * DAY,
  });
  expect(p.dst).toEqual([
    {
      ...schedule.dstAmbiguities('30 2 * * *', 'Europe/Berlin', new Date(p.from), new Date(p.to))[0],
      target: 0,
      timeZone: 'Europe/Berlin',
    },
  ]);
  expect(planWarnings(p)).toEqual([
    {
      kind: 'dst',
      message:
        'kube-system/etcd: 02:30 local time does not exist in Europe/Berlin on 2026-03-29 (clocks go from 02:00 to 03:00): that run is skipped',
    },
  ]);
  const autumn = planPolicies([resolvePolicy(berlin)], {
    from: new Date('2026-10-24T00:00:00Z'),
    count: 1,
    horizon: 2 * DAY,
  });
  expect(planWarnings(autumn).map((w) => w.message)).toEqual([
    'kube-system/etcd: 02:30 local time occurs twice in Europe/Berlin on 2026-10-25 (clocks go back from 03:00 to 02:00): it runs once, at the first (00:30Z)',
  ]);
  expect(
    planPolicies([resolvePolicy(berlin)], { from: new Date('2026-04-01T00:00:00Z'), count: 1, horizon: 30 * DAY }).dst,
  ).toEqual([]);
});

test('collisions given by the caller come first among the warnings', () => {
  const p = plan([etcdPolicy()], DAY);
  expect(planWarnings(p, ['CronJob.batch kube-system/etcd is rendered by both a and b'])).toEqual([
    { kind: 'collision', message: 'CronJob.batch kube-system/etcd is rendered by both a and b' },
  ]);
});

test(`more than ${MAX_RUNS_PER_TARGET} runs of one CronJob within the horizon is refused`, () => {
  expect(() => plan([etcdPolicy({}, { defaults: { schedule: '* * * * *' } })], 70 * DAY)).toThrow(
    `runs more than ${MAX_RUNS_PER_TARGET} times`,
  );
});
