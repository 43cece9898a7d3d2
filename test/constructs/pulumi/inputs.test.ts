// pulumi.Input args: Outputs reach the children's inputs at exactly the places their values are
// rendered; everything that shapes the objects stays a plain value.
import * as pulumi from '@pulumi/pulumi';
import { renderPolicy, sortKeys } from '../../../lib/internal';
import type { Manifest } from '../../../lib';
import { redisSchedulePolicy } from '../../../lib/engines/redis/props';
import { etcdSchedulePolicy } from '../../../lib/engines/etcd/props';
import { vitessSchedulePolicy } from '../../../lib/engines/vitess/props';
import {
  fillMarkers,
  markInputs,
  markerPaths,
  slotFormats,
  standIn,
  substitute,
} from '../../../constructs/pulumi/inputs';
import type { EtcdBackupScheduleArgs, RedisBackupScheduleArgs } from '../../../constructs/pulumi';
import { asManifest, podSpecOf, prometheusRuleSpecOf } from '../../support/kube';
import { canonicalJson, installMocks, parseUrn, plainInputs, settle, unwrap } from './harness';

const registered = installMocks(); // before the components are imported
beforeEach(() => installMocks(registered)); // each test is a program of its own
const load = () => import('../../../constructs/pulumi');

/** The inputs each child registered, as plain JSON, in the component's order. */
async function childInputs(component: Parameters<typeof settle>[0]): Promise<unknown[]> {
  const urns = await settle(component);
  return urns.map((urn) => plainInputs(registered.find((r) => r.name === parseUrn(urn).name)!.inputs));
}

/** `value` with every string leaf at `paths` (dotted, as in `leaves`) wrapped by `wrap`. */
function wrapAt(value: unknown, paths: readonly string[], wrap: (v: string) => unknown, path = ''): unknown {
  if (typeof value === 'string') return paths.includes(path) ? wrap(value) : value;
  if (Array.isArray(value)) return value.map((v, i) => wrapAt(v, paths, wrap, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, wrapAt(v, paths, wrap, path ? `${path}.${k}` : k)]),
    );
  }
  return value;
}

