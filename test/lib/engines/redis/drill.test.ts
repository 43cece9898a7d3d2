// What spec.drill renders for Redis: one restore-drill CronJob per shard, with the settings levels
// merged, as unprivileged as a backup, the identity only where it decrypts, valid for the API
// server; and the policies it refuses.
import { renderPolicy, toYaml } from '../../../../lib';
import type { BackupPolicy, Manifest } from '../../../../lib';
import { expectValidManifests } from '../../../support/k8s-validate';
import { abbreviateScripts } from '../../../support/snapshots';
import { envOf, issuesOf, podOf, redisPolicy } from './fixtures';
import { containersOf, jobSpecOf } from '../../../support/kube';

const jobSpec = jobSpecOf;
const names = (list: { name: string }[] | undefined) => (list ?? []).map((c) => c.name);
const labels = (o: Manifest) => o.metadata.labels as Record<string, string>;
const drills = (policy: BackupPolicy) =>
  renderPolicy(policy).filter(
    (o) => o.kind === 'CronJob' && labels(o)['app.kubernetes.io/component'] === 'restore-drill',
  );
const allContainers = containersOf;

const RECIPIENT = 'age1qayg4f9dg4fgff7kcejynt0cyavv5tkpazsr2x9nshqr9mlrqqxshk5yx3';
const AGE_IMAGE = 'registry.example.com/age:1.2';
const DRILL = { drill: { schedule: '0 4 * * 0', maxBackupAge: '2d' } };
const ENCRYPTION = {
  encryption: {
    age: { recipients: [RECIPIENT], identitySecret: { name: 'redis-age', key: 'identity' }, image: AGE_IMAGE },
  },
};

describe('without encryption', () => {
  const policy = redisPolicy({}, DRILL);
  const objs = renderPolicy(policy);
  const list = drills(policy);

  test('one drill CronJob per shard, after the backups, named <policy>-<shard>-drill, on the drill schedule and deadline; valid for the API server', () => {
    expect(objs.map((o) => o.metadata.name)).toEqual([
      expect.stringMatching(/^redis-scripts-[0-9a-f]{10}$/),
      'redis-shard01',
      'redis-shard02',
      'redis-shard01-drill',
      'redis-shard02-drill',
    ]);
    list.forEach((cj, i) => {
      const shard = `shard0${i + 1}`;
      for (const l of [labels(cj), jobSpec(cj).template.metadata?.labels]) {
        expect(l).toMatchObject({
          'app.kubernetes.io/component': 'restore-drill',
          'backup-cronjobs.io/engine': 'redis',
          'backup-cronjobs.io/shard': shard,
        });
      }
      expect(cj.spec).toMatchObject({ schedule: '0 4 * * 0', concurrencyPolicy: 'Forbid' });
      // the drill's own default deadline (30m), not the backup's (10m)
      expect(jobSpec(cj).activeDeadlineSeconds).toBe(30 * 60);
      expect(envOf(cj, 'fetch')).toMatchObject({
        REDIS_SHARD: shard,
        BACKUP_NAME_PREFIX: `redis-backup_${shard}_`,
        BACKUP_NAME_SUFFIX: '.rdb.gz',
      });
    });
    expectValidManifests(objs);
  });

  test('BACKUP_DRILL_MAX_AGE_SECONDS is spec.drill.maxBackupAge in seconds; without it, no age limit', () => {
    for (const cj of list) expect(envOf(cj, 'fetch').BACKUP_DRILL_MAX_AGE_SECONDS).toBe(String(2 * 86400));
    const [unbounded] = drills(redisPolicy({}, { drill: { schedule: '0 4 * * 0' } }));
    for (const c of allContainers(unbounded))
      expect(envOf(unbounded, c.name).BACKUP_DRILL_MAX_AGE_SECONDS).toBeUndefined();
  });

  test('the steps: fetch (aws CLI), restore (redis image), then report (aws CLI: curl); no decrypt, no age, no identity without spec.encryption', () => {
    const pod = podOf(list[0]);
    expect(pod.initContainers?.map((c) => [c.name, c.image])).toEqual([
      ['fetch', 'amazon/aws-cli:2.17.64'],
      ['restore', 'redis:7.2.8-alpine'],
    ]);
    expect(pod.containers.map((c) => [c.name, c.image])).toEqual([['report', 'amazon/aws-cli:2.17.64']]);
    expect(names(pod.volumes)).toEqual(['scratch', 'tmp', 'scripts']);
    expect(JSON.stringify(list[0])).not.toMatch(/age-identity|BACKUP_AGE_/);
  });

  test('never near the live shard: no Sentinel, no Redis password, no API token; restricted (non-root, no capabilities, read-only root)', () => {
    for (const cj of list) {
      const pod = podOf(cj);
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.securityContext).toEqual({
        runAsNonRoot: true,
        runAsUser: 999,
        runAsGroup: 999,
        fsGroup: 999,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      for (const c of allContainers(cj)) {
        expect(c.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
          readOnlyRootFilesystem: true,
        });
        expect(Object.keys(envOf(cj, c.name)).filter((n) => /^REDIS_(SENTINEL|PASSWORD|USERNAME)/.test(n))).toEqual([]);
      }
      expect(JSON.stringify(cj)).not.toMatch(/sentinel-auth|redis-auth/);
      // only fetch reads S3
      for (const c of allContainers(cj))
        expect(envOf(cj, c.name).AWS_ACCESS_KEY_ID !== undefined).toBe(c.name === 'fetch');
    }
  });

  test('the scratch volume as spec.redis.scratch says: an emptyDir with its size limit, or a per-run PVC', () => {
    const [limited] = drills(redisPolicy({ scratch: { sizeLimit: '8Gi' } }, DRILL));
    expect(podOf(limited).volumes?.[0]).toEqual({ name: 'scratch', emptyDir: { sizeLimit: '8Gi' } });
    const [claimed] = drills(redisPolicy({ scratch: { size: '20Gi', storageClassName: 'fast' } }, DRILL));
    expect(podOf(claimed).volumes?.[0]).toMatchObject({
      name: 'scratch',
      ephemeral: {
        volumeClaimTemplate: {
          spec: {
            accessModes: ['ReadWriteOnce'],
            storageClassName: 'fast',
            resources: { requests: { storage: '20Gi' } },
          },
        },
      },
    });
    for (const c of allContainers(claimed))
      expect(c.volumeMounts).toContainEqual({ name: 'scratch', mountPath: '/scratch' });
    expectValidManifests([limited, claimed]);
  });
});

