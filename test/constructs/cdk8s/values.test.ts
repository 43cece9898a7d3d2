// cdk8s value types in the props → the policy's own values (constructs/cdk8s/values.ts), field by field as the
// policy's schema declares them (FIELD_META), at the policy's paths.
import { Cron, Duration, Size, Testing } from 'cdk8s';
import { IssueList, fieldMeta, policySchema, units } from '../../../lib/internal';
import type { Schema } from '../../../lib/internal';
import { PATTERNS } from '../../../lib/policy/schema-builders';
import { policyValues } from '../../../constructs/cdk8s/values';
import { ImportedConfigMap, ImportedPersistentVolumeClaim, ImportedSecret } from './cdk8s-plus';

function convert(value: unknown): { value: unknown; issues: string[] } {
  const issues = new IssueList();
  const out = policyValues(value, issues);
  return { value: out, issues: issues.issues.map((i) => `${i.path}: ${i.message}`) };
}

/** `fields` in spec.<engine> (and the spec's other parts). */
const spec = (fields: object) => ({ spec: fields });

/** Every field of the schema with its path, depth first. */
function fields(schema: Schema, path = ''): [string, Schema][] {
  const out: [string, Schema][] = [];
  for (const [k, s] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    out.push([`${path}.${k}`, s], ...fields(s, `${path}.${k}`));
    if (s.items) out.push(...fields(s.items as Schema, `${path}.${k}[]`));
    if (typeof s.additionalProperties === 'object')
      out.push(...fields(s.additionalProperties as Schema, `${path}.${k}.*`));
  }
  return out;
}

describe('Duration', () => {
  test.each([
    ['minutes(90)', Duration.minutes(90), '1h30m'],
    ['seconds(45)', Duration.seconds(45), '45s'],
    ['days(7)', Duration.days(7), '7d'],
    ['hours(49)', Duration.hours(49), '2d1h'],
    ['millis(120000)', Duration.millis(120_000), '2m'],
    ['seconds(0)', Duration.seconds(0), '0s'],
  ])('Duration.%s becomes a policy duration of the same length', (_name, duration, text) => {
    const { value, issues } = convert(spec({ defaults: { timeout: duration } }));
    expect(issues).toEqual([]);
    expect(value).toEqual(spec({ defaults: { timeout: text } }));
    expect(units.parseDuration(text)).toBe(duration.toSeconds());
  });

  test('at every duration field, at any depth', () => {
    const d = Duration.hours(2);
    const { value, issues } = convert(
      spec({
        defaults: { stagger: { window: d }, startingDeadline: d, ttlAfterFinished: d },
        retention: { maxAge: d },
        vitess: {
          vtbackupRetention: { minBackupInterval: d, minRetentionTime: d },
          schedules: [{ name: 'daily', frequency: d }],
        },
        redis: { shards: [{ name: 's', timeout: d }] },
      }),
    );
    expect(issues).toEqual([]);
    expect(value).toEqual(
      spec({
        defaults: { stagger: { window: '2h' }, startingDeadline: '2h', ttlAfterFinished: '2h' },
        retention: { maxAge: '2h' },
        vitess: {
          vtbackupRetention: { minBackupInterval: '2h', minRetentionTime: '2h' },
          schedules: [{ name: 'daily', frequency: '2h' }],
        },
        redis: { shards: [{ name: 's', timeout: '2h' }] },
      }),
    );
  });

  test('a fraction of a second is refused at its path', () => {
    expect(convert(spec({ redis: { shards: [{ name: 's', timeout: Duration.millis(1500) }] } })).issues).toEqual([
      'spec.redis.shards[0].timeout: received Duration 1 second 500 millis; a policy duration is a whole number of seconds',
    ]);
  });

  test("the fields that take one are exactly the schema's strings of the duration grammar", () => {
    for (const [path, s] of fields(policySchema))
      expect({ path, duration: fieldMeta(s).grammar === 'duration' }).toEqual({
        path,
        duration: s.pattern === units.DURATION_PATTERN,
      });
  });
});

