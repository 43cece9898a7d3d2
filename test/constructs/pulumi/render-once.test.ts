// A component renders its policy once (issue 34, point 8): at construction, each Output standing in
// as a validated placeholder, so that every child is registered, named, at construction. An Output's
// value, once known, is validated with the whole policy (resolved, not rendered again). What a second
// render used to compare is checked here for every pass-through field instead: the objects with a
// value in place of its stand-in are the plain render of that value, or the value is refused.
import * as pulumi from '@pulumi/pulumi';
import * as render from '../../../lib/model/render';
import * as resolve from '../../../lib/model/resolve';
import { PolicyError, renderPolicy } from '../../../lib/internal';
import type { ScheduleEngineKey } from '../../../lib/internal';
import { scheduleSource } from '../../../constructs/core';
import { kubeletExpandedTexts, renderWithStandIns, substitute, valuesProblem } from '../../../constructs/pulumi/inputs';
import { canonicalJson, installMocks, parseUrn, plainInputs, settle } from './harness';
import { policyArgs } from './fixtures';

/** The request the mock monitor gets for each registration (the part read here). */
interface RegisterRequest {
  getName(): string;
  getDependenciesList(): string[];
}

const registered = installMocks(); // before the components are imported
/** The dependencies each registration carried (`dependsOn` and the resources its inputs come from), by resource name. */
const dependencies = new Map<string, string[]>();
beforeEach(() => {
  installMocks(registered); // each test is a program of its own
  dependencies.clear();
  const monitor = pulumi.runtime.getMonitor() as unknown as {
    registerResource(req: RegisterRequest, callback: unknown): unknown;
  };
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, callback) => {
    dependencies.set(req.getName(), req.getDependenciesList());
    return register(req, callback);
  };
});
afterEach(() => jest.restoreAllMocks());
const load = () => import('../../../constructs/pulumi');

type Functions = Record<string, (...args: unknown[]) => unknown>;

/** Counts, from now on, the calls into the core's render entry points (every `render*` export of lib/model/render.ts) and into `resolvePolicy`. */
function countCalls(): { readonly renders: () => number; readonly resolves: () => number } {
  const module = render as unknown as Functions;
  const renders = Object.keys(module)
    .filter((k) => k.startsWith('render') && typeof module[k] === 'function')
    .map((k) => jest.spyOn(module, k));
  expect(renders.length).toBeGreaterThan(0);
  const resolves = jest.spyOn(resolve, 'resolvePolicy');
  return {
    renders: () => renders.reduce((n, spy) => n + spy.mock.calls.length, 0),
    resolves: () => resolves.mock.calls.length,
  };
}

const REDIS = {
  name: 'cache',
  namespace: 'redis',
  schedule: '0 3 * * *',
  shards: ['shard01', 'shard02'],
  sentinel: { addresses: ['sentinel-0.redis.svc:26379'] },
  metrics: { pushgatewayUrl: 'http://pushgateway.monitoring.svc:9091' },
  s3: { bucket: 'cache-backups', region: 'us-east-1', endpoint: 'http://minio.minio.svc:9000' },
};

const HTTPS_METRICS = { pushgatewayUrl: 'https://pushgateway.monitoring.svc:9091' };

test('plain args: one render and one resolve, at construction', async () => {
  const { BackupPolicy, RedisBackupSchedule } = await load();
  const { renders, resolves } = countCalls();
  const policy = new BackupPolicy('shop', policyArgs());
  const schedule = new RedisBackupSchedule('cache', REDIS);
  const file = BackupPolicy.fromFile('file', 'examples/policies/redis-sharded.yaml');
  expect(renders()).toBe(3);
  await Promise.all([settle(policy), settle(schedule), settle(file)]);
  expect(renders()).toBe(3);
  expect(resolves()).toBe(3);
});

