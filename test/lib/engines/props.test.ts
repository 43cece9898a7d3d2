// Flat props → policy (lib/engines/props.ts) and back: every value the props
// hold is reported at the prop path it was written at; pass-through fields.
import { PolicyError, formatPath, policySchema, renderPolicy } from '../../../lib/internal';
import type { PolicyPath } from '../../../lib/internal';
import { fieldMeta } from '../../../lib/policy/schema-builders';
import type { Schema } from '../../../lib/policy/schema-builders';
import { PropsLayout, passThroughFormat, propPath, withPropPaths } from '../../../lib/engines/props';
import { ETCD_PROPS_LAYOUT, etcdSchedulePolicy } from '../../../lib/engines/etcd/props';
import { REDIS_PROPS_LAYOUT, redisSchedulePolicy } from '../../../lib/engines/redis/props';
import { VITESS_PROPS_LAYOUT, vitessSchedulePolicy } from '../../../lib/engines/vitess/props';

/** Every string leaf of `value` with its path. */
function leaves(value: unknown, path: PolicyPath = []): [PolicyPath, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...path, i]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [];
}

/** `a.b[0].c` → `['a', 'b', 0, 'c']` (the paths of these tables quote no key). */
function segments(path: string): PolicyPath {
  return path.split(/\.|(?=\[)/).map((s) => (/^\[[0-9]+\]$/.test(s) ? Number(s.slice(1, -1)) : s));
}

// Props with a distinct string at every leaf (types do not matter here: nothing is validated), covering
// the policy-level keys, job settings, engine keys, list items, quoted keys and an unknown key.
const COMMON = {
  name: 'v-name',
  namespace: 'v-namespace',
  labels: { 'app.kubernetes.io/part-of': 'v-label' },
  annotations: { note: 'v-annotation' },
  retention: { maxAge: 'v-max-age', schedule: 'v-prune-schedule' },
  metrics: { pushgatewayUrl: 'v-pgw', prometheusRule: { severity: 'v-severity' } },
  scripts: { mode: 'v-scripts-mode' },
  encryption: {
    age: {
      recipients: ['v-recipient'],
      identitySecret: { name: 'v-identity', key: 'v-identity-key' },
      image: 'v-age-image',
    },
  },
  drill: { schedule: 'v-drill-schedule', maxBackupAge: 'v-drill-age', timeout: 'v-drill-timeout' },
  schedule: 'v-schedule',
  timeZone: 'v-tz',
  stagger: { window: 'v-window' },
  placement: { nodeSelector: { zone: 'v-zone' }, tolerations: [{ key: 'v-toleration' }] },
  pod: {
    env: [{ name: 'v-env-name', secretKeyRef: { name: 'v-env-secret', key: 'v-env-key' } }],
    imagePullSecrets: ['v-pull-secret'],
  },
};
const ROWS: { layout: PropsLayout; toPolicy: (props: never) => unknown; props: Record<string, unknown> }[] = [
  {
    layout: REDIS_PROPS_LAYOUT,
    toPolicy: redisSchedulePolicy,
    props: {
      ...COMMON,
      sentinel: { addresses: ['v-a1', 'v-a2'], passwordSecret: { name: 'v-sentinel-secret', key: 'v-sentinel-key' } },
      shards: ['v-shard01', { name: 'v-shard02', schedule: 'v-shard-schedule', pod: { serviceAccountName: 'v-sa' } }],
      s3: { bucket: 'v-bucket', region: 'v-region' },
      images: { redis: 'v-image' },
      unknownKey: 'v-unknown',
    },
  },
  {
    layout: ETCD_PROPS_LAYOUT,
    toPolicy: etcdSchedulePolicy,
    props: {
      ...COMMON,
      mode: 'v-mode',
      nodes: ['v-cp-1', { name: 'v-cp-2', timeout: 'v-node-timeout' }],
      destination: { persistentVolumeClaim: { claimName: 'v-claim' } },
    },
  },
  {
    layout: VITESS_PROPS_LAYOUT,
    toPolicy: (props: never) => vitessSchedulePolicy(props, 'v-default-schedule-name'),
    props: {
      ...COMMON,
      scheduleName: 'v-schedule-name',
      cluster: 'v-cluster',
      topology: { globalServerAddress: 'v-topo' },
      vtctldServer: 'v-vtctld',
      storage: { s3: { bucket: 'v-bucket', region: 'v-region', authSecret: { name: 'v-auth', key: 'v-auth-key' } } },
      strategies: [{ keyspace: 'v-keyspace', shards: ['v-s1', 'v-s2'] }],
      frequency: 'v-frequency',
    },
  },
];

describe.each(ROWS)('$layout.engine props', ({ layout, toPolicy, props }) => {
  test('every value lands at a policy path whose prop path is where it was written', () => {
    const written = leaves(props);
    const placed = new Map(leaves(toPolicy(props as never)).map(([path, value]) => [value, path]));
    expect(written.length).toBeGreaterThan(20);
    expect(new Set(written.map(([, v]) => v)).size).toBe(written.length);
    for (const [path, value] of written) {
      expect({ value, propPath: propPath(layout, placed.get(value)!) }).toEqual({ value, propPath: path });
    }
  });

  test('the props as a whole, and the objects only the mapping makes, are the empty prop path', () => {
    for (const p of [['spec'], ['metadata'], ['spec', layout.engine]]) expect(propPath(layout, p)).toEqual([]);
    expect(propPath(layout, ['status', 'phase'])).toBeUndefined(); // no prop maps there
  });
});

test('a Vitess schedule: the schedule list and the schedule itself are the props, its name is scheduleName', () => {
  expect(propPath(VITESS_PROPS_LAYOUT, ['spec', 'vitess', 'schedules'])).toEqual([]);
  expect(propPath(VITESS_PROPS_LAYOUT, ['spec', 'vitess', 'schedules', 0])).toEqual([]);
  expect(propPath(VITESS_PROPS_LAYOUT, ['spec', 'vitess', 'schedules', 0, 'name'])).toEqual(['scheduleName']);
  expect(propPath(VITESS_PROPS_LAYOUT, ['spec', 'vitess', 'schedules', 0, 'strategies', 1, 'shards', 0])).toEqual([
    'strategies',
    1,
    'shards',
    0,
  ]);
});

describe('withPropPaths', () => {
  function policyError(f: () => unknown): PolicyError {
    try {
      f();
    } catch (e) {
      if (e instanceof PolicyError) return e;
      throw e;
    }
    throw new Error('no PolicyError thrown');
  }

  test('names the prop as written, then the policy field; paths in messages become prop paths too', () => {
    const error = policyError(() =>
      renderPolicy(
        redisSchedulePolicy({
          name: 'cache',
          shards: ['a', 'a'],
          sentinel: { addresses: ['sentinel:26379'] },
          s3: { bucket: 'Bad', region: 'r' },
          metrics: { prometheusRule: { severity: 'urgent!' } },
        }),
        'test/cache',
      ),
    );
    const mapped = withPropPaths(error, REDIS_PROPS_LAYOUT);
    expect(mapped).toBeInstanceOf(PolicyError);
    expect(mapped.source).toBe('test/cache');
    expect(mapped.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'metrics.prometheusRule.severity: received "urgent!"; must be a string matching ^[A-Za-z0-9._-]{1,63}$ (policy field spec.metrics.prometheusRule.severity)',
      's3.bucket: received "Bad"; must be a string matching ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$ (policy field spec.redis.s3.bucket)',
      'shards[1]: received "a"; shard names must be unique (also at shards[0]) (policy field spec.redis.shards[1])',
    ]);
    expect(mapped.message.split('\n')[0]).toBe('test/cache: invalid BackupPolicy (3 problems)');
  });

  test('a problem of the props as a whole is at "(props)"; an unmapped path stays as it is', () => {
    const error = new PolicyError([
      { path: 'spec.vitess.schedules[0]', segments: ['spec', 'vitess', 'schedules', 0], message: 'm1' },
      { path: 'status', segments: ['status'], message: 'm2' },
    ]);
    expect(withPropPaths(error, VITESS_PROPS_LAYOUT).issues).toEqual([
      { path: '(props)', segments: [], message: 'm1 (policy field spec.vitess.schedules[0])' },
      { path: 'status', segments: ['status'], message: 'm2' },
    ]);
  });
});

