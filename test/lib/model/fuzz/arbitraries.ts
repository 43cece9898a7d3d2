/**
 * Random BackupPolicy documents over every field of the schema, for the
 * property tests of this folder. Each value pool mixes plausible values with
 * adversarial ones the schema may still admit (label keys with prefixes,
 * 63/64/253/254-character values, dots and underscores at the ends, unicode,
 * `$` and `$(VAR)` in every free-text value, names that collide after
 * sanitizing, requests above limits, ...). `plausibleOnly` drops the
 * adversarial half: the invalid-mutation property starts from those.
 */
import fc from 'fast-check';
import { PolicyError, renderPolicy, toYaml } from '../../../../lib';
import type { Manifest } from '../../../../lib';
import { engineDefinition } from '../../../../lib/registry';
import { expectValidManifests } from '../../../support/k8s-validate';
import { containersWithoutResources } from '../../../support/resources';

export type Doc = Record<string, unknown>;
export type EngineKey = 'vitess' | 'redis' | 'etcd';

/** Reproduce a failure with FUZZ_SEED=<seed printed by fast-check>; FUZZ_RUNS scales the number of cases. */
export function fuzzParameters(defaultRuns: number): fc.Parameters<unknown> {
  const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : undefined;
  const numRuns = process.env.FUZZ_RUNS !== undefined ? Number(process.env.FUZZ_RUNS) : defaultRuns;
  return { numRuns, ...(seed !== undefined ? { seed } : {}) };
}

/** Generators that take plausible values only, or plausible and adversarial ones. */
export interface Pools {
  readonly adversarial: boolean;
}

/**
 * A value of `plausible`, or (one time in `1 + odds`, unless the pools are plausible only) one of
 * `adversarial`; fields drawn many times per document take larger odds.
 */
function pick<T>(pools: Pools, plausible: readonly T[], adversarial: readonly T[], odds = 9): fc.Arbitrary<T> {
  const p = fc.constantFrom(...plausible);
  if (!pools.adversarial || adversarial.length === 0) return p;
  return fc.oneof({ weight: odds, arbitrary: p }, { weight: 1, arbitrary: fc.constantFrom(...adversarial) });
}

/** An optional field, present with odds `presence` : 3 (absent more often than not, so each case sets a different few fields). */
function some<T>(arb: fc.Arbitrary<T>, presence = 2): fc.Arbitrary<T | undefined> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: Math.round(presence * 4), arbitrary: arb },
  );
}

/** An object without its undefined fields (a document never has them). */
function defined<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const rec = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) =>
  fc.record(fields).map((o) => defined(o as Record<string, unknown>));

/** The first entry of each key (the plausible pools keep names unique; the adversarial ones repeat them now and then). */
function uniqueBy<T>(list: readonly T[], key: (item: T) => unknown): T[] {
  return list.filter((item, i) => list.findIndex((other) => key(other) === key(item)) === i);
}

// ---------------------------------------------------------------------------------------------
// value pools

const repeat = (s: string, n: number) => s.repeat(n);
const name63 = 'a' + repeat('b', 61) + 'c';
const name64 = name63 + 'd';
const subdomain253 = [repeat('a', 63), repeat('b', 63), repeat('c', 63), repeat('d', 61)].join('.');
const subdomain254 = subdomain253 + 'e';

/** A pool of values: plausible ones, and adversarial ones drawn now and then (`pick`). */
export interface ValuePool<T> {
  readonly plausible: readonly T[];
  readonly adversarial: readonly T[];
}

/** Every value of a pool, plausible first. */
export const allValues = <T>(pool: ValuePool<T>): T[] => [...pool.plausible, ...pool.adversarial];

