// The operator's strategy expansion and schedule checks, after its own tests (vitess.md §4.1:
// expand_strategy_test.go, reconcile_strategy_test.go, vitessbackupschedule_methods_test.go).
import type { Manifest } from '../../../lib';
import { cluster, convertAndRender, errors } from './fixtures';

type Strategy = Record<string, unknown>;
type Schedule = { name: string; schedule?: string; frequency?: string; suspend?: boolean; strategies: Strategy[] };

/** Cluster example with commerce (1 shard) and customer (2 shards) and these schedules. */
function run(...schedules: Schedule[]) {
  const c = cluster(
    'example',
    { commerce: 1, customer: 2 },
    { backup: { locations: [{ volume: { persistentVolumeClaim: { claimName: 'b' } } }], schedules } },
  );
  return convertAndRender([c]);
}

/** keyspace/shard of every CronJob of schedule `name` (its policy schedule label). */
function targetsOf(objects: Manifest[], name: string): string[] {
  return objects
    .map((o) => {
      if (!o.metadata.labels) throw new Error(`${o.metadata.name} has no labels`);
      return o.metadata.labels;
    })
    .filter((labels) => labels['backup-cronjobs.io/schedule'] === name)
    .map((labels) => `${labels['planetscale.com/keyspace']}/${labels['planetscale.com/shard']}`);
}

const cron = (name: string, strategies: Strategy[], extra: Partial<Schedule> = {}): Schedule => ({
  name,
  schedule: '0 1 * * *',
  strategies,
  ...extra,
});

test('Shard scope (also the empty scope) is taken as is', () => {
  const {
    objects: [objects],
  } = run(
    cron('a', [
      { name: 's', keyspace: 'customer', shard: '-80' },
      { name: 't', scope: 'Shard', keyspace: 'commerce', shard: '-' },
    ]),
  );
  expect(targetsOf(objects, 'a')).toEqual(['customer/x-80', 'commerce/x-x']);
});

test('Keyspace scope: every shard of the keyspace', () => {
  const {
    objects: [objects],
  } = run(cron('a', [{ name: 'k', scope: 'Keyspace', keyspace: 'customer' }]));
  expect(targetsOf(objects, 'a')).toEqual(['customer/x-80', 'customer/80-x']);
});

test('Cluster scope: every shard of every keyspace, keyspaces by name', () => {
  const {
    objects: [objects],
  } = run(cron('a', [{ name: 'all', scope: 'Cluster' }]));
  expect(targetsOf(objects, 'a')).toEqual(['commerce/x-x', 'customer/x-80', 'customer/80-x']);
});

test('a Keyspace strategy of another schedule takes its keyspace out of a Cluster strategy', () => {
  const {
    objects: [objects],
  } = run(
    cron('a', [{ name: 'all', scope: 'Cluster' }]),
    cron('b', [{ name: 'k', scope: 'Keyspace', keyspace: 'customer' }]),
  );
  expect(targetsOf(objects, 'a')).toEqual(['commerce/x-x']);
  expect(targetsOf(objects, 'b')).toEqual(['customer/x-80', 'customer/80-x']);
});

test('...and one of the same schedule too (SelfAutoExclusion)', () => {
  const {
    objects: [objects],
  } = run(
    cron('a', [
      { name: 'all', scope: 'Cluster' },
      { name: 'k', scope: 'Keyspace', keyspace: 'customer' },
    ]),
  );
  expect(targetsOf(objects, 'a').sort()).toEqual(['commerce/x-x', 'customer/80-x', 'customer/x-80']);
});

test.each([
  ['suspended', cron('b', [{ name: 'k', scope: 'Keyspace', keyspace: 'customer' }], { suspend: true })],
  [
    'with both schedule and frequency',
    cron('b', [{ name: 'k', scope: 'Keyspace', keyspace: 'customer' }], { frequency: '24h' }),
  ],
  ['with an invalid strategy', cron('b', [{ name: 'k', scope: 'Keyspace', keyspace: 'customer', shard: '-80' }])],
  [
    'with a duplicate target',
    cron('b', [
      { name: 'k', scope: 'Keyspace', keyspace: 'customer' },
      { name: 's', keyspace: 'customer', shard: '-80' },
    ]),
  ],
])('a peer %s excludes nothing', (_why, peer) => {
  const {
    objects: [objects],
  } = run(cron('a', [{ name: 'all', scope: 'Cluster' }]), peer);
  expect(targetsOf(objects, 'a')).toEqual(['commerce/x-x', 'customer/x-80', 'customer/80-x']);
});

