// Engine schedule components (one row per engine): same args as the cdk8s
// construct's props, same objects, through the core's props → policy mapping.
import { Testing } from 'cdk8s';
import { Construct } from 'constructs';
import * as cdk8s from '../../../constructs/cdk8s';
import { PolicyError } from '../../../lib';
import { asCronJob, podSpecOf } from '../../support/kube';
import { canonicalJson, installMocks, parseUrn, plainInputs, registeredOutputs, settle, unwrap } from './harness';

const registered = installMocks(); // before the components are imported
beforeEach(() => installMocks(registered)); // each test is a program of its own
const load = () => import('../../../constructs/pulumi');
type PulumiModule = Awaited<ReturnType<typeof load>>;

interface Row {
  /** Type name of both the Pulumi component and the cdk8s construct. */
  readonly type: 'VitessBackupSchedule' | 'RedisBackupSchedule' | 'EtcdBackupSchedule';
  readonly args: Record<string, unknown>;
  /** CronJob names for the component name `nightly`. */
  readonly cronJobNames: readonly string[];
  readonly bad: { readonly args: Record<string, unknown>; readonly message: string };
}

const ROWS: Row[] = [
  {
    type: 'VitessBackupSchedule',
    args: {
      name: 'shop',
      namespace: 'db',
      labels: { team: 'data' },
      cluster: 'shop',
      topology: { globalServerAddress: 'shop-etcd-client.db.svc:2379' },
      vtctldServer: 'shop-vtctld.db.svc:15999',
      storage: { s3: { region: 'us-east-1', bucket: 'shop-backups' } },
      allowFirstBackup: true,
      schedule: '0 2 * * *',
      suspend: true,
      strategies: [{ keyspace: 'customer', shards: ['-80', '80-'] }],
    },
    // scheduleName defaults to the component name (as to the construct id in cdk8s)
    cronJobNames: ['shop-nightly-customer-x-80', 'shop-nightly-customer-80-x'],
    bad: {
      args: { concurrencyPolicy: 'Sometimes' },
      message:
        'concurrencyPolicy: received "Sometimes"; allowed: "Forbid", "Allow", "Replace" (policy field spec.vitess.schedules[0].concurrencyPolicy)',
    },
  },
  {
    type: 'RedisBackupSchedule',
    args: {
      name: 'cache',
      namespace: 'redis',
      schedule: '0 3 * * *',
      retention: { keepLast: 3 },
      sentinel: { addresses: ['sentinel.redis.svc:26379'] },
      shards: ['shard01', 'shard02'],
      s3: { bucket: 'cache-backups', region: 'us-east-1' },
    },
    cronJobNames: ['cache-shard01', 'cache-shard02'],
    bad: {
      args: { shards: [] },
      message: 'shards: received 0 item(s); at least 1 required (policy field spec.redis.shards)',
    },
  },
  {
    type: 'EtcdBackupSchedule',
    args: {
      name: 'etcd',
      namespace: 'kube-system',
      mode: 'perNode',
      nodes: ['cp-1', 'cp-2'],
      schedule: '0 */6 * * *',
      retention: { keepLast: 4 },
      restore: { initialCluster: 'cp-1=https://10.0.0.1:2380,cp-2=https://10.0.0.2:2380' },
    },
    cronJobNames: ['etcd-cp-1', 'etcd-cp-2'],
    bad: { args: { mode: 'everywhere' }, message: 'mode: received "everywhere"' },
  },
];

function component(m: PulumiModule, row: Row, name: string, args: Record<string, unknown>) {
  return new (m[row.type] as unknown as new (n: string, a: unknown) => InstanceType<PulumiModule['BackupPolicy']>)(
    name,
    args,
  );
}

function construct(row: Row, scope: Construct, id: string, args: Record<string, unknown>) {
  return new (cdk8s[row.type] as unknown as new (s: Construct, i: string, a: unknown) => Construct)(scope, id, args);
}

