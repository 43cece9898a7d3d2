import type { BackupPolicySpec, PolicyMetadata } from '../../../lib';

/** A small valid Vitess policy (metadata + spec): two shards with serialization, so namespaces appear in affinity terms. */
export function policyArgs(): { metadata: PolicyMetadata; spec: BackupPolicySpec } {
  return {
    metadata: { name: 'shop', namespace: 'db' },
    spec: {
      defaults: { placement: { serializationGroup: { name: 'shop', scope: 'cluster' } } },
      vitess: {
        cluster: 'shop',
        topology: { globalServerAddress: 'shop-etcd-client.db.svc:2379' },
        vtctldServer: 'shop-vtctld.db.svc:15999',
        storage: { s3: { region: 'us-east-1', bucket: 'shop-backups' } },
        schedules: [
          { name: 'daily', schedule: '0 2 * * *', strategies: [{ keyspace: 'customer', shards: ['-80', '80-'] }] },
        ],
      },
    },
  };
}