describe('Size', () => {
  test('becomes its quantity at every size field', () => {
    const { value, issues } = convert(
      spec({
        redis: { scratch: { size: Size.gibibytes(10) } },
        retention: { maxTotalSize: Size.tebibytes(2) },
        defaults: { pod: { volumes: [{ name: 'v', mountPath: '/v', emptyDir: { sizeLimit: Size.mebibytes(512) } }] } },
      }),
    );
    expect(issues).toEqual([]);
    expect(value).toEqual(
      spec({
        redis: { scratch: { size: '10Gi' } },
        retention: { maxTotalSize: '2Ti' },
        defaults: { pod: { volumes: [{ name: 'v', mountPath: '/v', emptyDir: { sizeLimit: '512Mi' } }] } },
      }),
    );
  });

  test('a Size that is no quantity, or where no size is taken, is refused at its path', () => {
    expect(
      convert(spec({ redis: { scratch: { size: Size.kibibytes(1e21) } }, defaults: { timeout: Size.gibibytes(1) } }))
        .issues,
    ).toEqual([
      expect.stringMatching(/^spec\.redis\.scratch\.size: received Size "1e\+21Ki"; must be a size: /),
      'spec.defaults.timeout: received a cdk8s Size, which this field does not take',
    ]);
  });
});

describe('Cron', () => {
  test('becomes its expression, at every schedule: backups, retention, drills, incrementals, defragmentation', () => {
    const { value, issues } = convert(
      spec({
        defaults: { schedule: Cron.daily() },
        retention: { schedule: Cron.schedule({ minute: '30', hour: '4', weekDay: '1-5' }) },
        drill: { schedule: Cron.daily() },
        vitess: { schedules: [{ name: 'd', incremental: { schedule: Cron.hourly() } }] },
        etcd: { defragmentation: { schedule: Cron.daily() } },
      }),
    );
    expect(issues).toEqual([]);
    expect(value).toEqual(
      spec({
        defaults: { schedule: '0 0 * * *' },
        retention: { schedule: '30 4 * * 1-5' },
        drill: { schedule: '0 0 * * *' },
        vitess: { schedules: [{ name: 'd', incremental: { schedule: '0 * * * *' } }] },
        etcd: { defragmentation: { schedule: '0 0 * * *' } },
      }),
    );
  });

  test('a seconds or year field is refused at its path', () => {
    expect(
      convert(spec({ etcd: { nodes: [{ name: 'cp-1', schedule: Cron.schedule({ minute: '0 0' }) }] } })).issues,
    ).toEqual([
      'spec.etcd.nodes[0].schedule: received Cron "0 0 * * * *" (6 fields); a CronJob schedule has 5 (minute hour day-of-month month day-of-week): no seconds or year field',
    ]);
  });
});

