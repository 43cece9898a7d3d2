/**
 * Problem collection shared by every validation layer: paths, the message vocabulary (so that the
 * same problem found by several layers collapses into one line) and ajv error normalisation.
 */
import type { ErrorObject } from 'ajv';

export type ErrorSource =
  'kubernetes-models' | 'client-node' | 'k8s-1.28-schema' | 'api-rules' | 'prometheus-rule' | 'openshift-scc';

export type Seg = string | number;
export type Path = readonly Seg[];

const SOURCE_ORDER: ErrorSource[] = [
  'kubernetes-models',
  'client-node',
  'k8s-1.28-schema',
  'api-rules',
  'prometheus-rule',
  'openshift-scc',
];

export class Problems {
  private readonly map = new Map<string, Set<ErrorSource>>();
  constructor(readonly root: unknown) {}
  get size(): number {
    return this.map.size;
  }
  add(at: Path, message: string, source: ErrorSource): void {
    const key = `${formatPath(at)}: ${message}`;
    let s = this.map.get(key);
    if (!s) this.map.set(key, (s = new Set()));
    s.add(source);
  }
  list(): string[] {
    return [...this.map.entries()].map(([k, s]) => `${k} [${SOURCE_ORDER.filter((x) => s.has(x)).join(', ')}]`);
  }
}

export function formatPath(at: Path): string {
  if (at.length === 0) return '(root)';
  let out = '';
  for (const s of at) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Object properties whose value is `undefined` vanish when serialised, so they are treated as absent. */
export function dropUndefined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropUndefined);
  if (!isObj(v) || Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = dropUndefined(x);
  return out;
}

export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  if (isObj(v) && Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) {
    return `${(v as object).constructor?.name ?? 'object'} instance`;
  }
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

export const MSG = {
  unknown: 'unknown field',
  required: 'missing required field',
  wrongType: (expected: string, v: unknown) => `wrong type: expected ${expected}, got ${typeName(v)}`,
  enumValue: (v: unknown, allowed: readonly unknown[]) =>
    `value ${JSON.stringify(v)} not in enum ${JSON.stringify(allowed)}`,
  base64: 'invalid base64 data',
  int32: 'integer out of int32 range',
  int64: 'integer out of int64 range',
};

/** Splits an ajv instancePath (JSON pointer) into segments, using the data to tell array indexes apart. */
function pointerToPath(root: unknown, pointer: string): { at: Seg[]; value: unknown } {
  const at: Seg[] = [];
  let cur: unknown = root;
  if (pointer === '') return { at, value: cur };
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur) && /^\d+$/.test(seg)) {
      at.push(Number(seg));
      cur = cur[Number(seg)];
    } else {
      at.push(seg);
      cur = isObj(cur) ? cur[seg] : undefined;
    }
  }
  return { at, value: cur };
}

/** Adds ajv errors (kubernetes-models and the shared schema are both ajv) in the shared vocabulary. */
export function addAjvErrors(errors: readonly ErrorObject[], p: Problems, source: ErrorSource): void {
  const byPath = new Map<string, ErrorObject[]>();
  for (const e of errors) {
    const list = byPath.get(e.instancePath);
    if (list) list.push(e);
    else byPath.set(e.instancePath, [e]);
  }
  for (const [pointer, errs] of byPath) {
    const { at, value } = pointerToPath(p.root, pointer);
    const types = [...new Set(errs.filter((e) => e.keyword === 'type').map((e) => String(e.params.type)))];
    if (types.length > 0) p.add(at, MSG.wrongType(types.join(' or '), value), source);
    for (const e of errs) {
      switch (e.keyword) {
        case 'type':
          break;
        case 'oneOf':
        case 'anyOf':
          if (types.length === 0) p.add(at, `invalid value: ${e.message ?? e.keyword}`, source);
          break;
        case 'format':
          if (types.length === 0) {
            const f = String(e.params.format);
            p.add(
              at,
              f === 'byte'
                ? MSG.base64
                : f === 'int32'
                  ? MSG.int32
                  : f === 'int64'
                    ? MSG.int64
                    : `invalid format: expected ${f}`,
              source,
            );
          }
          break;
        case 'required':
          p.add([...at, String(e.params.missingProperty)], MSG.required, source);
          break;
        case 'additionalProperties':
          p.add([...at, String(e.params.additionalProperty)], MSG.unknown, source);
          break;
        case 'enum':
          p.add(at, MSG.enumValue(value, e.params.allowedValues as unknown[]), source);
          break;
        default:
          p.add(at, `${e.keyword}: ${e.message ?? 'invalid'}`, source);
      }
    }
  }
}