test("settings: spec.defaults, then the shard's own level, then spec.drill, field by field", () => {
  const policy = redisPolicy(
    {
      shards: [
        { name: 'shard01', timeZone: 'Europe/Berlin', suspend: true, timeout: '5m', schedule: '15 1 * * *' },
        'shard02',
      ],
    },
    {
      defaults: {
        schedule: '0 2 * * *',
        successfulJobsHistoryLimit: 7,
        timeout: '20m',
        pod: { resources: { requests: { cpu: '100m' } } },
      },
      drill: { schedule: '@weekly', timeout: '45m', pod: { resources: { limits: { memory: '2Gi' } } } },
    },
  );
  const [one, two] = drills(policy);
  // the shard's own level overrides spec.defaults; spec.drill overrides both
  expect(one.spec).toMatchObject({
    schedule: '@weekly',
    timeZone: 'Europe/Berlin',
    suspend: true,
    successfulJobsHistoryLimit: 7,
  });
  expect(two.spec).toMatchObject({ schedule: '@weekly', suspend: false, successfulJobsHistoryLimit: 7 });
  expect((two.spec as { timeZone?: string }).timeZone).toBeUndefined();
  for (const cj of [one, two]) {
    expect(jobSpec(cj).activeDeadlineSeconds).toBe(45 * 60);
    // resource by resource: spec.defaults' cpu request, spec.drill's memory limit, each step's default memory request
    for (const c of allContainers(cj))
      expect(c.resources).toEqual({
        requests: { cpu: '100m', memory: expect.any(String) as unknown },
        limits: { memory: '2Gi' },
      });
  }
  // without spec.drill's own timeout: the shard's, then spec.defaults'
  const [own, inherited] = drills(
    redisPolicy(
      { shards: [{ name: 'shard01', timeout: '5m' }, 'shard02'] },
      { defaults: { timeout: '20m' }, drill: { schedule: '@weekly' } },
    ),
  );
  expect(jobSpec(own).activeDeadlineSeconds).toBe(5 * 60);
  expect(jobSpec(inherited).activeDeadlineSeconds).toBe(20 * 60);
  expectValidManifests(renderPolicy(policy));
});

describe('with spec.encryption', () => {
  const policy = redisPolicy({}, { ...DRILL, ...ENCRYPTION });
  const list = drills(policy);

  test('a decrypt step between fetch and restore runs the age image, the only step that does', () => {
    for (const cj of list) {
      expect(names(podOf(cj).initContainers)).toEqual(['fetch', 'decrypt', 'restore']);
      for (const c of allContainers(cj)) expect(c.image === AGE_IMAGE).toBe(c.name === 'decrypt');
    }
    expectValidManifests(renderPolicy(policy));
  });

  test('the identity Secret (owner-read only, 0400) is mounted read-only in decrypt only; the drill never encrypts (no recipients)', () => {
    for (const cj of list) {
      const pod = podOf(cj);
      expect(pod.volumes).toContainEqual({
        name: 'age-identity',
        secret: { secretName: 'redis-age', items: [{ key: 'identity', path: 'identity.txt' }], defaultMode: 0o400 },
      });
      for (const c of allContainers(cj)) {
        const mounts = (c.volumeMounts ?? []).filter((m) => m.name === 'age-identity');
        expect(mounts).toEqual(
          c.name === 'decrypt'
            ? [{ name: 'age-identity', mountPath: '/etc/backup-cronjobs/age-identity', readOnly: true }]
            : [],
        );
        expect(envOf(cj, c.name).BACKUP_AGE_IDENTITY_FILE).toBe(
          c.name === 'decrypt' ? '/etc/backup-cronjobs/age-identity/identity.txt' : undefined,
        );
      }
      expect(JSON.stringify(cj)).not.toContain(RECIPIENT);
      expect(JSON.stringify(cj)).not.toContain('BACKUP_AGE_RECIPIENTS');
    }
  });

  test('as a reviewer reads it (scripts by hash)', () => {
    expect(toYaml(abbreviateScripts([list[0]]))).toMatchSnapshot();
  });
});

test('drill with encryption but no identitySecret is refused at spec.encryption.age.identitySecret', () => {
  const age = { recipients: [RECIPIENT], image: AGE_IMAGE };
  expect(issuesOf(redisPolicy({}, { ...DRILL, encryption: { age } }))).toEqual([
    'spec.encryption.age.identitySecret: required with spec.drill: the drills decrypt the newest backup with this identity',
  ]);
  // the same encryption without a drill renders
  expect(renderPolicy(redisPolicy({}, { encryption: { age } })).length).toBeGreaterThan(0);
});

test('a drill schedule the API server refuses is reported at spec.drill.schedule', () => {
  expect(issuesOf(redisPolicy({}, { drill: { schedule: '0 0 * * 7' } }))).toEqual([
    expect.stringMatching(/^spec\.drill\.schedule: received "0 0 \* \* 7"; /),
  ]);
});