describe('every pass-through arg as an Output gives the children of the plain args', () => {
  const POD = {
    serviceAccountName: 'backup-sa',
    imagePullSecrets: ['registry-creds'],
    env: [{ name: 'TOKEN', secretKeyRef: { name: 'token-secret', key: 'token' } }],
    volumes: [
      { name: 'ca', mountPath: '/ca', secret: { secretName: 'ca-bundle' } },
      { name: 'conf', mountPath: '/conf', configMap: { name: 'backup-conf' } },
      { name: 'spare', mountPath: '/spare', persistentVolumeClaim: { claimName: 'spare-claim' } },
    ],
  };
  const METRICS = { pushgatewayUrl: 'http://pushgateway.monitoring.svc:9091', prometheusRule: {} };
  const ROWS = [
    {
      type: 'RedisBackupSchedule' as const,
      toPolicy: redisSchedulePolicy,
      args: {
        name: 'cache',
        namespace: 'redis',
        shards: ['shard01', 'shard02'],
        pod: POD,
        metrics: METRICS,
        placement: { serializationGroup: { name: 'cache', scope: 'cluster' } },
        sentinel: {
          addresses: ['sentinel-0.redis.svc:26379', 'sentinel-1.redis.svc:26379'],
          passwordSecret: { name: 'sentinel-auth', key: 'password' },
        },
        passwordSecret: { name: 'redis-auth', key: 'password' },
        s3: {
          bucket: 'cache-backups',
          region: 'us-east-1',
          endpoint: 'http://minio.minio.svc:9000',
          credentialsSecret: { name: 'aws-credentials' },
        },
        images: { redis: 'redis:7.2.8-alpine', awsCli: 'amazon/aws-cli:2.17.64' },
      },
      outputs: [
        'namespace',
        'pod.serviceAccountName',
        'pod.imagePullSecrets[0]',
        'pod.env[0].secretKeyRef.name',
        'pod.volumes[0].secret.secretName',
        'pod.volumes[1].configMap.name',
        'pod.volumes[2].persistentVolumeClaim.claimName',
        'metrics.pushgatewayUrl',
        'sentinel.addresses[0]',
        'sentinel.addresses[1]',
        'sentinel.passwordSecret.name',
        'passwordSecret.name',
        's3.bucket',
        's3.endpoint',
        's3.credentialsSecret.name',
        'images.redis',
        'images.awsCli',
      ],
    },
    {
      type: 'EtcdBackupSchedule' as const,
      toPolicy: etcdSchedulePolicy,
      args: {
        name: 'etcd',
        namespace: 'kube-system',
        endpoint: 'https://127.0.0.1:2379',
        pod: POD,
        destination: {
          s3: {
            bucket: 'etcd-backups',
            region: 'us-east-1',
            endpoint: 'https://s3.example.com',
            credentialsSecret: { name: 'aws-credentials' },
          },
        },
        images: {
          etcd: 'registry.k8s.io/etcd:3.5.16-0',
          busybox: 'busybox:1.36.1-musl',
          awsCli: 'amazon/aws-cli:2.17.64',
        },
      },
      outputs: [
        'namespace',
        'pod.serviceAccountName',
        'pod.volumes[2].persistentVolumeClaim.claimName',
        'destination.s3.bucket',
        'destination.s3.endpoint',
        'destination.s3.credentialsSecret.name',
        'images.etcd',
        'images.busybox',
        'images.awsCli',
      ],
    },
    {
      type: 'VitessBackupSchedule' as const,
      toPolicy: (args: never) => vitessSchedulePolicy(args, 'nightly'),
      args: {
        name: 'shop',
        namespace: 'db',
        cluster: 'shop',
        schedule: '0 2 * * *',
        strategies: [{ keyspace: 'commerce', shards: ['-80', '80-'] }],
        pod: POD,
        topology: { globalServerAddress: 'shop-etcd-client.db.svc:2379' },
        vtctldServer: 'shop-vtctld.db.svc:15999',
        storage: {
          s3: {
            region: 'us-east-1',
            bucket: 'shop-backups',
            endpoint: 'http://minio.minio.svc:9000',
            authSecret: { name: 'minio-creds', key: 'credentials' },
          },
        },
        dbInitScriptSecret: { name: 'init-sql', key: 'init.sql' },
        images: { vtbackup: 'vitess/lite:v21.0.4', mysqld: 'vitess/lite:v21.0.4' },
      },
      outputs: [
        'namespace',
        'topology.globalServerAddress',
        'vtctldServer',
        'storage.s3.bucket',
        'storage.s3.endpoint',
        'storage.s3.authSecret.name',
        'dbInitScriptSecret.name',
        'images.vtbackup',
        'images.mysqld',
        'pod.imagePullSecrets[0]',
      ],
    },
  ];

  test.each(ROWS)('$type', async (row) => {
    const m = await load();
    const Component = m[row.type] as unknown as new (
      name: string,
      args: unknown,
    ) => InstanceType<typeof m.BackupPolicy>;
    const withOutputs = new Component(
      'nightly',
      wrapAt(row.args, row.outputs, (v) => pulumi.output(v)),
    );
    const expected = renderPolicy(row.toPolicy(row.args as never));
    const inputs = await childInputs(withOutputs);
    expect(inputs.map(canonicalJson)).toEqual(expected.map(canonicalJson));
    // every Output did stand somewhere in the objects
    expect(withOutputs.manifests).not.toEqual(expected);
    for (const [i] of row.outputs.entries())
      expect(JSON.stringify(withOutputs.manifests)).toContain(`pulumi-input-${i}-a-4f1d0c`);
  });
});

test("a namespace and a Secret name from other resources' Outputs reach the children unchanged, inside the objects too", async () => {
  // GIVEN
  const k8s = await import('@pulumi/kubernetes');
  const { RedisBackupSchedule } = await load();
  const namespace = new k8s.core.v1.Namespace('backups', { metadata: { name: 'backups' } });
  const credentials = new k8s.core.v1.Secret('aws', {
    metadata: { name: 'aws-credentials', namespace: namespace.metadata.name },
    stringData: { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' },
  });
  const args = {
    name: 'cache',
    shards: ['shard01'],
    placement: { serializationGroup: { name: 'cache', scope: 'cluster' as const } },
    sentinel: { addresses: ['sentinel.redis.svc:26379'] },
    metrics: { pushgatewayUrl: 'http://pushgateway:9091', prometheusRule: {} },
    s3: { bucket: 'cache-backups', region: 'us-east-1', credentialsSecret: { name: 'aws-credentials' } },
  };
  // WHEN
  const schedule = new RedisBackupSchedule('cache', {
    ...args,
    namespace: namespace.metadata.name,
    s3: { ...args.s3, credentialsSecret: { name: credentials.metadata.name } },
  });
  // THEN: everything registered is the plain render with those values
  const inputs = await childInputs(schedule);
  expect(inputs.map(canonicalJson)).toEqual(
    renderPolicy(redisSchedulePolicy({ ...args, namespace: 'backups' })).map(canonicalJson),
  );
  const [, cronJob, rule] = inputs.map(asManifest); // after the script ConfigMap
  expect(cronJob.metadata.namespace).toBe('backups');
  expect(
    podSpecOf(cronJob).affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0].namespaces,
  ).toEqual(['backups']);
  expect(JSON.stringify(cronJob)).toContain('"secretKeyRef":{"key":"AWS_ACCESS_KEY_ID","name":"aws-credentials"}');
  expect(prometheusRuleSpecOf(rule).groups[0].rules[0].expr).toContain('namespace="backups"');
  expect(await unwrap(schedule.namespace)).toBe('backups');
  expect(await unwrap(schedule.cronJobNames)).toEqual(['cache-shard01']);
});

