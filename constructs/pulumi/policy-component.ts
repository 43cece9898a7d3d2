import * as pulumi from '@pulumi/pulumi';
import * as k8s from '@pulumi/kubernetes';
import { copyManifests, formatCollision, objectByKey, objectKey } from '../../lib/internal';
import type { Manifest } from '../../lib/internal';
import { handles } from '../core';
import type { PolicySource } from '../core';
import { checkChildren, createChildren } from './children';
import { renderWithStandIns, substitute, valuesProblem } from './inputs';
import type { Rendering } from './inputs';

/** Objects already rendered in this program, per Pulumi runtime (each `setMocks` or deployment) and per kubernetes provider. */
const rendered = new WeakMap<object, Map<unknown, Map<string, string>>>();
const DEFAULT_PROVIDER = Symbol('default kubernetes provider');

/** Throws when another component of this program, on the same provider, renders one of `manifests`. */
function claimObjects(component: pulumi.ComponentResource, label: string, manifests: readonly Manifest[]): void {
  const runtime = (pulumi.runtime.getMonitor() as object | undefined) ?? rendered;
  if (!rendered.has(runtime)) rendered.set(runtime, new Map());
  const providers = rendered.get(runtime)!;
  const provider = component.getProvider('kubernetes::') ?? DEFAULT_PROVIDER;
  if (!providers.has(provider)) providers.set(provider, new Map());
  const owners = providers.get(provider)!;
  const clashes = manifests
    .map(objectKey)
    .filter((key) => owners.has(key))
    .map((key) => formatCollision({ object: key, sources: [owners.get(key)!, label] }));
  if (clashes.length > 0) throw new Error(`backup-cronjobs: ${clashes.join('; ')}`);
  for (const m of manifests) owners.set(objectKey(m), label);
}

/** `<package>:<module>` of every component's type token (`backup-cronjobs:index:BackupPolicy`). */
export const TYPE_TOKEN_PREFIX = 'backup-cronjobs:index';

/**
 * The one implementation behind every component of this package. It renders
 * the policy once, with the engine-neutral core, when it is constructed: an
 * invalid policy throws `PolicyError` (every problem, at the arg paths
 * written) before anything is registered. Then one typed `@pulumi/kubernetes`
 * child per object, in render order, named `<name>-<kind>-<metadata.name>`,
 * each with `{ parent: this }`: every child is registered at construction, so
 * a preview shows them all, with their names, even while an Output is unknown.
 *
 * An arg that is an Output is rendered as a validated stand-in and reaches
 * the children's args as that Output, at exactly the places it is rendered.
 * Its value is validated once known (`pulumi.output(...).apply`: the whole
 * policy resolved with it, not rendered again): an invalid one fails the
 * deployment with the arg path in the message. With an Output namespace,
 * objects another component renders too are detected then as well.
 *
 * Engine components are thin subclasses: a type name and an args → policy
 * mapping from the core.
 */
export abstract class PolicyComponent extends pulumi.ComponentResource {
  /** The objects as rendered (sibling CronJobs share their identical parts): the component's own, never handed out. */
  private readonly rendered: readonly Manifest[];
  /** `manifests`, copied on first read. */
  private copies?: Manifest[];
  /** Names of the CronJobs, in render order (also a registered output). */
  public readonly cronJobNames: pulumi.Output<string[]>;
  /** Namespace of every object (also a registered output). */
  public readonly namespace: pulumi.Output<string>;
  /** One child resource per manifest, same order. */
  public readonly resources: readonly pulumi.CustomResource[];
  /** The CronJob children (backups, retention prunes, restore drills). */
  public readonly cronJobs: readonly k8s.batch.v1.CronJob[];
  /** The backup CronJob child of each target, by target key (the shard, the node, `<keyspace>/<shard>`). */
  public readonly backupCronJobs: ReadonlyMap<string, k8s.batch.v1.CronJob>;
  /** The retention-prune CronJob children (with `retention.schedule`), by target key. */
  public readonly pruneCronJobs: ReadonlyMap<string, k8s.batch.v1.CronJob>;
  /** The restore-drill CronJob children (with `spec.drill`), by target key. */
  public readonly drillCronJobs: ReadonlyMap<string, k8s.batch.v1.CronJob>;
  /**
   * The engine's other CronJob children by role (their component label), each by the key of the backups they go
   * with: `incremental-backup` (Vitess, a schedule's `incremental`, by the key of the shard's backup CronJob).
   */
  public readonly extraCronJobs: ReadonlyMap<string, ReadonlyMap<string, k8s.batch.v1.CronJob>>;
  /**
   * The Vitess incremental-backup CronJob children (a schedule's `incremental`), by the key of the shard's backup CronJob.
   * @deprecated `extraCronJobs.get('incremental-backup')`
   */
  public readonly incrementalCronJobs: ReadonlyMap<string, k8s.batch.v1.CronJob>;
  /** `<type token>::<name>`, for messages. */
  protected readonly label: string;

