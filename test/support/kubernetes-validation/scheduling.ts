/**
 * Tolerations and affinity (node affinity, pod affinity and anti-affinity) as the Kubernetes
 * 1.28 API server checks them. Test-only: the schema's enums and ranges (`weight` 1-100,
 * `tolerationSeconds`, `namespaces` DNS labels) and the renderer decide these; the toleration key
 * and value and topology key rules the policy checks use are in lib/kubernetes/validation/scheduling.ts.
 *
 * Sources (kubernetes v1.28.8 and v1.33.3, pkg/apis/core/validation/validation.go):
 * - ValidateTolerations: a non-empty key is a qualified name; an empty key needs operator Exists;
 *   tolerationSeconds needs effect NoExecute; operator Equal (or empty) takes a label value,
 *   Exists takes no value; effect NoSchedule, PreferNoSchedule or NoExecute (validateTaintEffect).
 * - validateAffinity, validateNodeAffinity, ValidateNodeSelector (at least one term),
 *   ValidateNodeSelectorTerm, ValidateNodeFieldSelectorRequirement (key `metadata.name`, In/NotIn
 *   with exactly one node name), ValidatePreferredSchedulingTerms and
 *   validateWeightedPodAffinityTerms (weight 1-100), validatePodAffinityTerm (label selector,
 *   namespace selector, namespaces are DNS-1123 labels, topologyKey non-empty and a qualified name).
 * 1.33 adds matchLabelKeys/mismatchLabelKeys checks, which the core never sets.
 */
import { show } from '../../../lib/messages';
import { dns1123SubdomainProblem } from '../../../lib/kubernetes/validation/names';
import { type Problem, asRecord, problemAt } from '../../../lib/kubernetes/validation/problems';
import { asList, fieldPath, under } from './problems';
import {
  tolerationKeyProblem,
  tolerationValueProblem,
  topologyKeyProblem,
} from '../../../lib/kubernetes/validation/scheduling';
import { labelSelectorProblems, nodeSelectorRequirementProblems } from './labels';
import { dns1123LabelProblem } from './names';

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** One toleration. Paths: `key`, `operator`, `value`, `effect`. */
export function tolerationProblems(toleration: unknown): Problem[] {
  const t = asRecord(toleration) ?? {};
  const key = typeof t.key === 'string' ? t.key : '';
  const operator = typeof t.operator === 'string' ? t.operator : '';
  const value = typeof t.value === 'string' ? t.value : '';
  const effect = typeof t.effect === 'string' ? t.effect : '';
  const problems = problemAt(key === '' ? 'operator' : 'key', tolerationKeyProblem(key, operator));
  if (t.tolerationSeconds !== undefined && effect !== 'NoExecute') {
    problems.push({
      path: 'effect',
      message: `received ${show(effect)}; effect must be 'NoExecute' when \`tolerationSeconds\` is set`,
    });
  }
  if (operator === '' || operator === 'Equal' || operator === 'Exists')
    problems.push(...problemAt('value', tolerationValueProblem(value, operator)));
  else problems.push({ path: 'operator', message: `received ${show(operator)}; supported values: "Equal", "Exists"` });
  if (effect !== '' && !TAINT_EFFECTS.includes(effect)) {
    problems.push({
      path: 'effect',
      message: `received ${show(effect)}; supported values: ${TAINT_EFFECTS.map((e) => show(e)).join(', ')}`,
    });
  }
  return problems;
}

/** The weight of a preferred scheduling term: an integer from 1 to 100. */
export function weightProblem(weight: unknown): string | undefined {
  if (typeof weight === 'number' && Number.isInteger(weight) && weight >= 1 && weight <= 100) return undefined;
  return `received ${show(weight)}; must be in the range 1-100`;
}

