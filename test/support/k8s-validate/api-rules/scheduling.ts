/**
 * API-server rules for scheduling: label selectors, node and pod affinity, tolerations.
 */
import { MSG, Problems, Seg, arr, isObj } from '../problems';
import { R, checkLabels, qualifiedName } from './meta';

export function checkLabelSelector(sel: unknown, at: Seg[], p: Problems): void {
  if (!isObj(sel)) return;
  checkLabels(sel.matchLabels, [...at, 'matchLabels'], p);
  arr(sel.matchExpressions).forEach((e, i) => checkRequirement(e, [...at, 'matchExpressions', i], p, false));
}

function checkRequirement(e: unknown, at: Seg[], p: Problems, node: boolean): void {
  if (!isObj(e)) return;
  const values = arr(e.values);
  if (typeof e.key === 'string') {
    const err = qualifiedName(e.key);
    if (err) p.add([...at, 'key'], `bad label key: ${err}`, R);
  }
  switch (e.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) p.add([...at, 'values'], `must be non-empty when operator is ${e.operator}`, R);
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) p.add([...at, 'values'], `must be empty when operator is ${e.operator}`, R);
      break;
    case 'Gt':
    case 'Lt':
      if (!node) p.add([...at, 'operator'], MSG.enumValue(e.operator, ['In', 'NotIn', 'Exists', 'DoesNotExist']), R);
      else if (values.length !== 1 || !/^-?\d+$/.test(String(values[0]))) {
        p.add([...at, 'values'], `must have exactly one integer value when operator is ${e.operator}`, R);
      }
      break;
    default:
      if (!node && typeof e.operator === 'string') {
        p.add([...at, 'operator'], MSG.enumValue(e.operator, ['In', 'NotIn', 'Exists', 'DoesNotExist']), R);
      }
  }
}

function checkNodeSelectorTerm(t: unknown, at: Seg[], p: Problems): void {
  if (!isObj(t)) return;
  arr(t.matchExpressions).forEach((e, i) => checkRequirement(e, [...at, 'matchExpressions', i], p, true));
  arr(t.matchFields).forEach((e, i) => checkRequirement(e, [...at, 'matchFields', i], p, true));
}

function checkWeight(t: Record<string, unknown>, at: Seg[], p: Problems): void {
  if (typeof t.weight === 'number' && (t.weight < 1 || t.weight > 100)) p.add([...at, 'weight'], 'must be in the range 1-100', R);
}

function checkPodAffinityTerm(t: unknown, at: Seg[], p: Problems): void {
  if (!isObj(t)) return;
  if (t.topologyKey === '') p.add([...at, 'topologyKey'], 'can not be empty', R);
  else if (typeof t.topologyKey === 'string') {
    const e = qualifiedName(t.topologyKey);
    if (e) p.add([...at, 'topologyKey'], `bad label key: ${e}`, R);
  }
  checkLabelSelector(t.labelSelector, [...at, 'labelSelector'], p);
  checkLabelSelector(t.namespaceSelector, [...at, 'namespaceSelector'], p);
}

export function checkAffinity(a: Record<string, unknown>, at: Seg[], p: Problems): void {
  const na = a.nodeAffinity;
  if (isObj(na)) {
    const req = na.requiredDuringSchedulingIgnoredDuringExecution;
    if (isObj(req)) {
      const terms = arr(req.nodeSelectorTerms);
      const tat = [...at, 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms'];
      if (Array.isArray(req.nodeSelectorTerms) && terms.length === 0) p.add(tat, 'must have at least one node selector term', R);
      terms.forEach((t, i) => checkNodeSelectorTerm(t, [...tat, i], p));
    }
    arr(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      if (!isObj(t)) return;
      const tat = [...at, 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution', i];
      checkWeight(t, tat, p);
      checkNodeSelectorTerm(t.preference, [...tat, 'preference'], p);
    });
  }
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const pa = a[kind];
    if (!isObj(pa)) continue;
    arr(pa.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) =>
      checkPodAffinityTerm(t, [...at, kind, 'requiredDuringSchedulingIgnoredDuringExecution', i], p),
    );
    arr(pa.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      if (!isObj(t)) return;
      const tat = [...at, kind, 'preferredDuringSchedulingIgnoredDuringExecution', i];
      checkWeight(t, tat, p);
      checkPodAffinityTerm(t.podAffinityTerm, [...tat, 'podAffinityTerm'], p);
    });
  }
}

export function checkTolerations(tolerations: unknown, at: Seg[], p: Problems): void {
  arr(tolerations).forEach((t, i) => {
    if (!isObj(t)) return;
    const tat = [...at, i];
    const op = t.operator ?? 'Equal';
    if ((t.key === undefined || t.key === '') && op !== 'Exists') {
      p.add([...tat, 'operator'], 'must be "Exists" when key is empty (to match all keys)', R);
    }
    if (typeof t.key === 'string' && t.key !== '') {
      const e = qualifiedName(t.key);
      if (e) p.add([...tat, 'key'], `bad label key: ${e}`, R);
    }
    if (op === 'Exists' && typeof t.value === 'string' && t.value !== '') {
      p.add([...tat, 'value'], 'must be empty when operator is "Exists"', R);
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      p.add([...tat, 'effect'], 'must be "NoExecute" when tolerationSeconds is set', R);
    }
  });
}