  /**
   * @param type - the type name (`BackupPolicy`), prefixed with `backup-cronjobs:index:`
   * @param source - the args and their mapping to a policy, validated and rendered here
   * @param opts - passed to the component as given (provider(s), protect, aliases, ...); children inherit through `parent`
   */
  protected constructor(type: string, name: string, source: PolicySource, opts?: pulumi.ComponentResourceOptions) {
    const token = `${TYPE_TOKEN_PREFIX}:${type}`;
    const label = `${token}::${name}`;
    const rendering = renderWithStandIns(source, label);
    const { manifests, resolved, standIns, namespaceSlot } = rendering;
    checkChildren(name, manifests);
    super(token, name, {}, opts);
    if (namespaceSlot === undefined) claimObjects(this, `component ${label}`, manifests);
    this.label = label;
    this.rendered = manifests;
    const values = this.checkedValues(rendering, source, label);
    const args = manifests.map((m) =>
      substitute(
        m,
        standIns,
        (i) => values[i],
        (parts) => pulumi.all([...parts]).apply((ps) => ps.join('')),
      ),
    );
    this.resources = createChildren(this, name, manifests, args);
    this.namespace =
      namespaceSlot === undefined
        ? pulumi.output(resolved.namespace)
        : (values[namespaceSlot] as pulumi.Output<string>);
    const cronJobNames = manifests
      .filter((m) => m.apiVersion === 'batch/v1' && m.kind === 'CronJob')
      .map((m) => m.metadata.name);
    this.cronJobNames = pulumi.output(cronJobNames);
    this.cronJobs = this.resources.filter((r): r is k8s.batch.v1.CronJob => k8s.batch.v1.CronJob.isInstance(r));
    const { backups, prunes, drills, extras } = handles(
      resolved,
      manifests,
      this.resources as k8s.batch.v1.CronJob[],
      source.backupKeyPrefix,
    );
    this.backupCronJobs = backups;
    this.pruneCronJobs = prunes;
    this.drillCronJobs = drills;
    this.extraCronJobs = extras;
    this.incrementalCronJobs = extras.get('incremental-backup') ?? new Map<string, k8s.batch.v1.CronJob>();
    this.registerOutputs({ cronJobNames: this.cronJobNames, namespace: this.namespace });
  }

  /**
   * The plain objects, in render order (an Output arg appears as its stand-in
   * `pulumi-input-<n>-a-4f1d0c`): the caller's to change. Each is a tree of its
   * own (copied on first read), sharing no part with another object, another
   * component or the children's args: a change here changes no other object
   * and nothing deployed.
   */
  public get manifests(): readonly Manifest[] {
    return (this.copies ??= copyManifests(this.rendered));
  }

  /** The backup CronJob child of a target (`cronJob('shard01')`); without a key, the only one. */
  public cronJob(key?: string): k8s.batch.v1.CronJob {
    return objectByKey(this.backupCronJobs, key, `${this.label}: backup CronJob`);
  }

  /** The retention-prune CronJob child of a target; without a key, the only one. */
  public pruneCronJob(key?: string): k8s.batch.v1.CronJob {
    return objectByKey(this.pruneCronJobs, key, `${this.label}: retention-prune CronJob`);
  }

  /** The restore-drill CronJob child of a target (with `spec.drill`): `drillCronJob('cp-1')`; without a key, the only one. */
  public drillCronJob(key?: string): k8s.batch.v1.CronJob {
    return objectByKey(this.drillCronJobs, key, `${this.label}: restore-drill CronJob`);
  }

  /**
   * One of the engine's other CronJob children (`extraCronJobs`) of a role, by the key of the backups it goes
   * with: `extraCronJob('incremental-backup', 'commerce/-80')`; without a key, the only one of the role.
   */
  public extraCronJob(role: string, key?: string): k8s.batch.v1.CronJob {
    return objectByKey(
      this.extraCronJobs.get(role) ?? new Map<string, k8s.batch.v1.CronJob>(),
      key,
      `${this.label}: ${role} CronJob`,
    );
  }

  /**
   * The Vitess incremental-backup CronJob child of a shard (a schedule's `incremental`), by its backup CronJob's key; without a key, the only one.
   * @deprecated `extraCronJob('incremental-backup', key)`
   */
  public incrementalCronJob(key?: string): k8s.batch.v1.CronJob {
    return this.extraCronJob('incremental-backup', key);
  }

  /**
   * Each slot's value, released only once the values are valid with the
   * whole policy (`valuesProblem`); a failure is a `ResourceError` of this
   * component naming the arg paths. A slot keeps its own secretness.
   */
  private checkedValues(r: Rendering, source: PolicySource, label: string): pulumi.Output<unknown>[] {
    if (r.slots.length === 0) return [];
    const fail = (message: string): never => {
      throw new pulumi.ResourceError(message, this, true);
    };
    const checked = pulumi.output(r.slots.map((s) => s.value)).apply((values) => {
      const problem = valuesProblem(r, values, source, label);
      if (problem !== undefined) fail(problem);
      if (r.namespaceSlot !== undefined) {
        const placed = substitute(
          r.manifests,
          r.standIns,
          (i) => values[i] as string,
          (parts) => parts.join(''),
        ) as Manifest[];
        try {
          claimObjects(this, `component ${label}`, placed);
        } catch (e) {
          fail((e as Error).message);
        }
      }
      return true;
    });
    const released = pulumi.unsecret(checked);
    return r.slots.map((s) => pulumi.all([released, s.value]).apply(([, v]) => v));
  }
}