test('Output args: one render, at construction; the values, once known, are resolved with the policy but not rendered', async () => {
  const { RedisBackupSchedule } = await load();
  const { renders, resolves } = countCalls();
  const schedule = new RedisBackupSchedule('cache', {
    ...REDIS,
    namespace: pulumi.output('redis'),
    metrics: { pushgatewayUrl: Promise.resolve(REDIS.metrics.pushgatewayUrl) },
    s3: { ...REDIS.s3, bucket: pulumi.output('cache-backups'), endpoint: pulumi.secret(REDIS.s3.endpoint) },
  });
  // every child is registered at construction, named from the one render
  expect(schedule.resources).toHaveLength(3);
  expect(renders()).toBe(1);
  expect(resolves()).toBe(1);
  const urns = await settle(schedule);
  expect(renders()).toBe(1);
  expect(resolves()).toBe(2);
  // the children are the plain render of the values
  const inputs = urns.map((urn) => plainInputs(registered.find((r) => r.name === parseUrn(urn).name)!.inputs));
  expect(inputs.map(canonicalJson)).toEqual(renderPolicy(redisSchedulePolicyOf(REDIS)).map(canonicalJson));
});

test('an https URL as an Output beside a CA bundle is accepted (its stand-in is an https URL), and rendered as written', async () => {
  const { RedisBackupSchedule } = await load();
  const args = {
    ...REDIS,
    metrics: { ...HTTPS_METRICS, caBundle: { configMap: { name: 'kube-root-ca.crt', key: 'ca.crt' } } },
  };
  const schedule = new RedisBackupSchedule('ca', {
    ...args,
    metrics: { ...args.metrics, pushgatewayUrl: pulumi.output(HTTPS_METRICS.pushgatewayUrl) },
  });
  const urns = await settle(schedule);
  const inputs = urns.map((urn) => plainInputs(registered.find((r) => r.name === parseUrn(urn).name)!.inputs));
  expect(inputs.map(canonicalJson)).toEqual(renderPolicy(redisSchedulePolicyOf(args)).map(canonicalJson));
});

test('in a preview where an Output is unknown, every child is registered with its name (none waits inside an apply)', async () => {
  const names: string[] = [];
  void pulumi.runtime.setMocks(
    {
      newResource: (a) => {
        names.push(a.name);
        // the Secret's outputs as a preview of its create has them: not known yet
        const state = a.type === 'kubernetes:core/v1:Secret' ? {} : (a.inputs as Record<string, unknown>);
        return { id: undefined as unknown as string, state };
      },
      call: (a) => a.inputs as Record<string, unknown>,
    },
    'project',
    'stack',
    true,
  );
  const k8s = await import('@pulumi/kubernetes');
  const { RedisBackupSchedule } = await load();
  const secret = new k8s.core.v1.Secret('aws', { metadata: { name: 'aws', namespace: 'redis' } });
  let known = false;
  secret.metadata.uid.apply(() => (known = true));
  const schedule = new RedisBackupSchedule('cache', {
    ...REDIS,
    s3: { ...REDIS.s3, credentialsSecret: { name: secret.metadata.uid } },
  });
  const urns = await settle(schedule);
  expect(known).toBe(false);
  const children = urns.map((urn) => parseUrn(urn).name);
  expect(children[0]).toMatch(/^cache-configmap-cache-scripts-[0-9a-f]{10}$/);
  expect(children.slice(1)).toEqual(['cache-cronjob-cache-shard01', 'cache-cronjob-cache-shard02']);
  expect(names.slice().sort()).toEqual(['aws', 'cache', ...children].sort());
});

test('with or without Outputs, the CronJob children depend on the ConfigMap child, and nothing else on anything', async () => {
  const { RedisBackupSchedule } = await load();
  const plain = new RedisBackupSchedule('plain', { ...REDIS, name: 'plain' });
  const outputs = new RedisBackupSchedule('outputs', {
    ...REDIS,
    name: 'outputs',
    namespace: pulumi.output('redis'),
    s3: { ...REDIS.s3, bucket: pulumi.output('cache-backups') },
  });
  for (const component of [plain, outputs]) {
    const urns = await settle(component);
    const names = urns.map((urn) => parseUrn(urn).name);
    expect(names.map((n) => n.split('-')[1])).toEqual(['configmap', 'cronjob', 'cronjob']);
    expect(names.map((n) => dependencies.get(n))).toEqual([[], [urns[0]], [urns[0]]]);
  }
});

