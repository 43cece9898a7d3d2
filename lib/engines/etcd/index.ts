/** The etcd engine: control-plane snapshots from plain CronJobs (cluster or per node), verified, with retention. */
import type { EngineDefinition } from '../engine';
import { ETCD_DEFAULTS } from './defaults';
import { resolveEtcd } from './resolve';
import { etcdRestoreJob } from './restore';
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
  restoreJob: (spec, policy, request) => etcdRestoreJob(resolveEtcd(spec, policy.metadata.name, policy.path), spec.restore, policy, request),
  drill: true,
};
