import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { PolicyIssue, show } from './errors';
import { PATTERN_DESCRIPTIONS } from './schema-builders';
import { policySchema } from './schema';

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictRequired: false, allowUnionTypes: true });
    compiled = ajv.compile(policySchema);
  }
  return compiled;
}

/** Structural validation against the published schema; every problem at once. */
export function validateAgainstSchema(doc: unknown): PolicyIssue[] {
  const validate = validator();
  if (validate(doc)) return [];
  const issues = (validate.errors ?? []).map((e) => toIssue(e, doc));
  return dedupe(issues);
}

function toIssue(error: ErrorObject, doc: unknown): PolicyIssue {
  const path = pointerToPath(error.instancePath);
  const value = valueAt(doc, error.instancePath);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const field = String(p.additionalProperty);
      const allowed = Object.keys(propertiesAt(error.parentSchema));
      const hint = closest(field, allowed);
      return {
        path: join(path, field),
        message: `unknown field${hint ? ` (did you mean "${hint}"?)` : ''}; allowed fields: ${allowed.join(', ')}`,
      };
    }
    case 'required':
      return { path: join(path, String(p.missingProperty)), message: 'required field is missing' };
    case 'type':
      return { path, message: `expected ${String(p.type)}, received ${typeName(value)} ${show(value)}` };
    case 'enum':
      return { path, message: `received ${show(value)}; allowed: ${(p.allowedValues as unknown[]).map((v) => show(v)).join(', ')}` };
    case 'const':
      return { path, message: `received ${show(value)}; must be ${show(p.allowedValue)}` };
    case 'pattern': {
      const described = PATTERN_DESCRIPTIONS[String(p.pattern)];
      return { path, message: `received ${show(value)}; must be ${described ?? `a string matching ${String(p.pattern)}`}` };
    }
    case 'minimum':
    case 'maximum':
      return { path, message: `received ${show(value)}; must be ${error.keyword === 'minimum' ? '>=' : '<='} ${String(p.limit)}` };
    case 'minLength':
      return { path, message: `received ${show(value)}; must not be empty` };
    case 'maxLength':
      return { path, message: `received ${show(value)} (${String(value).length} characters); at most ${String(p.limit)} allowed` };
    case 'minItems':
      return { path, message: `received ${(value as unknown[]).length} item(s); at least ${String(p.limit)} required` };
    case 'minProperties':
    case 'maxProperties': {
      const names = Object.keys(propertiesAt(error.parentSchema));
      return { path, message: `received ${show(Object.keys(value as object))}; ${exactlyOneHint(error.parentSchema, names)}` };
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

function pointerToPath(pointer: string): string {
  if (!pointer) return '';
  return pointer
    .split('/')
    .slice(1)
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^[0-9]+$/.test(part) ? `${acc}[${part}]` : join(acc, part)), '');
}

function join(path: string, field: string): string {
  return path ? `${path}.${field}` : field;
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

function closest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const c of candidates) {
    const d = levenshtein(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

function dedupe(issues: PolicyIssue[]): PolicyIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\0${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
