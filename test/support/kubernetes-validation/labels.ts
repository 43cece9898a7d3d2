/**
 * Label and annotation maps of whole objects, label selectors and node selector requirements as
 * the Kubernetes 1.28 API server checks them. Test-only: the package builds these maps, selectors
 * and operators itself; the rules of single keys and values the policy checks use are in
 * lib/kubernetes/validation/labels.ts.
 *
 * Sources (apimachinery v0.28.8, kubernetes v1.28.8 and v1.33.3):
 * - k8s.io/apimachinery/pkg/api/validation/objectmeta.go: ValidateAnnotations,
 *   ValidateAnnotationsSize.
 * - k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go: ValidateLabels,
 *   ValidateLabelSelector, ValidateLabelSelectorRequirement (In/NotIn need values,
 *   Exists/DoesNotExist take none, values are label values).
 * - pkg/apis/core/validation/validation.go ValidateNodeSelectorRequirement: In/NotIn need values,
 *   Exists/DoesNotExist take none, Gt/Lt take exactly one; the key is a qualified name. 1.33 also
 *   requires the values of required node affinity to be label values (1.28 does not check them);
 *   we apply that everywhere, preferred terms included: a value that is not a label value never
 *   matches a node label. Our own rule: the Gt/Lt value is an integer (the scheduler parses it
 *   with strconv.ParseInt; anything else never matches).
 */
import { show } from '../../../lib/messages';
import {
  annotationKeyProblem,
  annotationsSizeMessage,
  isInt64,
  labelValueProblem,
  qualifiedNameErrors,
  qualifiedNameProblem,
} from '../../../lib/kubernetes/validation/labels';
import {
  type Problem,
  asRecord,
  byteLength,
  keyPath,
  problemAt,
  received,
} from '../../../lib/kubernetes/validation/problems';
import { asList, fieldPath, under } from './problems';
import { type Checks, EVERY_TIME } from './clean-parts';

const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
const NODE_SELECTOR_OPERATORS = [...SELECTOR_OPERATORS, 'Gt', 'Lt'];

/**
 * `each` for every entry of a string map, with problems for a value that is not a map or entries that
 * are not strings. No list of entries: every label map of every rendered object goes through here.
 */
function forEachString(value: unknown, problems: Problem[], each: (key: string, value: string) => void): void {
  if (value === undefined) return;
  const map = asRecord(value);
  if (!map) {
    problems.push({ path: '', message: `received ${show(value)}; must be a map of strings to strings` });
    return;
  }
  for (const k in map) {
    if (!Object.hasOwn(map, k)) continue;
    const v = map[k];
    if (typeof v === 'string') each(k, v);
    else problems.push({ path: keyPath('', k), message: `received ${show(v)}; must be a string` });
  }
}

/** Labels (of an object, a pod template, a selector's matchLabels, a nodeSelector). Paths: `[key]`. */
export function labelsProblems(labels: unknown, checked: Checks = EVERY_TIME): Problem[] {
  const problems: Problem[] = [];
  forEachString(labels, problems, (k, v) => {
    const keyProblem = checked.text(labelKeyProblem, k);
    if (keyProblem) problems.push({ path: keyPath('', k), message: keyProblem });
    const valueProblem = checked.text(labelValueProblem, v);
    if (valueProblem) problems.push({ path: keyPath('', k), message: valueProblem });
  });
  return problems;
}

function labelKeyProblem(key: string): string | undefined {
  const errors = qualifiedNameErrors(key);
  return errors.length > 0 ? `key ${received(key, errors)}` : undefined;
}

/** Annotations: every key, and the total size (reported at `''`). Paths: `[key]`. */
export function annotationsProblems(annotations: unknown, checked: Checks = EVERY_TIME): Problem[] {
  const problems: Problem[] = [];
  let size = 0;
  forEachString(annotations, problems, (k, v) => {
    const keyProblem = checked.text(annotationKeyProblem, k);
    if (keyProblem) problems.push({ path: keyPath('', k), message: `key ${keyProblem}` });
    size += byteLength(k) + byteLength(v);
  });
  problems.push(...problemAt('', annotationsSizeMessage(size)));
  return problems;
}

function valuesOf(requirement: Record<string, unknown>): readonly unknown[] {
  return asList(requirement.values);
}

function valueProblems(values: readonly unknown[]): Problem[] {
  return values.flatMap((v, i) =>
    problemAt(
      fieldPath('values', i),
      typeof v === 'string' ? labelValueProblem(v) : `received ${show(v)}; must be a string`,
    ),
  );
}

function keyProblems(requirement: Record<string, unknown>): Problem[] {
  const key = requirement.key;
  if (typeof key !== 'string')
    return [{ path: 'key', message: `received ${show(key)}; must be a string (a qualified name)` }];
  return problemAt('key', qualifiedNameProblem(key));
}

function operatorProblems(operator: unknown, count: number, allowed: readonly string[]): Problem[] {
  switch (operator) {
    case 'In':
    case 'NotIn':
      return count === 0 ? [{ path: 'values', message: "must be specified when `operator` is 'In' or 'NotIn'" }] : [];
    case 'Exists':
    case 'DoesNotExist':
      return count > 0
        ? [{ path: 'values', message: "may not be specified when `operator` is 'Exists' or 'DoesNotExist'" }]
        : [];
    case 'Gt':
    case 'Lt':
      if (allowed.includes(operator)) {
        return count !== 1
          ? [{ path: 'values', message: "must be specified single value when `operator` is 'Lt' or 'Gt'" }]
          : [];
      }
  }
  return [
    {
      path: 'operator',
      message: `received ${show(operator)}; not a valid selector operator (allowed: ${allowed.join(', ')})`,
    },
  ];
}

/** One matchExpressions entry of a label selector. */
export function labelSelectorRequirementProblems(requirement: unknown): Problem[] {
  const r = asRecord(requirement) ?? {};
  const values = valuesOf(r);
  return [
    ...operatorProblems(r.operator, values.length, SELECTOR_OPERATORS),
    ...keyProblems(r),
    ...valueProblems(values),
  ];
}

/** A label selector: matchLabels and matchExpressions. */
export function labelSelectorProblems(selector: unknown): Problem[] {
  const s = asRecord(selector);
  if (!s) return [];
  return [
    ...under('matchLabels', labelsProblems(s.matchLabels)),
    ...asList(s.matchExpressions).flatMap((r, i) =>
      under(fieldPath('matchExpressions', i), labelSelectorRequirementProblems(r)),
    ),
  ];
}

/** One matchExpressions entry of a node selector term (node affinity). */
export function nodeSelectorRequirementProblems(requirement: unknown): Problem[] {
  const r = asRecord(requirement) ?? {};
  const values = valuesOf(r);
  const problems = [
    ...operatorProblems(r.operator, values.length, NODE_SELECTOR_OPERATORS),
    ...keyProblems(r),
    ...valueProblems(values),
  ];
  if (
    (r.operator === 'Gt' || r.operator === 'Lt') &&
    values.length === 1 &&
    !(typeof values[0] === 'string' && isInt64(values[0]))
  ) {
    problems.push({
      path: 'values[0]',
      message: `received ${show(values[0])}; operator ${r.operator} compares node label values as integers: must be a 64-bit integer`,
    });
  }
  return problems;
}
