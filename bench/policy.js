'use strict';
// A Vitess policy with `shards` shards: keyspaces of up to 100 shards each.
function hex(n) {
  return n.toString(16).padStart(4, '0');
}

function shardRanges(count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const start = i === 0 ? '' : hex(Math.floor((i * 65536) / count));
    const end = i === count - 1 ? '' : hex(Math.floor(((i + 1) * 65536) / count));
    out.push(`${start}-${end}`);
  }
  return out;
}

function benchPolicy(shards) {
  const strategies = [];
  for (let k = 0; k * 100 < shards; k++)
    strategies.push({ keyspace: `ks${k}`, shards: shardRanges(Math.min(100, shards - k * 100)) });
  return {
    apiVersion: 'backup-cronjobs.io/v1alpha1',
    kind: 'BackupPolicy',
    metadata: { name: 'bench', namespace: 'vitess' },
    spec: {
      defaults: { schedule: 'H 2 * * *', placement: { serializationGroup: { name: 'bench' } } },
      vitess: {
        cluster: 'bench',
        topology: { globalServerAddress: 'etcd:2379' },
        vtctldServer: 'vtctld:15999',
        storage: { s3: { region: 'us-east-1', bucket: 'b', endpoint: 'http://minio:9000', forcePathStyle: true } },
        scratch: { size: '10Gi' },
        schedules: [{ name: 'nightly', strategies }],
      },
    },
  };
}

module.exports = { benchPolicy };
