// The policy schema's validator that the build writes as code (scripts/copy-assets.js), and the one compiled at
// run time, both made from the schema with its repeated parts shared (schema-shared.ts), find exactly the problems
// that the schema as built finds: same paths, same messages, on the examples and on many broken copies.
import type { ValidateFunction } from 'ajv';
import { readFileSync, readdirSync } from 'fs';
import { wrap } from 'module';
import { join } from 'path';
import { runInThisContext } from 'vm';
import { loadPolicies } from '../../../lib/model/load';
import {
  compileValidator,
  precompiledValidatorCode,
  problemsOf,
  schemaFingerprint,
  validateAgainstSchema,
} from '../../../lib/policy/schema-validate';
import { withSharedSubschemas } from '../../../lib/policy/schema-shared';
import { policySchema } from '../../../lib/registry';

type Precompiled = ValidateFunction & { readonly schemaFingerprint: string };
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Loads CommonJS `code` as Node loads a module file (its `require` resolves from this test's folder). */
function loadModule(code: string): unknown {
  const module = { exports: {} as unknown };
  const factory = runInThisContext(wrap(code)) as (...args: unknown[]) => void;
  factory(module.exports, require, module, __filename, __dirname);
  return module.exports;
}

const examplesDir = join(__dirname, '..', '..', '..', 'examples', 'policies');
const examples: Json[] = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => loadPolicies(readFileSync(join(examplesDir, f), 'utf8'), f))
  .map((p) => structuredClone(p) as unknown as Json);

/** A value of another JSON type than `value`. */
function otherType(value: Json): Json {
  if (typeof value === 'string') return 42;
  if (typeof value === 'number') return 'forty-two';
  if (typeof value === 'boolean') return 'yes';
  if (Array.isArray(value)) return { item: value[0] ?? null };
  return value === null ? 'null' : ['a list'];
}

/** Copies of `doc` with one thing broken: an unknown field in each object, each value of another type, each field removed. */
function brokenCopies(doc: Json): Json[] {
  const copies: Json[] = [];
  const visit = (node: Json, edit: (change: (n: Json) => Json) => Json): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        const at = (change: (n: Json) => Json) => edit((n) => (n as Json[]).map((x, j) => (j === i ? change(x) : x)));
        copies.push(at(otherType));
        visit(item, at);
      });
      return;
    }
    copies.push(edit((n) => ({ ...(n as Record<string, Json>), unknownFieldX: 1 })));
    for (const key of Object.keys(node)) {
      const at = (change: (n: Json) => Json) =>
        edit((n) => ({ ...(n as Record<string, Json>), [key]: change((n as Record<string, Json>)[key]) }));
      copies.push(at(otherType));
      copies.push(
        edit((n) => Object.fromEntries(Object.entries(n as Record<string, Json>).filter(([k]) => k !== key))),
      );
      visit(node[key], at);
    }
  };
  visit(doc, (change) => change(doc));
  return copies;
}

describe('precompiled policy validator', () => {
  const code = precompiledValidatorCode(policySchema);
  const precompiled = loadModule(code) as Precompiled;
  // the schema as built, not shared: what the other two must agree with
  const compiled = compileValidator(policySchema);

  test('carries the fingerprint of the schema it was made from, and no other', () => {
    expect(precompiled.schemaFingerprint).toBe(schemaFingerprint(policySchema));
    const other = { ...policySchema, description: 'another schema' };
    expect(schemaFingerprint(other)).not.toBe(precompiled.schemaFingerprint);
  });

  test('accepts every example policy', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
    for (const doc of examples) expect(problemsOf(precompiled, doc)).toEqual([]);
  });

  test('the shared form moves every repeated part to $defs, once; the schema users get stays as built', () => {
    const shared = withSharedSubschemas(policySchema);
    const defs = Object.values(shared.$defs as Record<string, unknown>).map((d) => JSON.stringify(d));
    expect(defs.length).toBeGreaterThan(5);
    expect(new Set(defs).size).toBe(defs.length);
    expect(JSON.stringify(shared).length).toBeLessThan(JSON.stringify(policySchema).length * 0.7);
    expect(policySchema.$defs).toBeUndefined();
    expect(withSharedSubschemas(shared)).toBe(shared);
  });

  test('finds the same problems as the schema as built, compiled at run time, in every broken copy of the examples', () => {
    const broken = examples.flatMap(brokenCopies);
    let refused = 0;
    for (const doc of broken) {
      const expected = problemsOf(compiled, doc);
      if (expected.length > 0) refused++;
      expect(problemsOf(precompiled, doc)).toEqual(expected);
      // the source tree's path: the shared form compiled at first use
      expect(validateAgainstSchema(policySchema, doc)).toEqual(expected);
    }
    // the copies reach the schema's checks: most of them are refused (the rest break what the schema allows)
    expect(broken.length).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(broken.length / 2);
  });
});
