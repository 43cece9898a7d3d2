import * as pulumi from '@pulumi/pulumi';
import { readFileSync } from 'fs';
import { API_VERSION, KIND, loadPolicies } from '../../lib';
import type { BackupPolicySpec, PolicyMetadata } from '../../lib';
import { PolicyComponent } from './policy-component';

/** A whole BackupPolicy document (without apiVersion and kind), as the cdk8s `BackupPolicyProps`. */
export interface BackupPolicyArgs {
  readonly metadata: PolicyMetadata;
  readonly spec: BackupPolicySpec;
  /**
   * Replaces `metadata.namespace` before rendering, so the objects are exactly
   * what the core renders for that namespace (object namespaces and the
   * default namespace of pod (anti-)affinity terms alike).
   * @default - `metadata.namespace`, else 'default'
   */
  readonly namespace?: string;
}

/** Options of `BackupPolicy.fromFile` besides the component options. */
export interface BackupPolicyFileArgs {
  /** @default - the file's `metadata.namespace`, else 'default' */
  readonly namespace?: string;
}

/**
 * A BackupPolicy as a Pulumi component (`backup-cronjobs:index:BackupPolicy`):
 * its CronJobs (and the few objects they need) as typed `@pulumi/kubernetes`
 * children. Every arg is a plain value: the core validates and renders the
 * whole policy at construction, and an invalid policy throws `PolicyError`
 * listing every problem before anything is registered.
 */
export class BackupPolicy extends PolicyComponent {
  /** Reads a policy file (YAML or JSON) holding exactly one BackupPolicy. */
  public static fromFile(name: string, path: string, args: BackupPolicyFileArgs = {}, opts?: pulumi.ComponentResourceOptions): BackupPolicy {
    const policies = loadPolicies(readFileSync(path, 'utf8'), path);
    if (policies.length !== 1) throw new Error(`${path}: holds ${policies.length} BackupPolicy documents; BackupPolicy.fromFile takes a file with exactly one`);
    return new BackupPolicy(name, { metadata: policies[0].metadata, spec: policies[0].spec, namespace: args.namespace }, opts);
  }

  constructor(name: string, args: BackupPolicyArgs, opts?: pulumi.ComponentResourceOptions) {
    const metadata = args.namespace === undefined ? args.metadata : { ...args.metadata, namespace: args.namespace };
    super('BackupPolicy', name, { apiVersion: API_VERSION, kind: KIND, metadata, spec: args.spec }, opts);
  }
}