/** The value pools the generators draw from, shared with the API-server differential test (test/kube/differential-samples.ts). */
export const FUZZ_VALUES = {
  dnsLabels: {
    plausible: ['db', 'prod', 'a', 'x1', 'commerce', 'customer-2'],
    adversarial: [name63, 'a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p-q-r-s-t-u-v-w-x-y-z-0-1-2-3-4', '0', '9-9'],
  },
  subdomains: {
    plausible: ['my-secret', 'creds.v2', 'aws-credentials', 'a'],
    adversarial: [name63, name64, subdomain253, subdomain254, 'a.b.c', '0.0'],
  },
  secretKeys: {
    plausible: ['key', 'password', 'credentials.json', 'AWS_KEY'],
    adversarial: ['.hidden', '..x', '-', '_', repeat('k', 253), repeat('k', 254), 'a..b', '...'],
  },
  /** Label keys: plain, prefixed, too long, with the engine's own keys (which the engine's labels win over). */
  labelKeys: {
    plausible: ['app', 'team', 'example.com/tier', 'env', 'node-role.kubernetes.io/db', 'topology.kubernetes.io/zone'],
    adversarial: [
      name63,
      name64,
      `${subdomain253}/x`,
      `${subdomain254}/x`,
      `example.com/${name63}`,
      `example.com/${name64}`,
      '-app',
      'app-',
      '_x',
      'x_',
      'a.b_c-d',
      'Example.com/x',
      'example.com/',
      '/x',
      'a/b/c',
      'ünï',
      'a$b',
      'app.kubernetes.io/component',
      'app.kubernetes.io/managed-by',
      'backup-cronjobs.io/target',
      'backup-cronjobs.io/serialization-group',
      'kubernetes.io/hostname',
      '',
    ],
  },
  labelValues: {
    plausible: ['prod', 'true', 'a', 'db-1', 'v1.2.3', ''],
    adversarial: [
      name63,
      'a'.repeat(63),
      '.a',
      'a.',
      '_a',
      'a_',
      '-a',
      'a-',
      'x y',
      'ünï',
      '$(X)',
      'a$b',
      'A.B_C-D',
      '1',
      '00',
    ],
  },
  quantities: {
    plausible: ['100m', '250m', '1', '2', '128Mi', '1Gi', '512Mi', '2Gi'],
    adversarial: [
      '0',
      '0.5',
      '0.0001',
      '1.5Gi',
      '0.1m',
      '1000000000000000000000Ei',
      '99999999999999999999',
      '1.000000001',
      '1k',
      '1M',
      '1E',
      '10Ti',
    ],
  },
  resourceNames: {
    plausible: ['cpu', 'memory', 'ephemeral-storage'],
    adversarial: [
      'nvidia.com/gpu',
      'hugepages-2Mi',
      'example.com/foo',
      'bogus',
      'requests.cpu',
      'Memory',
      'kubernetes.io/x',
      'a/b/c',
      'cpu ',
      'example.com/' + name64,
      'hugepages-1Gi',
    ],
  },
  schedules: {
    plausible: [
      '@daily',
      '@hourly',
      '0 2 * * *',
      '*/15 * * * *',
      '30 1 * * 1-5',
      'H 3 * * *',
      'H/30 * * * *',
      'H(0-29) 4 * * *',
      '0 0,12 * * *',
      '@weekly',
    ],
    adversarial: [
      '0 0 * * 7',
      '* * * *',
      'CRON_TZ=UTC 0 0 * * *',
      'TZ=Europe/Berlin 0 0 * * *',
      '@reboot',
      '@every 1h',
      '61 * * * *',
      '0 0 31 2 *',
      'H H H H H',
      '$(X) * * * *',
      '0 0 * JAN MON',
    ],
  },
  timeZones: {
    plausible: ['Etc/UTC', 'UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'],
    adversarial: [
      'Local',
      'Mars/Olympus',
      'utc',
      'Etc/GMT+14',
      'America/Argentina/ComodRivadavia',
      '../etc/passwd',
      ' UTC',
    ],
  },
  topologyKeys: {
    plausible: ['kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'kubernetes.io/os'],
    adversarial: ['bad key', name64, '/x', 'example.com/', `example.com/${name64}`, 'a$b', '-x'],
  },
  nodeNames: {
    plausible: ['cp-0', 'cp-1', 'node-a.example.com', 'master-2'],
    adversarial: [name63, name64, subdomain253, `${name64}.example.com`, 'a.b', '0', `${repeat('n', 62)}x.y`],
  },
  gtLtValues: {
    plausible: ['1', '10', '-5', '0'],
    adversarial: ['9223372036854775807', '9223372036854775808', '-9223372036854775809', '1.5', 'x', '+1', '007'],
  },
  tolerationSeconds: {
    plausible: [0, 60, 3600, 2 ** 40],
    adversarial: [2 ** 53 - 1, 2 ** 53, 2 ** 63, 1e21],
  },
  /** Env names: plain ones, odd but valid ones, and the names the engines set themselves. */
  envNames: {
    plausible: ['EXTRA', 'LOG_LEVEL', 'my.var', 'TZ_HINT'],
    adversarial: [
      '-x',
      '.x',
      '_',
      'PATH',
      'HOME',
      'BACKUP_JOB',
      'AWS_SECRET_ACCESS_KEY',
      'S3_BUCKET',
      'ETCD_BACKUP_NODE',
      'REDIS_PASSWORD',
      'a'.repeat(300),
    ],
  },
  mountPaths: {
    plausible: ['/extra', '/etc/extra', '/data/x', '/opt/conf'],
    adversarial: [
      '/tmp',
      '/',
      '/a/../b',
      '/x:y',
      '/vt/bin',
      '/backup',
      '/scratch',
      '/etcd-backup',
      '/extra/',
      '//x',
      '/ü',
      '/$(X)',
    ],
  },
  hostPaths: {
    plausible: ['/var/lib/etcd-backup', '/srv/backup', '/var/lib/etcd-restore'],
    adversarial: ['/a/../b', '/x:y', '/var/lib/$(X)', '/ü/x', '/a//b', '/..'],
  },
  sizeLimits: { plausible: ['1Gi', '500Mi'], adversarial: ['0', '0.5Ki', '1E'] },
} satisfies Record<string, ValuePool<unknown>>;

/** A pool's values as an arbitrary (`pick`). */
const pool = <T>(pools: Pools, values: ValuePool<T>) => pick(pools, values.plausible, values.adversarial);

/** Text with `$`: what the kubelet would expand if the builder forgot to escape it. */
export const DOLLAR_FRAGMENTS = [
  '$',
  '$$',
  '$$$',
  '$(AWS_SECRET_ACCESS_KEY)',
  '$(BACKUP_JOB)',
  '$$(BACKUP_JOB)',
  '$(S3_BUCKET)',
  '$(PATH)',
  '$(HOME)',
  '$(ETCD_BACKUP_NODE)',
  '$(ETCD_RESTORE_HOST_IP)',
  '$(REDIS_PASSWORD)',
  '$()',
  '$(',
  ')',
  '${HOME}',
  '$HOME',
  '$1',
  'x',
  '-',
  '.',
  '_',
  'é',
  '日本',
] as const;

/** Strings built from `$` fragments (never empty, no "/" or whitespace, so that any schema pattern of a token admits them). */
export const dollarText: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...DOLLAR_FRAGMENTS), { minLength: 1, maxLength: 5 })
  .map((parts) => `v${parts.join('')}`);

/** Free text (a region, a flag value, an env value): plausible, or with `$`, unicode, spaces at the ends, very long. */
function freeText(pools: Pools, plausible: readonly string[]): fc.Arbitrary<string> {
  if (!pools.adversarial) return fc.constantFrom(...plausible);
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...plausible) },
    { weight: 3, arbitrary: dollarText },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'ünïcödé',
        ' lead',
        'trail ',
        'a b',
        repeat('x', 300),
        'tab\there',
        'new\nline',
        '"quoted"',
        "it's",
        '\\back',
      ),
    },
  );
}

const dnsLabel = (pools: Pools) => pool(pools, FUZZ_VALUES.dnsLabels);
const subdomain = (pools: Pools) => pool(pools, FUZZ_VALUES.subdomains);
const secretKeys = (pools: Pools) => pool(pools, FUZZ_VALUES.secretKeys);
const secretRef = (pools: Pools) => rec({ name: subdomain(pools), key: secretKeys(pools) });

const labelKeys = (pools: Pools) => pool(pools, FUZZ_VALUES.labelKeys);
const labelValues = (pools: Pools) => pool(pools, FUZZ_VALUES.labelValues);
const labels = (pools: Pools) => fc.dictionary(labelKeys(pools), labelValues(pools), { maxKeys: 3 });

/**
 * Annotations: small ones, `$` in values, and (adversarial) one that brings the total of keys and
 * values a few bytes under, at or over 256 KiB, or to half of it (twice that, with another level's).
 */
export const ANNOTATION_LIMIT = 256 * 1024;
/** How far under (or over, if negative) the limit a large annotation brings the total. */
export const ANNOTATION_SLACK = [-1, 0, 1, 23, 24, 25, 100];
const annotationValues = (pools: Pools) =>
  pools.adversarial
    ? fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom('value', 'a note', '{"json": true}', '') },
        { weight: 1, arbitrary: dollarText },
      )
    : fc.constantFrom('value', 'a note');
const largeAnnotation = (pools: Pools) =>
  fc
    .tuple(labelKeys(pools), fc.constantFrom(...ANNOTATION_SLACK, ANNOTATION_LIMIT / 2))
    .map(([key, slack]) => ({ [key]: 'z'.repeat(Math.max(0, ANNOTATION_LIMIT - key.length - slack)) }));
const annotations = (pools: Pools) =>
  fc
    .tuple(
      fc.dictionary(labelKeys(pools), annotationValues(pools), { maxKeys: 2 }),
      pools.adversarial ? some(largeAnnotation(pools), 0.5) : fc.constant(undefined),
    )
    .map(([small, large]) => ({ ...small, ...large }));

const quantities = (pools: Pools) => pool(pools, FUZZ_VALUES.quantities);
const resourceNames = (pools: Pools) => pool(pools, FUZZ_VALUES.resourceNames);
const resourceMap = (pools: Pools) => fc.dictionary(resourceNames(pools), quantities(pools), { maxKeys: 3 });

