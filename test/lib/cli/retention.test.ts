import { join } from 'path';
import { run, tempDir, writePolicy } from './fixtures';

const dir = tempDir('retention');
const LISTING =
  [
    '1764381600\t100\tredis-backup_s1_2025-11-29T02:00:00Z.rdb.gz',
    '1764295200\t100\tredis-backup_s1_2025-11-28T02:00:00Z.rdb.gz',
    '1764208800\t100\tredis-backup_s1_2025-11-27T02:00:00Z.rdb.gz',
  ].join('\n') + '\n';
const listing = writePolicy(dir, 'listing.tsv', LISTING);

const PLAN = [
  '# retention plan at 2025-11-29T07:06:40Z (now=1764400000), time zone UTC',
  '# rules: keepLast=2',
  '# backups: 3, keep: 2, delete: 1',
  'keep\t2025-11-29T02:00:00Z\t100\tredis-backup_s1_2025-11-29T02:00:00Z.rdb.gz\tnewest,keepLast',
  'keep\t2025-11-28T02:00:00Z\t100\tredis-backup_s1_2025-11-28T02:00:00Z.rdb.gz\tkeepLast',
  'delete\t2025-11-27T02:00:00Z\t100\tredis-backup_s1_2025-11-27T02:00:00Z.rdb.gz\t-',
  '',
].join('\n');

test('prints what is kept by which rule and what would be deleted', () => {
  expect(run(['retention', 'plan', '--listing', listing, '--keep-last', '2', '--now', '1764400000'])).toEqual({
    code: 0,
    stdout: PLAN,
    stderr: '',
  });
  expect(run(['retention', 'plan', `--listing=${listing}`, '--keep-last=2', '--now=1764400000']).stdout).toBe(PLAN);
});

test('--now takes the time grammar of every CLI time option: ISO 8601 or epoch seconds give the same plan', () => {
  for (const now of ['2025-11-29T07:06:40Z', '2025-11-29T08:06:40+01:00', '2025-11-29T07:06:40.900Z']) {
    expect(run(['retention', 'plan', '--listing', listing, '--keep-last', '2', '--now', now])).toEqual({
      code: 0,
      stdout: PLAN,
      stderr: '',
    });
  }
  expect(run(['retention', 'plan', '--help']).stdout).toMatch(/^TIME is ISO 8601 with Z or an offset/m);
});

test('--listing - reads the listing from standard input', () => {
  expect(run(['retention', 'plan', '--listing', '-', '--keep-last', '2', '--now', '1764400000'], LISTING)).toEqual({
    code: 0,
    stdout: PLAN,
    stderr: '',
  });
});

test('bad rules are reported by flag, all at once (exit 1)', () => {
  const r = run([
    'retention',
    'plan',
    '--listing',
    listing,
    '--keep-last',
    '0',
    '--max-total-size',
    '5Gb',
    '--time-zone',
    'Local',
    '--now',
    'yesterday',
  ]);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/^--keep-last: must be an integer from 1 to 100000/m);
  expect(r.stderr).toMatch(/^--max-total-size: received "5Gb"; must be a size: .* \(bits or bytes\?/m);
  expect(r.stderr).toMatch(/^--time-zone: received "Local"/m);
  expect(r.stderr).toMatch(
    /^--now: received "yesterday"; a time: ISO 8601 with Z or an offset \(2026-12-01T03:00:00Z, .*\), or epoch seconds \(1796083200\)$/m,
  );
  expect(run(['retention', 'plan', '--listing', join(dir, 'none.tsv')]).stderr).toMatch(
    /none\.tsv: cannot read: ENOENT/,
  );
});

test.each([
  [['retention'], 'retention needs a command: plan', 'retention'],
  [['retention', 'prune'], 'unknown retention command "prune"; the only one is: plan', 'retention'],
  [['retention', 'plan', '--keep-last', '2'], '--listing FILE is required (- for standard input)', 'retention plan'],
  [
    ['retention', 'plan', '--listing', listing, '--keep-lats', '2'],
    'unknown option "--keep-lats" (did you mean --keep-last?)',
    'retention plan',
  ],
  [['retention', 'plan', '--listing', listing, 'extra'], 'unexpected argument "extra"', 'retention plan'],
])('usage error %j: exit 2', (args, message, command) => {
  expect(run(args)).toEqual({
    code: 2,
    stdout: '',
    stderr: `${message}\nRun "backup-cronjobs ${command} --help" for usage.\n`,
  });
});
