// Private endpoints: an S3 CA bundle reaches every container that talks to the bucket (AWS_CA_BUNDLE and a
// read-only mount; vtbackup through SSL_CERT_DIR), the Pushgateway's credentials and CA bundle reach only the
// containers that push, always by reference; the policy's mistakes are named.
import { renderPolicy } from '../../../lib';
import type { BackupPolicy, Manifest } from '../../../lib';
import { expectValidManifests } from '../../support/k8s-validate';
import { policyIssues } from '../../support/policy-issues';
import { etcdPolicy, restoreJobOf } from '../engines/etcd/fixtures';
import { redisPolicy } from '../engines/redis/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';
import type { V1Container } from '@kubernetes/client-node';
import { containersOf, podSpecOf } from '../../support/kube';

const podOf = podSpecOf;
const envOf = (c: V1Container | undefined) =>
  Object.fromEntries((c?.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));
const workloads = (objs: Manifest[]) => objs.filter((o) => o.kind === 'CronJob' || o.kind === 'Job');

const S3_CA = { configMap: { name: 'minio-ca', key: 'ca.crt' } };
const GATEWAY = {
  pushgatewayUrl: 'https://pushgateway.monitoring.svc:9091',
  basicAuthSecret: { name: 'pushgateway-auth' },
  caBundle: { secret: { name: 'pushgateway-tls', key: 'ca.crt' } },
};

