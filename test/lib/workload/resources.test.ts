// Container resources: every container's default (per step), the policy's overrides (pod.resources for
// the main containers, pod.containerResources per container, each resource on its own and across levels),
// requests against limits, and the errors for what cannot be resolved.
import { readFileSync } from 'fs';
import { join } from 'path';
import { parse } from 'yaml';
import { renderPolicy } from '../../../lib';
import type { Manifest } from '../../../lib';
import { STEP_RESOURCES, resolveResources, withResources } from '../../../lib/workload/resources';
import { etcdPolicy, problems } from '../engines/etcd/fixtures';
import { redisPolicy } from '../engines/redis/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { containersWithoutResources, podSpecOf } from '../../support/resources';
import type { V1ResourceRequirements } from '@kubernetes/client-node';

/** `<object>/<container>` → resources, for every container of every workload. */
function resourcesOf(objects: readonly Manifest[]): Record<string, V1ResourceRequirements | undefined> {
  const out: Record<string, V1ResourceRequirements | undefined> = {};
  for (const o of objects) {
    const pod = podSpecOf(o);
    if (!pod) continue;
    for (const c of [...(pod.initContainers ?? []), ...pod.containers])
      out[`${o.metadata.name}/${c.name}`] = c.resources;
  }
  return out;
}

const S3 = { s3: { bucket: 'backups', region: 'us-east-1' } };
const AGE = {
  encryption: {
    age: { recipients: ['age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p'], image: 'ghcr.io/x/age:1' },
  },
};

describe('defaults: one profile per step', () => {
  test('etcd PVC: busybox, etcdctl, shell steps; the prune and the drill', () => {
    const objects = renderPolicy(
      etcdPolicy(
        { destination: { persistentVolumeClaim: { claimName: 'etcd-backups' } } },
        { retention: { keepLast: 3, schedule: '0 5 * * *' }, drill: { schedule: '0 6 * * *' } },
      ),
    );
    expect(resourcesOf(objects)).toEqual({
      'etcd/tools': STEP_RESOURCES.shell,
      'etcd/snapshot': STEP_RESOURCES.etcdSnapshot,
      'etcd/finalize': STEP_RESOURCES.shell,
      'etcd-prune/retention-prune': STEP_RESOURCES.shell,
      'etcd-drill/fetch': STEP_RESOURCES.shell,
      'etcd-drill/tools': STEP_RESOURCES.shell,
      'etcd-drill/restore': STEP_RESOURCES.etcdRestore,
      'etcd-drill/report': STEP_RESOURCES.shell,
    });
  });

  test('etcd S3 with encryption: the aws CLI steps and age', () => {
    const objects = renderPolicy(
      etcdPolicy({ destination: S3 }, { ...AGE, retention: { keepLast: 3, schedule: '0 5 * * *' } }),
    );
    expect(resourcesOf(objects)).toEqual({
      'etcd/tools': STEP_RESOURCES.shell,
      'etcd/snapshot': STEP_RESOURCES.etcdSnapshot,
      'etcd/encrypt': STEP_RESOURCES.age,
      'etcd/finalize': STEP_RESOURCES.awsCli,
      'etcd-prune/retention-prune': STEP_RESOURCES.awsCli,
    });
  });

  test('Redis backup, prune and drill', () => {
    const age = { ...AGE.encryption.age, identitySecret: { name: 'age-identity', key: 'identity' } };
    const objects = renderPolicy(
      redisPolicy(
        { shards: [{ name: 'shard01' }] },
        { encryption: { age }, retention: { keepLast: 3, schedule: '0 5 * * *' }, drill: { schedule: '0 6 * * *' } },
      ),
    );
    expect(resourcesOf(objects)).toMatchObject({
      'redis-shard01/redis-dump': STEP_RESOURCES.redisDump,
      'redis-shard01/age-encrypt': STEP_RESOURCES.age,
      'redis-shard01/s3-upload': STEP_RESOURCES.awsCli,
      'redis-shard01-prune/retention-prune': STEP_RESOURCES.awsCli,
      'redis-shard01-drill/fetch': STEP_RESOURCES.awsCli,
      'redis-shard01-drill/decrypt': STEP_RESOURCES.age,
      'redis-shard01-drill/restore': STEP_RESOURCES.redisRestore,
      'redis-shard01-drill/report': STEP_RESOURCES.shell,
    });
  });

  test("Vitess: init-vt-root, vtbackup (the operator's mysqld example), the vtctldclient prune", () => {
    const objects = renderPolicy(vitessPolicy({}, { retention: { keepLast: 3, schedule: '0 5 * * *' } }));
    expect(resourcesOf(objects)).toEqual({
      'example-daily-commerce-x-x/init-vt-root': STEP_RESOURCES.shell,
      'example-daily-commerce-x-x/vtbackup': STEP_RESOURCES.vtbackup,
      'example-prune-commerce-x-x/retention-prune': STEP_RESOURCES.vtctldclient,
    });
  });

  test("a container an engine gives no resources gets a shell step's, under the policy's overrides", () => {
    const c = { name: 'backup', image: 'busybox' };
    expect(withResources(c, {}, true).resources).toEqual(STEP_RESOURCES.shell);
    expect(withResources(c, { resources: { limits: { memory: '1Gi' } } }, true).resources).toEqual({
      ...STEP_RESOURCES.shell,
      limits: { memory: '1Gi' },
    });
  });

  test('every profile requests cpu and memory and limits memory at or above its request, and nothing else', () => {
    for (const [name, p] of Object.entries(STEP_RESOURCES)) {
      expect({ name, keys: [Object.keys(p.requests), Object.keys(p.limits)] }).toEqual({
        name,
        keys: [['cpu', 'memory'], ['memory']],
      });
      expect({ name, conflicts: resolveResources(p, {}).conflicts }).toEqual({ name, conflicts: [] });
    }
  });
});

