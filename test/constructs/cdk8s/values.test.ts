// cdk8s value types in the props → the policy's own values (constructs/cdk8s/values.ts).
import { Cron, Duration, Size, Testing } from 'cdk8s';
import { IssueList, policySchema, units } from '../../../lib/internal';
import {
  CLAIM_NAME_KEYS,
  CONFIG_MAP_REFERENCE_KEYS,
  DURATION_KEYS,
  SIZE_KEYS,
  SECRET_LIST_KEYS,
  SECRET_NAME_KEYS,
  SECRET_REFERENCE_KEYS,
  policyValues,
} from '../../../constructs/cdk8s/values';
import { ImportedConfigMap, ImportedPersistentVolumeClaim, ImportedSecret } from './cdk8s-plus';

function convert(value: unknown): { value: unknown; issues: string[] } {
  const issues = new IssueList();
  const out = policyValues(value, '', issues);
  return { value: out, issues: issues.issues.map((i) => `${i.path}: ${i.message}`) };
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
    const { value, issues } = convert({ timeout: duration });
    expect(issues).toEqual([]);
    expect(value).toEqual({ timeout: text });
    expect(units.parseDuration(text)).toBe(duration.toSeconds());
  });

  test('at every duration field, at any depth', () => {
    const d = Duration.hours(2);
    const { value, issues } = convert({
      stagger: { window: d },
      startingDeadline: d,
      ttlAfterFinished: d,
      frequency: d,
      retention: { maxAge: d },
      vtbackupRetention: { minBackupInterval: d, minRetentionTime: d },
      shards: [{ name: 's', timeout: d }],
    });
    expect(issues).toEqual([]);
    expect(value).toEqual({
      stagger: { window: '2h' },
      startingDeadline: '2h',
      ttlAfterFinished: '2h',
      frequency: '2h',
      retention: { maxAge: '2h' },
      vtbackupRetention: { minBackupInterval: '2h', minRetentionTime: '2h' },
      shards: [{ name: 's', timeout: '2h' }],
    });
  });

  test('a fraction of a second is refused at its prop path', () => {
    expect(convert({ shards: [{ name: 's', timeout: Duration.millis(1500) }] }).issues).toEqual([
      'shards[0].timeout: received Duration 1 second 500 millis; a policy duration is a whole number of seconds',
    ]);
  });

  test("the keys are exactly the policy schema's duration fields", () => {
    const keys = new Set<string>();
    const visit = (schema: unknown): void => {
      if (schema === null || typeof schema !== 'object') return;
      for (const [k, v] of Object.entries(
        (schema as { properties?: Record<string, { pattern?: string }> }).properties ?? {},
      )) {
        if (v.pattern === units.DURATION_PATTERN) keys.add(k);
      }
      Object.values(schema).forEach(visit);
    };
    visit(policySchema);
    expect([...DURATION_KEYS].sort()).toEqual([...keys].sort());
  });
});

describe('Size', () => {
  test("becomes its quantity at every size field; the keys are exactly the schema's size fields", () => {
    const { value, issues } = convert({
      scratch: { size: Size.gibibytes(10) },
      retention: { maxTotalSize: Size.tebibytes(2) },
      pod: { volumes: [{ name: 'v', mountPath: '/v', emptyDir: { sizeLimit: Size.mebibytes(512) } }] },
    });
    expect(issues).toEqual([]);
    expect(value).toEqual({
      scratch: { size: '10Gi' },
      retention: { maxTotalSize: '2Ti' },
      pod: { volumes: [{ name: 'v', mountPath: '/v', emptyDir: { sizeLimit: '512Mi' } }] },
    });
    const keys = new Set<string>();
    const visit = (schema: unknown): void => {
      if (schema === null || typeof schema !== 'object') return;
      for (const [k, v] of Object.entries(
        (schema as { properties?: Record<string, { pattern?: string }> }).properties ?? {},
      )) {
        if (v.pattern === units.SIZE_PATTERN) keys.add(k);
      }
      Object.values(schema).forEach(visit);
    };
    visit(policySchema);
    expect([...SIZE_KEYS].sort()).toEqual([...keys].sort());
  });

  test('a Size that is no quantity, or where no size is taken, is refused at its prop path', () => {
    expect(convert({ scratch: { size: Size.kibibytes(1e21) }, timeout: Size.gibibytes(1) }).issues).toEqual([
      expect.stringMatching(/^scratch\.size: received Size "1e\+21Ki"; must be a size: /),
      'timeout: received a cdk8s Size, which this field does not take',
    ]);
  });
});

describe('Cron', () => {
  test('becomes its expression, at the backup schedule and the retention schedule', () => {
    const { value, issues } = convert({
      schedule: Cron.daily(),
      retention: { schedule: Cron.schedule({ minute: '30', hour: '4', weekDay: '1-5' }) },
    });
    expect(issues).toEqual([]);
    expect(value).toEqual({ schedule: '0 0 * * *', retention: { schedule: '30 4 * * 1-5' } });
  });

  test('a seconds or year field is refused at its prop path', () => {
    expect(convert({ nodes: [{ name: 'cp-1', schedule: Cron.schedule({ minute: '0 0' }) }] }).issues).toEqual([
      'nodes[0].schedule: received Cron "0 0 * * * *" (6 fields); a CronJob schedule has 5 (minute hour day-of-month month day-of-week): no seconds or year field',
    ]);
  });
});

