// cdk8s app: one chart per example policy, named after it; `cdk8s synth` writes <policy>.k8s.yaml.
import { App, Chart } from 'cdk8s';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { loadPolicies } from '../../lib';
import { BackupPolicy } from '../../constructs/cdk8s';

const policiesDir = join(__dirname, '..', 'policies');
const app = new App({ outdir: process.env.CDK8S_OUTDIR ?? 'cdk8s.out' });

for (const file of readdirSync(policiesDir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort()) {
  for (const policy of loadPolicies(readFileSync(join(policiesDir, file), 'utf8'), file)) {
    const chart = new Chart(app, policy.metadata.name);
    new BackupPolicy(chart, 'policy', policy);
  }
}
app.synth();
