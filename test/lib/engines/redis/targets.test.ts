// Rendered Redis CronJobs: shape, defaults, secrets, scratch, retention, validation messages.
import { execFileSync } from 'child_process';
import { readFileSync } from 'fs';
import { join } from 'path';
import { Testing } from 'cdk8s';
import { loadPolicies, renderPolicy, toYaml } from '../../../../lib';
import type { Manifest, RedisSpec } from '../../../../lib';
import { RedisBackupSchedule } from '../../../../constructs/cdk8s';
import { expectValidManifests } from '../../../support/k8s-validate';
import { requireCommands } from '../../../support/services/commands';
import { containerOf, envOf, issuesOf, podOf, redisPolicy } from './fixtures';
import { type KubeObject, asCronJob, cronJobSpecOf } from '../../../support/kube';

const cronJobs = (objects: Manifest[]) => objects.filter((o) => o.kind === 'CronJob');

test('one CronJob per shard, all on the same schedule, 10m deadline, Forbid, valid against the API schema', () => {
  const objects = cronJobs(renderPolicy(redisPolicy({}, { defaults: { schedule: '0 3 * * *' } })));
  expectValidManifests(objects);
  expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
    'CronJob/redis-shard01',
    'CronJob/redis-shard02',
  ]);
  for (const [i, o] of objects.entries()) {
    const spec = cronJobSpecOf(o);
    expect(spec.schedule).toBe('0 3 * * *');
    expect(spec.concurrencyPolicy).toBe('Forbid');
    expect(spec.suspend).toBe(false);
    expect(spec.jobTemplate.spec?.activeDeadlineSeconds).toBe(600);
    expect(o.metadata.labels).toMatchObject({
      'backup-cronjobs.io/engine': 'redis',
      'backup-cronjobs.io/shard': `shard0${i + 1}`,
    });
    const pod = podOf(o);
    // Two containers at once, the dump streaming to the upload through the shared scratch volume.
    expect(pod.initContainers).toBeUndefined();
    expect(pod.containers.map((c) => [c.name, c.image])).toEqual([
      ['redis-dump', 'redis:7.2.8-alpine'],
      ['s3-upload', 'amazon/aws-cli:2.17.64'],
    ]);
    expect(pod.restartPolicy).toBe('Never');
    // s3-upload's TERM handler: 4 S3 calls of at most 16 s, 3 metrics calls of at most 10 s, 10 s to stop its children.
    expect(pod.terminationGracePeriodSeconds).toBe(4 * 16 + 3 * 10 + 10);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 999,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.automountServiceAccountToken).toBe(false);
    for (const c of pod.containers) {
      expect(c.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        readOnlyRootFilesystem: true,
      });
      expect(c.command?.slice(0, 2)).toEqual(['/bin/sh', '-c']);
      expect(c.args).toBeUndefined();
    }
  }
});

test('pause, timeout, stagger and per-shard overrides map to suspend, activeDeadlineSeconds and schedules', () => {
  const objects = cronJobs(
    renderPolicy(
      redisPolicy(
        { shards: ['shard01', { name: 'shard02', suspend: true, timeout: '20m' }, 'shard03'] },
        { defaults: { schedule: '0 3 * * *', timeout: '5m', stagger: { window: '30m' } } },
      ),
    ),
  );
  const specs = objects.map((o) => cronJobSpecOf(o));
  expect(specs.map((s) => s.suspend)).toEqual([false, true, false]);
  expect(specs.map((s) => s.jobTemplate.spec?.activeDeadlineSeconds)).toEqual([300, 1200, 300]);
  const minutes = specs.map((s) => Number(s.schedule.split(' ')[0]));
  expect(new Set(minutes).size).toBe(3);
  for (const m of minutes) expect(m).toBeLessThan(30);
  expect(specs.every((s) => s.schedule.endsWith(' 3 * * *'))).toBe(true);
});

