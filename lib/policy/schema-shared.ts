/**
 * The policy schema with its repeated parts written once: every subschema that occurs more than once (the
 * settings of each level, pod options, destinations) moves to `$defs` and is referenced. It validates the
 * same documents with the same errors, and ajv compiles each shared part once: half the validator code and
 * half the compile time. Used for validation only; `backup-cronjobs schema` prints the schema as built.
 */
import type { Schema } from './schema-builders';

/** Subschemas shorter than this (as JSON) stay inline: a reference would not save much. */
const MIN_SHARED_LENGTH = 400;

const SUBSCHEMA_KEYS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else'] as const;
const SUBSCHEMA_LIST_KEYS = ['oneOf', 'anyOf', 'allOf'] as const;

/** `schema` with each of its subschemas (the schema positions of JSON Schema only) replaced by `f` of it. */
function mapSubschemas(schema: Schema, f: (sub: Schema) => Schema): Schema {
  const out: Schema = { ...schema };
  const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isSchema(schema.properties))
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, isSchema(v) ? f(v) : v]));
  for (const key of SUBSCHEMA_KEYS) if (isSchema(schema[key])) out[key] = f(schema[key]);
  for (const key of SUBSCHEMA_LIST_KEYS) {
    const list = schema[key];
    if (Array.isArray(list)) out[key] = list.map((v: unknown) => (isSchema(v) ? f(v) : v));
  }
  return out;
}

/** `schema` with every subschema that occurs more than once moved to `$defs` (`d0`, `d1`, … in first-seen order). */
export function withSharedSubschemas(schema: Schema): Schema {
  if (schema.$defs !== undefined || schema.definitions !== undefined) return schema; // has references of its own
  const counts = new Map<string, number>();
  const count = (s: Schema): Schema => {
    const text = JSON.stringify(s);
    if (text.length >= MIN_SHARED_LENGTH) counts.set(text, (counts.get(text) ?? 0) + 1);
    mapSubschemas(s, count);
    return s;
  };
  mapSubschemas(schema, count);
  const defs: Record<string, Schema> = {};
  const names = new Map<string, string>();
  const share = (s: Schema): Schema => {
    const text = JSON.stringify(s);
    if ((counts.get(text) ?? 0) < 2) return mapSubschemas(s, share);
    let name = names.get(text);
    if (name === undefined) {
      name = `d${names.size}`;
      names.set(text, name);
      defs[name] = mapSubschemas(s, share);
    }
    return { $ref: `#/$defs/${name}` };
  };
  const shared = mapSubschemas(schema, share);
  return names.size === 0 ? schema : { ...shared, $defs: defs };
}
