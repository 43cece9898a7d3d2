/**
 * API-server rules for names, labels, annotations and object metadata.
 */
import { ErrorSource, MSG, Problems, Seg, isObj } from '../problems';

export const R: ErrorSource = 'api-rules';
const DNS1123_LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
export const ENV_VAR_NAME_RE = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const CONFIG_KEY_RE = /^[-._a-zA-Z0-9]+$/;

export function dns1123Label(v: string): string | undefined {
  if (v.length > 63) return `must be no more than 63 characters (has ${v.length})`;
  if (!DNS1123_LABEL_RE.test(v)) return 'must be a DNS-1123 label (lower case alphanumerics and "-", start and end alphanumeric)';
  return undefined;
}

export function dns1123Subdomain(v: string): string | undefined {
  if (v.length > 253) return `must be no more than 253 characters (has ${v.length})`;
  if (!DNS1123_SUBDOMAIN_RE.test(v)) {
    return 'must be a DNS-1123 subdomain (lower case alphanumerics, "-" and ".", start and end alphanumeric)';
  }
  return undefined;
}

export function pathSegmentName(v: string): string | undefined {
  if (v === '.' || v === '..') return `may not be ${JSON.stringify(v)}`;
  if (v.includes('/') || v.includes('%')) return 'may not contain "/" or "%"';
  return undefined;
}

export type NameRule = (name: string) => string | undefined;

export const subdomainName: NameRule = dns1123Subdomain;
export const cronJobName: NameRule = (n) =>
  dns1123Subdomain(n) ?? (n.length > 52 ? `must be no more than 52 characters for a CronJob (has ${n.length})` : undefined);
export const jobName: NameRule = (n) =>
  dns1123Subdomain(n) ??
  (n.length > 63 ? `must be no more than 63 characters for a Job (it becomes the job-name label) (has ${n.length})` : undefined);

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

export function labelValue(v: string): string | undefined {
  if (v.length > 63) return `must be no more than 63 characters (has ${v.length})`;
  if (!LABEL_VALUE_RE.test(v)) return 'must be empty or consist of alphanumerics, "-", "_" or ".", and start and end with an alphanumeric';
  return undefined;
}

export function checkLabels(labels: unknown, at: Seg[], p: Problems): void {
  if (!isObj(labels)) return;
  for (const [k, v] of Object.entries(labels)) {
    const ek = qualifiedName(k);
    if (ek) p.add([...at, k], `bad label key: ${ek}`, R);
    if (typeof v === 'string') {
      const ev = labelValue(v);
      if (ev) p.add([...at, k], `bad label value ${JSON.stringify(v)}: ${ev}`, R);
    }
  }
}

export function checkAnnotations(ann: unknown, at: Seg[], p: Problems): void {
  if (!isObj(ann)) return;
  let total = 0;
  for (const [k, v] of Object.entries(ann)) {
    const ek = qualifiedName(k.toLowerCase());
    if (ek) p.add([...at, k], `bad annotation key: ${ek}`, R);
    total += k.length + (typeof v === 'string' ? v.length : 0);
  }
  if (total > 256 * 1024) p.add(at, `annotations too long: ${total} bytes, must be at most 262144`, R);
}

export function checkObjectMeta(meta: unknown, at: Seg[], p: Problems, nameRule: NameRule | undefined, top: boolean): void {
  if (!isObj(meta)) {
    if (top && meta === undefined) p.add([...at, 'name'], MSG.required, R);
    return;
  }
  if (top && nameRule) {
    if (typeof meta.name === 'string' && meta.name !== '') {
      const e = nameRule(meta.name);
      if (e) p.add([...at, 'name'], `bad name ${JSON.stringify(meta.name)}: ${e}`, R);
    } else if (typeof meta.generateName === 'string' && meta.generateName !== '') {
      const masked = meta.generateName.replace(/-$/, 'a');
      const e = nameRule(masked);
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

export function configKeyError(k: string): string | undefined {
  if (k.length > 253) return `must be no more than 253 characters (has ${k.length})`;
  if (!CONFIG_KEY_RE.test(k)) return 'must consist of alphanumerics, "-", "_" or "."';
  if (k === '.' || k === '..') return `must not be ${JSON.stringify(k)}`;
  if (k.startsWith('..')) return 'must not start with ".."';
  return undefined;
}

