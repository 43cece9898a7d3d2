/** The etcd engine: control-plane snapshots from plain CronJobs (cluster or per node), verified, with retention. */
import { formatPath } from '../../policy/errors';
import type { EngineDefinition } from '../engine';
import { etcdAlertRules } from './alerts';
import { ETCD_ALARMS, ETCD_DEFAULTS } from './defaults';
import { openshiftObjects, restoreWithServiceAccount, withServiceAccount } from './openshift';
import { resolveEtcd } from './resolve';
import type { ResolvedEtcd } from './resolve';
import type { PolicyContext } from '../engine';
import { etcdRestoreJob } from './restore';
import { etcdSchema } from './schema';
import { etcdTargets } from './targets';
import type { EtcdSpec } from './types';
import type { EtcdScheduleProps } from './props';
import { ETCD_PROPS } from './props';
import { validateEtcd } from './validate';
import { openShiftBackupConverter } from './convert';

export * from './types';
export { DISTRIBUTIONS, ETCD_DEFAULTS, ETCD_PATHS, NODE_ROLES } from './defaults';
export { etcdNamePrefix } from './resolve';
export { etcdSchedulePolicy } from './props';
export type { EtcdScheduleProps } from './props';

/** Each validated spec resolved once per policy (its targets, objects and restore Job all read it). */
const resolvedSpecs = new WeakMap<
  EtcdSpec,
  { readonly name: string; readonly path: string; readonly resolved: ResolvedEtcd }
>();

function resolved(spec: EtcdSpec, policy: PolicyContext): ResolvedEtcd {
  const known = resolvedSpecs.get(spec);
  const path = formatPath(policy.path);
  if (known !== undefined && known.name === policy.metadata.name && known.path === path) return known.resolved;
  const r = resolveEtcd(spec, policy.metadata.name, policy.path);
  resolvedSpecs.set(spec, { name: policy.metadata.name, path, resolved: r });
  return r;
}

export const etcdEngine: EngineDefinition<EtcdSpec, EtcdScheduleProps> = {
  props: ETCD_PROPS,
  schema: etcdSchema,
  converters: [openShiftBackupConverter],
  metricsPrefix: ETCD_DEFAULTS.metricsPrefix,
  sourceAlarms: ETCD_ALARMS,
  contentChecks: true,
  validate: (spec, policy, issues, accepted) => validateEtcd(spec, policy, issues, accepted),
  targets: (spec, policy) => {
    const r = resolved(spec, policy);
    return withServiceAccount(r, etcdTargets(r, policy));
  },
  restoreJob: (spec, policy, request) => {
    const r = resolved(spec, policy);
    return restoreWithServiceAccount(r, etcdRestoreJob(r, spec.restore, policy, request));
  },
  objects: (spec, policy, pods) => {
    const r = resolved(spec, policy);
    return openshiftObjects(r, policy, pods, (request) => etcdRestoreJob(r, spec.restore, policy, request));
  },
  backupStores: (spec, policy) => {
    const r = resolved(spec, policy);
    const d = r.destination;
    const names = {
      namePrefix: r.namePrefix,
      nameSuffix: ETCD_DEFAULTS.extension,
      metadataSuffix: ETCD_DEFAULTS.metadataSuffix,
      nodes: r.retentionScope === 'cluster' ? ('together' as const) : ('each' as const),
      contentFacts: ['revision', 'keyCount'],
    };
    return [
      d.kind === 's3'
        ? {
            target: policy.metadata.name,
            kind: 's3',
            bucket: d.s3.bucket,
            keyPrefix: d.s3.keyPrefix,
            endpoint: d.s3.endpoint,
            region: d.s3.region,
            objectLock: d.s3.objectLock,
            ...names,
          }
        : { target: policy.metadata.name, kind: 'dir', ...names },
    ];
  },
  encryption: true,
  drill: true,
  alertRules: (spec, context) =>
    etcdAlertRules(resolveEtcd(spec, context.policy, ['spec', 'etcd']).defragmentation, context),
};
