import { createHash } from 'crypto';

/** Kubernetes appends 11 characters to a CronJob's name for its Jobs. */
export const CRONJOB_NAME_MAX = 52;
export const LABEL_VALUE_MAX = 63;
export const DNS_LABEL_MAX = 63;
/** Names of most objects (ConfigMaps, Secrets): DNS-1123 subdomains. */
export const DNS_SUBDOMAIN_MAX = 253;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function isDnsLabel(value: string): boolean {
  return value.length <= DNS_LABEL_MAX && DNS_LABEL.test(value);
}

/** First 8 hex characters of sha256(text). */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** Lowercases, maps every character outside [a-z0-9-] to '-', squeezes and trims dashes. */
export function sanitize(part: string): string {
  return part
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * The parts without one that repeats the end of the part before it
 * (`frequent-customer`, `customer` → `frequent-customer`; `cp-1`, `cp-1` →
 * `cp-1`), compared as they appear in a name (sanitized).
 */
export function withoutRepeats(parts: readonly string[]): string[] {
  const out: string[] = [];
  for (const part of parts) {
    const clean = sanitize(part);
    const previous = out.length > 0 ? sanitize(out[out.length - 1]) : '';
    if (clean.length > 0 && (previous === clean || previous.endsWith(`-${clean}`))) continue;
    out.push(part);
  }
  return out;
}

/**
 * Joins name parts into a DNS-1123 name of at most `max` characters, a part
 * that repeats the end of the one before it dropped. A name that is too long
 * (or had to be sanitized) keeps its head and gets a hash of the parts, so
 * distinct inputs stay distinct.
 */
export function joinName(names: readonly string[], max: number = CRONJOB_NAME_MAX): string {
  const parts = withoutRepeats(names);
  const clean = parts.map(sanitize).filter((p) => p.length > 0);
  const joined = clean.join('-');
  const exact = parts.join('-') === joined;
  if (joined.length <= max && exact && joined.length > 0) return joined;
  const hash = shortHash(parts.join('\0'));
  const head = joined.slice(0, max - hash.length - 1).replace(/-+$/, '');
  return head.length > 0 ? `${head}-${hash}` : hash;
}

/** A label value: at most 63 characters of [A-Za-z0-9._-], alphanumeric at both ends. */
export function labelValue(value: string): string {
  const clean = value.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  if (clean === value && clean.length <= LABEL_VALUE_MAX) return clean;
  const hash = shortHash(value);
  const head = clean.slice(0, LABEL_VALUE_MAX - hash.length - 1).replace(/[^A-Za-z0-9]+$/, '');
  return head.length > 0 ? `${head}-${hash}` : hash;
}

/** vitess-operator's safe shard form: an empty key-range end becomes `x` (`-80` → `x-80`). */
export function safeShard(shard: string): string {
  const dash = shard.indexOf('-');
  const start = shard.slice(0, dash);
  const end = shard.slice(dash + 1);
  return `${start || 'x'}-${end || 'x'}`;
}