test('an Output namespace beside a Grafana dashboard is refused at construction: the dashboard is made from the namespace', async () => {
  // its file name (a data key) and its uid (a hash) hold the namespace: a stand-in there would be written as it is
  const { RedisBackupSchedule } = await load();
  const args = {
    name: 'cache',
    shards: ['shard01'],
    sentinel: { addresses: ['sentinel.redis.svc:26379'] },
    metrics: { pushgatewayUrl: 'http://pushgateway:9091', grafanaDashboard: {} },
    s3: { bucket: 'cache-backups', region: 'us-east-1' },
  };
  expect(() => new RedisBackupSchedule('dashboard', { ...args, namespace: pulumi.output('backups') })).toThrow(
    "backup-cronjobs: namespace: received a pulumi Output (or Promise) beside metrics.grafanaDashboard; the dashboard's file name and uid are made from the namespace, so it must be a plain value there (or leave out grafanaDashboard)",
  );
  await settle(new RedisBackupSchedule('dashboard-plain', { ...args, name: 'plain', namespace: 'backups' }));
  // nothing of the refused component was registered (the plain one's children are dashboard-plain-…)
  const refused = registered.filter((r) => r.name.startsWith('dashboard') && !r.name.startsWith('dashboard-plain'));
  expect(refused.map((r) => r.name)).toEqual([]);
});

test('a secret Output stays secret where it is, and only there', async () => {
  const { RedisBackupSchedule } = await load();
  const schedule = new RedisBackupSchedule('secret', {
    name: 'secret',
    namespace: 'redis',
    shards: ['shard01'],
    sentinel: { addresses: ['sentinel.redis.svc:26379'] },
    s3: { bucket: pulumi.secret('hidden-bucket'), region: 'us-east-1' },
  });
  const [, urn] = await settle(schedule); // the CronJob, after the script ConfigMap
  const { inputs } = registered.find((r) => r.name === parseUrn(urn).name)!;
  const SECRET = '4dabf18193072939515e22adb298388d';
  expect(Object.keys(inputs.spec as object)).toContain(SECRET); // the provider gets the property holding it as a secret
  expect(Object.keys(inputs.metadata as object)).not.toContain(SECRET);
  expect(JSON.stringify(plainInputs(inputs.spec))).toContain('"value":"hidden-bucket"');
});

test('a Promise counts as an Output', async () => {
  const { RedisBackupSchedule } = await load();
  const schedule = new RedisBackupSchedule('promised', {
    name: 'promised',
    namespace: Promise.resolve('redis'),
    shards: ['shard01'],
    sentinel: { addresses: ['sentinel.redis.svc:26379'] },
    s3: { bucket: 'cache-backups', region: 'us-east-1' },
  });
  expect(((await childInputs(schedule))[0] as Manifest).metadata.namespace).toBe('redis');
});

test('an Output where a value shapes the objects is refused at construction, naming where it was written; nothing is registered', async () => {
  const m = await load();
  const args = {
    name: 'shaped',
    shards: ['shard01'],
    sentinel: { addresses: ['sentinel.redis.svc:26379'] },
    s3: { bucket: 'cache-backups', region: 'us-east-1' },
  };
  const bad = {
    ...args,
    shards: [pulumi.output('shard01')],
    s3: { ...args.s3, region: pulumi.output('us-east-1') },
  } as never;
  expect(() => new m.RedisBackupSchedule('shaped', bad)).toThrow(
    'backup-cronjobs: shards[0]: received a pulumi Output (or Promise); this value shapes the objects, so it must be a plain value; ' +
      's3.region: received a pulumi Output (or Promise); this value shapes the objects, so it must be a plain value. ' +
      'Outputs are taken for the namespace, names of Secrets, PVCs, ConfigMaps and ServiceAccounts, addresses, endpoints, buckets and images',
  );
  const spec = { defaults: { schedule: pulumi.output('0 3 * * *') }, redis: args } as never;
  expect(
    () => new m.BackupPolicy('shaped-policy', { metadata: { name: 'p', namespace: pulumi.output('db') }, spec }),
  ).toThrow(
    'backup-cronjobs: spec.defaults.schedule: received a pulumi Output (or Promise); this value shapes the objects',
  );
  await settle(new m.RedisBackupSchedule('after', { ...args, name: 'after' }));
  expect(registered.filter((r) => r.name.startsWith('shaped'))).toEqual([]);
});

