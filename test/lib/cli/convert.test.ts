// `backup-cronjobs convert`, and `validate`'s pointer to it for an operator's object.
import { stringify } from 'yaml';
import { openshiftBackup } from '../convert/fixtures';
import { run, tempDir, writePolicy } from './fixtures';

const dir = tempDir('convert');

test('convert prints a BackupPolicy that synth accepts, notes on stderr; stdin works', () => {
  const file = writePolicy(dir, 'backup.yaml', openshiftBackup());
  const r = run(['convert', file]);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^apiVersion: backup-cronjobs\.io\/v1alpha1\nkind: BackupPolicy\n/m);
  expect(r.stderr).toMatch(/^convert: 1 BackupPolicy/m);
  const converted = writePolicy(dir, 'converted.yaml', r.stdout);
  expect(run(['validate', converted]).code).toBe(0);
  expect(run(['convert', '-'], stringify(openshiftBackup())).stdout).toBe(r.stdout);
});

test('an input of another kind: exit 1, nothing on stdout; usage errors exit 2', () => {
  const other = writePolicy(dir, 'cm.yaml', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
  const r = run(['convert', other]);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(run(['convert']).code).toBe(2);
  expect(run(['convert', '--bogus', other]).code).toBe(2);
});

test('validate on an operator object says to convert it', () => {
  const file = writePolicy(dir, 'openshift.yaml', openshiftBackup());
  const r = run(['validate', file]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(
    `${file}: document 1: this is a Backup (config.openshift.io/v1alpha1), not a BackupPolicy: \`backup-cronjobs convert FILE...\` writes the equivalent BackupPolicy`,
  );
});
