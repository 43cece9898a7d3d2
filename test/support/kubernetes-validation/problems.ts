/** Field paths of the oracle's problems, and reading the objects it does not trust. */
import type { Problem } from '../../../lib/kubernetes/validation/problems';

/** `base` + a field name or list index: `a` + `b` → `a.b`, `a` + 0 → `a[0]`. */
export function fieldPath(base: string, field: string | number): string {
  if (typeof field === 'number') return `${base}[${field}]`;
  return base ? `${base}.${field}` : field;
}

/** Joins a base path and a relative path (`''`, `name`, `[0].name`). */
export function joinPath(base: string, relative: string): string {
  if (!relative) return base;
  if (!base || relative.startsWith('[')) return base + relative;
  return `${base}.${relative}`;
}

/** Moves problems found in a nested value under `base`. */
export function under(base: string, problems: readonly Problem[]): Problem[] {
  return problems.map((p) => ({ path: joinPath(base, p.path), message: p.message }));
}

/** The value as a list (absent → empty). */
export function asList(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}
