/**
 * Job settings resolved: the merged levels with every default applied once (the schedule, the CronJob's and
 * Job's fields, the placement, the pod options). The workload builder and every other consumer read these.
 */
import { JOB_DEFAULTS, nodeRequirementOperator, timeZoneOf, tolerationOperator } from './defaults';
import type {
  JobSettings,
  NodeRequirement,
  Placement,
  PodAffinityTerm,
  PodOptions,
  SerializationGroup,
  StaggerOptions,
  Toleration,
} from './types';
import { containsHash } from '../schedule';
import { parseDuration } from '../units';
import { nonEmpty } from '../kubernetes/objects';

/** What an engine sets for its targets, under every level of the policy's settings. */
export interface EngineSettingsDefaults {
  /** Run deadline. */
  readonly timeout: string;
  /** A stagger the engine applies unless the policy sets one or hashes its schedule (H fields). @default - none */
  readonly stagger?: StaggerOptions;
}

/** A serialization group with its defaults applied. */
export interface ResolvedSerializationGroup {
  readonly name: string;
  readonly scope: NonNullable<SerializationGroup['scope']>;
  /** The node label of the group's anti-affinity: `clusterTopologyKey` for scope cluster, else the node's hostname. */
  readonly topologyKey: string;
}

/** Placement with its defaults applied: operators, topology keys, the serialization group's scope. */
export interface ResolvedPlacement extends Placement {
  readonly nodeAffinity?: readonly (NodeRequirement & {
    readonly operator: NonNullable<NodeRequirement['operator']>;
  })[];
  readonly tolerations?: readonly (Toleration & { readonly operator: NonNullable<Toleration['operator']> })[];
  readonly podAffinity?: readonly (PodAffinityTerm & { readonly topologyKey: string })[];
  readonly podAntiAffinity?: readonly (PodAffinityTerm & { readonly topologyKey: string })[];
  readonly serializationGroup?: ResolvedSerializationGroup;
}

/** Pod options with their defaults applied. */
export interface ResolvedPodOptions extends PodOptions {
  readonly imagePullPolicy: NonNullable<PodOptions['imagePullPolicy']>;
}

/** Job settings with every default applied: what the workload builder and every other consumer read. */
export interface ResolvedJobSettings {
  /** The schedule as written (before hashing and stagger). */
  readonly schedule: string;
  /** As written: the CronJob gets it only when set. @default - unset (the controller's zone) */
  readonly timeZone?: string;
  /** The zone its runs are computed in (plan, retention buckets): `timeZone`, else TIME_ZONE_DEFAULT. */
  readonly zone: string;
  readonly stagger?: StaggerOptions;
  readonly suspend: boolean;
  readonly concurrencyPolicy: 'Forbid' | 'Allow' | 'Replace';
  readonly startingDeadlineSeconds: number;
  readonly successfulJobsHistoryLimit: number;
  readonly failedJobsHistoryLimit: number;
  readonly activeDeadlineSeconds: number;
  readonly backoffLimit: number;
  readonly ttlSecondsAfterFinished?: number;
  readonly placement: ResolvedPlacement;
  readonly pod: ResolvedPodOptions;
}

/** Merged settings (validated) → resolved settings, with the engine's defaults under the policy's. */
export function resolveSettings(
  settings: JobSettings,
  engine: EngineSettingsDefaults,
  schedule?: string,
): ResolvedJobSettings {
  const written = schedule ?? settings.schedule ?? JOB_DEFAULTS.schedule;
  const stagger = settings.stagger ?? (engine.stagger && !containsHash(written) ? engine.stagger : undefined);
  return {
    schedule: written,
    timeZone: settings.timeZone,
    zone: timeZoneOf(settings.timeZone),
    stagger,
    suspend: settings.suspend ?? JOB_DEFAULTS.suspend,
    concurrencyPolicy: settings.concurrencyPolicy ?? JOB_DEFAULTS.concurrencyPolicy,
    startingDeadlineSeconds: parseDuration(settings.startingDeadline ?? JOB_DEFAULTS.startingDeadline),
    successfulJobsHistoryLimit: settings.successfulJobsHistoryLimit ?? JOB_DEFAULTS.successfulJobsHistoryLimit,
    failedJobsHistoryLimit: settings.failedJobsHistoryLimit ?? JOB_DEFAULTS.failedJobsHistoryLimit,
    activeDeadlineSeconds: parseDuration(settings.timeout ?? engine.timeout),
    backoffLimit: settings.backoffLimit ?? JOB_DEFAULTS.backoffLimit,
    ttlSecondsAfterFinished:
      settings.ttlAfterFinished !== undefined ? parseDuration(settings.ttlAfterFinished) : undefined,
    placement: resolvePlacement(settings.placement ?? {}),
    pod: { ...settings.pod, imagePullPolicy: settings.pod?.imagePullPolicy ?? JOB_DEFAULTS.imagePullPolicy },
  };
}

/** A placement (the policy's or an engine's) with its defaults applied. */
export function resolvePlacement(p: Placement): ResolvedPlacement {
  const term = (t: PodAffinityTerm) => ({ ...t, topologyKey: t.topologyKey ?? JOB_DEFAULTS.nodeTopologyKey });
  return {
    ...p,
    nodeAffinity: p.nodeAffinity?.map((r) => ({ ...r, operator: nodeRequirementOperator(r) })),
    tolerations: p.tolerations?.map((t) => ({ ...t, operator: tolerationOperator(t) })),
    podAffinity: p.podAffinity?.map(term),
    podAntiAffinity: p.podAntiAffinity?.map(term),
    serializationGroup: p.serializationGroup && resolveSerializationGroup(p.serializationGroup),
  };
}

function resolveSerializationGroup(g: SerializationGroup): ResolvedSerializationGroup {
  const scope = g.scope ?? JOB_DEFAULTS.serializationScope;
  return {
    name: g.name,
    scope,
    topologyKey:
      scope === 'cluster' ? (g.clusterTopologyKey ?? JOB_DEFAULTS.clusterTopologyKey) : JOB_DEFAULTS.nodeTopologyKey,
  };
}

/** A pod's placement: the engine's (resolved here) first, then the policy's; lists are concatenated, maps merged. */
export function resolvePodPlacement<P extends { readonly placement?: Placement }>(
  pod: P,
  settings: ResolvedJobSettings,
): Omit<P, 'placement'> & { readonly placement: ResolvedPlacement } {
  const over = settings.placement;
  const base = pod.placement && resolvePlacement(pod.placement);
  const placement: ResolvedPlacement = !base
    ? over
    : {
        nodeSelector: nonEmpty({ ...base.nodeSelector, ...over.nodeSelector }),
        nodeAffinity: [...(base.nodeAffinity ?? []), ...(over.nodeAffinity ?? [])],
        tolerations: [...(base.tolerations ?? []), ...(over.tolerations ?? [])],
        podAffinity: [...(base.podAffinity ?? []), ...(over.podAffinity ?? [])],
        podAntiAffinity: [...(base.podAntiAffinity ?? []), ...(over.podAntiAffinity ?? [])],
        serializationGroup: over.serializationGroup ?? base.serializationGroup,
      };
  return { ...pod, placement };
}