describe('overrides', () => {
  const vitess = (spec: Record<string, unknown>, schedule: Record<string, unknown> = {}) =>
    renderPolicy(
      vitessPolicy(
        {
          schedules: [
            {
              name: 'daily',
              schedule: '0 2 * * *',
              strategies: [{ keyspace: 'commerce', shards: ['-'] }],
              ...schedule,
            },
          ],
        },
        spec,
      ),
    );
  const backup = (objects: Manifest[]) => resourcesOf(objects);

  test('pod.resources: the main containers only, resource by resource over the default', () => {
    const r = backup(vitess({ defaults: { pod: { resources: { requests: { cpu: '2' } } } } }));
    expect(r['example-daily-commerce-x-x/vtbackup']).toEqual({
      requests: { cpu: '2', memory: '512Mi' },
      limits: { memory: '1Gi' },
    });
    expect(r['example-daily-commerce-x-x/init-vt-root']).toEqual(STEP_RESOURCES.shell);
  });

  test('levels merge resource by resource: spec.defaults, then the schedule', () => {
    const r = backup(
      vitess(
        { defaults: { pod: { resources: { requests: { cpu: '2' }, limits: { memory: '3Gi' } } } } },
        { pod: { resources: { requests: { memory: '2Gi' } } } },
      ),
    );
    expect(r['example-daily-commerce-x-x/vtbackup']).toEqual({
      requests: { cpu: '2', memory: '2Gi' },
      limits: { memory: '3Gi' },
    });
  });

  test('pod.containerResources: any container by name (init containers too), over pod.resources', () => {
    const r = backup(
      vitess({
        defaults: {
          pod: {
            resources: { requests: { cpu: '2' } },
            containerResources: {
              'init-vt-root': { requests: { memory: '8Mi' } },
              vtbackup: { requests: { cpu: '4' }, limits: { 'ephemeral-storage': '1Gi' } },
            },
          },
        },
      }),
    );
    expect(r['example-daily-commerce-x-x/init-vt-root']).toEqual({
      requests: { cpu: '10m', memory: '8Mi' },
      limits: { memory: '64Mi' },
    });
    expect(r['example-daily-commerce-x-x/vtbackup']).toEqual({
      requests: { cpu: '4', memory: '512Mi' },
      limits: { memory: '1Gi', 'ephemeral-storage': '1Gi' },
    });
  });

  test('a request above the default limit raises the limit; a limit below the default request lowers the request', () => {
    const r = backup(
      vitess({
        defaults: {
          pod: {
            containerResources: {
              vtbackup: { requests: { memory: '4Gi' } },
              'init-vt-root': { limits: { memory: '8Mi' } },
            },
          },
        },
      }),
    );
    expect(r['example-daily-commerce-x-x/vtbackup']).toEqual({
      requests: { cpu: '100m', memory: '4Gi' },
      limits: { memory: '4Gi' },
    });
    expect(r['example-daily-commerce-x-x/init-vt-root']).toEqual({
      requests: { cpu: '10m', memory: '8Mi' },
      limits: { memory: '8Mi' },
    });
  });

  test("xtrabackup's parallelism follows vtbackup's resolved cpu request", () => {
    const objects = renderPolicy(
      vitessPolicy(
        { backupEngine: 'xtrabackup' },
        { defaults: { pod: { containerResources: { vtbackup: { requests: { cpu: '2500m' } } } } } },
      ),
    );
    const pod = podSpecOf(objects.find((o) => o.kind === 'CronJob')!);
    expect(pod?.containers[0].args).toContain('--xtrabackup_backup_flags=--parallel=3');
  });

  test("etcd: a node's own level, the restore-drill level", () => {
    const objects = renderPolicy(
      etcdPolicy(
        {
          mode: 'perNode',
          nodes: [{ name: 'cp-1', pod: { containerResources: { snapshot: { limits: { memory: '4Gi' } } } } }, 'cp-2'],
        },
        { drill: { schedule: '0 6 * * *', pod: { containerResources: { restore: { limits: { memory: '8Gi' } } } } } },
      ),
    );
    const r = resourcesOf(objects);
    expect(r['etcd-cp-1/snapshot']?.limits).toEqual({ memory: '4Gi' });
    expect(r['etcd-cp-2/snapshot']).toEqual(STEP_RESOURCES.etcdSnapshot);
    expect(r['etcd-drill-cp-1/restore']?.limits).toEqual({ memory: '8Gi' });
    expect(containersWithoutResources(objects)).toEqual([]);
  });
});