test('Shard strategies of other schedules exclude nothing, and the same target in two schedules is allowed', () => {
  const {
    notes,
    objects: [objects],
  } = run(cron('a', [{ name: 'all', scope: 'Cluster' }]), cron('b', [{ name: 's', keyspace: 'commerce', shard: '-' }]));
  expect(errors(notes)).toEqual([]);
  expect(targetsOf(objects, 'a')).toEqual(['commerce/x-x', 'customer/x-80', 'customer/80-x']);
  expect(targetsOf(objects, 'b')).toEqual(['commerce/x-x']);
});

test('a Cluster strategy and commerce/- in one schedule: the operator refuses the schedule ("duplicate effective shard target")', () => {
  const { notes } = run(
    cron('a', [
      { name: 'all', scope: 'Cluster' },
      { name: 'c', keyspace: 'commerce', shard: '-' },
    ]),
  );
  expect(errors(notes)).toEqual([
    {
      level: 'error',
      object: 'VitessCluster example/example',
      path: 'spec.backup.schedules[0].strategies[1]',
      message:
        'duplicate effective shard target commerce/- in strategies "all-commerce-x-x" and "c"; the operator refuses the whole schedule: list each shard once',
    },
  ]);
});

test.each([
  [
    { schedule: '0 1 * * *', frequency: '24h' },
    'spec.backup.schedules[0].frequency',
    'schedule and frequency are both set',
  ],
  [{}, 'spec.backup.schedules[0]', 'neither schedule nor frequency is set'],
  [{ frequency: '90m' }, 'spec.backup.schedules[0].frequency', 'must be a whole number of hours that divides 24h'],
  [{ frequency: '45m' }, 'spec.backup.schedules[0].frequency', 'does not divide 1h evenly'],
  [{ frequency: '48h' }, 'spec.backup.schedules[0].frequency', 'longer than 24h'],
  [{ frequency: '30s' }, 'spec.backup.schedules[0].frequency', 'shorter than 1m'],
])("the operator's schedule checks: %j", (timing, path, message) => {
  const { notes } = run({ name: 'a', ...timing, strategies: [{ name: 's', keyspace: 'commerce', shard: '-' }] });
  expect(errors(notes)).toEqual([
    expect.objectContaining({ path, message: expect.stringContaining(message) as unknown }),
  ]);
});

test.each([
  [{ name: 's', keyspace: 'commerce' }, 'strategies[0].shard', 'required for Shard scope'],
  [{ name: 's', scope: 'Keyspace' }, 'strategies[0].keyspace', 'required for Keyspace scope'],
  [
    { name: 's', scope: 'Cluster', keyspace: 'commerce' },
    'strategies[0].keyspace',
    'must not be set for Cluster scope',
  ],
  [{ name: 's', keyspace: 'commerce', shard: '80' }, 'strategies[0].shard', 'a shard is a key range'],
  [{ name: 's', scope: 'Everything' }, 'strategies[0].scope', 'the operator knows Shard, Keyspace and Cluster'],
])("the operator's strategy checks: %j", (strategy, path, message) => {
  const { notes } = run(cron('a', [strategy]));
  expect(errors(notes)).toEqual([
    expect.objectContaining({
      path: `spec.backup.schedules[0].${path}`,
      message: expect.stringContaining(message) as unknown,
    }),
  ]);
});

test('a shard that is not in the cluster: the operator fails with "unable to find shard"', () => {
  const { notes } = run(cron('a', [{ name: 's', keyspace: 'commerce', shard: '-80' }]));
  expect(errors(notes)).toEqual([
    expect.objectContaining({
      path: 'spec.backup.schedules[0].strategies[0]',
      message: expect.stringContaining('unable to find shard') as unknown,
    }),
  ]);
});
