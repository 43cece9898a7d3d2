import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { readFileSync } from 'fs';
import { API_VERSION, KIND, loadPolicies, renderPolicy } from '../../lib';
import type { BackupPolicySpec, Manifest, PolicyMetadata } from '../../lib';
import { findCollisions, formatCollision } from '../../lib/model/collisions';

/** A whole BackupPolicy document, without apiVersion and kind. */
export interface BackupPolicyProps {
  readonly metadata: PolicyMetadata;
  readonly spec: BackupPolicySpec;
}

/**
 * A construct holding the objects of one rendered policy, one `ApiObject`
 * each. Rendering happens in the constructor, so invalid props throw there with
 * every problem listed (field path, value received, what is allowed).
 */
export abstract class PolicyConstruct extends Construct {
  /** The plain objects, in render order. */
  public readonly manifests: readonly Manifest[];
  /** One ApiObject per manifest, in the same order. */
  public readonly apiObjects: readonly ApiObject[];
  /** The CronJobs. */
  public readonly cronJobs: readonly ApiObject[];

  protected constructor(scope: Construct, id: string, policy: unknown) {
    super(scope, id);
    this.manifests = renderPolicy(policy, this.node.path);
    this.apiObjects = addApiObjects(this, this.manifests);
    this.cronJobs = this.apiObjects.filter((o) => o.kind === 'CronJob');
    this.node.addValidation({ validate: () => this.collisions() });
  }

  /** Objects this construct renders that an earlier policy construct of the same app renders too. */
  private collisions(): string[] {
    const all = this.node.root.node.findAll().filter((c): c is PolicyConstruct => c instanceof PolicyConstruct);
    const mine = all.indexOf(this);
    return findCollisions(all.slice(0, mine + 1).map((c) => ({ source: c.node.path, objects: c.manifests })))
      .filter((c) => c.sources[1] === this.node.path)
      .map(formatCollision);
  }
}

/** Renders a BackupPolicy into its CronJobs (and the few objects they need). */
export class BackupPolicy extends PolicyConstruct {
  /** Reads a policy file (YAML or JSON) holding exactly one BackupPolicy. */
  public static fromFile(scope: Construct, id: string, path: string): BackupPolicy {
    const policies = loadPolicies(readFileSync(path, 'utf8'), path);
    if (policies.length !== 1) throw new Error(`${path}: holds ${policies.length} BackupPolicy documents; BackupPolicy.fromFile takes a file with exactly one`);
    return new BackupPolicy(scope, id, policies[0]);
  }

  constructor(scope: Construct, id: string, props: BackupPolicyProps) {
    super(scope, id, { apiVersion: API_VERSION, kind: KIND, metadata: props.metadata, spec: props.spec });
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
