// The published JSON Schema: what `schema` prints, that it compiles under ajv's
// strict mode, and the copy the example policies point their editors at.
import Ajv from 'ajv';
import { readFileSync, readdirSync } from 'fs';
import { join } from 'path';
import { parse } from 'yaml';
import { policySchema } from '../../../lib';
import { type JsonSchema, schemaAt } from '../../support/json-schema';
import { run } from './fixtures';

const examples = join(__dirname, '..', '..', '..', 'examples', 'policies');
const MODELINE = '# yaml-language-server: $schema=./backup-policy.schema.json';

test('schema prints the published JSON Schema, draft-07, with the defaults', () => {
  const r = run(['schema']);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(`${JSON.stringify(policySchema, null, 2)}\n`);
  const schema = JSON.parse(r.stdout) as JsonSchema & { readonly $schema?: string };
  expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  expect(schemaAt(schema, 'spec', 'defaults', 'concurrencyPolicy').default).toBe('Forbid');
  expect(run(['schema', 'extra'])).toEqual({
    code: 2,
    stdout: '',
    stderr: 'unexpected argument "extra"\nRun "backup-cronjobs schema --help" for usage.\n',
  });
});

describe('ajv strict mode', () => {
  test('compiles with every strict check; the only exemption is union types, at the two name-or-object lists', () => {
    // `type: ["string", "object"]` (a node or shard by name, or with its own settings) is plain JSON
    // Schema; ajv's strictTypes only asks to confirm it with allowUnionTypes. Every other strict
    // check (unknown keywords, strictRequired, strictTuples, strictNumbers) runs unexempted.
    const logged: string[] = [];
    const logger = {
      log: (m: string) => logged.push(m),
      warn: (m: string) => logged.push(m),
      error: (m: string) => logged.push(m),
    };
    new Ajv({ strict: true, strictTypes: 'log', logger }).compile(policySchema);
    expect(
      logged.map((m) =>
        m.replace(/^strict mode: use allowUnionTypes to allow union type keyword at ".*#(.*)" \(strictTypes\)$/, '$1'),
      ),
    ).toEqual([
      '/properties/spec/properties/redis/properties/shards/items',
      '/properties/spec/properties/etcd/properties/nodes/items',
    ]);
    expect(() => new Ajv({ strict: true, allowUnionTypes: true }).compile(policySchema)).not.toThrow();
  });

  test('without the exemption, strict mode refuses the union type (the check above can fail)', () => {
    expect(() => new Ajv({ strict: true }).compile(policySchema)).toThrow(/allowUnionTypes/);
  });
});

describe('the example policies carry an editor modeline to the schema next to them', () => {
  const files = readdirSync(examples)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  const committed = readFileSync(join(examples, 'backup-policy.schema.json'), 'utf8');

  test('examples/policies/backup-policy.schema.json is what `schema` prints (regenerate: npx backup-cronjobs schema > examples/policies/backup-policy.schema.json)', () => {
    expect(committed).toBe(run(['schema']).stdout);
  });

  test.each(files)('%s starts with the modeline and validates against that file, as an editor checks it', (file) => {
    const text = readFileSync(join(examples, file), 'utf8');
    expect(text.split('\n')[0]).toBe(MODELINE);
    const validate = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true }).compile(JSON.parse(committed));
    expect(validate(parse(text))).toBe(true);
    expect(validate.errors ?? []).toEqual([]);
  });
});
