/** Structural validation of a document against a JSON Schema (ajv, strict mode), as PolicyIssues with field paths. */
import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type standaloneCode from 'ajv/dist/standalone';
import { createHash } from 'crypto';
import { existsSync } from 'fs';
import { createRequire } from 'module';
import { join } from 'path';
import { PolicyIssue, PolicyPath, closest, issueAt, show } from './errors';
import { PATTERN_DESCRIPTIONS, PATTERN_PROBLEMS, Schema } from './schema-builders';
import { withSharedSubschemas } from './schema-shared';

/** ajv's options for every schema, the build's precompiled validator included. */
const AJV_OPTIONS = { allErrors: true, verbose: true, strict: true, allowUnionTypes: true } as const;

/**
 * The file next to this module's compiled code where the build (scripts/copy-assets.js) writes the policy
 * schema's validator as code: compiling the schema takes ajv about a quarter of a second at every start of
 * the CLI or a synth. The TypeScript source has no such file and compiles at first use.
 */
export const PRECOMPILED_VALIDATOR_FILE = 'policy-validator.js';

/** A schema's identity: the precompiled validator is used only for the schema it was made from. */
export function schemaFingerprint(schema: Schema): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('hex');
}

/**
 * ajv, loaded only to compile a schema: the precompiled validator needs just its small runtime modules, and
 * loading ajv itself takes tens of milliseconds of every start.
 */
const load = createRequire(__filename);
const ajvClass = (): typeof Ajv => (load('ajv') as { default: typeof Ajv }).default;

/** The CommonJS module of `schema`'s validator (ajv standalone code), with the schema's fingerprint. */
export function precompiledValidatorCode(schema: Schema): string {
  const AjvClass = ajvClass();
  const ajv = new AjvClass({ ...AJV_OPTIONS, code: { source: true } });
  const standalone = (load('ajv/dist/standalone') as { default: typeof standaloneCode }).default;
  const code = standalone(ajv, ajv.compile(withSharedSubschemas(schema)));
  return `${code}\nmodule.exports.schemaFingerprint = ${JSON.stringify(schemaFingerprint(schema))};\n`;
}

type PrecompiledValidator = ValidateFunction & { readonly schemaFingerprint?: string };

/** The validator the build wrote for `schema`, if there is one made from this very schema. */
function precompiledValidator(schema: Schema): ValidateFunction | undefined {
  const file = join(__dirname, PRECOMPILED_VALIDATOR_FILE);
  if (!existsSync(file)) return undefined;
  const validate = load(file) as PrecompiledValidator;
  return validate.schemaFingerprint === schemaFingerprint(schema) ? validate : undefined;
}

/** `schema` compiled by ajv at run time (as it is: `validator` shares its repeated parts first). */
export function compileValidator(schema: Schema): ValidateFunction {
  const AjvClass = ajvClass();
  return new AjvClass(AJV_OPTIONS).compile(schema);
}

const compiled = new WeakMap<Schema, ValidateFunction>();

function validator(schema: Schema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = precompiledValidator(schema) ?? compileValidator(withSharedSubschemas(schema));
    compiled.set(schema, validate);
  }
  return validate;
}

/** A schema problem: the issue and the JSON pointer segments of the value it is about. */
export interface SchemaProblem {
  readonly issue: PolicyIssue;
  /** Where the offending value is (for an unknown field: the field itself; for a missing one: nothing to remove). */
  readonly at?: readonly string[];
}

/** Structural validation against `schema`; every problem at once. */
export function validateAgainstSchema(schema: Schema, doc: unknown): SchemaProblem[] {
  return problemsOf(validator(schema), doc);
}

