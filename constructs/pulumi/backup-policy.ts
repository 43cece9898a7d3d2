import * as pulumi from '@pulumi/pulumi';
import { documentSource, readPolicyFile } from '../core';
import { PolicyComponent } from './policy-component';
import type { BackupPolicyArgs } from './args.generated';

/** Options of `BackupPolicy.fromFile` besides the component options. */
export interface BackupPolicyFileArgs {
  /** Replaces the file's `metadata.namespace` before rendering. @default - the file's `metadata.namespace`, else 'default' */
  readonly namespace?: pulumi.Input<string>;
}

/**
 * A BackupPolicy as a Pulumi component (`backup-cronjobs:index:BackupPolicy`):
 * its CronJobs (and the few objects they need) as typed `@pulumi/kubernetes`
 * children. The core validates and renders the whole policy at construction:
 * an invalid policy throws `PolicyError` listing every problem before
 * anything is registered (an Output's value is validated once known).
 */
export class BackupPolicy extends PolicyComponent {
  /** Reads a policy file (YAML or JSON) holding exactly one BackupPolicy. */
  public static fromFile(
    name: string,
    path: string,
    args: BackupPolicyFileArgs = {},
    opts?: pulumi.ComponentResourceOptions,
  ): BackupPolicy {
    const policy = readPolicyFile(path, 'BackupPolicy.fromFile');
    return new BackupPolicy(name, { metadata: policy.metadata, spec: policy.spec, namespace: args.namespace }, opts);
  }

  constructor(name: string, args: BackupPolicyArgs, opts?: pulumi.ComponentResourceOptions) {
    const metadata = args.namespace === undefined ? args.metadata : { ...args.metadata, namespace: args.namespace };
    super('BackupPolicy', name, documentSource(metadata, args.spec), opts);
  }
}
