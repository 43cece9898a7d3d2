/**
 * Label keys and values, annotation keys and size, label selectors and node selector
 * requirements as the Kubernetes 1.28 API server checks them.
 *
 * Sources (apimachinery v0.28.8, kubernetes v1.28.8 and v1.33.3):
 * - k8s.io/apimachinery/pkg/util/validation/validation.go: IsQualifiedName (optional DNS-1123
 *   subdomain prefix ≤ 253 + "/" + name ≤ 63 matching `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`),
 *   IsValidLabelValue (≤ 63, empty allowed).
 * - k8s.io/apimachinery/pkg/api/validation/objectmeta.go: ValidateAnnotations (keys are qualified
 *   names after strings.ToLower), ValidateAnnotationsSize (TotalAnnotationSizeLimitB = 256*(1<<10):
 *   the sum of len(key)+len(value) in bytes).
 * - k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go: ValidateLabels,
 *   ValidateLabelSelector, ValidateLabelSelectorRequirement (In/NotIn need values,
 *   Exists/DoesNotExist take none, values are label values).
 * - pkg/apis/core/validation/validation.go ValidateNodeSelectorRequirement: In/NotIn need values,
 *   Exists/DoesNotExist take none, Gt/Lt take exactly one; the key is a qualified name. 1.33 also
 *   requires the values of required node affinity to be label values (1.28 does not check them);
 *   we apply that everywhere, preferred terms included: a value that is not a label value never
 *   matches a node label. Our own rule: the Gt/Lt value is an integer (the scheduler parses it
 *   with strconv.ParseInt; anything else never matches).
 * - Node pins (`kubernetes.io/hostname: <node>`): the kubelet sets that label on each node, so a
 *   pin must be a non-empty valid label value (≤ 63); this is our rule on top of the API server's.
 */
import { show } from '../../messages';
import { dns1123SubdomainErrors } from './names';
import {
  type Checks,
  EVERY_TIME,
  type Problem,
  anchored,
  asList,
  asRecord,
  byteLength,
  fieldPath,
  keyPath,
  maxLenError,
  problemAt,
  received,
  regexError,
  under,
} from './problems';

export const QUALIFIED_NAME_MAX_LENGTH = 63;
export const LABEL_VALUE_MAX_LENGTH = 63;
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * (1 << 10);

const QUALIFIED_NAME_CHAR = '[A-Za-z0-9]';
const QUALIFIED_NAME_EXT_CHAR = '[-A-Za-z0-9_.]';
const QUALIFIED_NAME_FMT = `(${QUALIFIED_NAME_CHAR}${QUALIFIED_NAME_EXT_CHAR}*)?${QUALIFIED_NAME_CHAR}`;
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const QUALIFIED_NAME = anchored(QUALIFIED_NAME_FMT);
const LABEL_VALUE = anchored(LABEL_VALUE_FMT);

const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
const NODE_SELECTOR_OPERATORS = [...SELECTOR_OPERATORS, 'Gt', 'Lt'];

/** What strconv.ParseInt(value, 10, 64) accepts. */
export function isInt64(value: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(value)) return false;
  const n = BigInt(value);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

/** An ASCII DNS-1123 subdomain prefix (≤ 253) and a name (≤ 63): valid for IsQualifiedName; other values take the slow path. */
const PLAIN_QUALIFIED_NAME =
  /^(?:([a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*)\/)?([A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;

function isPlainQualifiedName(value: string): boolean {
  // test, not exec: no match array for every label key of every object
  if (!PLAIN_QUALIFIED_NAME.test(value)) return false;
  const slash = value.indexOf('/');
  return slash <= 253 && value.length - slash - 1 <= QUALIFIED_NAME_MAX_LENGTH;
}

/** IsQualifiedName: the API server's messages, empty when valid. */
export function qualifiedNameErrors(value: string): string[] {
  if (isPlainQualifiedName(value)) return []; // the common case, without the slow checks
  const errors: string[] = [];
  const parts = value.split('/');
  if (parts.length > 2) {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix === '') errors.push('prefix part must be non-empty');
    else errors.push(...dns1123SubdomainErrors(prefix).map((e) => `prefix part ${e}`));
  }
  if (name === '') errors.push('name part must be non-empty');
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH)
    errors.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!QUALIFIED_NAME.test(name))
    errors.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errors;
}

/** IsValidLabelValue: the API server's messages, empty when valid. */
function labelValueErrors(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errors.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!LABEL_VALUE.test(value))
    errors.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errors;
}

/**
 * Go's strings.ToLower as far as it matters for a qualified name: ASCII letters, and the two
 * non-ASCII letters whose lower case is ASCII (U+0130 → i, KELVIN SIGN U+212A → k). Other
 * non-ASCII characters fail the name regex whatever their case.
 */
function goLowerCase(value: string): string {
  return value.replace(/[A-Z\u0130\u212A]/g, (c) => (c === '\u0130' ? 'i' : c === '\u212A' ? 'k' : c.toLowerCase()));
}

/** A qualified name: label keys, topology keys, toleration keys, resource and condition names. */
export function qualifiedNameProblem(value: string): string | undefined {
  if (isPlainQualifiedName(value)) return undefined; // the common case, without building messages
  return received(value, qualifiedNameErrors(value));
}

/** A label value (≤ 63 characters, may be empty). */
export function labelValueProblem(value: string): string | undefined {
  if (value.length <= LABEL_VALUE_MAX_LENGTH && LABEL_VALUE.test(value)) return undefined; // ASCII only: length is bytes
  return received(value, labelValueErrors(value));
}

/** An annotation key: a qualified name once lower-cased (upper case is allowed). */
export function annotationKeyProblem(key: string): string | undefined {
  return received(key, qualifiedNameErrors(goLowerCase(key)));
}

/** Bytes the API server counts for a set of annotations: every key plus every value. */
export function annotationsSize(annotations: Readonly<Record<string, string>>): number {
  let size = 0;
  for (const k in annotations) if (Object.hasOwn(annotations, k)) size += byteLength(k) + byteLength(annotations[k]);
  return size;
}

/** The 256 KiB limit on the annotations of one object. */
export function annotationsSizeProblem(annotations: Readonly<Record<string, string>>): string | undefined {
  return annotationsSizeMessage(annotationsSize(annotations));
}

function annotationsSizeMessage(size: number): string | undefined {
  if (size <= TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) return undefined;
  return `keys and values total ${size} bytes; must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT_BYTES} bytes (256 KiB)`;
}

/**
 * A `kubernetes.io/hostname` value pinning a pod to a node: a non-empty label value, lower case
 * (the kubelet lower-cases the label: k8s.io/component-helpers/node/util GetHostname).
 */
export function nodePinProblem(hostname: string): string | undefined {
  if (hostname === '')
    return 'received ""; a node pin needs the node\'s kubernetes.io/hostname label value, which is never empty';
  const problem = received(hostname, labelValueErrors(hostname));
  if (problem || hostname === hostname.toLowerCase()) return problem;
  return `received ${show(hostname)}; the kubelet lower-cases the kubernetes.io/hostname label, so no node carries this value: use ${show(hostname.toLowerCase())}`;
}

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
