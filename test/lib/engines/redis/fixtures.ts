import { renderPolicy } from '../../../../lib';
import type { BackupPolicy, RedisSpec } from '../../../../lib';
import { policyIssues } from '../../../support/policy-issues';

/** A small valid Redis policy: two shards behind one Sentinel, S3 on MinIO, with overrides. */
export function redisPolicy(
  redis: Partial<RedisSpec> = {},
  spec: Record<string, unknown> = {},
  name = 'redis',
): BackupPolicy {
  return {
    apiVersion: 'backup-cronjobs.io/v1alpha1',
    kind: 'BackupPolicy',
    metadata: { name, namespace: 'example' },
    spec: {
      ...spec,
      redis: {
        sentinel: {
          addresses: ['sentinel.example.svc:26379'],
          passwordSecret: { name: 'sentinel-auth', key: 'password' },
        },
        passwordSecret: { name: 'redis-auth', key: 'password' },
        shards: ['shard01', 'shard02'],
        s3: {
          bucket: 'my-bucket',
          path: 'backups',
          region: 'us-east-1',
          endpoint: 'http://minio.default.svc.cluster.local:9000',
          credentialsSecret: { name: 'aws-credentials' },
        },
        ...redis,
      },
    },
  };
}

export { containerOf, envOf, podSpecOf as podOf } from '../../../support/kube';

/** The problems of a policy that does not render, as `<path>: <message>`; throws when it renders. */
export const issuesOf = (doc: unknown): string[] => policyIssues(() => renderPolicy(doc));