/** Every container that talks to S3 (it has the aws CLI's region) trusts the bundle, mounted from its ConfigMap. */
function expectS3Bundle(objs: Manifest[]): number {
  let talking = 0;
  for (const o of workloads(objs)) {
    for (const c of containersOf(o)) {
      const env = envOf(c);
      if (env.AWS_DEFAULT_REGION === undefined) {
        expect(env.AWS_CA_BUNDLE).toBeUndefined();
        continue;
      }
      talking++;
      expect([o.metadata.name, c.name, env.AWS_CA_BUNDLE]).toEqual([
        o.metadata.name,
        c.name,
        '/etc/backup-cronjobs/s3-ca/ca.crt',
      ]);
      expect(c.volumeMounts).toContainEqual({
        name: 's3-ca-bundle',
        mountPath: '/etc/backup-cronjobs/s3-ca',
        readOnly: true,
      });
    }
    const uses = containersOf(o).some((c) => envOf(c).AWS_CA_BUNDLE !== undefined);
    const volumes = (podOf(o).volumes ?? []).filter((v: { name: string }) => v.name === 's3-ca-bundle');
    expect(volumes).toEqual(
      uses
        ? [{ name: 's3-ca-bundle', configMap: { name: 'minio-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }]
        : [],
    );
  }
  return talking;
}

describe('an S3 CA bundle', () => {
  test('Redis: the upload, the prune and the drill fetch get it; redis-dump does not', () => {
    const objs = renderPolicy(
      redisPolicy(
        {
          s3: { bucket: 'my-bucket', region: 'us-east-1', endpoint: 'https://minio.example.com:9000', caBundle: S3_CA },
        },
        { retention: { keepLast: 7, schedule: '0 5 * * *' }, drill: { schedule: '0 6 * * 0' } },
      ),
    );
    expectValidManifests(objs);
    // per shard: s3-upload, retention-prune, the drill's fetch
    expect(expectS3Bundle(objs)).toBe(2 * 3);
  });

  test("etcd: finalize, prune, the drill fetch and the restore Job's fetch get it", () => {
    const s3 = { bucket: 'bucket', region: 'us-east-1', endpoint: 'https://minio.example.com:9000', caBundle: S3_CA };
    const policy = etcdPolicy(
      { mode: 'perNode', nodes: ['cp-1', 'cp-2'], destination: { s3 } },
      { retention: { keepLast: 7, schedule: '0 5 * * *' }, drill: { schedule: '0 6 * * 0' } },
    );
    const objs = renderPolicy(policy);
    expectValidManifests(objs);
    // finalize and the drill's fetch per node, one retention-prune for the bucket
    expect(expectS3Bundle(objs)).toBe(2 + 2 + 1);
    const job = restoreJobOf(policy, [
      '--target',
      'cp-2',
      '--snapshot',
      'etcd-snapshot_etcd_2026-01-01T00:00:00Z_cp-2.db',
    ]);
    expectValidManifests([job]);
    expect(expectS3Bundle([job])).toBe(1);
  });

  test('a Secret key works as well as a ConfigMap key', () => {
    const [o] = workloads(
      renderPolicy(
        redisPolicy({
          s3: {
            bucket: 'my-bucket',
            region: 'us-east-1',
            caBundle: { secret: { name: 'minio-tls', key: 'tls-ca.pem' } },
          },
        }),
      ),
    );
    expect(podOf(o).volumes).toContainEqual({
      name: 's3-ca-bundle',
      secret: { secretName: 'minio-tls', items: [{ key: 'tls-ca.pem', path: 'ca.crt' }] },
    });
  });

  test("Vitess: vtbackup trusts it through SSL_CERT_DIR, next to the image's CAs, never AWS_CA_BUNDLE", () => {
    const objs = renderPolicy(
      vitessPolicy({
        storage: {
          s3: { region: 'us-east-1', bucket: 'my-bucket', endpoint: 'https://minio.example.com:9000', caBundle: S3_CA },
        },
      }),
    );
    expectValidManifests(objs);
    const [cronJob] = workloads(objs);
    const vtbackup = containersOf(cronJob).find((c) => c.name === 'vtbackup');
    expect(envOf(vtbackup).SSL_CERT_DIR).toBe('/etc/ssl/certs:/etc/backup-cronjobs/s3-ca');
    expect(envOf(vtbackup).AWS_CA_BUNDLE).toBeUndefined();
    expect(vtbackup?.volumeMounts).toContainEqual({
      name: 's3-ca-bundle',
      mountPath: '/etc/backup-cronjobs/s3-ca',
      readOnly: true,
    });
    expect(podOf(cronJob).volumes).toContainEqual({
      name: 's3-ca-bundle',
      configMap: { name: 'minio-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
    });
  });

  test('without one, nothing changes', () => {
    for (const o of workloads(renderPolicy(redisPolicy()))) {
      for (const c of containersOf(o)) expect(envOf(c).AWS_CA_BUNDLE).toBeUndefined();
      expect(JSON.stringify(podOf(o).volumes)).not.toContain('ca-bundle');
    }
  });
});

describe('a Pushgateway behind authentication and a private CA', () => {
  test('only the containers that push get the credentials (from the Secret) and the CA bundle', () => {
    const objs = renderPolicy(redisPolicy({}, { metrics: GATEWAY, drill: { schedule: '0 6 * * 0' } }));
    expectValidManifests(objs);
    const pushers: string[] = [];
    for (const o of workloads(objs)) {
      for (const c of containersOf(o)) {
        const env = envOf(c);
        if (env.BACKUP_PUSHGATEWAY_PASSWORD === undefined) {
          expect([c.name, env.BACKUP_PUSHGATEWAY_USERNAME, env.BACKUP_PUSHGATEWAY_CA_FILE]).toEqual([
            c.name,
            undefined,
            undefined,
          ]);
          continue;
        }
        pushers.push(`${o.metadata.name}/${c.name}`);
        expect(env.BACKUP_PUSHGATEWAY_USERNAME).toEqual({
          secretKeyRef: { name: 'pushgateway-auth', key: 'username' },
        });
        expect(env.BACKUP_PUSHGATEWAY_PASSWORD).toEqual({
          secretKeyRef: { name: 'pushgateway-auth', key: 'password' },
        });
        expect(env.BACKUP_PUSHGATEWAY_CA_FILE).toBe('/etc/backup-cronjobs/pushgateway-ca/ca.crt');
        expect(c.volumeMounts).toContainEqual({
          name: 'pushgateway-ca-bundle',
          mountPath: '/etc/backup-cronjobs/pushgateway-ca',
          readOnly: true,
        });
        expect(podOf(o).volumes).toContainEqual({
          name: 'pushgateway-ca-bundle',
          secret: { secretName: 'pushgateway-tls', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
        });
      }
    }
    expect(pushers.sort()).toEqual([
      'redis-shard01-drill/report',
      'redis-shard01/s3-upload',
      'redis-shard02-drill/report',
      'redis-shard02/s3-upload',
    ]);
  });

  test('a bearer token comes from its Secret key; other basic-auth keys are taken', () => {
    const env = (metrics: Record<string, unknown>) =>
      envOf(containersOf(workloads(renderPolicy(redisPolicy({}, { metrics })))[0]).find((c) => c.name === 's3-upload'));
    expect(
      env({ pushgatewayUrl: 'https://gw:9091', bearerTokenSecret: { name: 'gw-token', key: 'token' } })
        .BACKUP_PUSHGATEWAY_TOKEN,
    ).toEqual({ secretKeyRef: { name: 'gw-token', key: 'token' } });
    const basic = env({
      pushgatewayUrl: 'https://gw:9091',
      basicAuthSecret: { name: 'gw', usernameKey: 'user', passwordKey: 'pass' },
    });
    expect([basic.BACKUP_PUSHGATEWAY_USERNAME, basic.BACKUP_PUSHGATEWAY_PASSWORD]).toEqual([
      { secretKeyRef: { name: 'gw', key: 'user' } },
      { secretKeyRef: { name: 'gw', key: 'pass' } },
    ]);
  });
});

describe('mistakes are named, all at once', () => {
  const issues = (policy: BackupPolicy) => policyIssues(() => renderPolicy(policy));

  test('a CA bundle needs exactly one source, and https', () => {
    expect(
      issues(
        redisPolicy(
          { s3: { bucket: 'my-bucket', region: 'us-east-1', endpoint: 'http://minio:9000', caBundle: S3_CA } },
          {
            metrics: {
              pushgatewayUrl: 'http://gw:9091',
              caBundle: { configMap: { name: 'a', key: 'ca.crt' }, secret: { name: 'b', key: 'ca.crt' } },
            },
          },
        ),
      ),
    ).toEqual([
      expect.stringMatching(/^spec\.metrics\.caBundle: .*\b(1|one)\b/),
      expect.stringMatching(
        /^spec\.redis\.s3\.caBundle: received a CA bundle for the plain-HTTP endpoint "http:\/\/minio:9000"; a CA bundle only applies to https:\/\//,
      ),
    ]);
    expect(issues(redisPolicy({ s3: { bucket: 'my-bucket', region: 'us-east-1', caBundle: {} } }))).toEqual([
      expect.stringMatching(/^spec\.redis\.s3\.caBundle: /),
    ]);
    expect(
      issues(
        redisPolicy({
          s3: { bucket: 'my-bucket', region: 'us-east-1', caBundle: { configMap: { name: 'ca', key: 'a/b' } } },
        }),
      ),
    ).toEqual([expect.stringMatching(/^spec\.redis\.s3\.caBundle\.configMap\.key: /)]);
  });

  test('credentials need a Pushgateway URL, one kind, two keys', () => {
    expect(issues(redisPolicy({}, { metrics: { basicAuthSecret: { name: 'gw' }, caBundle: S3_CA } }))).toEqual([
      'spec.metrics.basicAuthSecret: applies to the Pushgateway only: set spec.metrics.pushgatewayUrl too, or remove it',
      'spec.metrics.caBundle: applies to the Pushgateway only: set spec.metrics.pushgatewayUrl too, or remove it',
    ]);
    expect(issues(redisPolicy({}, { metrics: { pushgatewayUrl: 'https://pusher:s3cret@gw:9091/x' } }))).toEqual([
      'spec.metrics.pushgatewayUrl: received a URL with credentials (user:password@); put them in a Secret named by spec.metrics.basicAuthSecret, and remove them from the URL',
    ]);
    expect(
      issues(
        redisPolicy(
          {},
          {
            metrics: {
              pushgatewayUrl: 'https://gw:9091',
              basicAuthSecret: { name: 'gw', passwordKey: 'username' },
              bearerTokenSecret: { name: 'gw', key: 't' },
            },
          },
        ),
      ),
    ).toEqual([
      'spec.metrics: received basicAuthSecret and bearerTokenSecret; set at most one of them (one Authorization header per push)',
      'spec.metrics.basicAuthSecret: received the same key "username" for the username and the password; each needs its own key',
    ]);
  });
});
