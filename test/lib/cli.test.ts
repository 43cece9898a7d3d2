import { mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../../lib/cli';
import { vitessPolicy } from './engines/vitess/fixtures';
import { etcdPolicy } from './engines/etcd/fixtures';

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
    expect(r.stderr).toContain(`${bad}: invalid BackupPolicy (3 problems)`);
    // every problem at once, each with file:line:column
    expect(r.stderr).toContain(`${bad}:3:12: metadata.name: received "Bad"; must be a DNS-1123 label`);
    expect(r.stderr).toContain(`${bad}:4:19: spec.defaults.suspend: expected boolean, received string "maybe"`);
    expect(r.stderr).toContain(`${bad}:4:1: spec: received no engine; set exactly one of: vitess, redis, etcd`);
  });

  test('two inputs rendering the same object: exit 1, naming both sources and the object, nothing written', () => {
    const a = join(dir, 'collide-a.yaml');
    const b = join(dir, 'collide-b.yaml');
    writeFileSync(a, JSON.stringify(etcdPolicy({ mode: 'perNode', nodes: ['b-c'] }, {}, 'a')));
    writeFileSync(b, JSON.stringify(etcdPolicy({ mode: 'perNode', nodes: ['c'] }, {}, 'a-b')));
    for (const command of ['synth', 'validate', 'plan']) {
      const r = run([command, a, b]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`CronJob.batch kube-system/a-b-c is rendered by both ${a} (policy a) and ${b} (policy a-b)`);
    }
  });

  test('--out naming an existing file is a one-line usage error (exit 2), nothing written', () => {
    const file = join(dir, 'not-a-dir');
    writeFileSync(file, 'keep me');
    const r = run(['synth', good, '--out', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`--out ${file}: exists and is not a directory\n`);
    expect(readFileSync(file, 'utf8')).toBe('keep me');
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

describe('backup-cronjobs retention plan', () => {
  const listing = join(dir, 'listing.tsv');
  writeFileSync(listing, [
    '1764381600\t100\tredis-backup_s1_2025-11-29T02:00:00Z.rdb.gz',
    '1764295200\t100\tredis-backup_s1_2025-11-28T02:00:00Z.rdb.gz',
    '1764208800\t100\tredis-backup_s1_2025-11-27T02:00:00Z.rdb.gz',
  ].join('\n') + '\n');

  test('prints what is kept by which rule and what would be deleted', () => {
    const r = run(['retention', 'plan', '--listing', listing, '--keep-last', '2', '--now', '1764400000']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe([
      '# retention plan at 2025-11-29T07:06:40Z (now=1764400000), time zone UTC',
      '# rules: keepLast=2',
      '# backups: 3, keep: 2, delete: 1',
      'keep\t2025-11-29T02:00:00Z\t100\tredis-backup_s1_2025-11-29T02:00:00Z.rdb.gz\tnewest,keepLast',
      'keep\t2025-11-28T02:00:00Z\t100\tredis-backup_s1_2025-11-28T02:00:00Z.rdb.gz\tkeepLast',
      'delete\t2025-11-27T02:00:00Z\t100\tredis-backup_s1_2025-11-27T02:00:00Z.rdb.gz\t-',
      '',
    ].join('\n'));
  });

  test('bad rules are reported by flag, all at once', () => {
    const r = run(['retention', 'plan', '--listing', listing, '--keep-last', '0', '--max-total-size', '5Gb', '--time-zone', 'Local']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^--keep-last: must be an integer from 1 to 100000/m);
    expect(r.stderr).toMatch(/^--max-total-size: received "5Gb"; must be a size: .* \(bits or bytes\?/m);
    expect(r.stderr).toMatch(/^--time-zone: received "Local"/m);
  });
});

test('plan: the next runs of every CronJob, in its time zone', () => {
  const file = join(dir, 'berlin.json');
  const doc = vitessPolicy({}, { defaults: { timeZone: 'Europe/Berlin' } });
  writeFileSync(file, JSON.stringify(doc));
  const r = run(['plan', file, '--from', '2026-12-01T00:00:00Z', '--count', '2']);
  expect(r.code).toBe(0);
  // 02:00 in Berlin in winter (CET, UTC+1) is 01:00Z
  expect(r.stdout).toBe('example/example-daily-commerce-x-x\t0 2 * * * (Europe/Berlin)\t2026-12-01T01:00:00Z  2026-12-02T01:00:00Z\n');
  expect(run(['plan', file, '--count', '0']).code).toBe(2);
});