test('an invalid plain value next to an Output is refused at construction, at its arg path', async () => {
  const { RedisBackupSchedule } = await load();
  expect(
    () =>
      new RedisBackupSchedule('mixed', {
        name: 'mixed',
        namespace: pulumi.output('redis'),
        shards: ['shard01', 'shard01'],
        sentinel: { addresses: ['sentinel.redis.svc:26379'] },
        s3: { bucket: 'cache-backups', region: 'us-east-1' },
      }),
  ).toThrow(
    'shards[1]: received "shard01"; shard names must be unique (also at shards[0]) (policy field spec.redis.shards[1])',
  );
});

test('handles: the CronJob child of a target', async () => {
  const { VitessBackupSchedule } = await load();
  const schedule = new VitessBackupSchedule('nightly', {
    name: 'shop',
    namespace: pulumi.output('db'),
    cluster: 'shop',
    schedule: '0 2 * * *',
    strategies: [{ keyspace: 'commerce', shards: ['-80', '80-'] }],
    topology: { globalServerAddress: 'shop-etcd-client.db.svc:2379' },
    vtctldServer: 'shop-vtctld.db.svc:15999',
    storage: { s3: { region: 'us-east-1', bucket: 'shop-backups' } },
  });
  await settle(schedule);
  expect([...schedule.backupCronJobs.keys()]).toEqual(['commerce/-80', 'commerce/80-']);
  expect((await unwrap(schedule.cronJob('commerce/80-').metadata)).name).toBe('shop-nightly-commerce-80-x');
  expect(() => schedule.cronJob()).toThrow(
    'backup-cronjobs:index:VitessBackupSchedule::nightly: backup CronJob: there are 2, name one (keys: "commerce/-80", "commerce/80-")',
  );
});

test('handles: the incremental-backup CronJob child of a Vitess shard', async () => {
  const { VitessBackupSchedule } = await load();
  const schedule = new VitessBackupSchedule('incr', {
    name: 'shop',
    namespace: 'db',
    cluster: 'shop',
    schedule: '0 2 * * *',
    strategies: [{ keyspace: 'commerce', shards: ['-'] }],
    incremental: { schedule: '*/15 4-23 * * *' },
    topology: { globalServerAddress: 'shop-etcd-client.db.svc:2379' },
    vtctldServer: 'shop-vtctld.db.svc:15999',
    storage: { s3: { region: 'us-east-1', bucket: 'shop-backups' } },
  });
  await settle(schedule);
  expect([...schedule.incrementalCronJobs.keys()]).toEqual(['commerce/-']);
  expect((await unwrap(schedule.incrementalCronJob().metadata)).name).toBe('shop-incr-commerce-x-x-incr');
});

test('handles: the restore-drill CronJob child of a target', async () => {
  const { BackupPolicy } = await load();
  const policy = new BackupPolicy('etcd', {
    metadata: { name: 'etcd', namespace: 'kube-system' },
    spec: { drill: { schedule: '0 4 * * 0' }, etcd: { mode: 'perNode', nodes: ['cp-1', 'cp-2'] } },
  });
  await settle(policy);
  expect([...policy.drillCronJobs.keys()]).toEqual(['cp-1', 'cp-2']);
  expect((await unwrap(policy.drillCronJob('cp-2').metadata)).name).toBe('etcd-drill-cp-2');
  expect(policy.drillCronJob('cp-1')).toBe(policy.cronJobs[2]);
  expect(() => policy.drillCronJob()).toThrow(
    'backup-cronjobs:index:BackupPolicy::etcd: restore-drill CronJob: there are 2, name one (keys: "cp-1", "cp-2")',
  );
  expect(() => policy.pruneCronJob('cp-1')).toThrow(
    'backup-cronjobs:index:BackupPolicy::etcd: retention-prune CronJob: no key "cp-1"; there is none',
  );
});

