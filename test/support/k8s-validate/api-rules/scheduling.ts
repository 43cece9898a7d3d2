/**
 * API-server rules (Kubernetes 1.28) for scheduling: label selectors, node selectors, node and pod
 * affinity, tolerations, topology spread constraints.
 *
 * Sources (kubernetes/kubernetes, release-1.28):
 *  - staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go: ValidateLabelSelector,
 *    ValidateLabelSelectorRequirement (selector values are label values unless
 *    AllowInvalidLabelValueInSelector, which is false for new objects; kubernetes/kubernetes#113699, v1.26)
 *  - pkg/apis/core/validation/validation.go: ValidateNodeSelectorRequirement,
 *    ValidateNodeFieldSelectorRequirement, ValidateNodeSelector, ValidatePreferredSchedulingTerms,
 *    validatePodAffinityTerm, validateWeightedPodAffinityTerms, ValidateTolerations, validateTaintEffect,
 *    validateTopologySpreadConstraints, ValidateMaxSkew, ValidateTopologyKey, ValidateWhenUnsatisfiable,
 *    ValidateSpreadConstraintNotRepeat, validateMinDomains
 *
 * Two rules are stricter than 1.28's validation, because the object would be accepted but could never be
 * scheduled as intended; their messages say so:
 *  - node selector requirement values must be label values (node labels are validated by ValidateLabels,
 *    so no node carries another value; later releases reject them in required node affinity:
 *    AllowInvalidLabelValueInRequiredNodeAffinity), and `kubernetes.io/hostname` values must be lower case
 *    (the kubelet lower-cases the hostname label: k8s.io/component-helpers/node/util GetHostname);
 *  - topology spread keys must be qualified names (node label keys are), not only non-empty.
 */
import { MSG, Problems, Seg, arr, isObj } from '../problems';
import { R, checkLabelKey, checkLabelValue, checkLabels, dns1123Label, dns1123Subdomain, labelValue } from './meta';

const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
const NODE_SELECTOR_OPERATORS = [...SELECTOR_OPERATORS, 'Gt', 'Lt'];
const HOSTNAME_LABEL = 'kubernetes.io/hostname';
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const WHEN_UNSATISFIABLE = ['DoNotSchedule', 'ScheduleAnyway'];

/** ValidateLabelSelector. */
export function checkLabelSelector(sel: unknown, at: Seg[], p: Problems): void {
  if (!isObj(sel)) return;
  checkLabels(sel.matchLabels, [...at, 'matchLabels'], p);
  arr(sel.matchExpressions).forEach((e, i) => {
    if (!isObj(e)) return;
    const eat = [...at, 'matchExpressions', i];
    if (typeof e.key === 'string') checkLabelKey(e.key, [...eat, 'key'], p);
    checkOperatorValues(e, eat, p, SELECTOR_OPERATORS);
    arr(e.values).forEach((v, j) => checkLabelValue(v, [...eat, 'values', j], p));
  });
}

function checkOperatorValues(e: Record<string, unknown>, at: Seg[], p: Problems, operators: string[]): void {
  const values = arr(e.values);
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
      if (!operators.includes(e.operator)) p.add([...at, 'operator'], MSG.enumValue(e.operator, operators), R);
      else if (values.length !== 1 || !/^-?\d+$/.test(String(values[0]))) {
        p.add([...at, 'values'], `must have exactly one integer value when operator is ${e.operator}`, R);
      }
      break;
    default:
      if (typeof e.operator === 'string') p.add([...at, 'operator'], MSG.enumValue(e.operator, operators), R);
  }
}

/** A value matched against the `kubernetes.io/hostname` node label: a label value, lower case. */
function checkHostnameValue(v: unknown, at: Seg[], p: Problems): void {
  if (typeof v !== 'string' || labelValue(v) !== undefined) return; // reported as a bad label value
  if (v !== v.toLowerCase()) {
    p.add(
      at,
      `bad ${HOSTNAME_LABEL} value ${JSON.stringify(v)}: must be lower case (the kubelet lower-cases the hostname label), so it can never match a node`,
      R,
    );
  }
}

/** nodeSelector: ValidateLabels, plus the hostname rule. */
export function checkNodeSelector(sel: unknown, at: Seg[], p: Problems): void {
  checkLabels(sel, at, p);
  if (isObj(sel)) checkHostnameValue(sel[HOSTNAME_LABEL], [...at, HOSTNAME_LABEL], p);
}

function checkNodeSelectorTerm(t: unknown, at: Seg[], p: Problems): void {
  if (!isObj(t)) return;
  arr(t.matchExpressions).forEach((e, i) => {
    if (!isObj(e)) return;
    const eat = [...at, 'matchExpressions', i];
    if (typeof e.key === 'string') checkLabelKey(e.key, [...eat, 'key'], p);
    checkOperatorValues(e, eat, p, NODE_SELECTOR_OPERATORS);
    arr(e.values).forEach((v, j) => {
      if (typeof v === 'string' && labelValue(v) !== undefined) {
        p.add(
          [...eat, 'values', j],
          `bad label value ${JSON.stringify(v)}: ${labelValue(v)}; no node label has this value, so it can never match`,
          R,
        );
      }
      if (e.key === HOSTNAME_LABEL) checkHostnameValue(v, [...eat, 'values', j], p);
    });
  });
  // ValidateNodeFieldSelectorRequirement: only metadata.name, In/NotIn with exactly one node name.
  arr(t.matchFields).forEach((e, i) => {
    if (!isObj(e)) return;
    const eat = [...at, 'matchFields', i];
    if (e.key !== 'metadata.name')
      p.add([...eat, 'key'], `${MSG.enumValue(e.key, ['metadata.name'])} (node field selector key)`, R);
    if (e.operator !== 'In' && e.operator !== 'NotIn')
      p.add([...eat, 'operator'], MSG.enumValue(e.operator, ['In', 'NotIn']), R);
    const values = arr(e.values);
    if (values.length !== 1)
      p.add([...eat, 'values'], `must have exactly one value for a node field selector (has ${values.length})`, R);
    values.forEach((v, j) => {
      const err = typeof v === 'string' ? dns1123Subdomain(v) : undefined;
      if (err) p.add([...eat, 'values', j], `bad node name ${JSON.stringify(v)}: ${err}`, R);
    });
  });
}

