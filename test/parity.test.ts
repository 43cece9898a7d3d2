// Parity: for every example policy, the CLI, the cdk8s app and the Pulumi
// component emit the same objects, object for object and field for field, in
// the same order; and the CLI's YAML is byte-identical to cdk8s's.
import { Chart, Testing, Yaml } from 'cdk8s';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { parseAllDocuments } from 'yaml';
import { installMocks, canonicalJson, expectedToken, parseUrn, plainInputs, settle } from './constructs/pulumi/harness';
import { runCli } from '../lib/cli';
import { loadPolicies } from '../lib';
import { BackupPolicy as Cdk8sBackupPolicy } from '../constructs/cdk8s';

const registered = installMocks(); // before the Pulumi components are imported

const dir = join(__dirname, '..', 'examples', 'policies');
const files = readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();

function cliSynth(file: string): string {
  let stdout = '';
  let stderr = '';
  const code = runCli(['synth', file], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return stdout;
}

function parseYaml(text: string): unknown[] {
  return parseAllDocuments(text).map((d) => {
    expect(d.errors).toEqual([]);
    return d.toJS() as unknown;
  });
}

test('there are example policies', () => {
  expect(files.length).toBeGreaterThanOrEqual(2);
});

test('the comparison is strict: key order is the only thing it ignores', () => {
  const base = { kind: 'CronJob', spec: { list: ['a'], n: 1 } };
  expect(canonicalJson({ spec: { n: 1, list: ['a'] }, kind: 'CronJob' })).toBe(canonicalJson(base));
  for (const other of [
    { kind: 'CronJob', spec: { list: { 0: 'a' }, n: 1 } }, // an array sent as an object
    { kind: 'CronJob', spec: { list: ['a'], n: '1' } }, // a number as a string
    { kind: 'CronJob', spec: { list: ['a'], n: 1, extra: {} } }, // an extra (empty) field
    { kind: 'CronJob', spec: { list: ['a'] } }, // a missing field
  ])
    expect(canonicalJson(other)).not.toBe(canonicalJson(base));
});

describe.each(files)('%s', (file) => {
  const path = join(dir, file);
  const policies = loadPolicies(readFileSync(path, 'utf8'), path);

  let cliYaml: string;
  let cliObjects: unknown[];
  let app: ReturnType<typeof Testing.app>;
  const cdk8sObjects: unknown[] = [];
  beforeAll(() => {
    // The CLI writes every policy of a file to stdout, one after the other.
    cliYaml = cliSynth(path);
    cliObjects = parseYaml(cliYaml);
    // The cdk8s app of examples/cdk8s/main.ts: one chart per policy, named after it.
    app = Testing.app();
    for (const policy of policies) {
      const chart = new Chart(app, policy.metadata.name);
      new Cdk8sBackupPolicy(chart, 'policy', policy);
      cdk8sObjects.push(...(Testing.synth(chart) as unknown[]));
    }
  });

  test('renders at least one object per policy', () => {
    expect(policies.length).toBeGreaterThan(0);
    expect(cliObjects.length).toBeGreaterThanOrEqual(policies.length);
    expect(cliObjects.every((o) => o !== null && typeof o === 'object')).toBe(true);
  });

  test('cdk8s YAML is byte-identical to the CLI output', () => {
    expect(app.synthYaml()).toBe(cliYaml);
    expect(Yaml.stringify(...cdk8sObjects)).toBe(cliYaml);
  });

  test('cdk8s objects equal the CLI objects, object for object', () => {
    expect(cdk8sObjects.map(canonicalJson)).toEqual(cliObjects.map(canonicalJson));
  });

  test('the objects handed to Pulumi equal the CLI objects, object for object, with typed tokens', async () => {
    const { BackupPolicy } = await import('../constructs/pulumi');
    // without an engine, pulumi.log.warn prints through console.warn: nothing may be warned about
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const pulumiObjects: unknown[] = [];
    for (const policy of policies) {
      const name = `parity-${policy.metadata.name}`;
      const component = new BackupPolicy(name, policy);
      const urns = await settle(component);
      expect(urns.length).toBe(component.manifests.length);
      // typed k8s.batch.v1.CronJob children (the token alone would not tell them from a CustomResource)
      expect(component.cronJobs.length).toBe(component.manifests.filter((m) => m.kind === 'CronJob').length);
      expect(component.cronJobs.length).toBeGreaterThan(0);
      urns.forEach((urn, i) => {
        const { types, name: childName } = parseUrn(urn);
        const calls = registered.filter((r) => r.name === childName);
        expect(calls).toHaveLength(1);
        const [call] = calls;
        const inputs = call.inputs as { apiVersion: string; kind: string };
        expect(types).toEqual(['backup-cronjobs:index:BackupPolicy', call.type]);
        expect(call.type).toBe(expectedToken(inputs.apiVersion, inputs.kind));
        expect(call.custom).toBe(true);
        expect(childName).toBe(`${name}-${inputs.kind.toLowerCase()}-${component.manifests[i].metadata.name}`);
        pulumiObjects.push(plainInputs(call.inputs));
      });
    }
    expect(warn.mock.calls.map((c: unknown[]) => c[0])).toEqual([]);
    warn.mockRestore();
    expect(pulumiObjects.length).toBeGreaterThan(0);
    expect(pulumiObjects.map(canonicalJson)).toEqual(cliObjects.map(canonicalJson));
    expect(pulumiObjects.map(canonicalJson)).toEqual(cdk8sObjects.map(canonicalJson));
  });
});
