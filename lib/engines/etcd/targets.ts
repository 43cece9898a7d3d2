/**
 * etcd targets: one CronJob (`cluster` mode) or one per control-plane node
 * (`perNode`, staggered and serialized); with `spec.retention.schedule`,
 * retention-prune CronJobs in the same serialization group: for a hostPath
 * destination one per `perNode` node, pinned to it and mounting only its
 * directory (cluster mode names no nodes: refused by validation); for a PVC or
 * S3 destination one for the policy, honouring `retentionScope`; with
 * `spec.drill`, one restore-drill CronJob per backup target (drill.ts); with
 * `defragmentation`, one maintenance CronJob for the cluster (defrag.ts).
 */
import { labelValue } from '../../kubernetes/names';
import { mergeSettings } from '../../policy/settings';
import type { EngineTarget, PolicyContext } from '../engine';
import { ETCD_DEFAULTS } from './defaults';
import { defragPod } from './defrag';
import { drillPod } from './drill';
import { backupPod, prunePod } from './pods';
import type { ResolvedDefragmentation, ResolvedEtcd, ResolvedNode } from './resolve';
import { snapshotGroup } from './resolve';
import { destinationKind } from './destinations';

const LABEL_PREFIX = 'backup-cronjobs.io';

export function etcdTargets(spec: ResolvedEtcd, policy: PolicyContext): EngineTarget[] {
  const nodes = spec.mode === 'cluster' ? [undefined] : spec.nodes;
  const backups = nodes.map((node) => backupTarget(spec, policy, node));
  const pruneSchedule = policy.retention?.schedule;
  const prunes =
    pruneSchedule === undefined
      ? []
      : destinationKind(spec.destination).readers === 'node'
        ? spec.nodes.map((node) => pruneTarget(spec, policy, node, pruneSchedule))
        : [pruneTarget(spec, policy, undefined, pruneSchedule)];
  const drills = policy.drill ? nodes.map((node) => drillTarget(spec, policy, node)) : [];
  const defrag = spec.defragmentation ? [defragTarget(spec, policy, spec.defragmentation)] : [];
  return [...backups, ...prunes, ...drills, ...defrag];
}

function labels(mode: string, node: ResolvedNode | undefined): Record<string, string> {
  return { [`${LABEL_PREFIX}/etcd-mode`]: mode, ...(node ? { [`${LABEL_PREFIX}/node`]: labelValue(node.name) } : {}) };
}

function backupTarget(spec: ResolvedEtcd, policy: PolicyContext, node: ResolvedNode | undefined): EngineTarget {
  return {
    id: node ? `etcd|${policy.metadata.name}|${node.name}` : `etcd|${policy.metadata.name}`,
    nameParts: node ? [node.name] : [],
    key: node?.name ?? 'cluster',
    component: 'backup',
    labels: labels(node ? 'perNode' : 'cluster', node),
    overrides: node?.settings,
    settingsPath: node?.settings ? node.path : ['spec', 'defaults'],
    // perNode schedules are spread so that the nodes' snapshots follow each other.
    defaults: node
      ? { timeout: ETCD_DEFAULTS.timeout, stagger: { window: ETCD_DEFAULTS.perNodeStaggerWindow } }
      : { timeout: ETCD_DEFAULTS.timeout },
    node: node?.name,
    pod: (ctx) => backupPod(spec, policy, node?.name, ctx),
  };
}

/**
 * A retention-prune CronJob: `<policy>-prune-<node>` for one node's hostPath
 * directory (that node's settings apply), or `<policy>-prune` for a PVC or S3
 * destination (`spec.defaults` apply).
 */
function pruneTarget(
  spec: ResolvedEtcd,
  policy: PolicyContext,
  node: ResolvedNode | undefined,
  schedule: string,
): EngineTarget {
  return {
    id: node ? `etcd|${policy.metadata.name}|prune|${node.name}` : `etcd|${policy.metadata.name}|prune`,
    nameParts: node ? ['prune', node.name] : ['prune'],
    key: node?.name ?? 'cluster',
    component: 'retention-prune',
    labels: labels(spec.mode, node),
    overrides: node?.settings,
    settingsPath: ['spec', 'retention'],
    schedule,
    defaults: { timeout: ETCD_DEFAULTS.pruneTimeout },
    node: node?.name,
    pod: (ctx) => prunePod(spec, policy, node?.name, ctx),
  };
}

/**
 * The restore-drill CronJob of a backup target: `<policy>-drill` (cluster
 * mode: every node's snapshots) or `<policy>-drill-<node>` (that node's), with
 * the settings of `spec.defaults`, then the target's own level, then
 * `spec.drill`. Pinned to the node only for a hostPath destination.
 */
function drillTarget(spec: ResolvedEtcd, policy: PolicyContext, node: ResolvedNode | undefined): EngineTarget {
  const pinned = spec.destination.kind === 'hostPath' ? node?.name : undefined;
  return {
    id: node ? `etcd|${policy.metadata.name}|drill|${node.name}` : `etcd|${policy.metadata.name}|drill`,
    nameParts: node ? ['drill', node.name] : ['drill'],
    key: node?.name ?? 'cluster',
    component: 'restore-drill',
    labels: labels(spec.mode, node),
    overrides: mergeSettings(node?.settings, policy.drill),
    settingsPath: ['spec', 'drill'],
    defaults: { timeout: ETCD_DEFAULTS.drillTimeout },
    node: pinned,
    pod: (ctx) => drillPod(spec, policy, node?.name, ctx),
  };
}

/**
 * The defragmentation CronJob, `<policy>-defrag`: one for the cluster in both
 * modes (it reaches every member from one node), with the settings of
 * `spec.defaults`, then `spec.etcd.defragmentation`. It is in the snapshots'
 * serialization group, cluster-wide even when the group is per node: from
 * one node it blocks every member in turn, so no snapshot may run anywhere
 * meanwhile (the scheduler applies its anti-affinity to the snapshot pods too).
 */
function defragTarget(spec: ResolvedEtcd, policy: PolicyContext, defrag: ResolvedDefragmentation): EngineTarget {
  const group = snapshotGroup(policy.defaults);
  const overrides =
    group.scope !== 'cluster'
      ? {
          ...defrag.settings,
          placement: { ...defrag.settings?.placement, serializationGroup: { ...group, scope: 'cluster' as const } },
        }
      : defrag.settings;
  return {
    id: `etcd|${policy.metadata.name}|defrag`,
    nameParts: ['defrag'],
    key: 'cluster',
    component: 'maintenance',
    labels: labels(spec.mode, undefined),
    overrides,
    settingsPath: defrag.path,
    defaults: { timeout: ETCD_DEFAULTS.defragTimeout },
    pod: (ctx) => defragPod(spec, defrag, ctx),
  };
}
