/** Placement value objects → pod `nodeSelector`, `affinity`, `tolerations`. */
import { SERIALIZATION_GROUP_LABEL } from '../policy/defaults';
import type { ResolvedPlacement } from '../policy/resolve-settings';
import type { EnginePod } from '../engines/engine';
import { nonEmpty, withoutUndefined } from '../kubernetes/objects';

type Requirement = NonNullable<ResolvedPlacement['nodeAffinity']>[number];
type Term = NonNullable<ResolvedPlacement['podAntiAffinity']>[number];

export interface RenderedPlacement {
  readonly nodeSelector?: Record<string, string>;
  readonly affinity?: Record<string, unknown>;
  readonly tolerations?: readonly Record<string, unknown>[];
  /** Labels the pod must carry (serialization group). */
  readonly podLabels: Record<string, string>;
}

/** An engine's pod with its placement merged with the policy's and resolved (resolvePodPlacement). */
export type ResolvedPod = Omit<EnginePod, 'placement'> & { readonly placement: ResolvedPlacement };

export function renderPlacement(placement: ResolvedPlacement, namespace: string): RenderedPlacement {
  const hardNode = (placement.nodeAffinity ?? []).filter((r) => r.weight === undefined);
  const softNode = (placement.nodeAffinity ?? []).filter((r) => r.weight !== undefined);
  const antiTerms: Term[] = [...(placement.podAntiAffinity ?? [])];
  const podLabels: Record<string, string> = {};
  const group = placement.serializationGroup;
  if (group) {
    podLabels[SERIALIZATION_GROUP_LABEL] = group.name;
    antiTerms.unshift({
      labels: { [SERIALIZATION_GROUP_LABEL]: group.name },
      topologyKey: group.topologyKey,
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

function matchExpression(r: Requirement): Record<string, unknown> {
  return withoutUndefined({
    key: r.key,
    operator: r.operator,
    values: r.values ? [...r.values] : undefined,
  });
}

function podTerms(terms: readonly Term[], namespace: string): Record<string, unknown> | undefined {
  const term = (t: Term) => ({
    labelSelector: { matchLabels: { ...t.labels } },
    topologyKey: t.topologyKey,
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

function renderToleration(t: NonNullable<ResolvedPlacement['tolerations']>[number]): Record<string, unknown> {
  return withoutUndefined({
    key: t.key,
    operator: t.operator,
    value: t.value,
    effect: t.effect,
    tolerationSeconds: t.tolerationSeconds,
  });
}
