// Pulumi program: one BackupPolicy component per example policy (the same
// files as the cdk8s app in examples/cdk8s/main.ts), named after the policy.
// Run from the repository root: `pulumi preview` / `pulumi up` (see docs/frontends/pulumi.md).
import type * as pulumi from '@pulumi/pulumi';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { loadPolicies } from '../../lib';
import { BackupPolicy } from '../../constructs/pulumi';

const policiesDir = join(__dirname, '..', 'policies');

const policies: Record<string, BackupPolicy> = {};
for (const file of readdirSync(policiesDir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort()) {
  for (const policy of loadPolicies(readFileSync(join(policiesDir, file), 'utf8'), file)) {
    policies[policy.metadata.name] = new BackupPolicy(policy.metadata.name, policy);
  }
}

/** Stack output: policy name → the names of its CronJobs. */
export const cronJobNames: Record<string, pulumi.Output<string[]>> = Object.fromEntries(
  Object.entries(policies).map(([name, component]) => [name, component.cronJobNames]),
);
