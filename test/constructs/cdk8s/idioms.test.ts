// The value types cdk8s users hold give the objects of the equivalent plain props; problems name the prop as written.
import { Chart, Cron, Duration, Size, Testing } from 'cdk8s';
import { EtcdBackupSchedule, RedisBackupSchedule, VitessBackupSchedule } from '../../../constructs/cdk8s';
import type { RedisBackupScheduleProps } from '../../../constructs/cdk8s';
import { PolicyError, toYaml } from '../../../lib';
import type { Manifest } from '../../../lib';
import { asCronJob, cronJobSpecOf, jobSpecOf, podSpecOf } from '../../support/kube';
import { abbreviateScripts } from '../../support/snapshots';
import { DefinedSecret, ImportedPersistentVolumeClaim, ImportedSecret } from './cdk8s-plus';
import { etcdProps, redisProps, vitessProps } from './fixtures';

/** The objects of one construct in a chart of its own. */
function synth(add: (chart: Chart) => void): Manifest[] {
  const chart = new Chart(Testing.app(), 'backups', { namespace: 'db' });
  add(chart);
  return Testing.synth(chart) as Manifest[];
}

test('Redis: Duration, Cron and cdk8s-plus Secrets give the objects of the equivalent strings', () => {
  const withValues = synth((chart) => {
    const auth = new ImportedSecret(chart, 'redis-auth', 'redis-auth');
    const aws = new ImportedSecret(chart, 'aws', 'aws-credentials');
    new RedisBackupSchedule(chart, 'cache', {
      ...redisProps,
      schedule: Cron.schedule({ minute: '0', hour: '3' }),
      timeout: Duration.minutes(20),
      stagger: { window: Duration.hours(1) },
      shards: ['shard01', { name: 'shard02', schedule: Cron.schedule({ minute: '30', hour: '3' }) }],
      sentinel: { ...redisProps.sentinel, passwordSecret: { name: auth, key: 'password' } },
      s3: { ...redisProps.s3, credentialsSecret: { name: aws } },
      retention: { maxAge: Duration.days(14), schedule: Cron.daily() },
    });
  });
  const withStrings = synth(
    (chart) =>
      new RedisBackupSchedule(chart, 'cache', {
        ...redisProps,
        timeout: '20m',
        stagger: { window: '1h' },
        shards: ['shard01', { name: 'shard02', schedule: '30 3 * * *' }],
        retention: { maxAge: '14d', schedule: '0 0 * * *' },
      }),
  );
  expect(withValues).toEqual(withStrings);
  expect(withValues.length).toBeGreaterThan(2);
});

test('etcd and Vitess: a cdk8s-plus PersistentVolumeClaim where a claim is named', () => {
  const etcd = synth(
    (chart) =>
      new EtcdBackupSchedule(chart, 'etcd', {
        ...etcdProps,
        destination: {
          persistentVolumeClaim: { claimName: new ImportedPersistentVolumeClaim(chart, 'snapshots', 'etcd-snapshots') },
        },
        ttlAfterFinished: Duration.hours(12),
      }),
  );
  expect(etcd).toEqual(
    synth((chart) => new EtcdBackupSchedule(chart, 'etcd', { ...etcdProps, ttlAfterFinished: '12h' })),
  );
  const vitess = synth(
    (chart) =>
      new VitessBackupSchedule(chart, 'nightly', {
        ...vitessProps,
        storage: { file: { claimName: new ImportedPersistentVolumeClaim(chart, 'backups', 'vitess-backups') } },
        pod: {
          volumes: [
            {
              name: 'extra',
              mountPath: '/extra',
              persistentVolumeClaim: { claimName: new ImportedPersistentVolumeClaim(chart, 'extra', 'extra-data') },
            },
          ],
        },
      }),
  );
  expect(vitess).toEqual(
    synth(
      (chart) =>
        new VitessBackupSchedule(chart, 'nightly', {
          ...vitessProps,
          storage: { file: { claimName: 'vitess-backups' } },
          pod: {
            volumes: [{ name: 'extra', mountPath: '/extra', persistentVolumeClaim: { claimName: 'extra-data' } }],
          },
        }),
    ),
  );
});