describe.each(ROWS)('$type', (row) => {
  test('registers backup-cronjobs:index:<Type> with typed CronJob children and registered outputs', async () => {
    const m = await load();
    const c = component(m, row, 'nightly', row.args);
    const urns = await settle(c);
    expect(parseUrn(await unwrap(c.urn))).toEqual({ types: [`backup-cronjobs:index:${row.type}`], name: 'nightly' });
    expect(urns.map(parseUrn)).toEqual([
      {
        types: [`backup-cronjobs:index:${row.type}`, 'kubernetes:core/v1:ConfigMap'],
        name: expect.stringMatching(/^nightly-configmap-[a-z0-9-]+-scripts-[0-9a-f]{10}$/) as unknown,
      },
      ...row.cronJobNames.map((n) => ({
        types: [`backup-cronjobs:index:${row.type}`, 'kubernetes:batch/v1:CronJob'],
        name: `nightly-cronjob-${n}`,
      })),
    ]);
    expect(await unwrap(c.cronJobNames)).toEqual(row.cronJobNames);
    expect(c.cronJobs).toHaveLength(row.cronJobNames.length);
    expect(await registeredOutputs(await unwrap(c.urn))).toEqual({
      cronJobNames: row.cronJobNames,
      namespace: row.args.namespace,
    });
  });

  test('the children equal the cdk8s construct given the same props, field for field', async () => {
    const m = await load();
    const c = component(m, row, 'same', row.args);
    const urns = await settle(c);
    const chart = Testing.chart();
    construct(row, chart, 'same', row.args);
    const fromCdk8s = Testing.synth(chart);
    const fromPulumi = urns.map((urn) => plainInputs(registered.find((r) => r.name === parseUrn(urn).name)!.inputs));
    expect(fromPulumi.length).toBeGreaterThan(0);
    expect(fromPulumi.map(canonicalJson)).toEqual(fromCdk8s.map(canonicalJson));
    expect(fromPulumi.map(canonicalJson)).toEqual(c.manifests.map(canonicalJson));
  });

  test('invalid args throw PolicyError at construction naming the arg as written and the policy field, and register nothing', async () => {
    const m = await load();
    const bad = { ...row.args, ...row.bad.args };
    expect(() => component(m, row, 'bad-a', bad)).toThrow(PolicyError);
    expect(() => component(m, row, 'bad-b', bad)).toThrow(row.bad.message);
    expect(() => component(m, row, 'bad-c', bad)).toThrow(
      `backup-cronjobs:index:${row.type}::bad-c: invalid BackupPolicy`,
    );
    await settle(component(m, row, 'fine', row.args));
    expect(registered.filter((r) => r.name.startsWith('bad-'))).toEqual([]);
  });
});

test('Vitess: scheduleName, job settings and cluster settings route like the cdk8s props', async () => {
  const m = await load();
  const c = component(m, ROWS[0], 'x', { ...ROWS[0].args, scheduleName: 'weekly' });
  await settle(c);
  const cj = asCronJob(c.manifests.find((o) => o.kind === 'CronJob'));
  expect(cj.metadata?.name).toBe('shop-weekly-customer-x-80');
  expect(cj.metadata?.labels?.team).toBe('data');
  expect(cj.spec?.suspend).toBe(true);
  expect(podSpecOf(cj).containers[0].env).toContainEqual({
    name: 'VITESS_ALLOW_FIRST_BACKUP',
    value: 'true',
  });
});

test('every cdk8s construct has a Pulumi component of the same name, and every engine component a row above', async () => {
  const m = await load();
  const constructs = Object.entries(cdk8s)
    .filter(([, v]) => typeof v === 'function' && v.prototype instanceof cdk8s.PolicyConstruct)
    .map(([k]) => k)
    .sort();
  const components = Object.entries(m)
    .filter(([, v]) => typeof v === 'function' && v.prototype instanceof m.PolicyComponent)
    .map(([k]) => k)
    .sort();
  expect(constructs.length).toBeGreaterThan(1);
  expect(components).toEqual(constructs);
  expect(ROWS.map((r) => r.type).sort()).toEqual(components.filter((k) => k !== 'BackupPolicy'));
});
