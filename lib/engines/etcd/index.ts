/** The etcd engine: control-plane snapshots from plain CronJobs (cluster or per node), verified, with retention. */
import type { EngineDefinition } from '../engine';
import { ETCD_DEFAULTS } from './defaults';
import { openshiftObjects, restoreWithServiceAccount, withServiceAccount } from './openshift';
import { resolveEtcd } from './resolve';
import { etcdRestoreJob } from './restore';
import { etcdSchema } from './schema';
import { etcdTargets } from './targets';
import type { EtcdSpec } from './types';
import type { EtcdScheduleProps } from './props';
import type { NO_OWN_FIELDS } from '../props';
import { ETCD_PROPS } from './props';
import { validateEtcd } from './validate';

export * from './types';
export { DISTRIBUTIONS, ETCD_DEFAULTS, ETCD_PATHS, NODE_ROLES } from './defaults';
export { etcdNamePrefix } from './resolve';
export { etcdSchedulePolicy } from './props';
export type { EtcdScheduleProps } from './props';

export const etcdEngine: EngineDefinition<EtcdSpec, EtcdScheduleProps, typeof NO_OWN_FIELDS> = {
  props: ETCD_PROPS,
  schema: etcdSchema,
  metricsPrefix: ETCD_DEFAULTS.metricsPrefix,
  validate: (spec, policy, issues) => validateEtcd(spec, policy, issues),
  targets: (spec, policy) => {
    const resolved = resolveEtcd(spec, policy.metadata.name, policy.path);
    return withServiceAccount(resolved, etcdTargets(resolved, policy));
  },
  restoreJob: (spec, policy, request) => {
    const resolved = resolveEtcd(spec, policy.metadata.name, policy.path);
    return restoreWithServiceAccount(resolved, etcdRestoreJob(resolved, spec.restore, policy, request));
  },
  objects: (spec, policy, pods) => {
    const resolved = resolveEtcd(spec, policy.metadata.name, policy.path);
    return openshiftObjects(resolved, policy, pods, (request) => etcdRestoreJob(resolved, spec.restore, policy, request));
  },
  encryption: true,
  drill: true,
};
