/**
 * API-server rules (Kubernetes 1.28) for names, label keys and values, annotations and object metadata.
 *
 * Sources (kubernetes/kubernetes, release-1.28):
 *  - staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go: IsDNS1123Label,
 *    IsDNS1123Subdomain, IsQualifiedName, IsValidLabelValue, IsConfigMapKey, IsEnvVarName, hasChDirPrefix
 *  - staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go: ValidateLabels,
 *    ValidateLabelName
 *  - staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go: ValidateAnnotations,
 *    ValidateAnnotationsSize (TotalAnnotationSizeLimitB = 256 KiB of keys + values), ValidateObjectMeta
 *  - pkg/apis/core/validation/validation.go: ValidateTemplateObjectMeta (PVC templates)
 */
import { ErrorSource, MSG, Problems, Seg, isObj } from '../problems';

/** The layer every rule in this folder reports as. */
export const R: ErrorSource = 'api-rules';

const DNS1123_LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const ENV_VAR_NAME_RE = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const CONFIG_KEY_RE = /^[-._a-zA-Z0-9]+$/;
/** TotalAnnotationSizeLimitB: keys plus values, counted in bytes (Go `len`). */
const ANNOTATIONS_MAX_BYTES = 256 * 1024;

export function dns1123Label(v: string): string | undefined {
  if (v.length > 63) return `must be no more than 63 characters (has ${v.length})`;
  if (!DNS1123_LABEL_RE.test(v))
    return 'must be a DNS-1123 label (lower case alphanumerics and "-", start and end alphanumeric)';
  return undefined;
}

export function dns1123Subdomain(v: string): string | undefined {
  if (v.length > 253) return `must be no more than 253 characters (has ${v.length})`;
  if (!DNS1123_SUBDOMAIN_RE.test(v)) {
    return 'must be a DNS-1123 subdomain (lower case alphanumerics, "-" and ".", start and end alphanumeric)';
  }
  return undefined;
}

/** NameIsDNSSubdomain with prefix=true (generateName, envFrom refs): a trailing "-" is allowed. */
export function dns1123SubdomainPrefix(v: string): string | undefined {
  return dns1123Subdomain(v.replace(/-$/, 'a'));
}

export function pathSegmentName(v: string): string | undefined {
  if (v === '.' || v === '..') return `may not be ${JSON.stringify(v)}`;
  if (v.includes('/') || v.includes('%')) return 'may not contain "/" or "%"';
  return undefined;
}

export type NameRule = (name: string) => string | undefined;

export const subdomainName: NameRule = dns1123Subdomain;
export const cronJobName: NameRule = (n) =>
  dns1123Subdomain(n) ??
  (n.length > 52 ? `must be no more than 52 characters for a CronJob (has ${n.length})` : undefined);
export const jobName: NameRule = (n) =>
  dns1123Subdomain(n) ??
  (n.length > 63
    ? `must be no more than 63 characters for a Job (it becomes the job-name label) (has ${n.length})`
    : undefined);

/** IsQualifiedName: label keys, annotation keys (lower-cased first), topology keys, toleration keys. */
export function qualifiedName(key: string): string | undefined {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix === '') return 'prefix part must be non-empty';
    const e = dns1123Subdomain(prefix);
    if (e) return `prefix part ${e}`;
  } else if (parts.length > 2) {
    return 'must be a qualified name: an optional DNS subdomain prefix and "/", then a name';
  }
  if (name === '') return 'name part must be non-empty';
  if (name.length > 63) return `name part must be no more than 63 characters (has ${name.length})`;
  if (!QUALIFIED_NAME_RE.test(name)) {
    return 'name part must consist of alphanumerics, "-", "_" or ".", and start and end with an alphanumeric';
  }
  return undefined;
}

/** IsValidLabelValue. */
export function labelValue(v: string): string | undefined {
  if (v.length > 63) return `must be no more than 63 characters (has ${v.length})`;
  if (!LABEL_VALUE_RE.test(v))
    return 'must be empty or consist of alphanumerics, "-", "_" or ".", and start and end with an alphanumeric';
  return undefined;
}

/** hasChDirPrefix, shared by IsConfigMapKey and IsEnvVarName. */
function chDirPrefixError(v: string): string | undefined {
  if (v === '.' || v === '..') return `must not be ${JSON.stringify(v)}`;
  if (v.startsWith('..')) return 'must not start with ".."';
  return undefined;
}