describe('cdk8s-plus objects', () => {
  const chart = Testing.chart();
  const secret = new ImportedSecret(chart, 'secret', 'redis-auth');
  const claim = new ImportedPersistentVolumeClaim(chart, 'claim', 'etcd-snapshots');

  test('a Secret becomes its name wherever the policy names a Secret', () => {
    const { value, issues } = convert({
      passwordSecret: { name: secret, key: 'password' },
      sentinel: { passwordSecret: { name: secret, key: 'password' } },
      s3: { credentialsSecret: { name: secret } },
      storage: { s3: { authSecret: { name: secret, key: 'credentials' } } },
      dbInitScriptSecret: { name: secret, key: 'init.sql' },
      pod: {
        imagePullSecrets: [secret, 'other'],
        env: [{ name: 'TOKEN', secretKeyRef: { name: secret, key: 'token' } }],
        volumes: [{ name: 'v', mountPath: '/v', secret: { secretName: secret } }],
      },
    });
    expect(issues).toEqual([]);
    expect(value).toEqual({
      passwordSecret: { name: 'redis-auth', key: 'password' },
      sentinel: { passwordSecret: { name: 'redis-auth', key: 'password' } },
      s3: { credentialsSecret: { name: 'redis-auth' } },
      storage: { s3: { authSecret: { name: 'redis-auth', key: 'credentials' } } },
      dbInitScriptSecret: { name: 'redis-auth', key: 'init.sql' },
      pod: {
        imagePullSecrets: ['redis-auth', 'other'],
        env: [{ name: 'TOKEN', secretKeyRef: { name: 'redis-auth', key: 'token' } }],
        volumes: [{ name: 'v', mountPath: '/v', secret: { secretName: 'redis-auth' } }],
      },
    });
  });

  test('a Secret or ConfigMap stands for a whole { name } reference; a ConfigMap becomes its name where one is named', () => {
    const configMap = new ImportedConfigMap(chart, 'config', 'ca-bundle');
    const { value, issues } = convert({
      s3: { credentialsSecret: secret },
      pod: {
        volumes: [
          { name: 'a', mountPath: '/a', configMap },
          { name: 'b', mountPath: '/b', configMap: { name: configMap } },
        ],
      },
    });
    expect(issues).toEqual([]);
    expect(value).toEqual({
      s3: { credentialsSecret: { name: 'redis-auth' } },
      pod: {
        volumes: [
          { name: 'a', mountPath: '/a', configMap: { name: 'ca-bundle' } },
          { name: 'b', mountPath: '/b', configMap: { name: 'ca-bundle' } },
        ],
      },
    });
    expect(
      convert({
        s3: { credentialsSecret: configMap },
        pod: { volumes: [{ name: 'a', mountPath: '/a', configMap: secret }] },
      }).issues,
    ).toEqual([
      's3.credentialsSecret: received a cdk8s-plus ConfigMap ("ca-bundle"); expected a Secret or its name',
      'pod.volumes[0].configMap: received a cdk8s-plus Secret ("redis-auth"); expected a ConfigMap or its name',
    ]);
  });

  test('a claim becomes its name wherever the policy names a PersistentVolumeClaim', () => {
    const { value, issues } = convert({
      destination: { persistentVolumeClaim: { claimName: claim } },
      storage: { file: { claimName: claim } },
      pod: { volumes: [{ name: 'v', mountPath: '/v', persistentVolumeClaim: { claimName: claim } }] },
    });
    expect(issues).toEqual([]);
    expect(value).toEqual({
      destination: { persistentVolumeClaim: { claimName: 'etcd-snapshots' } },
      storage: { file: { claimName: 'etcd-snapshots' } },
      pod: { volumes: [{ name: 'v', mountPath: '/v', persistentVolumeClaim: { claimName: 'etcd-snapshots' } }] },
    });
  });

  test('an object of the wrong kind, or where the policy names no object, is refused at its prop path', () => {
    expect(
      convert({
        storage: { file: { claimName: secret } },
        passwordSecret: { name: claim, key: 'k' },
        shards: [secret],
        timeout: Cron.daily(),
        schedule: Duration.hours(1),
      }).issues,
    ).toEqual([
      'storage.file.claimName: received a cdk8s-plus Secret ("redis-auth"); expected a PersistentVolumeClaim or its name',
      'passwordSecret.name: received a cdk8s-plus PersistentVolumeClaim ("etcd-snapshots"); expected a Secret or its name',
      'shards[0]: received a cdk8s-plus Secret, which this field does not take',
      'timeout: received a cdk8s Cron, which this field does not take',
      'schedule: received a cdk8s Duration, which this field does not take',
    ]);
  });

  test('every key listed is a field of the policy schema', () => {
    const fields = new Set<string>();
    const visit = (schema: unknown): void => {
      if (schema === null || typeof schema !== 'object') return;
      Object.keys((schema as { properties?: object }).properties ?? {}).forEach((k) => fields.add(k));
      Object.values(schema).forEach(visit);
    };
    visit(policySchema);
    for (const key of [
      ...SECRET_NAME_KEYS,
      ...SECRET_LIST_KEYS,
      ...SECRET_REFERENCE_KEYS,
      ...CLAIM_NAME_KEYS,
      ...CONFIG_MAP_REFERENCE_KEYS,
    ])
      expect({ key, inSchema: fields.has(key) }).toEqual({ key, inSchema: true });
  });
});

test('plain values pass unchanged, as a copy', () => {
  const props = {
    name: 'cache',
    shards: ['a', { name: 'b', suspend: true, backoffLimit: 2 }],
    labels: { 'app.kubernetes.io/part-of': 'shop' },
  };
  const { value, issues } = convert(props);
  expect(issues).toEqual([]);
  expect(value).toEqual(props);
  expect(value).not.toBe(props);
});
