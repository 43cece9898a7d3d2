import { ApiObject, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import {
  IssueList,
  PolicyError,
  copyManifests,
  findCollisions,
  formatCollision,
  objectByKey,
  renderShared,
  resolvePolicy,
} from '../../lib/internal';
import type { Manifest, PolicyIssue, ResolvedPolicy } from '../../lib/internal';
import { atPropPaths, documentSource, handles, readPolicyFile } from '../core';
import type { PolicyLike, PolicySource } from '../core';
import type { BackupPolicyProps } from './props.generated';
import { NamedObject, namespaceIssues, policyValues } from './values';

/**
 * A construct holding the objects of one rendered policy, one `ApiObject`
 * each, with the id `<Kind>-<object name>` (`CronJob-cache-shard01`), or
 * `Resource` when it renders one object only. Rendering happens in the
 * constructor: invalid props throw there, every problem listed with the prop
 * path it was written at, the value received and what is allowed. Without a
 * namespace in the props, the objects go to the chart's namespace (and pod
 * affinity terms and alert selectors name it), else to `default`.
 */
export abstract class PolicyConstruct extends Construct {
  /** The namespace of every object. */
  public readonly namespace: string;
  /** The objects as rendered (sibling CronJobs share their identical parts): the construct's own, never handed out. */
  private readonly rendered: readonly Manifest[];
  /** `manifests`, copied on first read. */
  private copies?: Manifest[];
  /** One ApiObject per manifest, in the same order. */
  public readonly apiObjects: readonly ApiObject[];
  /** Every CronJob (backups, retention prunes, restore drills), in render order. */
  public readonly cronJobs: readonly ApiObject[];
  /** The backup CronJob of each target, by target key: the shard, the node (etcd `cluster` mode: `cluster`), `<keyspace>/<shard>`. */
  public readonly backupCronJobs: ReadonlyMap<string, ApiObject>;
  /** The retention-prune CronJobs (with `retention.schedule`), by the key of the backups they prune. */
  public readonly pruneCronJobs: ReadonlyMap<string, ApiObject>;
  /** The restore-drill CronJobs (with `spec.drill`), by the key of the backups they drill. */
  public readonly drillCronJobs: ReadonlyMap<string, ApiObject>;
  /**
   * The engine's other CronJobs by role (its component label), each by the key of the backups they go with:
   * `incremental-backup` (Vitess, a schedule's `incremental`, by the key of the shard's backup CronJob).
   */
  public readonly extraCronJobs: ReadonlyMap<string, ReadonlyMap<string, ApiObject>>;
  /**
   * The Vitess incremental-backup CronJobs (a schedule's `incremental`), by the key of the shard's backup CronJob.
   * @deprecated `extraCronJobs.get('incremental-backup')`
   */
  public readonly incrementalCronJobs: ReadonlyMap<string, ApiObject>;
  /** The PrometheusRule (with `metrics.prometheusRule`). @default - none */
  public readonly prometheusRule?: ApiObject;

  protected constructor(scope: Construct, id: string, source: PolicySource) {
    // Resolved before the construct joins the tree: invalid props leave nothing behind that synth would trip over.
    const resolved = resolveSource(scope, id, source);
    super(scope, id);
    this.namespace = resolved.namespace;
    this.rendered = renderShared(resolved);
    this.apiObjects = addApiObjects(this, this.rendered);
    this.cronJobs = this.apiObjects.filter((o) => o.kind === 'CronJob');
    const { backups, prunes, drills, extras } = handles(
      resolved,
      this.rendered,
      this.apiObjects,
      source.backupKeyPrefix,
    );
    this.backupCronJobs = backups;
    this.pruneCronJobs = prunes;
    this.drillCronJobs = drills;
    this.extraCronJobs = extras;
    this.incrementalCronJobs = extras.get('incremental-backup') ?? new Map<string, ApiObject>();
    this.prometheusRule = this.apiObjects.find((o) => o.kind === 'PrometheusRule');
    this.node.addValidation({ validate: () => this.collisions() });
  }

  /**
   * The plain objects, in render order: the caller's to change. Each is a tree
   * of its own (copied on first read), sharing no part with another object,
   * another construct or the `apiObjects`: a change here changes no other
   * object and not what synthesizes (change the `apiObjects` for that).
   */
  public get manifests(): readonly Manifest[] {
    return (this.copies ??= copyManifests(this.rendered));
  }

  /**
   * The backup CronJob of a target: `cronJob('shard01')`, `cronJob('cp-1')`,
   * `cronJob('commerce/-80')`; without a key, the only one (throws when there
   * are several, listing their keys).
   */
  public cronJob(key?: string): ApiObject {
    return objectByKey(this.backupCronJobs, key, `${this.node.path}: backup CronJob`);
  }

  /** The retention-prune CronJob of a target (with `retention.schedule`); without a key, the only one. */
  public pruneCronJob(key?: string): ApiObject {
    return objectByKey(this.pruneCronJobs, key, `${this.node.path}: retention-prune CronJob`);
  }

  /** The restore-drill CronJob of a target (with `spec.drill`): `drillCronJob('cp-1')`; without a key, the only one. */
  public drillCronJob(key?: string): ApiObject {
    return objectByKey(this.drillCronJobs, key, `${this.node.path}: restore-drill CronJob`);
  }

  /**
   * One of the engine's other CronJobs (`extraCronJobs`) of a role, by the key of the backups it goes with:
   * `extraCronJob('incremental-backup', 'commerce/-80')`; without a key, the only one of the role.
   */
  public extraCronJob(role: string, key?: string): ApiObject {
    return objectByKey(
      this.extraCronJobs.get(role) ?? new Map<string, ApiObject>(),
      key,
      `${this.node.path}: ${role} CronJob`,
    );
  }

  /**
   * The Vitess incremental-backup CronJob of a shard (a schedule's `incremental`), by its backup CronJob's key; without a key, the only one.
   * @deprecated `extraCronJob('incremental-backup', key)`
   */
  public incrementalCronJob(key?: string): ApiObject {
    return this.extraCronJob('incremental-backup', key);
  }

  /** Objects this construct renders that an earlier policy construct of the same app renders too. */
  private collisions(): string[] {
    const all = this.node.root.node
      .findAll()
      .filter((c): c is PolicyConstruct => c instanceof PolicyConstruct && c.rendered !== undefined);
    const mine = all.indexOf(this);
    return findCollisions(all.slice(0, mine + 1).map((c) => ({ source: c.node.path, objects: c.rendered })))
      .filter((c) => c.sources[1] === this.node.path)
      .map(formatCollision);
  }
}

/**
 * The props as a resolved policy: cdk8s values made plain, the chart's namespace applied, problems at prop
 * paths. Problems of cdk8s values and of the policy are reported together, each once.
 */
function resolveSource(scope: Construct, id: string, source: PolicySource): ResolvedPolicy {
  const path = [scope.node.path, id].filter((p) => p !== '').join('/');
  const valueIssues = new IssueList();
  const named: NamedObject[] = [];
  const policy = policyValues(source.toPolicy(source.props), valueIssues, named) as PolicyLike;
  const chartNamespace = Chart.of(scope).namespace;
  const placed: PolicyLike =
    policy.metadata?.namespace === undefined && chartNamespace !== undefined
      ? { ...policy, metadata: { ...policy.metadata, namespace: chartNamespace } }
      : policy;
  let resolved: ResolvedPolicy | undefined;
  let policyIssues: readonly PolicyIssue[] = [];
  try {
    resolved = resolvePolicy(placed, path);
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
    policyIssues = e.issues;
  }
  const namespace = resolved?.namespace ?? placed.metadata?.namespace;
  if (typeof namespace === 'string') namespaceIssues(named, namespace, valueIssues);
  if (resolved !== undefined && valueIssues.empty) return resolved;
  // a value left out for its own problem is not reported again as missing or of the wrong type
  const covered = (p: PolicyIssue) =>
    valueIssues.issues.some(
      (v) => v.segments.length <= p.segments.length && v.segments.every((k, i) => p.segments[i] === k),
    );
  throw atPropPaths(new PolicyError([...valueIssues.issues, ...policyIssues.filter((i) => !covered(i))], path), source);
}

/** Renders a BackupPolicy into its CronJobs (and the few objects they need). */
export class BackupPolicy extends PolicyConstruct {
  /** Reads a policy file (YAML or JSON) holding exactly one BackupPolicy. Without a namespace in it, the chart's applies. */
  public static fromFile(scope: Construct, id: string, path: string): BackupPolicy {
    // loaded, not validated yet: the constructor reports what the file gets wrong, at its paths
    const policy = readPolicyFile(path, 'BackupPolicy.fromFile') as unknown as BackupPolicyProps;
    return new BackupPolicy(scope, id, policy);
  }

  constructor(scope: Construct, id: string, props: BackupPolicyProps) {
    super(scope, id, documentSource(props.metadata, props.spec));
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
