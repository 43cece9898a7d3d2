// Policy files: every problem with its file position; hostile YAML ends in a PolicyError.
import { PolicyError, loadPolicies } from '../../../lib';
import { MAX_INPUT_BYTES } from '../../../lib/model/yaml-input';
import { at, list, obj } from '../../support/json-paths';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { stringify } from 'yaml';

function problems(text: string): string[] {
  try {
    loadPolicies(text, 'policy.yaml');
  } catch (e) {
    expect(e).toBeInstanceOf(PolicyError);
    return (e as PolicyError).message
      .split('\n')
      .slice(1)
      .map((l) => l.trim());
  }
  throw new Error('expected a PolicyError');
}

test('every problem of a file names file:line:column, schema and semantic ones in one pass', () => {
  const doc = obj(
    vitessPolicy({}, { defaults: { schedule: '0 0 31 2 *', concurrencyPolicy: 'forbid', timeZone: 'Europe/Berln' } }),
    'the policy',
  );
  list(at(doc, 'spec.vitess.schedules.0').strategies, 'strategies').push({ keyspace: 'commerce', shards: ['-'] });
  at(doc, 'spec.vitess').schedul = 'x';
  const text = stringify(doc);
  const lines = text.split('\n');
  const lineOf = (needle: string) => lines.findIndex((l) => l.includes(needle)) + 1;
  const found = problems(text);
  expect(found).toHaveLength(5);
  expect(found).toEqual(
    expect.arrayContaining([
      `policy.yaml:${lineOf('concurrencyPolicy')}:5: spec.defaults.concurrencyPolicy: received "forbid" (did you mean "Forbid"?); allowed: "Forbid", "Allow", "Replace"`,
      expect.stringMatching(
        new RegExp(
          `^policy\\.yaml:${lineOf('schedul:')}:5: spec\\.vitess\\.schedul: unknown field \\(did you mean "schedules"\\?\\)`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^policy\\.yaml:${lineOf('schedule:')}:5: spec\\.defaults\\.schedule: received "0 0 31 2 \\*"; schedule never runs`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^policy\\.yaml:${lineOf('timeZone')}:5: spec\\.defaults\\.timeZone: received "Europe/Berln"; .*\\(did you mean "Europe/Berlin"\\?\\)`,
        ),
      ),
      expect.stringMatching(
        /^policy\.yaml:\d+:\d+: spec\.vitess\.schedules\[0\]\.strategies\[1\]\.shards\[0\]: received "-"; commerce\/- is already listed/,
      ),
    ]),
  );
});

test('a "billion laughs" alias bomb is a PolicyError, not a stack trace', () => {
  const bomb = [
    'a: &a ["x","x","x","x","x","x","x","x","x"]',
    ...'bcdefghij'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefghij'[i]}`).join(',')}]`),
  ].join('\n');
  const found = problems(bomb);
  expect(found).toEqual([
    expect.stringMatching(
      /^policy\.yaml:1:1: \(document\): cannot read the document: .*aliases expand to more than 100 nodes/,
    ),
  ]);
});

test('YAML syntax errors and problems of several documents are all reported, each with its document', () => {
  const good = stringify(vitessPolicy());
  const bad = stringify({ ...vitessPolicy(), metadata: { name: 'Bad' } });
  const found = problems(`${good}---\n${bad}---\nkey: [unclosed\n`);
  expect(found).toEqual([
    expect.stringMatching(/^policy\.yaml:\d+:\d+: document 2: metadata\.name: received "Bad"/),
    expect.stringMatching(/^policy\.yaml:\d+:\d+: document 3: YAML syntax: /),
  ]);
});

test('problems are listed in file order, whatever order the checks found them in', () => {
  const doc = obj(
    vitessPolicy({ cluster: 'Bad' }, { defaults: { concurrencyPolicy: 'forbid', schedule: '0 0 31 2 *' } }),
    'the policy',
  );
  at(doc, 'metadata').name = 'Bad_Name';
  const found = problems(stringify(doc));
  const lines = found.map((p) => Number(/^policy\.yaml:(\d+):/.exec(p)![1]));
  expect(found.length).toBeGreaterThanOrEqual(4);
  expect(lines).toEqual([...lines].sort((a, b) => a - b));
});

describe('large input', () => {
  const head = 'apiVersion: backup-cronjobs.io/v1alpha1\nkind: BackupPolicy\nmetadata:\n  name: etcd\n  labels:\n';
  const tail = 'spec:\n  etcd:\n    mode: cluster\n    destination:\n      hostPath: {}\n';
  const labels = (n: number) => Array.from({ length: n }, (_, i) => `    k${i}: v\n`).join('');

  test('a file over 1.5 MiB is refused before it is parsed, with its size and the limit', () => {
    const text = `${head}${labels(200_000)}${tail}`;
    expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_INPUT_BYTES);
    expect(problems(text)).toEqual([
      `(file): the input is ${Buffer.byteLength(text)} bytes (${(Buffer.byteLength(text) / 1048576).toFixed(1)} MiB); at most 1572864 (1.5 MiB, etcd's request limit, which every Kubernetes object fits) are read: split the input into several files`,
    ]);
    // multi-byte characters count as bytes
    expect(problems(`# ${'é'.repeat(MAX_INPUT_BYTES / 2)}\n`)[0]).toMatch(/^\(file\): the input is 1572867 bytes/);
  });

  test('a repeated key in an 80,000-key map is named with both lines; every repeated key at once', () => {
    const text = `${head}${labels(80_000)}    k17: again\n${tail}  etcd: {}\n`;
    const labelLine = (i: number) => 6 + i;
    const last = text.split('\n').length - 1;
    expect(problems(text)).toEqual([
      `policy.yaml:${labelLine(80_000)}:5: metadata.labels: duplicate key "k17" (first at line ${labelLine(17)}); a key appears once per map`,
      `policy.yaml:${last}:3: spec: duplicate key "etcd" (first at line ${last - 4}); a key appears once per map`,
    ]);
  });
});