describe('pass-through fields', () => {
  test.each([
    ['metadata.namespace', 'name'],
    ['spec.defaults.pod.serviceAccountName', 'name'],
    ['spec.redis.shards[1].pod.imagePullSecrets[0]', 'name'],
    ['spec.defaults.pod.env[0].secretKeyRef.name', 'name'],
    ['spec.defaults.pod.volumes[2].persistentVolumeClaim.claimName', 'name'],
    ['spec.etcd.destination.s3.credentialsSecret.name', 'name'],
    ['spec.redis.sentinel.passwordSecret.name', 'name'],
    ['spec.redis.sentinel.addresses[1]', 'address'],
    ['spec.vitess.vtctldServer', 'address'],
    ['spec.vitess.storage.gcs.authSecret.name', 'name'],
    ['spec.vitess.storage.s3.endpoint', 'url'],
    ['spec.redis.s3.endpoint', 'url'],
    ['spec.redis.copies[0].s3.bucket', 'name'],
    ['spec.metrics.pushgatewayUrl', 'url'],
    ['spec.etcd.images.busybox', 'name'],
    ['spec.encryption.age.identitySecret.name', 'name'],
  ])('%s passes through (%s)', (path, format) => {
    expect(passThroughFormat(policySchema, segments(path))).toBe(format);
  });

  test.each([
    'metadata.name',
    'spec.defaults.schedule',
    'spec.redis.shards[0]',
    'spec.vitess.schedules[0].name',
    'spec.defaults.pod.env[0].name',
    'spec.defaults.pod.volumes[0].name',
    'spec.redis.s3.region',
    'spec.redis.sentinel.passwordSecret.key',
    'spec.defaults.placement.nodeSelector.constructor',
    'spec.encryption.age.image',
    'spec.unknown.name',
    'spec.etcd.endpoint', // its scheme decides whether etcdctl gets the client certificates
  ])('%s is not a pass-through field', (path) => {
    expect(passThroughFormat(policySchema, segments(path))).toBeUndefined();
  });

  test('every field that names a Kubernetes object passes through as a name', () => {
    const naming: PolicyPath[] = [];
    const visit = (schema: Schema, path: PolicyPath): void => {
      if (fieldMeta(schema).names !== undefined) naming.push(path);
      for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) visit(v, [...path, k]);
      if (schema.items) visit(schema.items as Schema, [...path, 0]);
    };
    visit(policySchema, []);
    expect(naming.length).toBeGreaterThan(20);
    for (const at of naming) {
      const path = formatPath(at);
      expect({ path, format: passThroughFormat(policySchema, at) }).toEqual({ path, format: 'name' });
    }
  });
});
