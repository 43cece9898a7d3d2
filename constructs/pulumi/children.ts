/**
 * Plain core manifests → typed `@pulumi/kubernetes` resources (as
 * `yaml.ConfigGroup` does), `apiextensions.CustomResource` only for kinds
 * without a typed class. Internal to the Pulumi adapter.
 */
import * as pulumi from '@pulumi/pulumi';
import * as k8s from '@pulumi/kubernetes';
import { isPlainObject } from '../../lib/internal';
import type { Manifest } from '../../lib/internal';

type ChildClass = new (name: string, args: never, opts?: pulumi.CustomResourceOptions) => pulumi.CustomResource;

interface TypedKind {
  /** Loaded on first use (the provider SDK loads its modules lazily). */
  readonly cls: () => ChildClass;
  /** Top-level fields the typed class passes on, besides apiVersion, kind and metadata. */
  readonly fields: readonly string[];
}

/** `apiVersion/kind` → typed class. Any other kind becomes a CustomResource. */
const TYPED_KINDS: Readonly<Record<string, TypedKind>> = {
  'batch/v1/CronJob': { cls: () => k8s.batch.v1.CronJob, fields: ['spec'] },
  'batch/v1/Job': { cls: () => k8s.batch.v1.Job, fields: ['spec'] },
  'v1/PersistentVolumeClaim': { cls: () => k8s.core.v1.PersistentVolumeClaim, fields: ['spec'] },
  'v1/ConfigMap': { cls: () => k8s.core.v1.ConfigMap, fields: ['data', 'binaryData', 'immutable'] },
  'v1/Secret': { cls: () => k8s.core.v1.Secret, fields: ['data', 'stringData', 'type', 'immutable'] },
  'v1/ServiceAccount': {
    cls: () => k8s.core.v1.ServiceAccount,
    fields: ['automountServiceAccountToken', 'imagePullSecrets', 'secrets'],
  },
  'rbac.authorization.k8s.io/v1/Role': { cls: () => k8s.rbac.v1.Role, fields: ['rules'] },
  'rbac.authorization.k8s.io/v1/RoleBinding': { cls: () => k8s.rbac.v1.RoleBinding, fields: ['roleRef', 'subjects'] },
  'rbac.authorization.k8s.io/v1/ClusterRole': {
    cls: () => k8s.rbac.v1.ClusterRole,
    fields: ['rules', 'aggregationRule'],
  },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': {
    cls: () => k8s.rbac.v1.ClusterRoleBinding,
    fields: ['roleRef', 'subjects'],
  },
  'networking.k8s.io/v1/NetworkPolicy': { cls: () => k8s.networking.v1.NetworkPolicy, fields: ['spec'] },
};

/** The logical Pulumi name of the child for `manifest` in component `name`. */
export function childName(name: string, manifest: Manifest): string {
  return `${name}-${manifest.kind.toLowerCase()}-${manifest.metadata.name}`;
}

/**
 * Checks, before anything is registered, that every manifest can become a
 * child: child names are unique and no field would be silently dropped by a
 * typed class. Throws an Error naming the object otherwise.
 */
export function checkChildren(name: string, manifests: readonly Manifest[]): void {
  const seen = new Set<string>();
  for (const m of manifests) {
    const child = childName(name, m);
    if (seen.has(child))
      throw new Error(
        `backup-cronjobs: two objects would both be the Pulumi resource ${JSON.stringify(child)} (${m.apiVersion} ${m.kind} ${m.metadata.name})`,
      );
    seen.add(child);
    const typed = TYPED_KINDS[`${m.apiVersion}/${m.kind}`];
    const dropped = typed
      ? Object.keys(m).filter((k) => !['apiVersion', 'kind', 'metadata', ...typed.fields].includes(k))
      : [];
    if (dropped.length > 0) {
      throw new Error(
        `backup-cronjobs: ${m.apiVersion} ${m.kind} ${m.metadata.name} has field(s) ${dropped.join(', ')} that the typed @pulumi/kubernetes class does not take`,
      );
    }
  }
}

/** Kinds whose pods mount the policy's ConfigMaps (its scripts): their children wait for the ConfigMap children. */
const MOUNTING_KINDS = new Set(['batch/v1/CronJob', 'batch/v1/Job']);

/**
 * One child resource per manifest (checked with `checkChildren`), in order,
 * each with `{ parent }`: providers and the other inherited options flow from
 * the parent. `metadata.name` is always explicit, so Pulumi never auto-names.
 * `args[i]` is what child i gets: its manifest, or the manifest with Outputs
 * in places. CronJobs and Jobs depend on the ConfigMaps (`dependsOn`), so that
 * on a script change the engine creates the new `<policy>-scripts-<hash>`
 * before it updates a CronJob to name it (and deletes the old one after).
 */
export function createChildren(
  parent: pulumi.ComponentResource,
  name: string,
  manifests: readonly Manifest[],
  args: readonly unknown[] = manifests,
): pulumi.CustomResource[] {
  const children: pulumi.CustomResource[] = new Array<pulumi.CustomResource>(manifests.length);
  const create = (i: number, dependsOn: pulumi.Resource[]): pulumi.CustomResource => {
    const m = manifests[i];
    const typed = TYPED_KINDS[`${m.apiVersion}/${m.kind}`];
    const childArgs = deepCopy(args[i]) as Manifest; // later edits of the caller's objects never reach Pulumi
    const opts = dependsOn.length > 0 ? { parent, dependsOn } : { parent };
    if (typed) return new (typed.cls())(childName(name, m), childArgs as never, opts);
    return new k8s.apiextensions.CustomResource(childName(name, m), childArgs, opts);
  };
  const isConfigMap = (m: Manifest) => m.apiVersion === 'v1' && m.kind === 'ConfigMap';
  manifests.forEach((m, i) => {
    if (isConfigMap(m)) children[i] = create(i, []);
  });
  const configMaps = children.filter((c) => c !== undefined);
  manifests.forEach((m, i) => {
    if (!isConfigMap(m)) children[i] = create(i, MOUNTING_KINDS.has(`${m.apiVersion}/${m.kind}`) ? configMaps : []);
  });
  return children;
}

/**
 * A deep copy of plain JSON; Outputs (and any other non-plain object) are
 * kept as they are. Not `structuredClone`: its arrays come from the host
 * realm, and Pulumi's serializer (`instanceof Array`) would then send them as
 * objects when the program runs in a vm context (as under jest).
 */
function deepCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(deepCopy) as T;
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deepCopy(v)])) as T;
  }
  return value;
}