const schedules = (pools: Pools) => pool(pools, FUZZ_VALUES.schedules);
const timeZones = (pools: Pools) => pool(pools, FUZZ_VALUES.timeZones);
const durations = (pools: Pools) =>
  pick(
    pools,
    ['30s', '5m', '15m', '1h', '2h30m', '1d'],
    ['0s', '0m', '1s', '99999w', '1w1d1h1m1s', '2147483648s', '59s'],
  );

// ---------------------------------------------------------------------------------------------
// job settings (spec.defaults and every override level)

const topologyKeys = (pools: Pools) => pool(pools, FUZZ_VALUES.topologyKeys);
const nodeNames = (pools: Pools) => pool(pools, FUZZ_VALUES.nodeNames);

const nodeRequirement = (pools: Pools) =>
  fc.oneof(
    rec({
      key: labelKeys(pools),
      operator: fc.constantFrom('In', 'NotIn', undefined),
      values: fc.array(labelValues(pools), { minLength: 1, maxLength: 2 }),
      weight: some(fc.integer({ min: 1, max: 100 })),
    }),
    rec({
      key: labelKeys(pools),
      operator: fc.constantFrom('Exists', 'DoesNotExist'),
      weight: some(fc.integer({ min: 1, max: 100 })),
    }),
    rec({
      key: labelKeys(pools),
      operator: fc.constantFrom('Gt', 'Lt'),
      values: fc.tuple(pool(pools, FUZZ_VALUES.gtLtValues)).map((v) => [...v]),
      weight: some(fc.integer({ min: 1, max: 100 })),
    }),
    rec({
      key: fc.constant('kubernetes.io/hostname'),
      operator: fc.constant('In'),
      values: fc.array(nodeNames(pools), { minLength: 1, maxLength: 2 }),
    }),
  );

const toleration = (pools: Pools) =>
  fc.oneof(
    rec({
      key: labelKeys(pools),
      operator: fc.constantFrom('Equal', undefined),
      value: labelValues(pools),
      effect: some(fc.constantFrom('NoSchedule', 'PreferNoSchedule')),
    }),
    rec({
      key: some(labelKeys(pools)),
      operator: fc.constant('Exists'),
      effect: some(fc.constantFrom('NoSchedule', 'PreferNoSchedule', 'NoExecute')),
    }),
    rec({
      key: labelKeys(pools),
      operator: some(fc.constantFrom('Equal', 'Exists')),
      effect: fc.constant('NoExecute'),
      tolerationSeconds: pool(pools, FUZZ_VALUES.tolerationSeconds),
    }),
  );

const podAffinityTerm = (pools: Pools) =>
  rec({
    labels: labels(pools),
    topologyKey: some(topologyKeys(pools)),
    weight: some(fc.integer({ min: 1, max: 100 })),
    namespaces: some(fc.array(dnsLabel(pools), { maxLength: 2 })),
  });

export const placement = (pools: Pools) =>
  rec({
    nodeSelector: some(labels(pools)),
    nodeAffinity: some(fc.array(nodeRequirement(pools), { maxLength: 2 })),
    tolerations: some(fc.array(toleration(pools), { maxLength: 2 })),
    podAffinity: some(fc.array(podAffinityTerm(pools), { maxLength: 2 })),
    podAntiAffinity: some(fc.array(podAffinityTerm(pools), { maxLength: 2 })),
    serializationGroup: some(
      rec({
        name: dnsLabel(pools),
        scope: some(fc.constantFrom('node', 'cluster')),
        clusterTopologyKey: some(topologyKeys(pools)),
      }),
    ),
  });

const envNames = (pools: Pools) => pool(pools, FUZZ_VALUES.envNames);
const envVar = (pools: Pools) =>
  fc.oneof(
    rec({ name: envNames(pools), value: freeText(pools, ['1', 'debug', '', 'a=b']) }),
    rec({ name: envNames(pools), secretKeyRef: secretRef(pools) }),
  );

const mountPaths = (pools: Pools) => pool(pools, FUZZ_VALUES.mountPaths);
const extraVolume = (pools: Pools) =>
  fc
    .tuple(
      rec({
        name: pick(
          pools,
          ['extra', 'conf', 'data'],
          ['tmp', 'scratch', 'vt-root', 'backup', 'tools', name63, 'etcd-certs'],
        ),
        mountPath: mountPaths(pools),
        readOnly: some(fc.boolean(), 1),
      }),
      fc.oneof(
        rec({ secret: rec({ secretName: subdomain(pools) }) }),
        rec({ configMap: rec({ name: subdomain(pools) }) }),
        rec({ persistentVolumeClaim: rec({ claimName: subdomain(pools) }) }),
        rec({ emptyDir: rec({ sizeLimit: some(pool(pools, FUZZ_VALUES.sizeLimits)) }) }),
      ),
    )
    .map(([v, source]) => ({ ...v, ...source }));

export const podOptions = (pools: Pools) =>
  rec({
    resources: some(rec({ requests: some(resourceMap(pools)), limits: some(resourceMap(pools)) })),
    containerResources: some(
      fc.dictionary(
        pick(
          pools,
          [
            'vtbackup',
            'init-vt-root',
            'snapshot',
            'finalize',
            'tools',
            'encrypt',
            'redis-dump',
            's3-upload',
            'retention-prune',
            'restore',
          ],
          ['nope', 'Snapshot', ''],
        ),
        rec({ requests: some(resourceMap(pools)), limits: some(resourceMap(pools)) }),
        { maxKeys: 2 },
      ),
      1,
    ), // rarer: a name of another engine's container is refused, which would crowd out accepted policies
    imagePullSecrets: some(fc.array(subdomain(pools), { maxLength: 2 })),
    priorityClassName: some(
      pick(pools, ['high', 'backup.low'], [subdomain253, subdomain254, 'system-node-critical', name64]),
    ),
    serviceAccountName: some(pick(pools, ['backup', 'sa.v1'], [subdomain253, name64, 'default'])),
    imagePullPolicy: some(fc.constantFrom('Always', 'IfNotPresent', 'Never')),
    env: some(fc.array(envVar(pools), { maxLength: 3 }).map((list) => uniqueBy(list, (e) => e.name))),
    volumes: some(
      fc.array(extraVolume(pools), { maxLength: 2 }).map((list) =>
        uniqueBy(
          uniqueBy(list, (v) => v.name),
          (v) => v.mountPath,
        ),
      ),
    ),
    labels: some(labels(pools)),
    annotations: some(annotations(pools)),
  });

