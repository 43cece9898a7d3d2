// The fast emitter must write exactly what the `yaml` package (and so cdk8s) writes.
import fc from 'fast-check';
import { stringify } from 'yaml';
import { documentYaml, sortKeys, toYaml } from '../../lib/internal';
import { plainSafe } from '../../lib/yaml';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { loadPolicies, renderPolicy } from '../../lib';

/** What cdk8s writes: sorted keys, except that an object starts with apiVersion, kind and metadata (ApiObject.toJson). */
function reference(v: unknown): string {
  const sorted = sortKeys<unknown>(v);
  const isMap = sorted !== null && typeof sorted === 'object' && !Array.isArray(sorted);
  const first = isMap ? ['apiVersion', 'kind', 'metadata'].filter((k) => k in sorted) : [];
  const ordered: unknown = isMap
    ? Object.assign({}, ...first.map((k) => ({ [k]: (sorted as Record<string, unknown>)[k] })), sorted)
    : sorted;
  return stringify(ordered, { keepUndefined: true, lineWidth: 0, version: '1.1' });
}

const tricky = fc.constantFrom(
  '',
  ' ',
  'yes',
  'no',
  'on',
  'off',
  'y',
  'n',
  'null',
  '~',
  'true',
  'False',
  '0755',
  '1:20',
  '2026-01-01',
  '1e3',
  '.inf',
  '-1',
  '- x',
  '-x',
  '--flag=a:b',
  'a: b',
  'a:',
  'x #y',
  '#c',
  '@daily',
  '*/15 * * * *',
  "'q'",
  'x"y',
  'tab\there',
  'line\n',
  'two\nlines',
  'keep\n\n',
  ' lead\nx\n',
  'trail \nx',
  'a\tb\nc\n',
  '\u00e9t\u00e9',
  'host:2379',
  'http://minio:9000',
  'k8s.io/name',
  '[x]',
  '{y}',
  '!tag',
  '&a',
  '*a',
  '%p',
  '|',
  '>',
  '?',
  ',',
  'a,b',
  'x\r\ny',
  'ctl\u0001',
  '#!/bin/sh\necho "$@"\n',
  '\n',
  'x\n ',
  'Resource',
  '0x1F',
  '0b101',
  '+1',
  '1_000',
  '12:30:00',
  '-E0',
  'e5',
  '-e-1',
  '---',
  '---x',
  '...',
  '.5',
  '-.inf',
  '<<',
  '=',
  'Null',
  '~x',
  'x:',
  'a:b:c',
  '/',
  '-',
  '--',
);
const str = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  tricky,
  fc.stringMatching(/^[-a-z0-9./:=@_ #"'\n]{0,20}$/),
);
const scalar = fc.oneof(str, fc.integer(), fc.boolean(), fc.constant(null), fc.double({ noNaN: true }));
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(str, tie('node'), { maxKeys: 4 }),
  ),
})).node;

describe('YAML emitter', () => {
  test('property: byte-identical to the yaml package for random documents', () => {
    fc.assert(
      fc.property(fc.dictionary(str, value, { minKeys: 1, maxKeys: 6 }), (doc) => {
        expect(documentYaml(doc)).toBe(reference(doc));
      }),
      { numRuns: 2000 },
    );
  });

  // Every string of up to 4 characters from an alphabet of the characters that YAML's indicators,
  // resolvers (numbers, booleans, timestamps) and document markers depend on, in every position.
  test('every short string is written as yaml writes it, as a key and as a value at any depth', () => {
    const alphabet = [...'-+._:/=@#019eExbn '];
    const strings: string[] = [];
    const walk = (s: string): void => {
      if (s.length > 0) strings.push(s);
      if (s.length < 4) for (const c of alphabet) walk(s + c);
    };
    walk('');
    const contexts = (s: string): Record<string, unknown>[] => [
      { [s]: 1 },
      { k: s },
      { k: { [s]: 1 } },
      { k: { j: s } },
      { k: [s] },
      { k: [{ j: s }] },
    ];
    // The emitter writes plain-safe strings itself: all of them, in every context. Others go to `yaml`
    // with a context the emitter sets up: the short ones (which include each indicator), in every context.
    const checked = strings.filter((s) => plainSafe(s) || s.length <= 2);
    const mismatches = checked.flatMap((s) =>
      contexts(s)
        .filter((doc) => documentYaml(doc) !== reference(doc))
        .map((doc) => JSON.stringify(doc)),
    );
    expect(strings.length).toBe(111150);
    expect(checked.length).toBeGreaterThan(10000);
    expect(mismatches).toEqual([]);
  });

  test('byte-identical for every example manifest', () => {
    const dir = join(__dirname, '..', '..', 'examples', 'policies');
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
      for (const p of loadPolicies(readFileSync(join(dir, f), 'utf8'))) {
        const objects = renderPolicy(p);
        expect(toYaml(objects)).toBe(objects.map(reference).join('---\n'));
      }
    }
  });
});
