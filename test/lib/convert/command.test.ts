// `backup-cronjobs convert FILE...` as the CLI will call it: file texts in, YAML and notes out, exit codes.
import { stringify } from 'yaml';
import { CONVERT_USAGE, runConvert } from '../../../lib/convert/command';
import { convertHint } from '../../../lib/convert';
import { loadPolicies } from '../../../lib/model/load';
import { backupSchedule, cluster, cluster401, openshiftBackup, sentinel, shardedRedisBackup } from './fixtures';

const file = (name: string, ...docs: unknown[]) => ({ name, text: docs.map((d) => stringify(d)).join('---\n') });

test('converts every file, one YAML document per policy, that loads back as the same policies', () => {
  const result = runConvert([
    file('vitess.yaml', cluster401()),
    file('etcd.yaml', openshiftBackup()),
    file('redis.yaml', shardedRedisBackup(), sentinel()),
  ]);
  expect(result.code).toBe(0);
  const policies = loadPolicies(result.stdout, 'out.yaml');
  expect(
    policies.map((p) => [p.metadata.name, Object.keys(p.spec).filter((k) => ['vitess', 'etcd', 'redis'].includes(k))]),
  ).toEqual([
    ['example', ['vitess']],
    ['test-backup', ['etcd']],
    ['backup', ['redis']],
  ]);
  expect(result.stdout.split('\n').filter((l) => l === '---')).toHaveLength(2);
  expect(result.stdout).toMatch(/^# Converted from VitessCluster example\/example by backup-cronjobs convert\.\n/);
});

test('notes go to stderr, one line each, then a summary', () => {
  const { stderr, code } = runConvert([file('etcd.yaml', openshiftBackup())]);
  expect(code).toBe(0);
  const lines = stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(
    /^note: Backup test-backup: spec\.etcd: OpenShift's backup Job reads the client certificate/,
  );
  expect(lines.at(-1)).toBe('convert: 1 BackupPolicy, 1 note(s) above: fields without an equivalent');
});

test('a VitessBackupSchedule in one file joins its VitessCluster in another', () => {
  const own = backupSchedule('hourly', 'example', {
    schedule: '0 * * * *',
    strategies: [{ name: 'c', keyspace: 'commerce', shard: '-' }],
  });
  const { stdout, code } = runConvert([
    file('cluster.yaml', cluster('example', { commerce: 1 })),
    file('schedule.yaml', own),
  ]);
  expect(code).toBe(0);
  expect(loadPolicies(stdout)[0].spec.vitess!.schedules.map((s) => s.name)).toEqual(['hourly']);
});

test('a List (kubectl get -o yaml) stands for its items', () => {
  const { code, stdout } = runConvert([
    file('list.yaml', { apiVersion: 'v1', kind: 'List', items: [openshiftBackup()] }),
  ]);
  expect(code).toBe(0);
  expect(loadPolicies(stdout)[0].metadata.name).toBe('test-backup');
});

test('exit 1 and nothing on stdout for a kind convert does not read, next to one it does', () => {
  const result = runConvert([
    file('mixed.yaml', openshiftBackup(), {
      apiVersion: 'planetscale.com/v2',
      kind: 'VitessShard',
      metadata: { name: 'x', namespace: 'example' },
    }),
  ]);
  expect(result).toMatchObject({ code: 1, stdout: '' });
  expect(result.stderr).toContain(
    'error: VitessShard example/x: kind: received apiVersion "planetscale.com/v2", kind "VitessShard"; convert reads VitessCluster (planetscale.com/v2), ',
  );
  expect(result.stderr.trimEnd().split('\n').at(-1)).toBe('convert: nothing written: 1 error(s)');
});

test('exit 1 for an object that cannot be converted, and for a YAML syntax error', () => {
  expect(runConvert([file('bad.yaml', openshiftBackup({ retentionPolicy: { retentionType: 'x' } }))])).toMatchObject({
    code: 1,
    stdout: '',
  });
  const syntax = runConvert([{ name: 'broken.yaml', text: 'kind: [unclosed\n' }]);
  expect(syntax).toMatchObject({ code: 1, stdout: '' });
  expect(syntax.stderr).toMatch(/^error: broken\.yaml: document 1: YAML syntax: /);
});

test('exit 1 for a repeated key (named with both lines) and for a file over 1.5 MiB (refused unparsed)', () => {
  const repeated = runConvert([{ name: 'twice.yaml', text: 'kind: Backup\nmetadata:\n  name: a\n  name: b\n' }]);
  expect(repeated).toMatchObject({ code: 1, stdout: '' });
  expect(repeated.stderr).toMatch(
    /^error: twice\.yaml:4: document 1: metadata: duplicate key "name" \(first at line 3\)$/m,
  );
  const large = runConvert([{ name: 'large.yaml', text: `# ${'x'.repeat(2 * 1024 * 1024)}\n` }]);
  expect(large).toMatchObject({ code: 1, stdout: '' });
  expect(large.stderr).toMatch(
    /^error: large\.yaml: the input is 2097155 bytes \(2\.0 MiB\); at most 1572864 \(1\.5 MiB, etcd's request limit, which every Kubernetes object fits\) are read: split the input into several files$/m,
  );
});

test('exit 1 for a file with no document', () => {
  const result = runConvert([{ name: 'empty.yaml', text: '' }]);
  expect(result).toMatchObject({ code: 1, stdout: '' });
  expect(result.stderr).toContain('error: empty.yaml: (document): no document; convert reads');
});

test('exit 2 without files', () => {
  expect(runConvert([])).toEqual({ code: 2, stdout: '', stderr: `no files given\nUsage: ${CONVERT_USAGE}\n` });
});

test('validate can point at convert for the kinds it reads', () => {
  expect(convertHint(backupSchedule('s', 'example', {}))).toBe(
    'this is a VitessBackupSchedule (planetscale.com/v2), not a BackupPolicy: `backup-cronjobs convert FILE...` writes the equivalent BackupPolicy',
  );
  expect(convertHint({ apiVersion: 'backup-cronjobs.io/v1alpha1', kind: 'BackupPolicy' })).toBeUndefined();
});
