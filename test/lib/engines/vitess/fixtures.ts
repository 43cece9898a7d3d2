import type { BackupPolicy, VitessSpec } from '../../../../lib';

/** A small valid Vitess policy: commerce/- to S3, with overrides. */
export function vitessPolicy(vitess: Partial<VitessSpec> = {}, spec: Record<string, unknown> = {}): BackupPolicy {
  return {
    apiVersion: 'backup-cronjobs.io/v1alpha1',
    kind: 'BackupPolicy',
    metadata: { name: 'example', namespace: 'example' },
    spec: {
      ...spec,
      vitess: {
        cluster: 'example',
        topology: { globalServerAddress: 'example-etcd-faf13de3-client.example.svc:2379' },
        vtctldServer: 'example-vtctld:15999',
        storage: { s3: { region: 'us-east-1', bucket: 'my-bucket' } },
        schedules: [{ name: 'daily', schedule: '0 2 * * *', strategies: [{ keyspace: 'commerce', shards: ['-'] }] }],
        ...vitess,
      },
    },
  };
}
