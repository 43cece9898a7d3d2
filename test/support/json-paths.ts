// Reading and changing plain JSON (generated or parsed policy documents, fixtures) without `any`: each step narrows.
/** A JSON object: fields of any value (tests that break documents write wrong ones on purpose). */
export type Json = Record<string, unknown>;

/** `v` as an object; throws naming `what` when it is not one. */
export function obj(v: unknown, what: string): Json {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new Error(`${what} is not an object: ${JSON.stringify(v)}`);
  return v as Json;
}

/** `v` as a list; throws naming `what` when it is not one. */
export function list(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`${what} is not a list: ${JSON.stringify(v)}`);
  return v;
}

/** The object at a dotted path of `doc` (`spec.vitess.schedules.0`: numbers index lists). */
export function at(doc: Json, path: string): Json {
  const found = path
    .split('.')
    .reduce<unknown>((v, key) => (Array.isArray(v) ? v[Number(key)] : obj(v, `${path} (at ${key})`)[key]), doc);
  return obj(found, path);
}

/** The object `o[key]`, made an empty one when absent (`o[key] ??= {}`). */
export function orNew(o: Json, key: string): Json {
  o[key] ??= {};
  return obj(o[key], key);
}
