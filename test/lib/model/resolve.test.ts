// The keys users name targets and Jobs by (the handles of the constructs and components).
import { objectByKey, objectKeys, resolvePolicy } from '../../../lib/internal';
import { etcdPolicy } from '../engines/etcd/fixtures';
import { redisPolicy } from '../engines/redis/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';

const PRUNE = { retention: { keepLast: 3, schedule: '0 5 * * *' } };

describe('objectKeys', () => {
  test('Redis: backup and prune CronJobs by shard', () => {
    const keys = objectKeys(resolvePolicy(redisPolicy({}, PRUNE)));
    expect([...keys.backups]).toEqual([
      ['shard01', 'redis-shard01'],
      ['shard02', 'redis-shard02'],
    ]);
    expect([...keys.prunes]).toEqual([
      ['shard01', 'redis-shard01-prune'],
      ['shard02', 'redis-shard02-prune'],
    ]);
  });

  test('Vitess: backups by <schedule>/<keyspace>/<shard> with the shard as written, prunes by <keyspace>/<shard>', () => {
    const keys = objectKeys(
      resolvePolicy(
        vitessPolicy(
          {
            schedules: [
              { name: 'daily', schedule: '0 2 * * *', strategies: [{ keyspace: 'customer', shards: ['-80', '80-'] }] },
              { name: 'weekly', schedule: '0 3 * * 0', strategies: [{ keyspace: 'customer', shards: ['-80'] }] },
            ],
          },
          PRUNE,
        ),
      ),
    );
    expect([...keys.backups]).toEqual([
      ['daily/customer/-80', 'example-daily-customer-x-80'],
      ['daily/customer/80-', 'example-daily-customer-80-x'],
      ['weekly/customer/-80', 'example-weekly-customer-x-80'],
    ]);
    expect([...keys.prunes]).toEqual([
      ['customer/-80', 'example-prune-customer-x-80'],
      ['customer/80-', 'example-prune-customer-80-x'],
    ]);
  });

  test('etcd: by node in perNode mode, "cluster" in cluster mode', () => {
    const perNode = objectKeys(resolvePolicy(etcdPolicy({ mode: 'perNode', nodes: ['cp-1', 'cp-2'] })));
    expect([...perNode.backups]).toEqual([
      ['cp-1', 'etcd-cp-1'],
      ['cp-2', 'etcd-cp-2'],
    ]);
    const cluster = objectKeys(
      resolvePolicy(etcdPolicy({ destination: { persistentVolumeClaim: { claimName: 'snapshots' } } }, PRUNE)),
    );
    expect([...cluster.backups]).toEqual([['cluster', 'etcd']]);
    expect([...cluster.prunes]).toEqual([['cluster', 'etcd-prune']]);
  });
});

describe('objectByKey', () => {
  const objects = new Map([
    ['shard01', 1],
    ['shard02', 2],
  ]);

  test('finds by key; without a key, the only object', () => {
    expect(objectByKey(objects, 'shard02', 'x')).toBe(2);
    expect(objectByKey(new Map([['cluster', 7]]), undefined, 'x')).toBe(7);
  });

  test('an unknown key names the keys there are and the likely one', () => {
    expect(() => objectByKey(objects, 'shard1', 'test/cache: backup CronJob')).toThrow(
      'test/cache: backup CronJob: no key "shard1" (did you mean "shard01"?); keys: "shard01", "shard02"',
    );
    expect(() => objectByKey(new Map<string, number>(), 'a', 'x: restore Job')).toThrow(
      'x: restore Job: no key "a"; there is none',
    );
  });

  test('no key with several objects, or none, is an error saying so', () => {
    expect(() => objectByKey(objects, undefined, 'x')).toThrow('x: there are 2, name one (keys: "shard01", "shard02")');
    expect(() => objectByKey(new Map<string, number>(), undefined, 'x')).toThrow('x: there is none');
  });
});

describe('one priority per serialization group', () => {
  // On the real kube-scheduler a pending pod of a group preempts a running one of lower priority
  // (test/kube/scheduling.test.ts): the model refuses a group whose pods would run at two priorities.
  const GROUP = { placement: { serializationGroup: { name: 'vt', scope: 'node' } } };
  const schedules = (weeklyPod?: Record<string, unknown>) => [
    { name: 'daily', schedule: '0 2 * * *', strategies: [{ keyspace: 'customer', shards: ['-80'] }] },
    {
      name: 'weekly',
      schedule: '0 3 * * 0',
      ...(weeklyPod ? { pod: weeklyPod } : {}),
      strategies: [{ keyspace: 'customer', shards: ['80-'] }],
    },
  ];

  test('two priorities in one group are refused at the level that sets the other one', () => {
    expect(() =>
      resolvePolicy(vitessPolicy({ schedules: schedules({ priorityClassName: 'high' }) }, { defaults: GROUP })),
    ).toThrow(
      'spec.vitess.schedules[1].pod.priorityClassName: CronJob example-weekly-customer-80-x would run at priorityClassName "high", ' +
        'and example-daily-customer-x-80 of the same serialization group "vt" at none (the cluster default)',
    );
  });

  test('one priority for the whole group, or groups of their own, are accepted', () => {
    const everywhere = { defaults: { ...GROUP, pod: { priorityClassName: 'high' } } };
    expect(() => resolvePolicy(vitessPolicy({ schedules: schedules() }, everywhere))).not.toThrow();
    expect(() => resolvePolicy(vitessPolicy({ schedules: schedules({ priorityClassName: 'high' }) }))).not.toThrow();
  });

  test('etcd: the prune and defragmentation pods share the snapshots’ system-node-critical', () => {
    const r = resolvePolicy(
      etcdPolicy(
        { mode: 'perNode', nodes: ['cp-1', 'cp-2'], defragmentation: { schedule: '30 3 * * 0' } },
        { retention: { keepLast: 3, schedule: '0 5 * * *' } },
      ),
    );
    const grouped = r.targets.filter((t) => t.serializationGroup);
    expect(new Set(grouped.map((t) => t.component))).toEqual(new Set(['backup', 'retention-prune', 'maintenance']));
    expect(new Set(grouped.map((t) => t.pod.priorityClassName))).toEqual(new Set(['system-node-critical']));
  });
});
