/** Props of the cdk8s tests: one small valid schedule per engine, without a namespace. */
import type {
  EtcdBackupScheduleProps,
  RedisBackupScheduleProps,
  VitessBackupScheduleProps,
} from '../../../constructs/cdk8s';

/** Two shards behind one Sentinel, serialized cluster-wide, with alerts: the namespace appears inside objects too. */
export const redisProps: RedisBackupScheduleProps = {
  name: 'cache',
  schedule: '0 3 * * *',
  shards: ['shard01', 'shard02'],
  sentinel: { addresses: ['sentinel.redis.svc:26379'], passwordSecret: { name: 'redis-auth', key: 'password' } },
  s3: { bucket: 'cache-backups', region: 'us-east-1', credentialsSecret: { name: 'aws-credentials' } },
  placement: {
    serializationGroup: { name: 'cache', scope: 'cluster' },
    podAntiAffinity: [{ labels: { app: 'redis' }, weight: 50 }],
  },
  retention: { keepLast: 7, schedule: '0 5 * * *' },
  metrics: { pushgatewayUrl: 'http://pushgateway.monitoring.svc:9091', prometheusRule: {} },
};

export const vitessProps: VitessBackupScheduleProps = {
  name: 'shop',
  cluster: 'shop',
  topology: { globalServerAddress: 'shop-etcd-client.db.svc:2379' },
  vtctldServer: 'shop-vtctld.db.svc:15999',
  storage: { s3: { region: 'us-east-1', bucket: 'shop-backups' } },
  schedule: '0 2 * * *',
  strategies: [{ keyspace: 'commerce', shards: ['-80', '80-'] }],
};

export const etcdProps: EtcdBackupScheduleProps = {
  name: 'etcd',
  mode: 'perNode',
  nodes: ['cp-1', 'cp-2'],
  schedule: '0 */6 * * *',
  destination: { persistentVolumeClaim: { claimName: 'etcd-snapshots' } },
  restore: { initialCluster: 'cp-1=https://10.0.0.1:2380,cp-2=https://10.0.0.2:2380' },
};
