import * as pulumi from '@pulumi/pulumi';
import * as k8s from '@pulumi/kubernetes';
import { JOB_DEFAULTS, renderPolicy } from '../../lib';
import type { BackupPolicy as BackupPolicyDocument, Manifest } from '../../lib';
import { formatCollision, objectKey } from '../../lib/model/collisions';
import { awaitWarnings, checkChildren, createChildren } from './children';

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
  const clashes = manifests.map(objectKey).filter((key) => owners.has(key)).map((key) => formatCollision({ object: key, sources: [owners.get(key)!, label] }));
  if (clashes.length > 0) throw new Error(`backup-cronjobs: ${clashes.join('; ')}`);
  for (const m of manifests) owners.set(objectKey(m), label);
}

/** `<package>:<module>` of every component's type token (`backup-cronjobs:index:BackupPolicy`). */
export const TYPE_TOKEN_PREFIX = 'backup-cronjobs:index';

/**
 * The one implementation behind every component of this package. It renders
 * the policy with the engine-neutral core first: an invalid policy throws
 * `PolicyError` (every problem, with field paths) before anything is
 * registered. Then one typed `@pulumi/kubernetes` child per object, in render
 * order, named `<name>-<kind>-<metadata.name>`, each with `{ parent: this }`.
 *
 * Engine components are thin subclasses: a type name and a props → policy
 * mapping from the core.
 */
export abstract class PolicyComponent extends pulumi.ComponentResource {
  /** The plain objects, in render order: exactly what the core, the CLI and cdk8s emit. */
  public readonly manifests: readonly Manifest[];
  /** Names of the CronJobs, in render order (also a registered output). */
  public readonly cronJobNames: string[];
  /** Namespace of every object (also a registered output). */
  public readonly namespace: string;
  /** One child resource per manifest, same order. */
  public readonly resources: readonly pulumi.CustomResource[];
  /** The CronJob children. */
  public readonly cronJobs: readonly k8s.batch.v1.CronJob[];

  /**
   * @param type the type name (`BackupPolicy`), prefixed with `backup-cronjobs:index:`
   * @param policy a policy document, validated and rendered here
   * @param opts passed to the component as given (provider(s), protect, aliases, ...); children inherit through `parent`
   */
  protected constructor(type: string, name: string, policy: BackupPolicyDocument, opts?: pulumi.ComponentResourceOptions) {
    const token = `${TYPE_TOKEN_PREFIX}:${type}`;
    const manifests = renderPolicy(policy, `${token}::${name}`);
    checkChildren(name, manifests);
    super(token, name, {}, opts);
    claimObjects(this, `component ${token}::${name}`, manifests);
    this.manifests = manifests;
    this.namespace = policy.metadata.namespace ?? JOB_DEFAULTS.namespace;
    this.cronJobNames = manifests.filter((m) => m.apiVersion === 'batch/v1' && m.kind === 'CronJob').map((m) => m.metadata.name);
    this.resources = createChildren(this, name, manifests);
    for (const warning of awaitWarnings(manifests)) void pulumi.log.warn(warning, this);
    this.cronJobs = this.resources.filter((r): r is k8s.batch.v1.CronJob => k8s.batch.v1.CronJob.isInstance(r));
    this.registerOutputs({ cronJobNames: this.cronJobNames, namespace: this.namespace });
  }
}