function nodeFieldRequirementProblems(requirement: unknown): Problem[] {
  const r = asRecord(requirement) ?? {};
  const values = asList(r.values);
  const problems: Problem[] = [];
  if (r.operator !== 'In' && r.operator !== 'NotIn')
    problems.push({
      path: 'operator',
      message: `received ${show(r.operator)}; not a valid selector operator (allowed: In, NotIn)`,
    });
  else if (values.length !== 1)
    problems.push({
      path: 'values',
      message: "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
    });
  if (r.key !== 'metadata.name')
    problems.push({
      path: 'key',
      message: `received ${show(r.key)}; not a valid field selector key (allowed: metadata.name)`,
    });
  else
    values.forEach((v, i) =>
      problems.push(
        ...problemAt(
          fieldPath('values', i),
          typeof v === 'string' ? dns1123SubdomainProblem(v) : `received ${show(v)}; must be a node name`,
        ),
      ),
    );
  return problems;
}

/** One node selector term: matchExpressions and matchFields. */
export function nodeSelectorTermProblems(term: unknown): Problem[] {
  const t = asRecord(term) ?? {};
  return [
    ...asList(t.matchExpressions).flatMap((r, i) =>
      under(fieldPath('matchExpressions', i), nodeSelectorRequirementProblems(r)),
    ),
    ...asList(t.matchFields).flatMap((r, i) => under(fieldPath('matchFields', i), nodeFieldRequirementProblems(r))),
  ];
}

function nodeAffinityProblems(nodeAffinity: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  const required = asRecord(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution);
  if (required) {
    const terms = asList(required.nodeSelectorTerms);
    const at = 'requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';
    if (terms.length === 0) problems.push({ path: at, message: 'must have at least one node selector term' });
    terms.forEach((term, i) => problems.push(...under(fieldPath(at, i), nodeSelectorTermProblems(term))));
  }
  asList(nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution).forEach((term, i) => {
    const at = fieldPath('preferredDuringSchedulingIgnoredDuringExecution', i);
    const t = asRecord(term) ?? {};
    problems.push(...problemAt(fieldPath(at, 'weight'), weightProblem(t.weight)));
    problems.push(...under(fieldPath(at, 'preference'), nodeSelectorTermProblems(t.preference)));
  });
  return problems;
}

/** One pod (anti-)affinity term: selectors, namespaces, topologyKey. */
export function podAffinityTermProblems(term: unknown): Problem[] {
  const t = asRecord(term) ?? {};
  const problems = [
    ...under('labelSelector', labelSelectorProblems(t.labelSelector)),
    ...under('namespaceSelector', labelSelectorProblems(t.namespaceSelector)),
  ];
  asList(t.namespaces).forEach((ns, i) =>
    problems.push(
      ...problemAt(
        fieldPath('namespaces', i),
        typeof ns === 'string' ? dns1123LabelProblem(ns) : `received ${show(ns)}; must be a namespace name`,
      ),
    ),
  );
  problems.push(
    ...problemAt('topologyKey', topologyKeyProblem(typeof t.topologyKey === 'string' ? t.topologyKey : '')),
  );
  return problems;
}

function podAffinityProblems(affinity: Record<string, unknown>): Problem[] {
  return [
    ...asList(affinity.requiredDuringSchedulingIgnoredDuringExecution).flatMap((term, i) =>
      under(fieldPath('requiredDuringSchedulingIgnoredDuringExecution', i), podAffinityTermProblems(term)),
    ),
    ...asList(affinity.preferredDuringSchedulingIgnoredDuringExecution).flatMap((term, i) => {
      const at = fieldPath('preferredDuringSchedulingIgnoredDuringExecution', i);
      const t = asRecord(term) ?? {};
      return [
        ...problemAt(fieldPath(at, 'weight'), weightProblem(t.weight)),
        ...under(fieldPath(at, 'podAffinityTerm'), podAffinityTermProblems(t.podAffinityTerm)),
      ];
    }),
  ];
}

/** A pod's `affinity`. Paths: `nodeAffinity...`, `podAffinity...`, `podAntiAffinity...`. */
export function affinityProblems(affinity: unknown): Problem[] {
  const a = asRecord(affinity);
  if (!a) return [];
  const node = asRecord(a.nodeAffinity);
  const pod = asRecord(a.podAffinity);
  const anti = asRecord(a.podAntiAffinity);
  return [
    ...(node ? under('nodeAffinity', nodeAffinityProblems(node)) : []),
    ...(pod ? under('podAffinity', podAffinityProblems(pod)) : []),
    ...(anti ? under('podAntiAffinity', podAffinityProblems(anti)) : []),
  ];
}
