/**
 * `distribution: openshift`: every pod of the policy (backups, prunes, drills,
 * the restore Jobs) runs under the ServiceAccount `<policy>-sa`, which a Role
 * lets use a SecurityContextConstraints admitting exactly those pods. Without
 * it OpenShift admits them under no SCC its users get by default (hostNetwork,
 * hostPath volumes and uid 0 are beyond `restricted-v2`).
 */
import type { PodSpec } from '../../kubernetes/objects';
import { joinName } from '../../kubernetes/names';
import { mergeSettings, resolveSettings } from '../../policy/settings';
import { podSecurityObjects } from '../../workload/openshift';
import type {
  EngineObject,
  EnginePod,
  EngineRestore,
  EngineTarget,
  PodContext,
  PolicyContext,
  RestoreRequest,
} from '../engine';
import { ETCD_DEFAULTS } from './defaults';
import type { ResolvedEtcd } from './resolve';

/** The SCC is cluster-scoped: the package's name, the namespace and the policy make it unique and tell what it is for. */
const SCC_PREFIX = 'backup-cronjobs';

/** The pod, under the policy's ServiceAccount when the distribution names one. */
function underServiceAccount(spec: ResolvedEtcd, pod: EnginePod): EnginePod {
  return spec.serviceAccountName === undefined ? pod : { ...pod, serviceAccountName: spec.serviceAccountName };
}

export function withServiceAccount(spec: ResolvedEtcd, targets: EngineTarget[]): EngineTarget[] {
  return targets.map((t) => ({ ...t, pod: (ctx: PodContext) => underServiceAccount(spec, t.pod(ctx)) }));
}

export function restoreWithServiceAccount(spec: ResolvedEtcd, restore: EngineRestore): EngineRestore {
  if ('problems' in restore) return restore;
  const { job } = restore;
  return { ...restore, job: { ...job, pod: (ctx: PodContext) => underServiceAccount(spec, job.pod(ctx)) } };
}

/**
 * The ServiceAccount, SCC, Role and RoleBinding (OpenShift only). The SCC
 * admits the CronJobs' pods as rendered and the pod of a restore Job (whose
 * policy settings are those of a CronJob's: covered by its pod).
 */
export function openshiftObjects(
  spec: ResolvedEtcd,
  policy: PolicyContext,
  pods: readonly PodSpec[],
  restoreJob: (request: RestoreRequest) => EngineRestore,
): EngineObject[] {
  if (spec.serviceAccountName === undefined) return [];
  const name = policy.metadata.name;
  const names = {
    namespace: policy.namespace,
    serviceAccount: spec.serviceAccountName,
    securityContextConstraints: `${SCC_PREFIX}.${policy.namespace}.${name}`,
    role: joinName([name, 'use-scc']),
  };
  return podSecurityObjects(names, [...pods, restorePod(spec, policy, restoreJob)]).map((manifest) => ({
    component: 'pod-security',
    manifest,
  }));
}

/** The pod of a restore Job of this policy (on its first node, or a stand-in one in cluster mode). */
function restorePod(
  spec: ResolvedEtcd,
  policy: PolicyContext,
  restoreJob: (request: RestoreRequest) => EngineRestore,
): EnginePod {
  const node = spec.nodes[0]?.name ?? 'node';
  const request =
    spec.mode === 'perNode'
      ? { target: node, snapshot: `${spec.namePrefix}restore_${node}${ETCD_DEFAULTS.extension}` }
      : { node, snapshot: `${spec.namePrefix}restore_${node}${ETCD_DEFAULTS.extension}` };
  const answer = restoreJob(request);
  if ('problems' in answer)
    throw new Error(`the restore Job of a valid policy was refused: ${answer.problems.join('; ')}`);
  const { job } = answer;
  const settings = resolveSettings(mergeSettings(policy.defaults, job.overrides), job.defaults);
  return job.pod({ env: [], settings, metrics: false });
}