describe('the stand-in helpers', () => {
  test('markInputs and markerPaths: where each Output was written and where it lands in the policy', () => {
    const output = pulumi.output('redis');
    const { marked, slots } = markInputs({
      namespace: output,
      s3: { bucket: 'b', endpoint: Promise.resolve('http://minio:9000') },
      shards: ['a'],
    });
    expect(slots.map((s) => s.propPath)).toEqual(['namespace', 's3.endpoint']);
    expect(slots[0].value).toBe(output);
    const policy = redisSchedulePolicy(marked as never);
    expect(markerPaths(policy)).toEqual([
      ['metadata', 'namespace'],
      ['spec', 'redis', 's3', 'endpoint'],
    ]);
    expect(slotFormats(slots, markerPaths(policy))).toEqual(['name', 'url']);
    expect(fillMarkers(policy, ['ns', 'http://e'])).toEqual(
      redisSchedulePolicy({ namespace: 'ns', s3: { bucket: 'b', endpoint: 'http://e' }, shards: ['a'] } as never),
    );
  });

  test('standIn: valid where its format is, distinct per slot and set', () => {
    expect([standIn('name', 0, 'a'), standIn('address', 1, 'a'), standIn('url', 2, 'b')]).toEqual([
      'pulumi-input-0-a-4f1d0c',
      'pulumi-input-1-a-4f1d0c:1',
      'https://pulumi-input-2-b-4f1d0c',
    ]);
  });

  test('substitute: a whole string becomes the piece; a string with other text the join of its parts; keys may not hold one', () => {
    const standIns = ['pulumi-input-0-a-4f1d0c', 'http://pulumi-input-1-a-4f1d0c'];
    const value = { ns: standIns[0], list: [`namespace="${standIns[0]}", url=${standIns[1]}/x`, 'plain'], n: 3 };
    const out = substitute(
      value,
      standIns,
      (i) => ({ slot: i }),
      (parts) => ({ join: parts }),
    );
    expect(out).toEqual({
      ns: { slot: 0 },
      list: [{ join: ['namespace="', { slot: 0 }, '", url=', { slot: 1 }, '/x'] }, 'plain'],
      n: 3,
    });
    expect(
      substitute(
        value,
        standIns,
        (i) => ['db', 'https://s3'][i],
        (parts) => parts.join(''),
      ),
    ).toEqual({ ns: 'db', list: ['namespace="db", url=https://s3/x', 'plain'], n: 3 });
    expect(() =>
      substitute(
        { [standIns[0]]: 1 },
        standIns,
        () => 0,
        () => 0,
      ),
    ).toThrow('a pulumi Output reached the object key "pulumi-input-0-a-4f1d0c"');
    expect(
      sortKeys(
        substitute(
          value,
          [],
          () => 0,
          () => 0,
        ),
      ),
    ).toEqual(sortKeys(value));
  });
});

test('types: an Input where a value passes through, a plain value elsewhere (checked by the compiler)', () => {
  const ok: RedisBackupScheduleArgs = {
    name: 'n',
    namespace: pulumi.output('ns'),
    shards: ['a'],
    sentinel: { addresses: [pulumi.output('s:1')], passwordSecret: { name: pulumi.output('p'), key: 'k' } },
    s3: {
      bucket: pulumi.output('b'),
      region: 'r',
      endpoint: pulumi.output('http://e'),
      credentialsSecret: { name: pulumi.output('c') },
    },
    images: { redis: pulumi.output('i') },
    pod: {
      serviceAccountName: pulumi.output('sa'),
      imagePullSecrets: [pulumi.output('pull')],
      env: [{ name: 'E', secretKeyRef: { name: pulumi.output('s'), key: 'k' } }],
    },
  };
  // @ts-expect-error a shard name shapes the objects (their names)
  const shard: RedisBackupScheduleArgs = { ...ok, shards: [pulumi.output('a')] };
  // @ts-expect-error the policy name too
  const name: RedisBackupScheduleArgs = { ...ok, name: pulumi.output('n') };
  // @ts-expect-error a Secret key is not a name
  const key: RedisBackupScheduleArgs = { ...ok, passwordSecret: { name: 'p', key: pulumi.output('k') } };
  // @ts-expect-error etcd's endpoint decides whether etcdctl gets client certificates
  const endpoint: EtcdBackupScheduleArgs = { name: 'e', endpoint: pulumi.output('https://127.0.0.1:2379') };
  expect([ok, shard, name, key, endpoint]).toHaveLength(5);
});
