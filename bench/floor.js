'use strict';
// The floor of the synthesis benchmark: the objects of benchPolicy(n) built as plain values, each shard's
// CronJob a copy of the core's one-shard CronJob with the shard's fields set, and the policy's other
// objects (those of a one-shard policy that are not a shard's) as the core renders them. No validation,
// no model: the least work that yields the same objects. test/bench/floor.test.ts keeps them equal to the
// core's at small sizes, so the floor follows whatever the core renders.
const { benchPolicy } = require('./policy');

const SHARD_LABEL = 'backup-cronjobs.io/shard';

/** floorObjects(core, n): `core` is the package's main module (dist/lib, or lib under ts-node/jest). */
function floorObjects(core, n) {
  const oneShard = core.renderPolicy(benchPolicy(1));
  const at = oneShard.findIndex((o) => o.metadata.labels?.[SHARD_LABEL] !== undefined);
  if (at < 0 || oneShard.filter((o) => o.metadata.labels?.[SHARD_LABEL] !== undefined).length !== 1) {
    throw new Error('the floor expects exactly one object per shard (the CronJob) in a one-shard policy');
  }
  const template = oneShard[at];
  const shardObjects = [];
  for (const { keyspace, shards } of benchPolicy(n).spec.vitess.schedules[0].strategies) {
    const keyspaceShards = shards.join(' ');
    for (const shard of shards) shardObjects.push(shardObject(core, template, keyspace, shard, keyspaceShards));
  }
  return [...oneShard.slice(0, at), ...shardObjects, ...oneShard.slice(at + 1)];
}

function shardObject(core, t, keyspace, shard, keyspaceShards) {
  const safe = core.safeShard(shard);
  const name = core.joinName(['bench', 'nightly', keyspace, safe]);
  const id = `vitess|bench|nightly|${keyspace}|${shard}`;
  const labels = {
    ...t.metadata.labels,
    'backup-cronjobs.io/keyspace': keyspace,
    [SHARD_LABEL]: safe,
    'backup-cronjobs.io/target': name,
    'planetscale.com/keyspace': keyspace,
    'planetscale.com/shard': safe,
  };
  const jt = t.spec.jobTemplate;
  const pt = jt.spec.template;
  const env = (list) =>
    list.map((e) => {
      switch (e.name) {
        case 'BACKUP_JOB':
        case 'BACKUP_TARGET':
          return { name: e.name, value: name };
        case 'VITESS_KEYSPACE':
          return { name: e.name, value: keyspace };
        case 'VITESS_SHARD':
          return { name: e.name, value: shard };
        case 'BACKUP_POLICY_SHARDS':
          return { name: e.name, value: keyspaceShards };
        default:
          return e;
      }
    });
  const args = (list) =>
    list.map((a) => {
      if (a.startsWith('--init_keyspace=')) return `--init_keyspace=${keyspace}`;
      if (a.startsWith('--init_shard=')) return `--init_shard=${shard}`;
      if (a.startsWith('--init_db_name_override=')) return `--init_db_name_override=vt_${keyspace}`;
      return a;
    });
  const container = (c) => ({ ...c, ...(c.env ? { env: env(c.env) } : {}), ...(c.args ? { args: args(c.args) } : {}) });
  return {
    ...t,
    metadata: { ...t.metadata, name, labels },
    spec: {
      ...t.spec,
      schedule: core.resolveHashedSchedule('H 2 * * *', id),
      jobTemplate: {
        ...jt,
        metadata: { ...jt.metadata, labels },
        spec: {
          ...jt.spec,
          template: {
            ...pt,
            metadata: { ...pt.metadata, labels: { ...pt.metadata.labels, ...labels } },
            spec: {
              ...pt.spec,
              ...(pt.spec.initContainers ? { initContainers: pt.spec.initContainers.map(container) } : {}),
              containers: pt.spec.containers.map(container),
            },
          },
        },
      },
    },
  };
}

module.exports = { floorObjects };