test('passwords and S3 credentials only through secretKeyRef, never in the manifest text', () => {
  const [o] = cronJobs(
    renderPolicy(
      redisPolicy({
        username: 'backup',
        sentinel: {
          addresses: ['a:26379', 'b:26379'],
          username: 'watcher',
          passwordSecret: { name: 'sentinel-auth', key: 'password' },
        },
        s3: {
          bucket: 'my-bucket',
          region: 'eu-west-1',
          credentialsSecret: {
            name: 'creds',
            accessKeyIdKey: 'id',
            secretAccessKeyKey: 'secret',
            sessionTokenKey: 'token',
          },
        },
      }),
    ),
  );
  const dump = envOf(o, 'redis-dump');
  expect(dump.REDIS_PASSWORD).toEqual({ secretKeyRef: { name: 'redis-auth', key: 'password' } });
  expect(dump.REDIS_SENTINEL_PASSWORD).toEqual({ secretKeyRef: { name: 'sentinel-auth', key: 'password' } });
  expect(dump.REDIS_SENTINEL_ADDRESSES).toBe('a:26379 b:26379');
  expect(dump.REDIS_USERNAME).toBe('backup');
  expect(dump.REDIS_SENTINEL_USERNAME).toBe('watcher');
  const up = envOf(o, 's3-upload');
  expect(up.AWS_ACCESS_KEY_ID).toEqual({ secretKeyRef: { name: 'creds', key: 'id' } });
  expect(up.AWS_SECRET_ACCESS_KEY).toEqual({ secretKeyRef: { name: 'creds', key: 'secret' } });
  expect(up.AWS_SESSION_TOKEN).toEqual({ secretKeyRef: { name: 'creds', key: 'token' } });
  expect(up.REDIS_PASSWORD).toBeUndefined(); // the upload step never sees the Redis password
  expect(containerOf(o, 's3-upload').env?.some((e) => /PASSWORD/.test(e.name))).toBe(false);
});

test("S3 destination: the seed naming, this shard's prefix only, path style by default with an endpoint", () => {
  const [withEndpoint] = cronJobs(renderPolicy(redisPolicy()));
  expect(envOf(withEndpoint, 's3-upload')).toMatchObject({
    S3_BUCKET: 'my-bucket',
    S3_PREFIX: 'backups/',
    BACKUP_NAME_PREFIX: 'redis-backup_shard01_',
    BACKUP_NAME_SUFFIX: '.rdb.gz',
    BACKUP_DEST_KIND: 's3',
    S3_ENDPOINT: 'http://minio.default.svc.cluster.local:9000',
    S3_FORCE_PATH_STYLE: 'true',
    AWS_REGION: 'us-east-1',
  });
  const [aws] = cronJobs(
    renderPolicy(
      redisPolicy({
        s3: {
          bucket: 'b-1',
          region: 'eu-west-1',
          storageClass: 'STANDARD_IA',
          serverSideEncryption: 'aws:kms',
          kmsKeyId: 'alias/backups',
        },
      }),
    ),
  );
  const env = envOf(aws, 's3-upload');
  expect(env.S3_PREFIX).toBeUndefined();
  expect(env.S3_ENDPOINT).toBeUndefined();
  expect(env.S3_FORCE_PATH_STYLE).toBeUndefined();
  expect(env.AWS_ACCESS_KEY_ID).toBeUndefined(); // ambient credentials
  expect(env).toMatchObject({ S3_STORAGE_CLASS: 'STANDARD_IA', S3_SSE: 'aws:kms', S3_SSE_KMS_KEY_ID: 'alias/backups' });
});

test('retention rules and metrics reach the upload step; a retention schedule renders a prune CronJob per shard', () => {
  const [o] = cronJobs(
    renderPolicy(
      redisPolicy({}, { retention: { keepLast: 2, maxAge: '7d' }, metrics: { pushgatewayUrl: 'http://pg:9091' } }),
    ),
  );
  expect(envOf(o, 's3-upload')).toMatchObject({
    RETENTION_KEEP_LAST: '2',
    RETENTION_MAX_AGE_SECONDS: String(7 * 86400),
    RETENTION_DRY_RUN: 'false',
    BACKUP_PUSHGATEWAY_URL: 'http://pg:9091',
    BACKUP_METRICS_PREFIX: 'redis_backup',
    BACKUP_METRICS_LABELS: 'shard=shard01',
    BACKUP_NAMESPACE: { fieldRef: { fieldPath: 'metadata.namespace' } },
  });

  const objects = cronJobs(renderPolicy(redisPolicy({}, { retention: { keepLast: 2, schedule: '30 4 * * *' } })));
  expectValidManifests(objects);
  expect(objects.map((o) => o.metadata.name)).toEqual([
    'redis-shard01',
    'redis-shard02',
    'redis-shard01-prune',
    'redis-shard02-prune',
  ]);
  const prune = asCronJob(objects[2]);
  expect(prune.spec?.schedule).toBe('30 4 * * *');
  expect(prune.metadata?.labels?.['app.kubernetes.io/component']).toBe('retention-prune');
  expect(envOf(prune, 'retention-prune')).toMatchObject({
    RETENTION_KEEP_LAST: '2',
    BACKUP_NAME_PREFIX: 'redis-backup_shard01_',
    S3_BUCKET: 'my-bucket',
  });
  // pruning moved to its own job; backup and prune of a shard never overlap
  expect(envOf(objects[0], 's3-upload').RETENTION_KEEP_LAST).toBeUndefined();
  const group = (x: KubeObject) =>
    podOf(x).affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0]?.labelSelector?.matchLabels;
  expect(group(objects[0])).toEqual(group(prune));
  expect(group(objects[0])).not.toEqual(group(objects[1]));
});