/** The problems `validate` (a compiled schema, or its precompiled code) finds in `doc`. */
export function problemsOf(validate: ValidateFunction, doc: unknown): SchemaProblem[] {
  if (validate(doc)) return [];
  const seen = new Set<string>();
  return (validate.errors ?? [])
    .map((e) => toProblem(e, doc))
    .filter((p) => {
      const key = `${p.issue.path}\0${p.issue.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

function toProblem(error: ErrorObject, doc: unknown): SchemaProblem {
  const segments = pointerSegments(error.instancePath);
  const found = toIssue(error, doc);
  const issue = issueAt(found.path, found.message);
  if (error.keyword === 'required') return { issue };
  if (error.keyword === 'additionalProperties')
    return { issue, at: [...segments, String((error.params as Record<string, unknown>).additionalProperty)] };
  return { issue, at: segments };
}

function toIssue(error: ErrorObject, doc: unknown): { path: PolicyPath; message: string } {
  const path = pointerToPath(error.instancePath);
  const value = valueAt(doc, error.instancePath);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const field = String(p.additionalProperty);
      const allowed = Object.keys(propertiesAt(error.parentSchema));
      const hint = closest(field, allowed);
      return {
        path: [...path, field],
        message: `unknown field${hint ? ` (did you mean "${hint}"?)` : ''}; allowed fields: ${allowed.join(', ')}`,
      };
    }
    case 'required':
      return { path: [...path, String(p.missingProperty)], message: 'required field is missing' };
    case 'type':
      return { path, message: `expected ${String(p.type)}, received ${typeName(value)} ${show(value)}` };
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).map((v) => String(v));
      const hint = typeof value === 'string' ? closest(value, allowed) : undefined;
      return {
        path,
        message: `received ${show(value)}${hint ? ` (did you mean ${show(hint)}?)` : ''}; allowed: ${allowed.map((v) => show(v)).join(', ')}`,
      };
    }
    case 'const':
      return { path, message: `received ${show(value)}; must be ${show(p.allowedValue)}` };
    case 'pattern': {
      const problem = PATTERN_PROBLEMS[String(p.pattern)]?.(value);
      if (problem) return { path, message: `received ${show(value)}; ${problem}` };
      const described = PATTERN_DESCRIPTIONS[String(p.pattern)];
      return {
        path,
        message: `received ${show(value)}; must be ${described ?? `a string matching ${String(p.pattern)}`}`,
      };
    }
    case 'minimum':
    case 'maximum':
      return {
        path,
        message: `received ${show(value)}; must be ${error.keyword === 'minimum' ? '>=' : '<='} ${String(p.limit)}`,
      };
    case 'minLength':
      return { path, message: `received ${show(value)}; must not be empty` };
    case 'maxLength':
      return {
        path,
        message: `received ${show(value)} (${String(value).length} characters); at most ${String(p.limit)} allowed`,
      };
    case 'minItems':
      return { path, message: `received ${(value as unknown[]).length} item(s); at least ${String(p.limit)} required` };
    case 'minProperties':
    case 'maxProperties': {
      const names = Object.keys(propertiesAt(error.parentSchema));
      return {
        path,
        message: `received ${show(Object.keys(value as object))}; ${exactlyOneHint(error.parentSchema, names)}`,
      };
    }
    default:
      return { path, message: `${error.message ?? 'invalid'} (received ${show(value)})` };
  }
}

function exactlyOneHint(schema: unknown, names: string[]): string {
  const s = schema as Record<string, unknown>;
  const required = (s.required as string[] | undefined) ?? [];
  const sources = names.filter((n) => !required.includes(n) && n !== 'readOnly');
  return `set exactly one of: ${sources.join(', ')}`;
}

function propertiesAt(schema: unknown): Record<string, unknown> {
  const props = (schema as Record<string, unknown> | undefined)?.properties;
  return (props as Record<string, unknown>) ?? {};
}

function pointerSegments(pointer: string): string[] {
  return pointer
    ? pointer
        .split('/')
        .slice(1)
        .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    : [];
}

function pointerToPath(pointer: string): PolicyPath {
  return pointerSegments(pointer).map((part) => (/^[0-9]+$/.test(part) ? Number(part) : part));
}

function valueAt(doc: unknown, pointer: string): unknown {
  let cur: unknown = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
