import { join } from 'path';
import { etcdPolicy } from '../engines/etcd/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { BAD_POLICY, run, tempDir, writePolicy } from './fixtures';

const dir = tempDir('validate');
const good = writePolicy(dir, 'good.yaml', vitessPolicy());

test('one line per valid file, counting its objects; nothing rendered to stdout', () => {
  const etcd = writePolicy(dir, 'etcd.yaml', etcdPolicy({ mode: 'perNode', nodes: ['a', 'b'] }));
  expect(run(['validate', good, etcd])).toEqual({
    code: 0,
    stdout: `${good}: valid (2 objects)\n${etcd}: valid (3 objects)\n`,
    stderr: '',
  });
  expect(run(['validate', '-'], JSON.stringify(vitessPolicy()))).toEqual({
    code: 0,
    stdout: '<stdin>: valid (2 objects)\n',
    stderr: '',
  });
});

test('invalid or unreadable files: exit 1, every problem, no line for the valid ones', () => {
  const bad = writePolicy(dir, 'bad.yaml', BAD_POLICY);
  const r = run(['validate', good, bad, join(dir, 'nope.yaml')]);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain(`${bad}: invalid BackupPolicy (3 problems)`);
  expect(r.stderr).toMatch(/nope\.yaml: cannot read: ENOENT/);
});

test('usage errors exit 2', () => {
  expect(run(['validate']).code).toBe(2);
  expect(run(['validate', good, '-o', 'json'])).toEqual({
    code: 2,
    stdout: '',
    stderr: 'unknown option "-o"\nRun "backup-cronjobs validate --help" for usage.\n',
  });
});