test('scratch: emptyDir with a size limit, or a per-run PVC', () => {
  const [empty] = cronJobs(renderPolicy(redisPolicy({ scratch: { sizeLimit: '2Gi' } })));
  expect(podOf(empty).volumes?.[0]).toEqual({ name: 'scratch', emptyDir: { sizeLimit: '2Gi' } });
  const [pvc] = cronJobs(renderPolicy(redisPolicy({ scratch: { size: '10Gi', storageClassName: 'fast' } })));
  expectValidManifests([pvc]);
  expect(podOf(pvc).volumes?.[0].ephemeral?.volumeClaimTemplate?.spec).toEqual({
    accessModes: ['ReadWriteOnce'],
    storageClassName: 'fast',
    resources: { requests: { storage: '10Gi' } },
  });
  for (const c of ['redis-dump', 's3-upload']) {
    expect(containerOf(pvc, c).volumeMounts).toEqual([
      { name: 'scratch', mountPath: '/scratch' },
      { name: 'tmp', mountPath: '/tmp' },
      { name: 'scripts', mountPath: '/scripts', readOnly: true },
    ]);
  }
});

test('bad input names the field, the value and what is allowed', () => {
  const issues = issuesOf(
    redisPolicy({
      shards: ['shard01', 'shard01', 'bad name', { name: 'x', schedule: '61 * * * *' }],
      sentinel: { addresses: ['host:99999', 'nocolon'] },
      compression: { level: 12 },
      scratch: { size: '1Gi', sizeLimit: '1Gi' },
      s3: { bucket: 'my-bucket', region: 'us-east-1', path: '/lead', kmsKeyId: 'k' },
    }),
  );
  expect(issues).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^spec\.redis\.shards\[2\]: received "bad name"; must be a string matching/),
      expect.stringMatching(/^spec\.redis\.sentinel\.addresses\[1\]: received "nocolon"/),
      expect.stringMatching(/^spec\.redis\.compression\.level: received 12; must be <= 9/),
      expect.stringMatching(/^spec\.redis\.s3\.path: received "\/lead"/),
    ]),
  );
  const semantic = issuesOf(
    redisPolicy(
      {
        shards: ['shard01', 'shard01', { name: 'x', schedule: '61 * * * *' }],
        sentinel: { addresses: ['host:99999', 'host:99999'] },
        scratch: { size: '1Gi', sizeLimit: '1Gi' },
        s3: {
          bucket: 'my-bucket',
          region: 'us-east-1',
          kmsKeyId: 'k',
          credentialsSecret: { name: 'c', accessKeyIdKey: 'k', secretAccessKeyKey: 'k' },
        },
      },
      { retention: { schedule: '0 4 * * *' } },
    ),
  );
  expect(semantic).toEqual(
    expect.arrayContaining([
      'spec.redis.shards[1]: received "shard01"; shard names must be unique (also at shards[0])',
      expect.stringMatching(/^spec\.redis\.shards\[2\]\.schedule: received "61 \* \* \* \*"; /),
      'spec.redis.sentinel.addresses[0]: received "host:99999"; the port must be 1-65535',
      'spec.redis.sentinel.addresses[1]: received "host:99999"; the port must be 1-65535',
      'spec.redis.sentinel.addresses[1]: received "host:99999"; already listed at addresses[0]',
      'spec.redis.scratch: set either size (a per-run PVC) or sizeLimit (an emptyDir), not both',
      'spec.redis.s3.kmsKeyId: only valid with serverSideEncryption: aws:kms',
      'spec.redis.s3.credentialsSecret: received keys ["k","k"]; each credential needs its own key',
      'spec.retention.schedule: a retention-prune CronJob needs at least one rule (keepLast, maxAge, ...)',
    ]),
  );
  expect(issuesOf(redisPolicy({ scratch: { storageClassName: 'fast' } }))).toEqual([
    'spec.redis.scratch.storageClassName: only valid with size (a per-run PVC); an emptyDir has no StorageClass',
  ]);
  expect(issuesOf(redisPolicy({ bogus: 1 } as unknown as Partial<RedisSpec>))[0]).toMatch(
    /^spec\.redis\.bogus: unknown field/,
  );
});