/** IsConfigMapKey: ConfigMap/Secret data keys, env key selectors, volume item keys. */
export function configKeyError(k: string): string | undefined {
  if (k.length > 253) return `must be no more than 253 characters (has ${k.length})`;
  if (!CONFIG_KEY_RE.test(k)) return 'must consist of alphanumerics, "-", "_" or "."';
  return chDirPrefixError(k);
}

/** IsEnvVarName: env var names and envFrom prefixes. */
export function envVarNameError(n: string): string | undefined {
  if (!ENV_VAR_NAME_RE.test(n)) return 'must match [-._a-zA-Z][-._a-zA-Z0-9]*';
  return chDirPrefixError(n);
}

export function checkLabelKey(key: string, at: Seg[], p: Problems): void {
  const e = qualifiedName(key);
  if (e) p.add(at, `bad label key ${JSON.stringify(key)}: ${e}`, R);
}

export function checkLabelValue(value: unknown, at: Seg[], p: Problems): void {
  if (typeof value !== 'string') return;
  const e = labelValue(value);
  if (e) p.add(at, `bad label value ${JSON.stringify(value)}: ${e}`, R);
}

/** ValidateLabels: metadata labels, nodeSelector, matchLabels. */
export function checkLabels(labels: unknown, at: Seg[], p: Problems): void {
  if (!isObj(labels)) return;
  for (const [k, v] of Object.entries(labels)) {
    checkLabelKey(k, [...at, k], p);
    checkLabelValue(v, [...at, k], p);
  }
}

/** ValidateAnnotations: keys are qualified names (case-insensitive); keys + values at most 256 KiB. */
export function checkAnnotations(ann: unknown, at: Seg[], p: Problems): void {
  if (!isObj(ann)) return;
  let total = 0;
  for (const [k, v] of Object.entries(ann)) {
    const ek = qualifiedName(k.toLowerCase());
    if (ek) p.add([...at, k], `bad annotation key ${JSON.stringify(k)}: ${ek}`, R);
    total += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  }
  if (total > ANNOTATIONS_MAX_BYTES) {
    p.add(at, `annotations too long: keys and values have ${total} bytes, must be at most ${ANNOTATIONS_MAX_BYTES}`, R);
  }
}

/** ValidateObjectMeta (top-level objects: name rule, namespace) or the labels/annotations of embedded metadata. */
export function checkObjectMeta(
  meta: unknown,
  at: Seg[],
  p: Problems,
  nameRule: NameRule | undefined,
  top: boolean,
): void {
  if (!isObj(meta)) {
    if (top && meta === undefined) p.add([...at, 'name'], MSG.required, R);
    return;
  }
  if (top && nameRule) {
    if (typeof meta.name === 'string' && meta.name !== '') {
      const e = nameRule(meta.name);
      if (e) p.add([...at, 'name'], `bad name ${JSON.stringify(meta.name)}: ${e}`, R);
    } else if (typeof meta.generateName === 'string' && meta.generateName !== '') {
      const e = nameRule(meta.generateName.replace(/-$/, 'a'));
      if (e) p.add([...at, 'generateName'], `bad name prefix ${JSON.stringify(meta.generateName)}: ${e}`, R);
    } else if (meta.name === undefined || meta.name === '') {
      p.add([...at, 'name'], MSG.required, R);
    }
  }
  if (typeof meta.namespace === 'string' && meta.namespace !== '') {
    const e = dns1123Label(meta.namespace);
    if (e) p.add([...at, 'namespace'], `bad name ${JSON.stringify(meta.namespace)}: ${e}`, R);
  }
  checkLabels(meta.labels, [...at, 'labels'], p);
  checkAnnotations(meta.annotations, [...at, 'annotations'], p);
}

/** ValidateTemplateObjectMeta (PVC templates of ephemeral volumes): only labels and annotations may be set. */
export function checkTemplateObjectMeta(meta: unknown, at: Seg[], p: Problems): void {
  if (!isObj(meta)) return;
  for (const k of Object.keys(meta)) {
    if (k !== 'labels' && k !== 'annotations')
      p.add([...at, k], 'cannot be set for a template (only labels and annotations)', R);
  }
  checkLabels(meta.labels, [...at, 'labels'], p);
  checkAnnotations(meta.annotations, [...at, 'annotations'], p);
}
