import { renderPolicy } from '../../../../lib';
import type { BackupPolicy, RedisSpec } from '../../../../lib';
import { policyIssues } from '../../../support/policy-issues';

/** A small valid Redis policy: two shards behind one Sentinel, S3 on MinIO, with overrides. */
export function redisPolicy(redis: Partial<RedisSpec> = {}, spec: Record<string, unknown> = {}, name = 'redis'): BackupPolicy {
  return {
    apiVersion: 'backup-cronjobs.io/v1alpha1',
    kind: 'BackupPolicy',
    metadata: { name, namespace: 'example' },
    spec: {
      ...spec,
      redis: {
        sentinel: { addresses: ['sentinel.example.svc:26379'], passwordSecret: { name: 'sentinel-auth', key: 'password' } },
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
  } as BackupPolicy;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const podOf = (o: any) => o.spec.jobTemplate.spec.template.spec;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const containerOf = (o: any, name: string) =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [...(podOf(o).initContainers ?? []), ...podOf(o).containers].find((c: any) => c.name === name);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const envOf = (o: any, container: string): Record<string, any> =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  Object.fromEntries((containerOf(o, container).env ?? []).map((e: any) => [e.name, e.value ?? e.valueFrom]));

/** The problems of a policy that does not render, as `<path>: <message>`; throws when it renders. */
export const issuesOf = (doc: unknown): string[] => policyIssues(() => renderPolicy(doc));