describe('cdk8s-plus objects', () => {
  const chart = Testing.chart();
  const secret = new ImportedSecret(chart, 'secret', 'redis-auth');
  const claim = new ImportedPersistentVolumeClaim(chart, 'claim', 'etcd-snapshots');

  test('a Secret becomes its name wherever the policy names a Secret', () => {
    const pod = {
      imagePullSecrets: [secret, 'other'],
      env: [{ name: 'TOKEN', secretKeyRef: { name: secret, key: 'token' } }],
      volumes: [{ name: 'v', mountPath: '/v', secret: { secretName: secret } }],
    };
    const { value, issues } = convert(
      spec({
        redis: {
          passwordSecret: { name: secret, key: 'password' },
          sentinel: { passwordSecret: { name: secret, key: 'password' } },
          s3: { credentialsSecret: { name: secret } },
        },
        vitess: {
          storage: { s3: { authSecret: { name: secret, key: 'credentials' } } },
          dbInitScriptSecret: { name: secret, key: 'init.sql' },
        },
        encryption: {
          age: { recipientsSecret: { name: secret, key: 'r' }, identitySecret: { name: secret, key: 'i' } },
        },
        defaults: { pod },
      }),
    );
    expect(issues).toEqual([]);
    expect(value).toEqual(
      spec({
        redis: {
          passwordSecret: { name: 'redis-auth', key: 'password' },
          sentinel: { passwordSecret: { name: 'redis-auth', key: 'password' } },
          s3: { credentialsSecret: { name: 'redis-auth' } },
        },
        vitess: {
          storage: { s3: { authSecret: { name: 'redis-auth', key: 'credentials' } } },
          dbInitScriptSecret: { name: 'redis-auth', key: 'init.sql' },
        },
        encryption: {
          age: { recipientsSecret: { name: 'redis-auth', key: 'r' }, identitySecret: { name: 'redis-auth', key: 'i' } },
        },
        defaults: {
          pod: {
            imagePullSecrets: ['redis-auth', 'other'],
            env: [{ name: 'TOKEN', secretKeyRef: { name: 'redis-auth', key: 'token' } }],
            volumes: [{ name: 'v', mountPath: '/v', secret: { secretName: 'redis-auth' } }],
          },
        },
      }),
    );
  });

  test('a Secret or ConfigMap stands for a whole { name } reference; a ConfigMap becomes its name where one is named', () => {
    const configMap = new ImportedConfigMap(chart, 'config', 'ca-bundle');
    const { value, issues } = convert(
      spec({
        redis: { s3: { credentialsSecret: secret } },
        metrics: { basicAuthSecret: secret },
        defaults: {
          pod: {
            volumes: [
              { name: 'a', mountPath: '/a', configMap },
              { name: 'b', mountPath: '/b', configMap: { name: configMap } },
            ],
          },
        },
      }),
    );
    expect(issues).toEqual([]);
    expect(value).toEqual(
      spec({
        redis: { s3: { credentialsSecret: { name: 'redis-auth' } } },
        metrics: { basicAuthSecret: { name: 'redis-auth' } },
        defaults: {
          pod: {
            volumes: [
              { name: 'a', mountPath: '/a', configMap: { name: 'ca-bundle' } },
              { name: 'b', mountPath: '/b', configMap: { name: 'ca-bundle' } },
            ],
          },
        },
      }),
    );
    expect(
      convert(
        spec({
          redis: { s3: { credentialsSecret: configMap } },
          defaults: { pod: { volumes: [{ name: 'a', mountPath: '/a', configMap: secret }] } },
        }),
      ).issues,
    ).toEqual([
      'spec.redis.s3.credentialsSecret: received a cdk8s-plus ConfigMap ("ca-bundle"); expected a Secret or its name',
      'spec.defaults.pod.volumes[0].configMap: received a cdk8s-plus Secret ("redis-auth"); expected a ConfigMap or its name',
    ]);
  });

  test('a claim becomes its name wherever the policy names a PersistentVolumeClaim', () => {
    const { value, issues } = convert(
      spec({
        etcd: { destination: { persistentVolumeClaim: { claimName: claim } } },
        vitess: { storage: { file: { claimName: claim } } },
        defaults: { pod: { volumes: [{ name: 'v', mountPath: '/v', persistentVolumeClaim: { claimName: claim } }] } },
      }),
    );
    expect(issues).toEqual([]);
    expect(value).toEqual(
      spec({
        etcd: { destination: { persistentVolumeClaim: { claimName: 'etcd-snapshots' } } },
        vitess: { storage: { file: { claimName: 'etcd-snapshots' } } },
        defaults: {
          pod: { volumes: [{ name: 'v', mountPath: '/v', persistentVolumeClaim: { claimName: 'etcd-snapshots' } }] },
        },
      }),
    );
  });

  test('an object of the wrong kind, or where the policy names no object, is refused at its path', () => {
    expect(
      convert(
        spec({
          vitess: { storage: { file: { claimName: secret } } },
          redis: { passwordSecret: { name: claim, key: 'k' }, shards: [secret] },
          defaults: { timeout: Cron.daily(), schedule: Duration.hours(1) },
          unknown: { schedule: Cron.daily() },
        }),
      ).issues,
    ).toEqual([
      'spec.vitess.storage.file.claimName: received a cdk8s-plus Secret ("redis-auth"); expected a PersistentVolumeClaim or its name',
      'spec.redis.passwordSecret.name: received a cdk8s-plus PersistentVolumeClaim ("etcd-snapshots"); expected a Secret or its name',
      'spec.redis.shards[0]: received a cdk8s-plus Secret, which this field does not take',
      'spec.defaults.timeout: received a cdk8s Cron, which this field does not take',
      'spec.defaults.schedule: received a cdk8s Duration, which this field does not take',
      'spec.unknown.schedule: received a cdk8s Cron, which this field does not take',
    ]);
  });

  test('every field that names an object is a DNS-1123 subdomain in the schema', () => {
    const naming = fields(policySchema).filter(([, s]) => fieldMeta(s).names !== undefined);
    expect(naming.length).toBeGreaterThan(10);
    for (const [path, s] of naming)
      expect({ path, pattern: s.pattern }).toEqual({ path, pattern: PATTERNS.dnsSubdomain });
  });
});

test('plain values pass unchanged, as a copy', () => {
  const policy = {
    metadata: { name: 'cache', labels: { 'app.kubernetes.io/part-of': 'shop' } },
    spec: { redis: { shards: ['a', { name: 'b', suspend: true, backoffLimit: 2 }] } },
  };
  const { value, issues } = convert(policy);
  expect(issues).toEqual([]);
  expect(value).toEqual(policy);
  expect(value).not.toBe(policy);
});
