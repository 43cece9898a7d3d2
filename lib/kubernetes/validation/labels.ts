/**
 * Label keys and values, annotation keys and size, and node pins as the Kubernetes 1.28 API
 * server checks them: the rules the policy checks apply to the labels, annotations and node
 * values a policy sets (lib/policy/kubernetes-checks.ts). The label and annotation map checks of
 * whole objects, label selectors and node selector requirements are the tests' oracle
 * (test/support/kubernetes-validation/labels.ts): the package builds those.
 *
 * Sources (apimachinery v0.28.8, kubernetes v1.28.8 and v1.33.3):
 * - k8s.io/apimachinery/pkg/util/validation/validation.go: IsQualifiedName (optional DNS-1123
 *   subdomain prefix ≤ 253 + "/" + name ≤ 63 matching `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`),
 *   IsValidLabelValue (≤ 63, empty allowed).
 * - k8s.io/apimachinery/pkg/api/validation/objectmeta.go: ValidateAnnotations (keys are qualified
 *   names after strings.ToLower), ValidateAnnotationsSize (TotalAnnotationSizeLimitB = 256*(1<<10):
 *   the sum of len(key)+len(value) in bytes).
 * - Node pins (`kubernetes.io/hostname: <node>`): the kubelet sets that label on each node, so a
 *   pin must be a non-empty valid label value (≤ 63); this is our rule on top of the API server's.
 * - Gt/Lt node selector values: the scheduler parses them with strconv.ParseInt (`isInt64`).
 */
import { show } from '../../messages';
import { dns1123SubdomainErrors } from './names';
import { anchored, byteLength, maxLenError, received, regexError } from './problems';

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

/** The size rule on a total already counted (`annotationsProblems` of the tests' oracle counts while it walks). */
export function annotationsSizeMessage(size: number): string | undefined {
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