test('shard names that are not DNS labels still give valid, distinct CronJob names and label values', () => {
  const objects = cronJobs(renderPolicy(redisPolicy({ shards: ['Shard_01', 'shard.01', 'shard-01'] })));
  expectValidManifests(objects);
  const names = objects.map((o) => o.metadata.name);
  expect(new Set(names).size).toBe(3);
  expect(objects.map((o) => o.metadata.labels!['backup-cronjobs.io/shard'])).toEqual([
    'Shard_01',
    'shard.01',
    'shard-01',
  ]);
  expect(envOf(objects[0], 's3-upload').BACKUP_NAME_PREFIX).toBe('redis-backup_Shard_01_');
});

test("the example policy keeps ShardedRedisBackup's features: two shards at the same minute, MinIO, keepLast, not paused, a timeout", () => {
  const file = join(__dirname, '..', '..', '..', '..', 'examples', 'policies', 'redis-sharded.yaml');
  const [policy] = loadPolicies(readFileSync(file, 'utf8'), file);
  const objects = cronJobs(renderPolicy(policy));
  expectValidManifests(objects);
  expect(objects.map((o) => o.metadata.name)).toEqual(['redis-backup-shard01', 'redis-backup-shard02']);
  for (const o of objects) {
    expect(o.metadata.namespace).toBe('redis');
    expect(cronJobSpecOf(o).schedule).toBe('30 1 * * *');
    expect(cronJobSpecOf(o).suspend).toBe(false);
    expect(cronJobSpecOf(o).jobTemplate.spec?.activeDeadlineSeconds).toBe(3600);
    expect(envOf(o, 's3-upload')).toMatchObject({
      RETENTION_KEEP_LAST: '14',
      S3_ENDPOINT: 'http://minio.minio.svc:9000',
      S3_PREFIX: 'prod/',
    });
  }
});

test('the cdk8s RedisBackupSchedule emits the same objects as the equivalent policy', () => {
  const chart = Testing.chart();
  const props = {
    name: 'redis',
    namespace: 'example',
    schedule: '0 3 * * *',
    retention: { keepLast: 3 },
    sentinel: { addresses: ['sentinel.example.svc:26379'] },
    shards: ['shard01', 'shard02'],
    s3: { bucket: 'my-bucket', region: 'us-east-1' },
  };
  const construct = new RedisBackupSchedule(chart, 'redis', props);
  const expected = renderPolicy({
    apiVersion: 'backup-cronjobs.io/v1alpha1',
    kind: 'BackupPolicy',
    metadata: { name: 'redis', namespace: 'example' },
    spec: {
      defaults: { schedule: '0 3 * * *' },
      retention: { keepLast: 3 },
      redis: { sentinel: props.sentinel, shards: props.shards, s3: props.s3 },
    },
  });
  expect(toYaml(construct.manifests as Manifest[])).toBe(toYaml(expected));
  expect(Testing.synth(chart)).toHaveLength(3);
  expect(() => new RedisBackupSchedule(Testing.chart(), 'bad', { ...props, shards: [] })).toThrow(
    '  shards: received 0 item(s); at least 1 required (policy field spec.redis.shards)',
  );
});

test('the Redis scripts are shellcheck-clean POSIX sh', () => {
  const lib = join(__dirname, '..', '..', '..', '..', 'lib');
  const files = [
    join(lib, 'scripts', 'common.sh'),
    join(lib, 'scripts', 'step.sh'),
    join(lib, 'scripts', 's3.sh'),
    ...['redis-dump.sh', 'redis-sentinel.sh', 'redis-encrypt.sh', 'redis-upload.sh', 'redis-stream.sh'].map((f) =>
      join(lib, 'engines', 'redis', 'scripts', f),
    ),
  ];
  expect(execFileSync(requireCommands('shellcheck').shellcheck, ['-s', 'sh', ...files], { encoding: 'utf8' })).toBe('');
});