/** The policy of Redis schedule args named `cache`. */
function redisSchedulePolicyOf(args: unknown): unknown {
  return scheduleSource('redis', args, 'cache').toPolicy(args);
}

/** `value` with the string leaf at `path` (dotted, `[i]` for items) replaced by `leaf`. */
function setAt(value: unknown, path: string, leaf: unknown, at = ''): unknown {
  if (at === path) return leaf;
  if (Array.isArray(value)) return value.map((v, i) => setAt(v, path, leaf, `${at}[${i}]`));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, setAt(v, path, leaf, at ? `${at}.${k}` : k)]));
  }
  return value;
}

describe('a value in place of its stand-in gives the plain render of that value, or the value is refused', () => {
  const ROWS: { engine: ScheduleEngineKey; args: unknown; paths: string[] }[] = [
    {
      engine: 'redis',
      args: {
        ...REDIS,
        pod: {
          serviceAccountName: 'backup-sa',
          imagePullSecrets: ['registry-creds'],
          env: [{ name: 'TOKEN', secretKeyRef: { name: 'token-secret', key: 'token' } }],
          volumes: [{ name: 'spare', mountPath: '/spare', persistentVolumeClaim: { claimName: 'spare-claim' } }],
        },
        metrics: { ...REDIS.metrics, prometheusRule: {} },
        placement: { serializationGroup: { name: 'cache', scope: 'cluster' } },
        sentinel: { ...REDIS.sentinel, passwordSecret: { name: 'sentinel-auth', key: 'password' } },
        passwordSecret: { name: 'redis-auth', key: 'password' },
        s3: { ...REDIS.s3, credentialsSecret: { name: 'aws-credentials' } },
        images: { redis: 'redis:7.2.8-alpine', awsCli: 'amazon/aws-cli:2.17.64' },
      },
      paths: [
        'namespace',
        'pod.serviceAccountName',
        'pod.imagePullSecrets[0]',
        'pod.env[0].secretKeyRef.name',
        'pod.volumes[0].persistentVolumeClaim.claimName',
        'metrics.pushgatewayUrl',
        'sentinel.addresses[0]',
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
      // a CA bundle beside an https URL: accepted while the URL is an Output, refused once known if it is http
      engine: 'redis',
      args: {
        ...REDIS,
        metrics: { ...HTTPS_METRICS, caBundle: { configMap: { name: 'kube-root-ca.crt', key: 'ca.crt' } } },
        s3: {
          ...REDIS.s3,
          endpoint: 'https://minio.minio.svc:9000',
          caBundle: { secret: { name: 'minio-ca', key: 'ca.crt' } },
        },
      },
      paths: ['metrics.pushgatewayUrl', 's3.endpoint'],
    },
    {
      engine: 'etcd',
      args: {
        name: 'etcd',
        namespace: 'kube-system',
        metrics: { pushgatewayUrl: 'http://pushgateway.monitoring.svc:9091' },
        destination: { s3: { bucket: 'etcd-backups', region: 'us-east-1', endpoint: 'https://s3.example.com' } },
      },
      paths: ['namespace', 'metrics.pushgatewayUrl', 'destination.s3.bucket', 'destination.s3.endpoint'],
    },
    {
      engine: 'vitess',
      args: {
        name: 'shop',
        namespace: 'db',
        cluster: 'shop',
        schedule: '0 2 * * *',
        strategies: [{ keyspace: 'commerce', shards: ['-80', '80-'] }],
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
      },
      paths: [
        'namespace',
        'topology.globalServerAddress',
        'vtctldServer',
        'storage.s3.bucket',
        'storage.s3.endpoint',
        'storage.s3.authSecret.name',
      ],
    },
  ];
  /** Valid and invalid values of every format, some with what the core escapes or quotes ($, ", \). */
  const VALUES = [
    'other-name',
    'Not_A_Name',
    'a$b',
    'other-host.svc:2379',
    'other-host.svc:$1',
    'http://other-host.svc:9000',
    'https://s3.example.com/$(BUCKET)',
    'http://other-host/$$x',
    'http://other-host/a"b\\c',
    'registry.example.com/tools/image:1.2.3',
  ];
  const outcomes = new Map<string, number>();

  test.each(ROWS)('$engine $paths.0', ({ engine, args, paths }) => {
    const label = `test::${engine}`;
    for (const path of paths) {
      const source = scheduleSource(engine, setAt(args, path, pulumi.output('unused')), 'nightly');
      const rendering = renderWithStandIns(source, label);
      expect(rendering.slots.map((s) => s.propPath)).toEqual([path]);
      for (const value of VALUES) {
        const plainArgs = setAt(args, path, value);
        let plain: unknown[] | PolicyError;
        try {
          plain = renderPolicy(scheduleSource(engine, plainArgs, 'nightly').toPolicy(plainArgs));
        } catch (e) {
          if (!(e instanceof PolicyError)) throw e;
          plain = e;
        }
        const problem = valuesProblem(rendering, [value], source, label);
        const placed = substitute(
          rendering.manifests,
          rendering.standIns,
          () => value,
          (parts) => parts.join(''),
        );
        const at = `${engine} ${path} = ${JSON.stringify(value)}`;
        if (plain instanceof PolicyError) {
          expect({ at, problem, invalid: problem?.includes('invalid BackupPolicy') }).toMatchObject({
            at,
            invalid: true,
          });
          outcomes.set('refused as invalid', (outcomes.get('refused as invalid') ?? 0) + 1);
        } else if (problem === undefined) {
          expect({ at, placed: canonicalJson(placed) }).toEqual({ at, placed: canonicalJson(plain) });
          outcomes.set('rendered as written', (outcomes.get('rendered as written') ?? 0) + 1);
        } else {
          const escaped = problem.includes(`the value(s) of ${path} render differently from the value as written`);
          expect({ at, problem, escaped }).toMatchObject({ at, escaped: true });
          expect({ at, differs: canonicalJson(placed) !== canonicalJson(plain) }).toEqual({ at, differs: true });
          outcomes.set('refused as escaped', (outcomes.get('refused as escaped') ?? 0) + 1);
        }
      }
    }
  });

  afterAll(() => {
    // every branch was taken: the check is not vacuous
    expect([...outcomes.keys()].sort()).toEqual(['refused as escaped', 'refused as invalid', 'rendered as written']);
  });
});

test("kubeletExpandedTexts: each container's command, args and env values, nothing else", () => {
  const container = (n: string) => ({
    name: n,
    image: `${n}-image`,
    command: [`${n}-command`],
    args: [`${n}-arg`],
    env: [
      { name: 'A', value: `${n}-env` },
      { name: 'B', valueFrom: { secretKeyRef: { name: `${n}-secret`, key: 'k' } } },
    ],
    volumeMounts: [{ name: 'v', mountPath: `/${n}` }],
  });
  const cronJob = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'c', namespace: 'ns', annotations: { a: 'metadata' } },
    spec: {
      schedule: '0 3 * * *',
      jobTemplate: {
        spec: { template: { spec: { initContainers: [container('init')], containers: [container('main')] } } },
      },
    },
  };
  expect(kubeletExpandedTexts([cronJob, { kind: 'ConfigMap', data: { containers: 'x' } }])).toEqual([
    'init-command',
    'init-arg',
    'init-env',
    'main-command',
    'main-arg',
    'main-env',
  ]);
});
