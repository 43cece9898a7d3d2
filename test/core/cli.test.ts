import { mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../../lib/cli';
import { vitessPolicy } from '../vitess/fixtures';

function run(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = runCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'bcj-cli-'));
const good = join(dir, 'good.yaml');
const bad = join(dir, 'bad.yaml');
writeFileSync(good, JSON.stringify(vitessPolicy()));
writeFileSync(bad, 'apiVersion: backup-cronjobs.io/v1alpha1\nkind: BackupPolicy\nmetadata: {name: Bad}\nspec: {defaults: {suspend: maybe}}\n');

describe('backup-cronjobs CLI', () => {
  test('synth to stdout: multi-document YAML', () => {
    const r = run(['synth', good]);
    expect(r.code).toBe(0);
    const docs = parseAllDocuments(r.stdout).map((d: any) => d.toJS());
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual(['CronJob/example-daily-commerce-x-x']);
  });

  test('synth --out writes one file per policy, named after it', () => {
    const out = join(dir, 'out');
    const r = run(['synth', good, '--out', out]);
    expect(r.code).toBe(0);
    expect(readdirSync(out)).toEqual(['example.k8s.yaml']);
    expect(readFileSync(join(out, 'example.k8s.yaml'), 'utf8')).toBe(run(['synth', good]).stdout);
  });

  test('any bad input: exit 1, every error on stderr, nothing written', () => {
    const out = join(dir, 'never');
    const r = run(['synth', good, bad, '--out', out]);
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${bad}: invalid BackupPolicy (2 problems)`);
    expect(r.stderr).toContain('metadata.name: received "Bad"; must be a DNS-1123 label');
    expect(r.stderr).toContain('spec.defaults.suspend: expected boolean, received string "maybe"');
  });

  test('a missing file is an error', () => {
    const r = run(['validate', join(dir, 'nope.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/nope\.yaml: cannot read: ENOENT/);
  });

  test('validate checks without writing', () => {
    const r = run(['validate', good]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${good}: valid (1 object)\n`);
  });

  test('usage errors exit 2', () => {
    expect(run(['synth']).code).toBe(2);
    expect(run(['frobnicate']).stderr).toContain('unknown command "frobnicate"');
    expect(run(['synth', good, '--bogus']).stderr).toContain('unknown option "--bogus"');
  });

  test('schema prints the published JSON Schema', () => {
    const schema = JSON.parse(run(['schema']).stdout);
    expect(schema.title).toBe('BackupPolicy');
    expect(schema.properties.spec.properties.defaults.properties.concurrencyPolicy.default).toBe('Forbid');
  });
});