describe('refused', () => {
  test('a request above a limit the policy sets too, across levels: both named', () => {
    const policy = vitessPolicy(
      {
        schedules: [
          {
            name: 'daily',
            schedule: '0 2 * * *',
            strategies: [{ keyspace: 'commerce', shards: ['-'] }],
            pod: { resources: { requests: { memory: '2Gi' } } },
          },
        ],
      },
      { defaults: { pod: { resources: { limits: { memory: '1Gi' } } } } },
    );
    expect(problems(policy)).toEqual([
      'spec.vitess.schedules[0].pod.resources: container "vtbackup" gets requests.memory "2Gi" and limits.memory "1Gi" from the policy\'s levels; a request must not exceed its limit: raise limits.memory or lower requests.memory',
    ]);
  });

  test("the same at one level: the API server's rule, at the request", () => {
    expect(
      problems(
        etcdPolicy(
          {},
          {
            defaults: {
              pod: { containerResources: { snapshot: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } } },
            },
          },
        ),
      ),
    ).toEqual([
      'spec.defaults.pod.containerResources.snapshot.requests.memory: received "2Gi"; must be less than or equal to memory limit of 1Gi',
    ]);
  });

  test('a container name no pod has: the names there are, and the nearest', () => {
    expect(
      problems(
        etcdPolicy({}, { defaults: { pod: { containerResources: { snapshots: { requests: { cpu: '1' } } } } } }),
      ),
    ).toEqual([
      'spec.defaults.pod.containerResources.snapshots: received "snapshots"; no pod of this policy has a container of that name (did you mean "snapshot"?): the containers are "finalize", "snapshot", "tools"',
    ]);
  });

  test('a bad quantity and a bad resource name in containerResources, with the others', () => {
    const found = problems(
      redisPolicy(
        {},
        { defaults: { pod: { containerResources: { 'redis-dump': { requests: { cpu: 'lots', 'x/y/z': '1' } } } } } },
      ),
    );
    expect(found.some((p) => p.startsWith('spec.defaults.pod.containerResources.redis-dump.requests.cpu'))).toBe(true);
    expect(found.length).toBeGreaterThanOrEqual(1);
  });
});

describe('docs/operations/resources.md', () => {
  const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'operations', 'resources.md'), 'utf8');

  test('its profile table is STEP_RESOURCES', () => {
    const rows = [...doc.matchAll(/^\| `(\w+)` \| (\S+) \| (\S+) \| (\S+) \|/gm)].map((m) => [
      m[1],
      { requests: { cpu: m[2], memory: m[3] }, limits: { memory: m[4] } },
    ]);
    expect(Object.fromEntries(rows)).toEqual(STEP_RESOURCES);
  });

  test('its policy renders, with the resources it says', () => {
    const blocks = [...doc.matchAll(/^```yaml\n([\s\S]*?)^```/gm)].map((m) => m[1]);
    expect(blocks).toHaveLength(1);
    const objects = renderPolicy(parse(blocks[0]));
    const r = resourcesOf(objects);
    expect(r['etcd/snapshot']).toEqual({ requests: { cpu: '100m', memory: '1Gi' }, limits: { memory: '7Gi' } });
    expect(r['etcd-drill/restore']?.limits).toEqual({ memory: '7Gi' });
  });

  test('its error is the one the package gives', () => {
    const text = /^```text\n(.*)\n```/m.exec(doc)![1];
    const policy = vitessPolicy(
      {
        schedules: [
          {
            name: 'daily',
            schedule: '0 2 * * *',
            strategies: [{ keyspace: 'commerce', shards: ['-'] }],
            pod: { resources: { requests: { memory: '2Gi' } } },
          },
        ],
      },
      { defaults: { pod: { resources: { limits: { memory: '1Gi' } } } } },
    );
    expect(problems(policy)).toEqual([text]);
  });
});