/** Job settings: every field of every level (spec.defaults, a schedule, a shard, a node). */
export const jobSettings = (pools: Pools) =>
  rec({
    schedule: some(schedules(pools)),
    timeZone: some(timeZones(pools), 2),
    stagger: some(rec({ window: pick(pools, ['1h', '30m', '2h'], ['59s', '0s', '1m', '1w']) }), 0.5),
    suspend: some(fc.boolean(), 1),
    concurrencyPolicy: some(fc.constantFrom('Forbid', 'Allow', 'Replace'), 1),
    startingDeadline: some(durations(pools), 1),
    successfulJobsHistoryLimit: some(fc.integer({ min: 0, max: 1000 }), 1),
    failedJobsHistoryLimit: some(fc.integer({ min: 0, max: 1000 }), 1),
    timeout: some(durations(pools), 1),
    backoffLimit: some(fc.integer({ min: 0, max: 100 }), 1),
    ttlAfterFinished: some(durations(pools), 1),
    placement: some(placement(pools), 2),
    pod: some(podOptions(pools), 2),
  });

// ---------------------------------------------------------------------------------------------
// the parts around the engine

const retention = (pools: Pools) =>
  rec({
    keepLast: some(fc.integer({ min: 1, max: 100000 }), 2),
    maxAge: some(durations(pools), 1),
    maxTotalSize: some(pick(pools, ['10Gi', '500Mi'], ['0', '0.5Ki', '1E', '8Ei']), 0.25),
    hourly: some(fc.integer({ min: 1, max: 100000 }), 1),
    daily: some(fc.integer({ min: 1, max: 100000 }), 1),
    weekly: some(fc.integer({ min: 1, max: 100000 }), 1),
    monthly: some(fc.integer({ min: 1, max: 100000 }), 1),
    yearly: some(fc.integer({ min: 1, max: 100000 }), 1),
    dryRun: some(fc.boolean(), 1),
    schedule: some(pick(pools, ['@daily', '30 4 * * *'], ['H 4 * * *', '0 0 * * 7', '']), 1),
  });

/** A CA bundle from a ConfigMap or a Secret key (CaBundleRef). */
const caBundle = (pools: Pools) => fc.oneof(rec({ configMap: secretRef(pools) }), rec({ secret: secretRef(pools) }));
/** Drops a CA bundle that only an adversarial pool may pair with a plain-HTTP (or missing) URL. */
const httpsOnlyBundle = <T extends { caBundle?: unknown }>(pools: Pools, url: unknown, value: T): T =>
  keepsBundle(pools, url) ? value : { ...value, caBundle: undefined };
/**
 * A bundle stays with an https (or default) URL; with a plain-HTTP one only when the URL is adversarial too
 * (a plausible http:// URL with a bundle would be refused in most mixed runs and crowd out accepted policies).
 */
function keepsBundle(pools: Pools, url: unknown): boolean {
  if (typeof url === 'string' && url.startsWith('https://')) return true;
  return pools.adversarial && (typeof url !== 'string' || /[$]/.test(url));
}

const pushgatewayUrls = (pools: Pools) =>
  pick(
    pools,
    ['http://pushgateway.monitoring.svc:9091', 'https://pg.example.com'],
    ['http://pg/$(AWS_SECRET_ACCESS_KEY)', 'http://x$$y:9091', 'https://ü.example'],
  );
const metrics = (pools: Pools) =>
  rec({
    pushgatewayUrl: some(pushgatewayUrls(pools), 12),
    auth: some(
      fc.oneof(
        rec({
          basicAuthSecret: rec({
            name: subdomain(pools),
            usernameKey: some(fc.constant('user'), 1),
            passwordKey: some(fc.constant('pass'), 1),
          }),
        }),
        rec({ bearerTokenSecret: secretRef(pools) }),
      ),
      2,
    ),
    caBundle: some(caBundle(pools), 2),
    prometheusRule: some(
      rec({
        labels: some(labels(pools)),
        severity: some(pick(pools, ['warning', 'critical'], [name63, 'a.b_c-D', '0'])),
        staleAfterIntervals: some(fc.integer({ min: 1, max: 100 })),
      }),
      2,
    ),
    grafanaDashboard: some(rec({ labels: some(labels(pools)) }), 1),
  }).map(({ auth, grafanaDashboard, ...m }) => {
    // credentials and a CA bundle need a Pushgateway (a bundle an https one), unless the pool is adversarial
    // credentials, a CA bundle and the dashboard need a Pushgateway
    const needsGateway = pools.adversarial || m.pushgatewayUrl !== undefined;
    const withAuth: typeof m & Record<string, unknown> = {
      ...m,
      ...(needsGateway ? (auth as Record<string, unknown> | undefined) : {}),
      ...(needsGateway && grafanaDashboard !== undefined ? { grafanaDashboard } : {}),
    };
    return httpsOnlyBundle(pools, m.pushgatewayUrl, withAuth);
  });

/** age recipients as age-keygen and ssh-keygen print them; adversarial: almost-recipients the schema must refuse, and `$`. */
const ageRecipients = (pools: Pools) =>
  pick(
    pools,
    [
      'age1d599yed9hahu2lqwcgtjfj0pd9llzjh6fgfc04mjr24w4lkgsdvs09ksg6',
      'age1ulztfk3qnz05erlq7e2qq3hgjrx4z3g79stppyvuwm4j84xngvmswwhsh7',
      'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHSgX3jDS+tI9LidaMkrVJV3WgD6NbcZyFbdemc6CTMP ops@example',
    ],
    [
      'AGE1D599YED9HAHU2LQWCGTJFJ0PD9LLZJH6FGFC04MJR24W4LKGSDVS09KSG6',
      'age1short',
      'age1$(AWS_SECRET_ACCESS_KEY)',
      'ssh-ed25519 AAAA$(X)',
      'ssh-dss AAAAB3',
      ' age1d599yed9hahu2lqwcgtjfj0pd9llzjh6fgfc04mjr24w4lkgsdvs09ksg6',
      '',
    ],
  );

/** spec.encryption: each recipients source (adversarial: none or two), an identity Secret now and then, an image. */
const encryption = (pools: Pools) =>
  fc
    .tuple(
      fc.oneof(
        {
          weight: 3,
          arbitrary: rec({ recipients: fc.uniqueArray(ageRecipients(pools), { minLength: 1, maxLength: 2 }) }),
        },
        { weight: 3, arbitrary: rec({ recipientsSecret: secretRef(pools) }) },
        { weight: 3, arbitrary: rec({ recipientsConfigMap: secretRef(pools) }) },
        {
          weight: pools.adversarial ? 1 : 0,
          arbitrary: fc.constantFrom({}, { recipients: [], recipientsSecret: { name: 'keys', key: 'r' } }),
        },
      ),
      rec({
        identitySecret: some(secretRef(pools), 8),
        image: pools.adversarial ? some(images(pools), 30) : images(pools),
      }),
    )
    .map(([recipients, rest]) => ({ age: { ...recipients, ...rest } }));

/** spec.contentChecks: each field, the edges of the percentage included. */
const contentChecks = (pools: Pools) =>
  rec({
    allowEmpty: some(fc.boolean()),
    shrinkBelowPercent: some(pick(pools, [1, 50, 90, 100], [0, 101, 50.5, -1])),
    onShrink: some(pick(pools, ['warn', 'fail'], ['Fail', ''])),
  });