function checkWeight(t: Record<string, unknown>, at: Seg[], p: Problems): void {
  if (typeof t.weight === 'number' && (t.weight < 1 || t.weight > 100))
    p.add([...at, 'weight'], `must be in the range 1-100, got ${t.weight}`, R);
}

function checkTopologyKey(key: unknown, at: Seg[], p: Problems): void {
  if (key === undefined || key === '') p.add(at, `${MSG.required}: topologyKey can not be empty`, R);
  else if (typeof key === 'string') checkLabelKey(key, at, p);
}

function checkPodAffinityTerm(t: unknown, at: Seg[], p: Problems): void {
  if (!isObj(t)) return;
  checkTopologyKey(t.topologyKey, [...at, 'topologyKey'], p);
  checkLabelSelector(t.labelSelector, [...at, 'labelSelector'], p);
  checkLabelSelector(t.namespaceSelector, [...at, 'namespaceSelector'], p);
  arr(t.namespaces).forEach((ns, i) => {
    const e = typeof ns === 'string' ? dns1123Label(ns) : undefined;
    if (e) p.add([...at, 'namespaces', i], `bad namespace name ${JSON.stringify(ns)}: ${e}`, R);
  });
}

export function checkAffinity(a: Record<string, unknown>, at: Seg[], p: Problems): void {
  const na = a.nodeAffinity;
  if (isObj(na)) {
    const req = na.requiredDuringSchedulingIgnoredDuringExecution;
    if (isObj(req)) {
      const tat = [...at, 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms'];
      const terms = arr(req.nodeSelectorTerms);
      if (terms.length === 0) p.add(tat, `${MSG.required}: must have at least one node selector term`, R);
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

/**
 * ValidateTolerations. The API server reports a bad value under `operator`; it is reported under
 * `value` here, where the bad value is.
 */
export function checkTolerations(tolerations: unknown, at: Seg[], p: Problems): void {
  arr(tolerations).forEach((t, i) => {
    if (!isObj(t)) return;
    const tat = [...at, i];
    const op = t.operator ?? 'Equal';
    if ((t.key === undefined || t.key === '') && op !== 'Exists') {
      p.add([...tat, 'operator'], 'must be "Exists" when key is empty (to match all keys)', R);
    }
    if (typeof t.key === 'string' && t.key !== '') checkLabelKey(t.key, [...tat, 'key'], p);
    if (op === 'Equal' || op === '') checkLabelValue(t.value ?? '', [...tat, 'value'], p);
    else if (op === 'Exists') {
      if (typeof t.value === 'string' && t.value !== '')
        p.add([...tat, 'value'], `must be empty when operator is "Exists", got ${JSON.stringify(t.value)}`, R);
    } else p.add([...tat, 'operator'], MSG.enumValue(op, ['Equal', 'Exists']), R);
    if (typeof t.effect === 'string' && t.effect !== '' && !TAINT_EFFECTS.includes(t.effect)) {
      p.add([...tat, 'effect'], MSG.enumValue(t.effect, TAINT_EFFECTS), R);
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      p.add([...tat, 'effect'], 'must be "NoExecute" when tolerationSeconds is set', R);
    }
  });
}

/** validateTopologySpreadConstraints. */
export function checkTopologySpreadConstraints(constraints: unknown, at: Seg[], p: Problems): void {
  const seen = new Set<string>();
  arr(constraints).forEach((c, i) => {
    if (!isObj(c)) return;
    const cat = [...at, i];
    if (typeof c.maxSkew === 'number' && c.maxSkew <= 0)
      p.add([...cat, 'maxSkew'], `must be greater than zero, got ${c.maxSkew}`, R);
    checkTopologyKey(c.topologyKey, [...cat, 'topologyKey'], p);
    if (typeof c.whenUnsatisfiable === 'string' && !WHEN_UNSATISFIABLE.includes(c.whenUnsatisfiable)) {
      p.add([...cat, 'whenUnsatisfiable'], MSG.enumValue(c.whenUnsatisfiable, WHEN_UNSATISFIABLE), R);
    }
    const pair = JSON.stringify([c.topologyKey, c.whenUnsatisfiable]);
    if (seen.has(pair)) p.add(cat, `duplicate {topologyKey, whenUnsatisfiable} pair ${pair}`, R);
    seen.add(pair);
    if (c.minDomains !== undefined) {
      if (typeof c.minDomains === 'number' && c.minDomains <= 0)
        p.add([...cat, 'minDomains'], `must be greater than zero, got ${c.minDomains}`, R);
      if (c.whenUnsatisfiable !== 'DoNotSchedule') {
        p.add(
          [...cat, 'minDomains'],
          `can only be used with whenUnsatisfiable DoNotSchedule, not ${JSON.stringify(c.whenUnsatisfiable)}`,
          R,
        );
      }
    }
    checkLabelSelector(c.labelSelector, [...cat, 'labelSelector'], p);
  });
}
