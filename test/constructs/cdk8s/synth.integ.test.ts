// Runs the real `cdk8s synth` on examples/cdk8s (from cdk8s.yaml) and compares it byte for byte with the CLI.
import { execFileSync } from 'child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { runCli } from '../../../lib/cli';

const root = join(__dirname, '..', '..', '..');

test('cdk8s synth writes the same files and bytes as backup-cronjobs synth', () => {
  const cdk8sOut = mkdtempSync(join(tmpdir(), 'bcj-cdk8s-'));
  const cliOut = mkdtempSync(join(tmpdir(), 'bcj-cli-'));
  execFileSync(join(root, 'node_modules', '.bin', 'cdk8s'), ['synth', '--output', cdk8sOut], {
    cwd: root,
    env: { ...process.env, CDK8S_CHECK_UPGRADE: 'false' },
    stdio: 'pipe',
  });
  const policies = readdirSync(join(root, 'examples', 'policies'))
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => join(root, 'examples', 'policies', f));
  expect(runCli(['synth', ...policies, '--out', cliOut], { stdout: () => undefined, stderr: () => undefined })).toBe(0);
  const files = readdirSync(cliOut).sort();
  expect(files.length).toBeGreaterThanOrEqual(2);
  expect(
    readdirSync(cdk8sOut)
      .filter((f) => f.endsWith('.k8s.yaml'))
      .sort(),
  ).toEqual(files);
  for (const f of files) expect(readFileSync(join(cdk8sOut, f), 'utf8')).toBe(readFileSync(join(cliOut, f), 'utf8'));
}, 120000);