/** spec.drill: every job setting of a level, its own schedule, a maximum backup age. */
const drill = (pools: Pools) =>
  fc
    .tuple(
      jobSettings(pools),
      schedules(pools),
      some(pick(pools, ['1d', '2d', '12h', '1h'], ['0s', '59s', '1m', '99999w']), 2),
    )
    .map(([settings, schedule, maxBackupAge]) => defined({ ...settings, schedule, maxBackupAge }));

const policyNames = (pools: Pools) =>
  pick(pools, ['backup', 'prod-db', 'p'], [name63, 'a-' + repeat('b', 48), '0', 'x-y-z-1-2-3']);

/** The whole document around one engine's spec. */
function documentOf(pools: Pools, engine: EngineKey, spec: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Doc> {
  return rec({
    metadata: rec({
      name: policyNames(pools),
      namespace: some(dnsLabel(pools)),
      labels: some(labels(pools), 2),
      annotations: some(annotations(pools), 2),
    }),
    defaults: some(jobSettings(pools)),
    retention: some(retention(pools), 2),
    metrics: some(metrics(pools), 2),
    scripts: some(rec({ mode: some(pick(pools, ['inline', 'configMap'], ['ConfigMap', ''])) }), 2),
    // only for the engines that encrypt (the others refuse it: invalid.test.ts)
    encryption: engineDefinition(engine).encryption === true ? some(encryption(pools), 2) : fc.constant(undefined),
    // restore drills for the engines that render them
    drill: engineDefinition(engine).drill === true ? some(drill(pools), 2) : fc.constant(undefined),
    // content checks for the engines that do them (the others refuse them: alerts-source.test.ts)
    contentChecks:
      engineDefinition(engine).contentChecks === true ? some(contentChecks(pools), 1) : fc.constant(undefined),
    engine: spec,
  }).map(({ metadata, engine: e, ...common }) => ({
    apiVersion: 'backup-cronjobs.io/v1alpha1',
    kind: 'BackupPolicy',
    metadata,
    spec: defined({ ...common, [engine]: e }),
  }));
}

const images = (pools: Pools) =>
  pick(
    pools,
    ['vitess/lite:v21.0.4', 'registry.example.com/x/y:1.0', 'redis:7.2.8-alpine', 'alpine:3.20', 'mysql:8.0.40'],
    [' redis', 'redis ', 'a b', 'UPPER/Case', 'x@sha256:abc', 'ünï', 'v$(X)', 'mysql:8.0.40/x'],
  );

// ---------------------------------------------------------------------------------------------
// Vitess

const shardRanges = (pools: Pools) =>
  pick(
    pools,
    ['-', '-80', '80-', '-40', '40-80', '80-c0', 'c0-'],
    ['80-40', '80-80', '-0', '0-', '00-', '8000-', '-8000', 'x-', '80-8000'],
    30,
  );

const vitessStorage = (pools: Pools) =>
  fc.oneof(
    rec({
      s3: rec({
        region: freeText(pools, ['us-east-1', 'eu-west-1']),
        bucket: freeText(pools, ['backups', 'my.bucket']),
        keyPrefix: some(freeText(pools, ['vt', 'a/b/', 'prod/'])),
        endpoint: some(freeText(pools, ['http://minio:9000', 'https://s3.example.com'])),
        forcePathStyle: some(fc.boolean()),
        minPartSize: some(pick(pools, [5242880, 1, 2 ** 40], [2 ** 53, 1e21])),
        authSecret: some(secretRef(pools)),
        caBundle: some(caBundle(pools), 2),
      }).map((s3) =>
        s3.endpoint === undefined || keepsBundle(pools, s3.endpoint) ? s3 : { ...s3, caBundle: undefined },
      ),
    }),
    rec({
      gcs: rec({
        bucket: freeText(pools, ['gcs-bucket']),
        keyPrefix: some(freeText(pools, ['vt'])),
        authSecret: some(secretRef(pools)),
      }),
    }),
    rec({
      azblob: rec({
        account: freeText(pools, ['acct']),
        container: freeText(pools, ['backups']),
        keyPrefix: some(freeText(pools, ['vt'])),
        authSecret: secretRef(pools),
      }),
    }),
    rec({ ceph: rec({ authSecret: secretRef(pools) }) }),
    rec({
      file: rec({
        claimName: subdomain(pools),
        subPath: some(pick(pools, ['vitess', 'a/b'], ['/abs', '../up', 'a/../b', '', 'x/..', '$(X)'])),
      }),
    }),
  );

const extraFlagKeys = (pools: Pools) =>
  pick(
    pools,
    [
      'mysql_shutdown_timeout',
      'restart_before_backup',
      'builtinbackup-incremental-restore-path',
      'grpc_max_message_size',
    ],
    [
      'init_keyspace',
      'init-shard',
      '--topo_global_root',
      'initial_backup',
      'allow-first-backup',
      'bad flag',
      '=x',
      '-',
      'x=y',
      'ünï',
    ],
  );

const vitessIncremental = (pools: Pools) =>
  rec({
    schedule: pick(pools, ['*/15 * * * *', 'H/30 * * * *', '@hourly'], ['', '60 * * * *', 'H H H H H H']),
    timeout: some(pick(pools, ['10m', '5m'], ['0s', '1x'])),
    maxRecoveryPointAge: some(pick(pools, ['1h', '45m'], ['0s', 'soon'])),
    allowPrimary: some(fc.boolean()),
    suspend: some(fc.boolean()),
  });

const vitessSchedule = (pools: Pools) =>
  fc
    .tuple(
      dnsLabel(pools),
      some(pick(pools, ['30m', '6h', '24h', '1h', '15m'], ['0s', '7m', '25h', '1w', '90m', '1h30m']), 1),
      jobSettings(pools),
      fc
        .array(
          rec({
            keyspace: dnsLabel(pools),
            shards: fc.uniqueArray(shardRanges(pools), { minLength: 1, maxLength: 2 }),
          }),
          { minLength: 1, maxLength: 2 },
        )
        .map((list) => uniqueBy(list, (s) => s.keyspace)),
      pick(pools, [false], [true]),
      some(vitessIncremental(pools), 1),
    )
    .map(([name, frequency, settings, strategies, bothFrequencyAndSchedule, incremental]) => ({
      ...settings,
      name,
      // a frequency replaces the schedule (the adversarial pools keep both now and then)
      ...(frequency !== undefined
        ? { frequency, schedule: bothFrequencyAndSchedule ? settings.schedule : undefined }
        : {}),
      strategies,
      incremental,
    }))
    .map((o) => defined(o));

export const vitessSpec = (pools: Pools) =>
  rec({
    cluster: dnsLabel(pools),
    images: some(rec({ vtbackup: some(images(pools)), mysqld: some(images(pools)) }), 1),
    mysqlFlavor: some(fc.constantFrom('MySQL56', 'MySQL80', 'MariaDB', 'MariaDB103'), 1),
    backupEngine: some(fc.constantFrom('builtin', 'xtrabackup', 'mysqlshell'), 1),
    topology: rec({
      implementation: some(freeText(pools, ['etcd2', 'consul', 'zk2']), 1),
      globalServerAddress: freeText(pools, ['etcd:2379', 'etcd-0.etcd:2379,etcd-1.etcd:2379']),
      globalRoot: some(freeText(pools, ['/vitess/global', '/vt']), 1),
    }),
    vtctldServer: pick(pools, ['vtctld:15999', 'vtctld.vitess.svc:15999'], ['v$(X):1', 'a$$b:15999']),
    storage: vitessStorage(pools),
    dbInitScriptSecret: some(secretRef(pools), 1),
    scratch: some(
      rec({
        size: some(pick(pools, ['10Gi', '500Mi'], ['0', '0.5Ki', '1E'])),
        storageClassName: some(pick(pools, ['fast', 'ssd.v2'], [subdomain253, name64, 'a..b'])),
        accessModes: some(
          fc.uniqueArray(fc.constantFrom('ReadWriteOnce', 'ReadWriteOncePod', 'ReadWriteMany', 'ReadOnlyMany'), {
            minLength: 1,
            maxLength: 2,
          }),
        ),
      }),
      1,
    ),
    allowFirstBackup: some(fc.boolean(), 1),
    flagStyle: some(fc.constantFrom('underscore', 'dashed'), 1),
    vtbackupRetention: some(
      rec({
        minBackupInterval: some(durations(pools)),
        minRetentionTime: some(durations(pools)),
        minRetentionCount: some(pick(pools, [1, 7, 1000], [2 ** 53, 1e21])),
      }),
      1,
    ),
    extraFlags: some(fc.dictionary(extraFlagKeys(pools), freeText(pools, ['30s', 'true', '1024']), { maxKeys: 2 }), 1),
    schedules: fc
      .array(vitessSchedule(pools), { minLength: 1, maxLength: 2 })
      .map((list) => uniqueBy(list, (s) => s.name)),
  });

// ---------------------------------------------------------------------------------------------
// S3 (Redis and etcd)

/** spec.<engine>.copies: one or two copies, each an S3 destination with its own rules; refusals rare. */
const s3Copies = (pools: Pools) =>
  fc
    .tuple(
      fc.array(
        rec({
          name: pick(pools, ['offsite', 'dr-1'], ['Off', '-x'], 19),
          s3: fc.tuple(s3Destination(pools), pick(pools, [false], [true], 9)).map(([d, keepBundle]) =>
            // a copy's CA bundle is refused: kept one time in 10 of an adversarial pool
            keepBundle ? d : { ...d, caBundle: undefined },
          ),
          retention: some(
            retention(pools).map(({ dryRun: _d, schedule: _s, ...rules }) => rules),
            1,
          ),
        }),
        { minLength: 1, maxLength: 2 },
      ),
      pick(pools, [false], [true], 19),
    )
    // a name twice is refused: kept one time in 20 of an adversarial pool
    .map(([list, keepTwice]) => (keepTwice ? list : uniqueBy(list, (c) => c.name)));

const s3Destination = (pools: Pools) =>
  rec({
    bucket: pick(pools, ['my-bucket', 'etcd.backups'], ['ab', 'a'.repeat(63), '1.2.3.4', 'a..b', 'a-.b']),
    path: some(
      pick(
        pools,
        ['backups', 'prod/etcd', 'a'],
        [
          'v$(AWS_SECRET_ACCESS_KEY)',
          '$(AWS_SECRET_ACCESS_KEY)',
          'x/$$/y',
          'ünï/x',
          'a'.repeat(900),
          'a'.repeat(901),
          'a//b',
        ],
      ),
    ),
    region: pick(pools, ['us-east-1', 'eu-central-1'], ['$(AWS_REGION)', 'r$$', 'ünï']),
    endpoint: some(
      pick(
        pools,
        ['http://minio.minio.svc:9000', 'https://s3.example.com'],
        ['http://m$(AWS_SECRET_ACCESS_KEY):9000', 'https://[::1]:9000', 'http://x/$$'],
      ),
    ),
    forcePathStyle: some(fc.boolean(), 1),
    credentialsSecret: some(
      rec({
        name: subdomain(pools),
        accessKeyIdKey: some(secretKeys(pools), 1),
        secretAccessKeyKey: some(secretKeys(pools), 1),
        sessionTokenKey: some(secretKeys(pools), 1),
      }),
    ),
    storageClass: some(pick(pools, ['STANDARD_IA', 'GLACIER'], ['X', '_'])),
    caBundle: some(caBundle(pools), 2),
    objectLock: some(
      rec({
        mode: pick(pools, ['GOVERNANCE', 'COMPLIANCE'], ['governance']),
        period: pick(pools, ['30d', '1w', '1h', '1s'], ['0s', '30']),
      }),
      0.5,
    ),
    encryption: some(
      fc.oneof(
        { weight: 4, arbitrary: rec({ serverSideEncryption: fc.constant('AES256') }) },
        {
          weight: 4,
          arbitrary: rec({
            serverSideEncryption: fc.constant('aws:kms'),
            kmsKeyId: some(
              pick(pools, ['alias/backup', 'arn:aws:kms:us-east-1:1:key/x'], ['k$(AWS_SECRET_ACCESS_KEY)', '$$']),
            ),
          }),
        },
        { weight: pools.adversarial ? 1 : 0, arbitrary: rec({ kmsKeyId: fc.constant('alias/without-kms') }) },
      ),
      1,
    ),
  }).map(({ encryption, ...s3 }) => ({
    ...s3,
    ...(encryption as Record<string, unknown> | undefined),
    // a CA bundle is refused for a plain-HTTP endpoint, unless the pool is adversarial
    ...(s3.endpoint === undefined || keepsBundle(pools, s3.endpoint) ? {} : { caBundle: undefined }),
  }));

// ---------------------------------------------------------------------------------------------
// Redis

const shardNames = (pools: Pools) =>
  pick(
    pools,
    ['shard01', 'shard02', 'mymaster', 'cache.a'],
    [name63, 'A.b_C-d', 'Shard01', 'shard-01', 'shard_01', '0', 'a'.repeat(63)],
  );
const redisShard = (pools: Pools) =>
  fc.oneof(
    { weight: 2, arbitrary: shardNames(pools) },
    {
      weight: 1,
      arbitrary: fc.tuple(shardNames(pools), jobSettings(pools)).map(([name, settings]) => ({ ...settings, name })),
    },
  );
const sentinelAddresses = (pools: Pools) =>
  pick(
    pools,
    ['sentinel:26379', 'redis-sentinel-0.redis-sentinel.default.svc:26379', '10.0.0.1:26379', '[::1]:26379'],
    ['s:0', 's:65536', 's:99999', '[fe80::1%eth0]:1', 'a.b.c:1'],
  );
const tokens = (pools: Pools) =>
  pick(pools, ['backup', 'default'], ['u$(REDIS_PASSWORD)', 'u$$', 'ünï', '$(AWS_SECRET_ACCESS_KEY)']);

export const redisSpec = (pools: Pools) =>
  rec({
    sentinel: rec({
      addresses: fc.uniqueArray(sentinelAddresses(pools), { minLength: 1, maxLength: 2 }),
      username: some(tokens(pools), 1),
      passwordSecret: some(secretRef(pools), 1),
    }),
    username: some(tokens(pools), 1),
    passwordSecret: some(secretRef(pools), 1),
    shards: fc.array(redisShard(pools), { minLength: 1, maxLength: 3 }).map((list) => uniqueBy(list, entryName)),
    allowMasterFallback: some(fc.boolean(), 1),
    compression: some(rec({ level: some(fc.integer({ min: 1, max: 9 })) }), 1),
    verifyRdb: some(fc.boolean(), 1),
    scratch: some(
      fc.oneof(
        { weight: 4, arbitrary: rec({ sizeLimit: pick(pools, ['2Gi', '500Mi'], ['0', '1E']) }) },
        {
          weight: 4,
          arbitrary: rec({
            size: pick(pools, ['10Gi'], ['0', '0.5Ki']),
            storageClassName: some(pick(pools, ['fast'], [subdomain253, name64])),
          }),
        },
        {
          weight: pools.adversarial ? 1 : 0,
          arbitrary: fc.constantFrom({ sizeLimit: '1Gi', size: '1Gi' }, { storageClassName: 'fast' }),
        },
      ),
      1,
    ),
    s3: s3Destination(pools),
    copies: some(s3Copies(pools), 1),
    images: some(rec({ redis: some(images(pools)), awsCli: some(images(pools)) }), 1),
  });

// ---------------------------------------------------------------------------------------------
// etcd

/** The name of a shard or node given as a name or as `{name, ...settings}`. */
const entryName = (entry: string | { name: string }) => (typeof entry === 'string' ? entry : entry.name);

const hostPaths = (pools: Pools) => pool(pools, FUZZ_VALUES.hostPaths);
const etcdNode = (pools: Pools) =>
  fc.oneof(
    { weight: 2, arbitrary: nodeNames(pools) },
    {
      weight: 1,
      arbitrary: fc.tuple(nodeNames(pools), jobSettings(pools)).map(([name, settings]) => ({ ...settings, name })),
    },
  );
const fileNames = (pools: Pools) =>
  pick(
    pools,
    ['ca.crt', 'client.crt', 'client.key', 'secrets/etcd-all-certs/etcd-peer-$(ETCD_BACKUP_NODE).crt'],
    [
      'c$(AWS_SECRET_ACCESS_KEY)',
      '$$',
      '..',
      '.',
      'a/../b',
      './c.crt',
      'a//b',
      '/abs.crt',
      'ünï',
      'a'.repeat(255),
      `${'d/'.repeat(511)}x`,
    ],
  );

export const etcdSpec = (pools: Pools) =>
  fc
    .tuple(
      fc.constantFrom('cluster', 'perNode', 'perNode', undefined),
      some(pick(pools, ['etcd-snapshot_', 'snap-'], ['A._-', 'a'.repeat(100), 'X']), 1),
    )
    .chain(([mode, namePrefix]) =>
      rec({
        mode: fc.constant(mode),
        // cluster mode takes no nodes: only the adversarial pools set them anyway
        nodes:
          mode === 'perNode'
            ? fc.array(etcdNode(pools), { minLength: 1, maxLength: 3 }).map((list) => uniqueBy(list, entryName))
            : pools.adversarial
              ? some(fc.array(etcdNode(pools), { minLength: 1, maxLength: 2 }), 0.5)
              : fc.constant(undefined),
        distribution: some(fc.constantFrom('kubeadm', 'openshift', 'openshift', 'k3s', 'rke2'), 1),
        nodeRole: some(fc.constantFrom('control-plane', 'master', 'etcd'), 1),
        tolerateAllTaints: some(fc.boolean(), 1),
        endpoint: some(
          pick(
            pools,
            ['https://127.0.0.1:2379', 'https://10.0.0.1:2379', 'http://localhost:2379'],
            ['https://h$(AWS_SECRET_ACCESS_KEY):2379', 'http://a$$b:1'],
          ),
        ),
        hostNetwork: some(fc.boolean(), 1),
        certificates: some(
          rec({
            hostPath: some(hostPaths(pools)),
            caFile: some(fileNames(pools)),
            certFile: some(fileNames(pools)),
            keyFile: some(fileNames(pools)),
          }),
          1,
        ),
        destination: some(
          fc.oneof(
            rec({ hostPath: rec({ path: some(hostPaths(pools)) }) }),
            rec({
              persistentVolumeClaim: rec({
                claimName: subdomain(pools),
                subPath: some(pick(pools, ['etcd', 'a/b'], ['a/../b', '..', 'x/..', '$(X)'])),
                fsGroup: some(pick(pools, [1000, 65534], [0, -1, 2147483648]), 1),
              }),
            }),
            rec({ s3: s3Destination(pools) }),
          ),
        ),
        copies: some(s3Copies(pools), 0.5),
        namePrefix: fc.constant(namePrefix),
        retentionScope: some(fc.constantFrom('node', 'node', 'cluster'), 0.5),
        restoreCheck: some(fc.boolean(), 1),
        controlPlaneFiles: some(
          rec({
            paths: some(
              fc.uniqueArray(
                pick(
                  pools,
                  [
                    '/etc/kubernetes/pki',
                    '/etc/kubernetes/manifests',
                    '/etc/kubernetes/static-pod-resources',
                    '/var/lib/rancher/k3s/server/tls',
                  ],
                  [
                    '/etc/kubernetes',
                    '/a/../b',
                    '/x:y',
                    '/srv/$(X)',
                    '/srv/$$',
                    '/ü/x',
                    '/a//b',
                    '/',
                    'etc/kubernetes',
                    '/with space',
                    '/trailing/',
                  ],
                  30,
                ),
                { minLength: 1, maxLength: 3 },
              ),
            ),
            // it holds private keys: without spec.encryption only allowUnencrypted lets it through
            allowUnencrypted: some(fc.constantFrom(true, true, true, false), 8),
          }),
          1,
        ),
        // the default busybox image has no curl and no zoneinfo: metrics and zoned bucket rules need a shell image
        images: some(
          rec({
            etcd: some(images(pools)),
            busybox: some(images(pools)),
            shell: some(images(pools), 30),
            awsCli: some(images(pools)),
          }),
          30,
        ),
        restore: some(
          rec({
            // the restore defaults of `backup-cronjobs restore` (its nodes and snapshot are the command's flags)
            initialCluster: some(
              pick(
                pools,
                ['cp-0=https://10.0.0.1:2380', 'cp-0=https://$(ETCD_RESTORE_HOST_IP):2380,cp-1=https://10.0.0.2:2380'],
                ['$(ETCD_RESTORE_NODE)=https://$(ETCD_RESTORE_HOST_IP):2380', 'a=h$(AWS_SECRET_ACCESS_KEY)', 'a=$$b'],
              ),
            ),
            peerUrl: some(
              pick(
                pools,
                ['https://$(ETCD_RESTORE_HOST_IP):2380', 'https://10.0.0.1:2380'],
                ['https://$(AWS_SECRET_ACCESS_KEY):2380', 'http://$$(ETCD_RESTORE_HOST_IP)'],
              ),
            ),
            hostPath: some(hostPaths(pools)),
            bumpRevision: some(pick(pools, [1, 1000000, 2 ** 40], [2 ** 53, 1e21])),
          }),
          2,
        ),
        // one document in four: a whole settings level more refuses documents (see defragmentation)
        defragmentation: some(defragmentation(pools), 1),
      }),
    );

/**
 * spec.etcd.defragmentation: every job setting of a level, its own schedule, the edges of the threshold and
 * the member timeout, each refusal rare: the etcd documents are near the floor of accepted ones (25%), and
 * the field is there in one document in four. Two refusals are kept in one case in ten: a serialization
 * group of its own, and the default member timeout (5m) against a run timeout that may be shorter.
 */
const defragmentation = (pools: Pools) =>
  fc
    .tuple(
      // plausible job settings, two times in three: their grammar is fuzzed at every other level (a whole level
      // more, adversarial or always there, would refuse so many documents that too few reach rendering)
      fc.oneof(
        { weight: 1, arbitrary: fc.constant<Record<string, unknown>>({}) },
        { weight: 2, arbitrary: jobSettings({ adversarial: false }) },
      ),
      // mostly the weekly maintenance schedules people write: the schedule grammar is fuzzed at every level already
      fc.oneof(
        { weight: 1, arbitrary: schedules(pools) },
        { weight: 9, arbitrary: fc.constantFrom('@weekly', '30 3 * * 0', '0 4 * * 6') },
      ),
      some(pick(pools, [1, 30, 50, 99], [0, 100, 50.5, -1], 60), 2),
      some(pick(pools, ['10s', '20s'], ['0s', '1h', '5 minutes', '99999w'], 60), 8),
      fc.nat(9),
    )
    .map(([settings, schedule, thresholdPercent, memberTimeout, dice]) => {
      const placement = settings.placement as Record<string, unknown> | undefined;
      const keep = dice === 0;
      const { serializationGroup: _own, ...rest } = placement ?? {};
      return defined({
        ...settings,
        placement: placement && !keep ? defined(rest) : placement,
        schedule,
        thresholdPercent,
        memberTimeout: memberTimeout ?? (keep ? undefined : '10s'),
      });
    });

// ---------------------------------------------------------------------------------------------

const SPECS: Record<EngineKey, (pools: Pools) => fc.Arbitrary<Record<string, unknown>>> = {
  vitess: vitessSpec,
  redis: redisSpec,
  etcd: etcdSpec,
};

/** A random document of `engine`. */
export function policyOf(engine: EngineKey, pools: Pools): fc.Arbitrary<Doc> {
  // a mixed run draws one document in four from the plausible pool only: each field with adversarial values
  // refuses a share of the documents, and with every field a feature adds, too few would reach rendering
  const docs = pools.adversarial
    ? fc.oneof(
        { weight: 3, arbitrary: documentOf(pools, engine, SPECS[engine](pools)) },
        { weight: 1, arbitrary: documentOf(PLAUSIBLE, engine, SPECS[engine](PLAUSIBLE)) },
      )
    : documentOf(pools, engine, SPECS[engine](pools));
  if (engine !== 'etcd') return docs;
  // etcd drills of cluster mode need a PVC or S3 destination: keep the refused combination in one case in five
  return fc
    .tuple(docs, pick(pools, [false], [true], 4))
    .map(([doc, keepRefused]) => (keepRefused ? doc : withoutUnreadableDrill(doc)));
}

/** The document without spec.drill when its etcd snapshots sit on hostPath in cluster mode (no drill can find them). */
function withoutUnreadableDrill(doc: Doc): Doc {
  const spec = doc.spec as Record<string, unknown>;
  const etcd = spec.etcd as { mode?: string; destination?: Record<string, unknown> } | undefined;
  const onHostPath = !etcd?.destination?.s3 && !etcd?.destination?.persistentVolumeClaim;
  if (spec.drill === undefined || etcd?.mode === 'perNode' || !onHostPath) return doc;
  const { drill: _refused, ...rest } = spec;
  return { ...doc, spec: rest };
}

export const MIXED: Pools = { adversarial: true };
export const PLAUSIBLE: Pools = { adversarial: false };

/** What rendering one document gave. */
export type Outcome = { readonly accepted: Manifest[] } | { readonly rejected: PolicyError };

/**
 * The property every document must satisfy: either a PolicyError whose every
 * issue names a path (and nothing returned), or objects the API server accepts,
 * rendered the same from a JSON round-trip of the input. Anything else (a plain
 * Error, such as the last guard's) fails.
 */
export function renderOutcome(doc: Doc): Outcome {
  let objects: Manifest[] | undefined;
  try {
    objects = renderPolicy(doc);
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
    expect(e.issues.length).toBeGreaterThan(0);
    for (const issue of e.issues) expect(issue.path).not.toBe('');
    return { rejected: e };
  }
  expect(objects.length).toBeGreaterThan(0);
  expectValidManifests(objects);
  expect(containersWithoutResources(objects)).toEqual([]);
  expect(toYaml(renderPolicy(JSON.parse(JSON.stringify(doc))))).toBe(toYaml(objects));
  return { accepted: objects };
}

/** Accepted and rejected counts of a run, for the coverage assertions. */
export class OutcomeCounter {
  accepted = 0;
  rejected = 0;
  /** Issue paths of the rejections (indexes and map keys folded), for FUZZ_REPORT. */
  readonly reasons = new Map<string, number>();
  count(outcome: Outcome): void {
    if ('accepted' in outcome) {
      this.accepted++;
      return;
    }
    this.rejected++;
    for (const issue of outcome.rejected.issues) {
      const folded = issue.path.replace(/\[[^\]]*\]/g, '[]');
      this.reasons.set(folded, (this.reasons.get(folded) ?? 0) + 1);
    }
  }
  /** With FUZZ_REPORT set: the ratio and the commonest rejection paths, to tune the pools. */
  report(title: string): void {
    if (!process.env.FUZZ_REPORT) return;
    const top = [...this.reasons]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([p, n]) => `  ${n} ${p}`);
    console.log(`${title}: ${this.accepted} accepted, ${this.rejected} rejected\n${top.join('\n')}`);
  }
  get total(): number {
    return this.accepted + this.rejected;
  }
  /**
   * Both outcomes are reached often: at least 25% accepted (etcd, with encryption, drills and
   * control-plane files in the mix, accepts about 31%), at least 10% rejected.
   */
  expectBothOutcomes(): void {
    expect(this.accepted / this.total).toBeGreaterThanOrEqual(0.25);
    expect(this.rejected / this.total).toBeGreaterThanOrEqual(0.1);
  }
}
