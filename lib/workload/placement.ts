/** Placement value objects → pod `nodeSelector`, `affinity`, `tolerations`. */
import { JOB_DEFAULTS, SERIALIZATION_GROUP_LABEL } from '../policy/defaults';
import type { NodeRequirement, Placement, PodAffinityTerm, Toleration } from '../policy/types';
import { nonEmpty, withoutUndefined } from '../kubernetes/objects';

export interface RenderedPlacement {
  readonly nodeSelector?: Record<string, string>;
  readonly affinity?: Record<string, unknown>;
  readonly tolerations?: readonly Record<string, unknown>[];
  /** Labels the pod must carry (serialization group). */
  readonly podLabels: Record<string, string>;
}

/** Engine placement first, then the policy's; lists are concatenated, maps merged. */
export function mergePlacement(base: Placement | undefined, over: Placement | undefined): Placement {
  if (!base) return over ?? {};
  if (!over) return base;
  return {
    nodeSelector: nonEmpty({ ...base.nodeSelector, ...over.nodeSelector }),
    nodeAffinity: [...(base.nodeAffinity ?? []), ...(over.nodeAffinity ?? [])],
    tolerations: [...(base.tolerations ?? []), ...(over.tolerations ?? [])],
    podAffinity: [...(base.podAffinity ?? []), ...(over.podAffinity ?? [])],
    podAntiAffinity: [...(base.podAntiAffinity ?? []), ...(over.podAntiAffinity ?? [])],
    serializationGroup: over.serializationGroup ?? base.serializationGroup,
  };
}

export function renderPlacement(placement: Placement, namespace: string): RenderedPlacement {
  const hardNode = (placement.nodeAffinity ?? []).filter((r) => r.weight === undefined);
  const softNode = (placement.nodeAffinity ?? []).filter((r) => r.weight !== undefined);
  const antiTerms: PodAffinityTerm[] = [...(placement.podAntiAffinity ?? [])];
  const podLabels: Record<string, string> = {};
  const group = placement.serializationGroup;
  if (group) {
    podLabels[SERIALIZATION_GROUP_LABEL] = group.name;
    const scope = group.scope ?? JOB_DEFAULTS.serializationScope;
    antiTerms.unshift({
      labels: { [SERIALIZATION_GROUP_LABEL]: group.name },
      topologyKey:
        scope === 'cluster'
          ? (group.clusterTopologyKey ?? JOB_DEFAULTS.clusterTopologyKey)
          : JOB_DEFAULTS.nodeTopologyKey,
      namespaces: [namespace],
    });
  }
  const nodeAffinity = nonEmpty({
    requiredDuringSchedulingIgnoredDuringExecution:
      hardNode.length > 0 ? { nodeSelectorTerms: [{ matchExpressions: hardNode.map(matchExpression) }] } : undefined,
    preferredDuringSchedulingIgnoredDuringExecution:
      softNode.length > 0
        ? softNode.map((r) => ({ weight: r.weight, preference: { matchExpressions: [matchExpression(r)] } }))
        : undefined,
  });
  const affinity = nonEmpty(
    withoutUndefined({
      nodeAffinity: nonEmpty(withoutUndefined(nodeAffinity ?? {})),
      podAffinity: podTerms(placement.podAffinity ?? [], namespace),
      podAntiAffinity: podTerms(antiTerms, namespace),
    }),
  );
  return {
    nodeSelector: nonEmpty({ ...placement.nodeSelector }),
    affinity,
    tolerations: placement.tolerations?.map(renderToleration),
    podLabels,
  };
}

function matchExpression(r: NodeRequirement): Record<string, unknown> {
  return withoutUndefined({
    key: r.key,
    operator: r.operator ?? JOB_DEFAULTS.nodeRequirementOperator,
    values: r.values ? [...r.values] : undefined,
  });
}

function podTerms(terms: readonly PodAffinityTerm[], namespace: string): Record<string, unknown> | undefined {
  const term = (t: PodAffinityTerm) => ({
    labelSelector: { matchLabels: { ...t.labels } },
    topologyKey: t.topologyKey ?? JOB_DEFAULTS.nodeTopologyKey,
    namespaces: [...(t.namespaces ?? [namespace])],
  });
  const hard = terms.filter((t) => t.weight === undefined).map(term);
  const soft = terms.filter((t) => t.weight !== undefined).map((t) => ({ weight: t.weight, podAffinityTerm: term(t) }));
  return nonEmpty(
    withoutUndefined({
      requiredDuringSchedulingIgnoredDuringExecution: hard.length > 0 ? hard : undefined,
      preferredDuringSchedulingIgnoredDuringExecution: soft.length > 0 ? soft : undefined,
    }),
  );
}

function renderToleration(t: Toleration): Record<string, unknown> {
  return withoutUndefined({
    key: t.key,
    operator: t.operator ?? JOB_DEFAULTS.tolerationOperator,
    value: t.value,
    effect: t.effect,
    tolerationSeconds: t.tolerationSeconds,
  });
}
