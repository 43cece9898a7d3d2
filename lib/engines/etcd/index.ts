/** The etcd engine: control-plane snapshots from plain CronJobs (cluster or per node), verified, with retention. */
import type { EngineDefinition } from '../engine';
import { ETCD_DEFAULTS } from './defaults';
import { resolveEtcd } from './resolve';
import { restoreJobs } from './restore';
import { etcdSchema } from './schema';
import { etcdTargets } from './targets';
import type { EtcdSpec } from './types';
import { validateEtcd } from './validate';

export * from './types';
export { ETCD_DEFAULTS, ETCD_PATHS, NODE_ROLES } from './defaults';
export { etcdNamePrefix } from './resolve';
export { etcdSchedulePolicy } from './props';
export type { EtcdScheduleProps } from './props';

export const etcdEngine: EngineDefinition<EtcdSpec> = {
  schema: etcdSchema,
  metricsPrefix: ETCD_DEFAULTS.metricsPrefix,
  validate: (spec, policy, issues) => validateEtcd(spec, policy, issues),
  targets: (spec, policy) => etcdTargets(resolveEtcd(spec, policy.metadata.name, policy.path), policy),
  jobs: (spec, policy) => {
    const resolved = resolveEtcd(spec, policy.metadata.name, policy.path);
    const restores = restoreJobs(resolved);
    const id = (node?: string) => (node === undefined ? `etcd|${policy.metadata.name}` : `etcd|${policy.metadata.name}|${node}`);
    if (resolved.mode === 'cluster') return restores.map(({ job }) => ({ after: id(), job }));
    // Each node's restore Job follows its CronJob; those of other nodes follow the last one.
    const nodes = resolved.nodes.map((n) => n.name);
    const own = (node: string) => restores.filter((r) => r.node === node).map(({ job }) => ({ after: id(node), job }));
    const others = restores.filter((r) => !nodes.includes(r.node)).map(({ job }) => ({ after: id(nodes[nodes.length - 1]), job }));
    return [...nodes.flatMap(own), ...others];
  },
};