describe('problems name the prop as written (and the policy field)', () => {
  function problems(add: (chart: Chart) => void): string[] {
    try {
      add(new Chart(Testing.app(), 'backups'));
    } catch (e) {
      if (!(e instanceof PolicyError)) throw e;
      expect(e.message.split('\n')[0]).toMatch(/^backups\/\w+: invalid BackupPolicy/);
      return e.issues.map((i) => `${i.path}: ${i.message}`);
    }
    throw new Error('no PolicyError');
  }

  test('Redis', () => {
    expect(
      problems(
        (chart) =>
          new RedisBackupSchedule(chart, 'cache', {
            ...redisProps,
            shards: ['shard01', 'shard01'],
            s3: { ...redisProps.s3, bucket: 'Cache' },
          }),
      ),
    ).toEqual([
      's3.bucket: received "Cache"; must be a string matching ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$ (policy field spec.redis.s3.bucket)',
      'shards[1]: received "shard01"; shard names must be unique (also at shards[0]) (policy field spec.redis.shards[1])',
    ]);
  });

  test('Vitess', () => {
    expect(
      problems(
        (chart) =>
          new VitessBackupSchedule(chart, 'nightly', {
            ...vitessProps,
            scheduleName: 'Nightly',
            strategies: [{ keyspace: 'commerce', shards: [] }],
          }),
      ),
    ).toEqual([
      expect.stringMatching(
        /^scheduleName: received "Nightly"; .* \(policy field spec\.vitess\.schedules\[0\]\.name\)$/,
      ),
      'strategies[0].shards: received 0 item(s); at least 1 required (policy field spec.vitess.schedules[0].strategies[0].shards)',
    ]);
  });

  test('etcd: a job setting of a node, and a value of a cdk8s type', () => {
    expect(
      problems(
        (chart) =>
          new EtcdBackupSchedule(chart, 'etcd', { ...etcdProps, nodes: ['cp-1', { name: 'cp-2', backoffLimit: -1 }] }),
      ),
    ).toEqual(['nodes[1].backoffLimit: received -1; must be >= 0 (policy field spec.etcd.nodes[1].backoffLimit)']);
    expect(
      problems((chart) => new EtcdBackupSchedule(chart, 'etcd', { ...etcdProps, timeout: Duration.millis(100) })),
    ).toEqual([
      'timeout: received Duration 100 millis; a policy duration is a whole number of seconds (policy field spec.defaults.timeout)',
    ]);
  });

  test('problems of cdk8s values and of the policy in one pass, each once', () => {
    expect(
      problems(
        (chart) =>
          new RedisBackupSchedule(chart, 'cache', {
            ...redisProps,
            timeout: Duration.millis(1500),
            schedule: Cron.schedule({ minute: '0 0' }),
            scratch: { size: Size.kibibytes(1e21) },
            shards: ['shard01', 'shard01'],
            s3: { ...redisProps.s3, bucket: 'Cache' },
          }),
      ),
    ).toEqual([
      'schedule: received Cron "0 0 * * * *" (6 fields); a CronJob schedule has 5 (minute hour day-of-month month day-of-week): no seconds or year field (policy field spec.defaults.schedule)',
      'timeout: received Duration 1 second 500 millis; a policy duration is a whole number of seconds (policy field spec.defaults.timeout)',
      expect.stringMatching(/^scratch\.size: received Size "1e\+21Ki"; must be a size: /),
      's3.bucket: received "Cache"; must be a string matching ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$ (policy field spec.redis.s3.bucket)',
      'shards[1]: received "shard01"; shard names must be unique (also at shards[0]) (policy field spec.redis.shards[1])',
    ]);
  });

  test('a Secret the app defines in another namespace than the objects using it: an error naming both', () => {
    expect(
      problems((chart) => {
        const aws = new DefinedSecret(chart, 'aws', { metadata: { name: 'aws-credentials', namespace: 'ops' } });
        new RedisBackupSchedule(chart, 'cache', {
          ...redisProps,
          namespace: 'cache',
          s3: { ...redisProps.s3, credentialsSecret: aws },
        });
      }),
    ).toEqual([
      's3.credentialsSecret.name: received the Secret "aws-credentials" of namespace "ops"; the objects that use it are in namespace "cache", and a pod reads only its own namespace\'s Secrets: define it in "cache" or set the policy\'s namespace (policy field spec.redis.s3.credentialsSecret.name)',
    ]);
    // the namespaces of the charts, and a problem of the policy beside it
    const app = Testing.app();
    const auth = new DefinedSecret(new Chart(app, 'ops', { namespace: 'ops' }), 'auth');
    let error: PolicyError | undefined;
    try {
      new EtcdBackupSchedule(new Chart(app, 'db', { namespace: 'db' }), 'etcd', {
        ...etcdProps,
        backoffLimit: -1,
        destination: { s3: { bucket: 'snapshots', region: 'us-east-1', credentialsSecret: auth } },
      });
    } catch (e) {
      error = e as PolicyError;
    }
    expect(error?.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      `destination.s3.credentialsSecret.name: received the Secret "${auth.name}" of namespace "ops"; the objects that use it are in namespace "db", and a pod reads only its own namespace's Secrets: define it in "db" or set the policy's namespace (policy field spec.etcd.destination.s3.credentialsSecret.name)`,
      'backoffLimit: received -1; must be >= 0 (policy field spec.defaults.backoffLimit)',
    ]);
  });
});

