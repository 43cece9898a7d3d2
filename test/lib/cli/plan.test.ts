import { readFileSync, readdirSync } from 'fs';
import { join } from 'path';
import { resolvePolicy } from '../../../lib';
import { planPolicies } from '../../../lib/model/plan';
import { planSvg } from '../../../lib/model/plan-svg';
import { etcdPolicy } from '../engines/etcd/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { run, tempDir, writePolicy } from './fixtures';

/** What `plan -o json` prints: the fields read here (the plan, its dates as ISO strings). */
interface PlanJson {
  readonly from: string;
  readonly to: string;
  readonly cronJobs: unknown[];
  readonly warnings: { readonly kind: string }[];
}

const dir = tempDir('plan');
const DAY = 24 * 3_600_000;
// two nodes 5 minutes apart with 15-minute windows, in one serialization group
const etcd = etcdPolicy(
  { mode: 'perNode', nodes: ['cp-1', 'cp-2'] },
  { defaults: { schedule: '0 3 * * *', stagger: { window: '10m' } } },
);
const etcdFile = writePolicy(dir, 'etcd.yaml', etcd);
const berlin = writePolicy(dir, 'berlin.yaml', vitessPolicy({}, { defaults: { timeZone: 'Europe/Berlin' } }));

test('text: every CronJob with its schedules, time zone, window, group, node and next runs; then the warnings', () => {
  const r = run(['plan', etcdFile, '--from', '2026-12-01T00:00:00Z', '--count', '2', '--horizon', '2d']);
  expect(r).toEqual({
    code: 0,
    stderr: '',
    stdout: [
      'Plan from 2026-12-01T00:00Z to 2026-12-03T00:00Z (horizon 2d); times in UTC',
      '',
      'kube-system/etcd-cp-1',
      '  schedule   0 3 * * *, time zone UTC (not set)',
      '  window     15m per run (timeout: activeDeadlineSeconds 900)',
      '  group      etcd-snapshot (scope cluster)',
      '  node       cp-1',
      '  next runs  2026-12-01T03:00Z–03:15Z  2026-12-02T03:00Z–03:15Z',
      '',
      'kube-system/etcd-cp-2',
      '  schedule   5 3 * * * (written 0 3 * * *), time zone UTC (not set)',
      '  window     15m per run (timeout: activeDeadlineSeconds 900)',
      '  group      etcd-snapshot (scope cluster)',
      '  node       cp-2',
      '  next runs  2026-12-01T03:05Z–03:20Z  2026-12-02T03:05Z–03:20Z',
      '',
      'Warnings (1):',
      '  overlap   kube-system/etcd-cp-1 and kube-system/etcd-cp-2, serialization group etcd-snapshot (scope cluster): 2 pairs of runs overlap ' +
        '(first 2026-12-01T03:00Z–03:15Z and 2026-12-01T03:05Z–03:20Z); a pod of the group waits (Pending) while another runs, and its timeout keeps counting',
      '',
    ].join('\n'),
  });
});

test('a time zone: runs in UTC, the zone named, DST changes within the horizon warned about', () => {
  const r = run(['plan', berlin, '--from', '2026-10-24T00:00:00Z', '--count', '2', '--horizon', '3d']);
  expect(r.code).toBe(0);
  // runs strictly after --from: on the 25th the first of two 02:00s (still CEST, UTC+2), on the 26th 02:00 CET (UTC+1)
  expect(r.stdout).toContain('  schedule   0 2 * * *, time zone Europe/Berlin\n');
  expect(r.stdout).toContain('  next runs  2026-10-25T00:00Z–02:00Z  2026-10-26T01:00Z–03:00Z\n');
  expect(r.stdout).toContain(
    '  dst       example/example-daily-commerce-x-x: 02:00 local time occurs twice in Europe/Berlin on 2026-10-25 ' +
      '(clocks go back from 03:00 to 02:00): it runs once, at the first (00:00Z)\n',
  );
});

test('--from takes the time grammar of every CLI time option: epoch seconds, a date and an offset give the same plan', () => {
  const plan = (from: string) => run(['plan', etcdFile, '--from', from, '--count', '2', '--horizon', '2d']);
  const iso = plan('2026-12-01T00:00:00Z');
  expect(iso.code).toBe(0);
  for (const from of ['1796083200', '2026-12-01', '2026-12-01T01:00+01:00']) expect(plan(from)).toEqual(iso);
});

