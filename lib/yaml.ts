/** Deterministic YAML, byte-identical to what `cdk8s synth` writes for the same objects. */
import { stringify } from 'yaml';
import type { Manifest } from './k8s';

/** Recursively sorts object keys (arrays keep their order), as cdk8s does. */
export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out as T;
  }
  return value;
}

export function toYaml(objects: readonly Manifest[]): string {
  return objects.map((o) => stringify(sortKeys(o), { keepUndefined: true, lineWidth: 0, version: '1.1' })).join('---\n');
}