describe('cdk8s-plus Secret objects where a Secret reference is taken', () => {
  test('credentialsSecret: secret gives the objects of { name: secret.name }; a Secret in the same namespace is accepted', () => {
    const withObject = synth((chart) => {
      const imported = new ImportedSecret(chart, 'aws', 'aws-credentials');
      new RedisBackupSchedule(chart, 'cache', { ...redisProps, s3: { ...redisProps.s3, credentialsSecret: imported } });
    });
    expect(withObject).toEqual(synth((chart) => new RedisBackupSchedule(chart, 'cache', redisProps)));
    const defined = synth((chart) => {
      const aws = new DefinedSecret(chart, 'aws', { metadata: { name: 'aws-credentials' } });
      new RedisBackupSchedule(chart, 'cache', { ...redisProps, s3: { ...redisProps.s3, credentialsSecret: aws } });
    });
    expect(defined.filter((m) => m.kind !== 'Secret')).toEqual(withObject);
    expect(defined.find((m) => m.kind === 'Secret')!.metadata).toMatchObject({
      name: 'aws-credentials',
      namespace: 'db',
    });
  });

  test('types: a Secret object stands for a reference whose only required field is name; one that needs a key is a compile error', () => {
    const chart = Testing.chart();
    const secret = new ImportedSecret(chart, 'auth', 'redis-auth');
    const ok: RedisBackupScheduleProps = { ...redisProps, s3: { ...redisProps.s3, credentialsSecret: secret } };
    const keyed: RedisBackupScheduleProps = {
      ...redisProps,
      // @ts-expect-error passwordSecret needs a key: { name: secret, key: 'password' }
      sentinel: { ...redisProps.sentinel, passwordSecret: secret },
    };
    expect([ok, keyed]).toHaveLength(2);
  });
});

test('snapshot: a chart with a namespace, Duration, Cron, cdk8s-plus objects and an escape hatch', () => {
  const chart = new Chart(Testing.app(), 'backups', { namespace: 'cache' });
  const auth = new ImportedSecret(chart, 'auth', 'redis-auth');
  const schedule = new RedisBackupSchedule(chart, 'cache', {
    ...redisProps,
    schedule: Cron.schedule({ minute: '0', hour: '3' }),
    timeout: Duration.minutes(20),
    sentinel: { ...redisProps.sentinel, passwordSecret: { name: auth, key: 'password' } },
    pod: { imagePullSecrets: [auth] },
  });
  schedule.cronJob('shard02').metadata.addAnnotation('example.com/owner', 'cache-team');
  const objects = Testing.synth(chart) as Manifest[];
  expect(toYaml(abbreviateScripts(objects))).toMatchSnapshot();
  // what the snapshot is about, spelled out
  const shard02 = asCronJob(objects.find((m) => m.metadata.name === 'cache-shard02'));
  expect(shard02.metadata).toMatchObject({ namespace: 'cache', annotations: { 'example.com/owner': 'cache-team' } });
  expect(cronJobSpecOf(shard02).schedule).toBe('0 3 * * *');
  expect(jobSpecOf(shard02).activeDeadlineSeconds).toBe(1200);
  expect(podSpecOf(shard02).imagePullSecrets).toEqual([{ name: 'redis-auth' }]);
});

test('types: a Duration where a duration is taken, a Cron where a schedule is (checked by the compiler)', () => {
  const ok: RedisBackupScheduleProps = {
    ...redisProps,
    schedule: Cron.daily(),
    timeout: Duration.minutes(5),
    retention: { maxAge: Duration.days(3), schedule: Cron.hourly() },
  };
  // @ts-expect-error a schedule is no Duration
  const schedule: RedisBackupScheduleProps = { ...redisProps, schedule: Duration.hours(1) };
  // @ts-expect-error a timeout is no Cron
  const timeout: RedisBackupScheduleProps = { ...redisProps, timeout: Cron.daily() };
  // @ts-expect-error a shard is no Duration
  const shards: RedisBackupScheduleProps = { ...redisProps, shards: [Duration.hours(1)] };
  expect([ok, schedule, timeout, shards]).toHaveLength(4);
});
