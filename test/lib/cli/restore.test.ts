// `restore` as a command: what it prints where, which policy of a file, the
// engines without a restore Job, and its exit codes. The etcd Job itself is
// tested in test/lib/engines/etcd/restore.test.ts, and run for real in its
// scripts tests.
import { parseAllDocuments } from 'yaml';
import { resolvePolicy, restoreJob } from '../../../lib';
import type { Manifest } from '../../../lib';
import { expectValidManifests } from '../../support/k8s-validate';
import { etcdPolicy } from '../engines/etcd/fixtures';
import { redisPolicy } from '../engines/redis/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { BAD_POLICY, run, tempDir, writePolicy } from './fixtures';

const dir = tempDir('restore');
const SNAPSHOT = 'etcd-snapshot_etcd_2026-01-01T00:00:00Z_cp-1.db';
const members = 'cp-1=https://10.0.0.1:2380,cp-2=https://10.0.0.2:2380';
const etcd = etcdPolicy({ mode: 'perNode', nodes: ['cp-1', 'cp-2'], restore: { initialCluster: members } });
const etcdFile = writePolicy(dir, 'etcd.yaml', etcd);
const expected = () => {
  const outcome = restoreJob(resolvePolicy(etcd), { target: 'cp-2', snapshot: SNAPSHOT });
  if (outcome.kind !== 'job') throw new Error(`expected a Job, got ${outcome.kind}`);
  return outcome.job;
};

test('prints the Job as one YAML document on stdout (kubectl apply -f - takes it), how to follow it on stderr', () => {
  const r = run(['restore', etcdFile, '--target', 'cp-2', '--snapshot', SNAPSHOT]);
  expect(r.code).toBe(0);
  const docs = parseAllDocuments(r.stdout);
  expect(Array.isArray(docs) && docs.length).toBe(1);
  const job = (docs as { toJS(): unknown }[])[0].toJS() as Manifest;
  expect(job).toEqual(expected());
  expectValidManifests([job]);
  expect(r.stderr).toBe(
    `apply it with kubectl apply -f - (or save it and kubectl apply -f FILE), then follow it: kubectl -n kube-system logs -f job/${job.metadata.name} --all-containers\n`,
  );
});

test('-o json prints the Job object itself, as kubectl get job -o json does', () => {
  const r = run(['restore', etcdFile, '--target', 'cp-2', '--snapshot', SNAPSHOT, '-o', 'json']);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual(expected());
});

test('- reads the policy from standard input; notes of the engine go to stderr', () => {
  const single = etcdPolicy({ mode: 'perNode', nodes: ['cp-1', 'cp-2'] });
  const r = run(['restore', '-', '--target', 'cp-1', '--snapshot', SNAPSHOT], JSON.stringify(single));
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(
    /^note: spec\.etcd\.restore\.initialCluster is not set: cp-1 restores as a one-member cluster\./,
  );
});

test('a file of several policies: --policy names one', () => {
  const other = etcdPolicy({ mode: 'perNode', nodes: ['cp-1'] }, {}, 'other');
  const both = writePolicy(dir, 'both.yaml', `${JSON.stringify(etcd)}\n---\n${JSON.stringify(other)}\n`);
  expect(run(['restore', both, '--target', 'cp-2', '--snapshot', SNAPSHOT])).toEqual({
    code: 2,
    stdout: '',
    stderr: `${both} has 2 policies: name one with --policy (etcd, other)\nRun "backup-cronjobs restore --help" for usage.\n`,
  });
  expect(
    JSON.parse(
      run(['restore', both, '--policy', 'etcd', '--target', 'cp-2', '--snapshot', SNAPSHOT, '-o', 'json']).stdout,
    ),
  ).toEqual(expected());
  expect(run(['restore', both, '--policy', 'nope', '--target', 'cp-2', '--snapshot', SNAPSHOT]).stderr).toBe(
    `--policy: received "nope"; ${both} has: etcd, other\nRun "backup-cronjobs restore --help" for usage.\n`,
  );
});

test('flags that do not fit the policy: exit 2, every problem, nothing on stdout', () => {
  const r = run([
    'restore',
    etcdFile,
    '--target',
    'cp-9',
    '--snapshot',
    'etcd-snapshot_other_2026-01-01T00:00:00Z_cp-1.db',
  ]);
  expect(r).toEqual({
    code: 2,
    stdout: '',
    stderr: [
      '--target: received "cp-9"; must be a node of spec.etcd.nodes: cp-1, cp-2',
      '--snapshot: received "etcd-snapshot_other_2026-01-01T00:00:00Z_cp-1.db"; a snapshot of this policy is named etcd-snapshot_etcd_<time>_<node>.db, or .age after that when encrypted',
      'Run "backup-cronjobs restore --help" for usage.',
      '',
    ].join('\n'),
  });
});

test.each([
  [
    'vitess',
    vitessPolicy(),
    /^policy example \(vitess\) has no restore Job\. Vitess restores its own backups, so there is no restore Job: a vttablet started with --restore_from_backup /,
  ],
  [
    'redis',
    redisPolicy(),
    /^policy redis \(redis\) has no restore Job\. A Redis restore replaces a server's data .*redis-check-rdb dump\.rdb.*\(docs\/operations\/restore\.md, Redis\)\.\n$/,
  ],
])('%s has no restore Job: exit 2, saying how its backups are restored instead', (_, policy, message) => {
  const r = run(['restore', writePolicy(dir, `${_}.yaml`, policy), '--target', 'x', '--snapshot', 'x']);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(message);
});

test('an invalid policy: exit 1 with its problems', () => {
  const r = run(['restore', writePolicy(dir, 'bad.yaml', BAD_POLICY), '--target', 'x', '--snapshot', 'x']);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('bad.yaml: invalid BackupPolicy (3 problems)');
});

test.each([
  [
    ['restore', etcdFile, '--target', 'cp-1'],
    '--snapshot NAME is required: the backup to restore (or --time for a point in time)',
  ],
  [
    ['restore', etcdFile, '--time', '2025-02-26T02:20:00Z'],
    '--time: the etcd engine has no point-in-time restore; restore a backup with --snapshot',
  ],
  [['restore', '--snapshot', SNAPSHOT], 'no policy file given (a file name, or - for standard input)'],
  [['restore', etcdFile, etcdFile, '--snapshot', SNAPSHOT], `one policy file, received 2: ${etcdFile} ${etcdFile}`],
  [['restore', etcdFile, '--snapshot', SNAPSHOT, '-o', 'table'], '-o, --output: received "table"; allowed: yaml, json'],
  [['restore', etcdFile, '--snapshot', SNAPSHOT, '--suspend'], 'unknown option "--suspend"'],
])('usage error %j: exit 2', (args, message) => {
  expect(run(args)).toEqual({
    code: 2,
    stdout: '',
    stderr: `${message}\nRun "backup-cronjobs restore --help" for usage.\n`,
  });
});
