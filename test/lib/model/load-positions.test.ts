// Problem positions in big documents: one problem at the start, the middle or the end of an 80,000-key label
// map (YAML block map, YAML flow map, JSON) or of a 10,000-shard policy, and all of them at once, each named
// at its own line:column. The loader parses a document once and looks every problem up in that parse
// (bench/parse-bench.js measures that a bad file takes about as long as a good one; no test times anything).
import { stringify } from 'yaml';
import { PolicyError, loadPolicies } from '../../../lib';

/** bench/policy.js's policy (keyspaces of 100 shards each), the fields this test changes. */
interface ShardsPolicy {
  metadata: { name: string };
  spec: { vitess: { schedules: { strategies: { shards: string[] }[] }[] } };
}
const { benchPolicy } = require('../../../bench/policy') as { benchPolicy: (shards: number) => ShardsPolicy };

const LABEL_VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const NAME_RULE =
  'must be a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit';
const BUCKET_RULE = 'must be a string matching ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$';
const RANGE_RULE = 'must be a string matching ^([0-9a-f]*)-([0-9a-f]*)$';

type Where = 'start' | 'middle' | 'end';
const KEYS = 80_000;
const MIDDLE_KEY = `k${String(KEYS / 2).padStart(6, '0')}`;

/** An etcd policy to S3 with KEYS labels; each of `bad` puts a problem there. */
function labelPolicy(bad: readonly Where[]): object {
  const labels: Record<string, string> = {};
  for (let i = 0; i < KEYS; i++) labels[`k${String(i).padStart(6, '0')}`] = 'v';
  if (bad.includes('middle')) labels[MIDDLE_KEY] = '-bad-';
  return {
    apiVersion: 'backup-cronjobs.io/v1alpha1',
    kind: 'BackupPolicy',
    metadata: { name: bad.includes('start') ? 'Bad_Name' : 'etcd', labels },
    spec: {
      defaults: { schedule: '0 3 * * *' },
      etcd: {
        mode: 'cluster',
        destination: {
          s3: {
            bucket: bad.includes('end') ? 'ab' : 'etcd-backups',
            region: 'us-east-1',
            credentialsSecret: { name: 's3' },
          },
        },
      },
    },
  };
}

/** The problem lines of loading `text` (without the head line). */
function problems(text: string): string[] {
  try {
    loadPolicies(text, 'big.yaml');
  } catch (e) {
    expect(e).toBeInstanceOf(PolicyError);
    return (e as PolicyError).message.split('\n').slice(1);
  }
  throw new Error('expected a PolicyError');
}

/** `line:column` (1-based) of the `nth` occurrence (from 1) of `needle` in `text`, found without the parser. */
function positionOf(text: string, needle: string, nth = 1): string {
  let offset = -1;
  for (let i = 0; i < nth; i++) offset = text.indexOf(needle, offset + 1);
  if (offset < 0) throw new Error(`${needle} not in the text`);
  const before = text.slice(0, offset);
  return `${before.split('\n').length}:${offset - before.lastIndexOf('\n')}`;
}

type Format = readonly [string, (doc: object) => string, (key: string) => string];
const FORMATS: readonly Format[] = [
  ['YAML block maps', (doc) => stringify(doc), (key) => `${key}:`],
  ['JSON', (doc) => JSON.stringify(doc, null, 1), (key) => `"${key}":`],
  // every map on one line: positions are columns of that line
  ['YAML flow maps', (doc) => stringify(doc, { collectionStyle: 'flow', lineWidth: 0 }), (key) => `${key}:`],
];

/** The problem line of each place, its position found in `text` by its key (`key` writes it as the format does). */
const expected = (text: string, key: (k: string) => string): Record<Where, string> => ({
  start: `  big.yaml:${positionOf(text, key('name'))}: metadata.name: received "Bad_Name"; ${NAME_RULE}`,
  middle: `  big.yaml:${positionOf(text, key(MIDDLE_KEY))}: metadata.labels.${MIDDLE_KEY}: received "-bad-"; ${LABEL_VALUE_RULE}`,
  end: `  big.yaml:${positionOf(text, key('bucket'))}: spec.etcd.destination.s3.bucket: received "ab"; ${BUCKET_RULE}`,
});

test.each<Where>(['start', 'middle', 'end'])(
  'an 80,000-key label map, one problem at its %s: named at its line and column',
  (where) => {
    const [, format, key] = FORMATS[0];
    const text = format(labelPolicy([where]));
    expect(problems(text)).toEqual([expected(text, key)[where]]);
  },
);

test.each(FORMATS)(
  'an 80,000-key label map in %s: problems at its start, middle and end, in file order',
  (_, format, key) => {
    const text = format(labelPolicy(['start', 'middle', 'end']));
    const all = expected(text, key);
    expect(problems(text)).toEqual([all.start, all.middle, all.end]);
  },
);

test('the YAML block map positions are the lines of the keys (80,000 labels from line 6)', () => {
  const text = stringify(labelPolicy(['start', 'middle', 'end']));
  expect(problems(text).map((p) => /^ {2}big\.yaml:(\d+:\d+):/.exec(p)?.[1])).toEqual([
    '4:3',
    `${6 + KEYS / 2}:5`,
    `${6 + KEYS + 7}:9`,
  ]);
});

describe('a 10,000-shard Vitess policy', () => {
  /** bench/policy.js's policy with an upper-case key range in the first shard of the middle keyspace and in the last shard. */
  function shardsText(bad: readonly Where[]): string {
    const policy = benchPolicy(10_000);
    const strategies = policy.spec.vitess.schedules[0].strategies;
    if (bad.includes('start')) policy.metadata.name = 'Bad_Name';
    if (bad.includes('middle')) strategies[50].shards[0] = strategies[50].shards[0].toUpperCase();
    if (bad.includes('end')) strategies[99].shards[99] = strategies[99].shards[99].toUpperCase();
    return stringify(policy);
  }
  // the upper-case ranges appear once in the text (each is also a range of another keyspace in lower case)
  const expected = (text: string): Record<Where, () => string> => ({
    start: () => `  big.yaml:${positionOf(text, 'name:')}: metadata.name: received "Bad_Name"; ${NAME_RULE}`,
    middle: () =>
      `  big.yaml:${positionOf(text, '-028F')}: spec.vitess.schedules[0].strategies[50].shards[0]: received "-028F"; ${RANGE_RULE}`,
    end: () =>
      `  big.yaml:${positionOf(text, 'FD70-')}: spec.vitess.schedules[0].strategies[99].shards[99]: received "FD70-"; ${RANGE_RULE}`,
  });

  test.each<Where>(['start', 'middle', 'end'])('one problem at its %s: named at its line and column', (where) => {
    const text = shardsText([where]);
    expect(problems(text)).toEqual([expected(text)[where]()]);
  });

  test('the three problems at once, in file order', () => {
    const text = shardsText(['start', 'middle', 'end']);
    const all = expected(text);
    expect(problems(text)).toEqual([all.start(), all.middle(), all.end()]);
  });
});

test('a problem in the second document, after an 80,000-key first one, is at its line in the file', () => {
  const second = { ...labelPolicy(['end']), metadata: { name: 'etcd2' } };
  const text = `${stringify(labelPolicy([]))}---\n${stringify(second)}`;
  expect(problems(text)).toEqual([
    `  big.yaml:${positionOf(text, 'bucket:', 2)}: document 2: spec.etcd.destination.s3.bucket: received "ab"; ${BUCKET_RULE}`,
  ]);
});
