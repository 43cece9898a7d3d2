import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { readFileSync } from 'fs';
import { API_VERSION, KIND, loadPolicies, renderPolicy } from '../../lib';
import type { BackupPolicySpec, Manifest, PolicyMetadata } from '../../lib';

/** A whole BackupPolicy document, without apiVersion and kind. */
export interface BackupPolicyProps {
  readonly metadata: PolicyMetadata;
  readonly spec: BackupPolicySpec;
}

/**
 * Renders a BackupPolicy into its CronJobs (and the few objects they need),
 * one `ApiObject` per object. Invalid props throw at construction with every
 * problem listed (field path, value received, what is allowed).
 */
export class BackupPolicy extends Construct {
  /** Reads a policy file (YAML or JSON) holding exactly one BackupPolicy. */
  public static fromFile(scope: Construct, id: string, path: string): BackupPolicy {
    const policies = loadPolicies(readFileSync(path, 'utf8'), path);
    if (policies.length !== 1) throw new Error(`${path}: holds ${policies.length} BackupPolicy documents; BackupPolicy.fromFile takes a file with exactly one`);
    return new BackupPolicy(scope, id, policies[0]);
  }

  /** The plain objects, in render order. */
  public readonly manifests: readonly Manifest[];
  /** One ApiObject per manifest, in the same order. */
  public readonly apiObjects: readonly ApiObject[];
  /** The CronJobs. */
  public readonly cronJobs: readonly ApiObject[];

  constructor(scope: Construct, id: string, props: BackupPolicyProps) {
    super(scope, id);
    this.manifests = renderPolicy({ apiVersion: API_VERSION, kind: KIND, metadata: props.metadata, spec: props.spec }, `${this.node.path}`);
    this.apiObjects = addApiObjects(this, this.manifests);
    this.cronJobs = this.apiObjects.filter((o) => o.kind === 'CronJob');
  }
}

/** One ApiObject per manifest; the only object gets the id `Resource` (escape hatches). */
export function addApiObjects(scope: Construct, manifests: readonly Manifest[]): ApiObject[] {
  return manifests.map((m) => {
    const id = manifests.length === 1 ? 'Resource' : `${m.kind}-${m.metadata.name}`;
    const { apiVersion, kind, metadata, ...rest } = m;
    return new ApiObject(scope, id, { apiVersion, kind, metadata: { ...metadata }, ...rest });
  });
}