test('-o json: the same plan for programs', () => {
  const r = run(['plan', etcdFile, '--from', '2026-12-01T00:00:00Z', '--count', '1', '--horizon', '2d', '-o', 'json']);
  expect(r.code).toBe(0);
  const json = JSON.parse(r.stdout) as PlanJson;
  expect(json.from).toBe('2026-12-01T00:00:00.000Z');
  expect(json.to).toBe('2026-12-03T00:00:00.000Z');
  expect(json.cronJobs[1]).toEqual({
    namespace: 'kube-system',
    name: 'etcd-cp-2',
    policy: 'etcd',
    component: 'backup',
    schedule: { written: '0 3 * * *', resolved: '5 3 * * *', timeZone: null },
    suspended: false,
    windowSeconds: 900,
    serializationGroup: { name: 'etcd-snapshot', scope: 'cluster' },
    node: 'cp-2',
    nextRuns: [{ start: '2026-12-01T03:05:00.000Z', end: '2026-12-01T03:20:00.000Z' }],
    runsInHorizon: 2,
  });
  expect(json.warnings.map((w) => w.kind)).toEqual(['overlap']);
});

test('--svg FILE writes the picture of --span from --from (the plan still printed)', () => {
  const file = join(dir, 'plan.svg');
  const r = run(['plan', etcdFile, '--from', '2026-12-01T00:00:00Z', '--svg', file, '--span', 'week']);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe(`wrote ${file}\n`);
  expect(r.stdout).toMatch(/^Plan from /);
  const expected = planSvg(
    planPolicies([resolvePolicy(etcd)], { from: new Date('2026-12-01T00:00:00Z'), count: 3, horizon: 31 * DAY }),
    'week',
  );
  expect(readFileSync(file, 'utf8')).toBe(expected);
});

test('- reads a policy from standard input; with two inputs rendering one object, the plan is printed and it exits 1', () => {
  expect(run(['plan', '-', '--from', '2026-12-01T00:00:00Z', '--horizon', '1d'], JSON.stringify(etcd)).stdout).toBe(
    run(['plan', etcdFile, '--from', '2026-12-01T00:00:00Z', '--horizon', '1d']).stdout,
  );
  const a = writePolicy(dir, 'collide-a.yaml', etcdPolicy({ mode: 'perNode', nodes: ['b-c'] }, {}, 'a'));
  const b = writePolicy(dir, 'collide-b.yaml', etcdPolicy({ mode: 'perNode', nodes: ['c'] }, {}, 'a-b'));
  const r = run(['plan', a, b, '--from', '2026-12-01T00:00:00Z', '--horizon', '1d']);
  expect(r.code).toBe(1);
  const collision = `CronJob.batch kube-system/a-b-c is rendered by both ${a} (policy a) and ${b} (policy a-b): give the policies (or their targets) distinct names or namespaces`;
  expect(r.stderr).toBe(`${collision}\n`);
  expect(r.stdout).toContain(`  collision ${collision}\n`);
});

test.each([
  [['--count', '0'], '--count: received "0"; a whole number from 1 to 999'],
  [
    ['--from', 'tomorrow'],
    '--from: received "tomorrow"; a time: ISO 8601 with Z or an offset (2026-12-01T03:00:00Z, 2026-12-01T04:00+01:00), a date (2026-12-01: 00:00 UTC), or epoch seconds (1796083200)',
  ],
  [['--horizon', '2 days'], '--horizon: received "2 days"; '],
  [['--horizon', '500d'], '--horizon: received "500d"; must be more than 0s and at most 400d'],
  [['--span', 'week'], '--span sets what the --svg picture shows: give --svg FILE too'],
  [['--svg', 'x.svg', '--span', 'month'], '--span: received "month"; allowed: day, week'],
  [
    ['--svg', 'x.svg', '--span', 'week', '--horizon', '1d'],
    '--horizon 1d is shorter than --span week: the picture shows every run of the week',
  ],
  [['-o', 'yaml'], '-o, --output: received "yaml"; allowed: text, json'],
])('usage error %j: exit 2', (args, message) => {
  const r = run(['plan', etcdFile, ...args]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.startsWith(message)).toBe(true);
  expect(r.stderr).toMatch(/Run "backup-cronjobs plan --help" for usage\.\n$/);
});

test('a horizon holding more runs than the plan takes is a usage error naming the limit', () => {
  const minutely = writePolicy(
    dir,
    'minutely.yaml',
    etcdPolicy({}, { defaults: { schedule: '* * * * *', timeout: '30s' } }),
  );
  const r = run(['plan', minutely, '--horizon', '100d']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(
    /runs more than 100000 times .*: at most 100000 runs per CronJob are planned; give a shorter --horizon\n/,
  );
});

describe('the shipped examples plan clean: no overlapping runs, no DST change, over a year from two starting points', () => {
  const examples = join(__dirname, '..', '..', '..', 'examples', 'policies');
  const files = readdirSync(examples)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
  test.each(files)('%s', (file) => {
    for (const from of ['2026-01-01T00:00:00Z', '2026-07-01T00:00:00Z']) {
      const r = run(['plan', join(examples, file), '--from', from, '--horizon', '365d', '-o', 'json']);
      expect(r.code).toBe(0);
      expect({ file, from, warnings: (JSON.parse(r.stdout) as PlanJson).warnings }).toEqual({
        file,
        from,
        warnings: [],
      });
    }
  });
});
