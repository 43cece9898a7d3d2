/**
 * Deterministic YAML, byte-identical to what `cdk8s synth` writes for the same
 * objects (the `yaml` package, YAML 1.1, lineWidth 0, sorted keys, except
 * that an object starts with apiVersion, kind and metadata as cdk8s's
 * ApiObject.toJson orders them). Maps,
 * sequences and the common scalars are emitted directly; every other scalar is
 * rendered once by `yaml` itself and memoized, so output matches it exactly.
 */
import { stringify } from 'yaml';
import type { Manifest } from './kubernetes/objects';

const OPTIONS = { keepUndefined: true, lineWidth: 0, version: '1.1' } as const;

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

/** One YAML document per object, joined with `---` like cdk8s. */
export function toYaml(objects: readonly Manifest[]): string {
  return objects.map(documentYaml).join('---\n');
}

/** An object's own keys first (as cdk8s writes them), then the others sorted. */
const OBJECT_KEYS = ['apiVersion', 'kind', 'metadata'];
const documentKeys = (map: Plain): string[] => [
  ...OBJECT_KEYS.filter((k) => k in map),
  ...Object.keys(map)
    .filter((k) => !OBJECT_KEYS.includes(k))
    .sort(),
];

/** One object as a YAML document (sorted keys, as `synth` writes it), without the `---` separator. */
export function documentYaml(value: unknown): string {
  // Keys outside the plain-safe set are rare (label or data keys) and their quoting depends on context:
  // such documents are rendered by `yaml` itself (the emitter gives up at the first one).
  if (isMap(value) && Object.keys(value).length > 0) {
    const out: string[] = [];
    if (emitMap(value, '', out, documentKeys(value))) return out.join('');
  }
  const sorted = sortKeys(value);
  return stringify(
    isMap(sorted) ? Object.fromEntries(documentKeys(sorted).map((k) => [k, sorted[k]])) : sorted,
    OPTIONS,
  );
}

type Plain = Record<string, unknown>;

function isMap(v: unknown): v is Plain {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isBlock(v: unknown): boolean {
  return (Array.isArray(v) && v.length > 0) || (isMap(v) && Object.keys(v).length > 0);
}

/** Emits the map's lines into `out`; false (and `out` incomplete) at the first key the emitter does not write plain. */
function emitMap(map: Plain, pad: string, out: string[], keys = Object.keys(map).sort()): boolean {
  for (const key of keys) {
    if (!plainKey(key)) return false;
    const v = map[key];
    if (v === undefined) continue;
    if (isBlock(v)) {
      out.push(`${pad}${key}:\n`);
      if (!emitNode(v, `${pad}  `, out)) return false;
    } else {
      out.push(`${pad}${key}: ${scalarText(v, `${pad}  `)}\n`);
    }
  }
  return true;
}

function emitSeq(seq: readonly unknown[], pad: string, out: string[]): boolean {
  for (const item of seq) {
    if (isBlock(item)) {
      const inner: string[] = [];
      if (!emitNode(item, `${pad}  `, inner)) return false;
      // the first line of the nested block goes on the "- " line
      inner[0] = `${pad}- ${inner[0].slice(pad.length + 2)}`;
      out.push(...inner);
    } else {
      out.push(`${pad}- ${scalarText(item === undefined ? null : item, `${pad}  `)}\n`);
    }
  }
  return true;
}

function emitNode(v: unknown, pad: string, out: string[]): boolean {
  return Array.isArray(v) ? emitSeq(v, pad, out) : emitMap(v as Plain, pad, out);
}

const YAML11_WORDS = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'true',
  'True',
  'TRUE',
  'false',
  'False',
  'FALSE',
  'on',
  'On',
  'ON',
  'off',
  'Off',
  'OFF',
  'null',
  'Null',
  'NULL',
]);
const SAFE_PLAIN = /^(?:[A-Za-z/]|-[-A-Za-z])[A-Za-z0-9_./=@-]*(?::[A-Za-z0-9_./=@-]+)*$/;
// yaml 2.x's YAML 1.1 float (exponent form, schema/yaml-1.1/float.js): within SAFE_PLAIN it matches
// strings such as E0, e5, -E0 and -e-1, which yaml quotes because they would read back as numbers.
// A leading '---' is a document marker, which yaml quotes or writes as a block depending on the context.
const YAML11_EXPONENT_FLOAT = /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/;

/** Strings the emitter writes plain itself; `yaml` writes each of them plain too (test/lib/yaml.test.ts). */
export function plainSafe(s: string): boolean {
  return SAFE_PLAIN.test(s) && !YAML11_WORDS.has(s) && !YAML11_EXPONENT_FLOAT.test(s) && !s.startsWith('---');
}

/** Keys repeat in every object (name, env, value, ...): each is checked once. */
const plainKeys = new Map<string, boolean>();

function plainKey(key: string): boolean {
  let plain = plainKeys.get(key);
  if (plain === undefined) {
    plain = plainSafe(key);
    if (plainKeys.size > 100000) plainKeys.clear();
    plainKeys.set(key, plain);
  }
  return plain;
}

const scalarCache = new Map<string, string>();

/** A scalar as a map value or sequence item whose content lines start at `pad`. */
function scalarText(v: unknown, pad: string): string {
  if (typeof v === 'string') return stringText(v, pad);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === null) return 'null';
  if (typeof v === 'number' && Number.isInteger(v) && !Object.is(v, -0)) return String(v);
  if (Array.isArray(v)) return '[]';
  if (isMap(v)) return '{}';
  return valueText(v, pad);
}

function stringText(s: string, pad: string): string {
  if (plainSafe(s)) return s;
  const key = `${pad.length}\0${s}`;
  let text = scalarCache.get(key);
  if (text === undefined) {
    text = valueText(s, pad);
    if (scalarCache.size > 100000) scalarCache.clear();
    scalarCache.set(key, text);
  }
  return text;
}

/** Renders a scalar with `yaml` as the value of a key, re-indented to `pad`. */
function valueText(v: unknown, pad: string): string {
  const rendered = stringify({ x: v }, OPTIONS).slice(3, -1);
  if (!rendered.includes('\n')) return rendered;
  const extra = pad.slice(2);
  return rendered
    .split('\n')
    .map((line, i) => (i === 0 || line === '' ? line : extra + line))
    .join('\n');
}
