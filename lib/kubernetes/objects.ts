/**
 * The subset of Kubernetes object shapes the renderer emits. Plain JSON
 * values only: no undefined, no empty collections (see `compact`).
 */
import type { Expansion } from './expansion';
import type { ScriptCommand } from '../scripts';
/** An object's metadata, as the core sets it. */
export interface ObjectMeta {
  /** The object's name (a DNS-1123 subdomain, or label where its kind needs one). */
  readonly name: string;
  /** Its namespace. @default - none: a cluster-scoped object */
  readonly namespace?: string;
  /** Its labels: the policy's, the engine's and the target's. @default - none */
  readonly labels?: Record<string, string>;
  /** Its annotations. @default - none */
  readonly annotations?: Record<string, string>;
}

/** A Kubernetes object as the core emits it. */
export interface Manifest {
  /** `batch/v1`, `v1`, `monitoring.coreos.com/v1`, … */
  readonly apiVersion: string;
  /** `CronJob`, `ConfigMap`, `PrometheusRule`, … */
  readonly kind: string;
  /** Name, namespace, labels and annotations. */
  readonly metadata: ObjectMeta;
  /** The rest of the object (`spec`, `data`, …), as the API takes it. */
  readonly [field: string]: unknown;
}

export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: {
    readonly secretKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean };
    readonly fieldRef?: { readonly apiVersion?: string; readonly fieldPath: string };
  };
}

/** An env var as an engine describes it: a plain value is escaped for the kubelet, an `Expansion` is not. */
export interface EngineEnvVar extends Omit<EnvVar, 'value'> {
  readonly value?: string | Expansion;
}

export interface VolumeMount {
  readonly name: string;
  readonly mountPath: string;
  readonly subPath?: string;
  readonly readOnly?: boolean;
}

/** A container's requests and limits as the engines set them: cpu and memory requested, memory limited. */
export interface ContainerResources {
  readonly requests: Readonly<Record<string, string>>;
  readonly limits: Readonly<Record<string, string>>;
}

export interface Container {
  readonly name: string;
  readonly image: string;
  readonly imagePullPolicy?: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: readonly EnvVar[];
  readonly volumeMounts?: readonly VolumeMount[];
  readonly resources?: ContainerResources;
  readonly securityContext?: Record<string, unknown>;
}

/** A container as an engine describes it (env values and args escaped, scripts rendered by the workload builder). */
export interface EngineContainer extends Omit<Container, 'env' | 'args' | 'command' | 'resources'> {
  readonly command?: readonly string[] | ScriptCommand;
  /**
   * The step's default requests and memory limit (the policy's overrides go on top).
   * @default - the profile of a shell step (`STEP_RESOURCES.shell`, docs/operations/resources.md)
   */
  readonly resources?: ContainerResources;
  readonly args?: readonly (string | Expansion)[];
  readonly env?: readonly EngineEnvVar[];
}

export interface Volume {
  readonly name: string;
  readonly [source: string]: unknown;
}

export interface PodSpec {
  readonly [field: string]: unknown;
  readonly containers: readonly Container[];
}

/**
 * Drops undefined values and empty arrays, recursively, so that every engine
 * sees the same JSON (cdk8s and Pulumi treat them differently). Empty objects
 * are kept: `emptyDir: {}` means something. Use `nonEmpty` for optional maps.
 */
export function compact<T>(value: T): T {
  return withoutUndefined(value, { dropEmptyLists: true });
}

/**
 * `compact(value)`, where every part equal to the same part of `earlier` (an
 * object compacted before, e.g. the CronJob of the shard before) is that part
 * of `earlier`: the identical parts of sibling objects are one object in
 * memory, and rules that remember what they checked check them once. Only
 * the package's own code holds such objects (the CLI writes them, the front
 * ends keep them): whatever reaches a user is a copy (`copyManifests`).
 */
export function compactLike<T>(value: T, earlier: T | undefined): T {
  return strip(value, true, earlier) as T;
}

/**
 * Rendered objects as the caller's own: each a tree of new objects and arrays
 * (strings, numbers, booleans and null as they are), sharing no part with
 * another object, with the objects given or with another render. What the
 * public API and the front ends hand out, copied once at that boundary.
 */
export function copyManifests(manifests: readonly Manifest[]): Manifest[] {
  const out = new Array<Manifest>(manifests.length);
  for (let i = 0; i < manifests.length; i++) out[i] = copyJson(manifests[i]);
  return out;
}

/**
 * A deep copy of a JSON value (plain objects, arrays, primitives), keys in
 * their order. Specialised: about 1.5× faster than `structuredClone` and 4×
 * faster than a JSON round trip on rendered CronJobs (docs/operations/performance.md).
 */
function copyJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const n = value.length;
    const items = new Array<unknown>(n);
    for (let i = 0; i < n; i++) items[i] = copyJson(value[i]);
    return items as T;
  }
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const keys = Object.keys(source);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    // an own `__proto__` key (JSON.parse makes one) stays a key: assigning it would set the prototype
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: copyJson(source[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = copyJson(source[key]);
  }
  return out as T;
}

/** A plain object (a JSON object, an object literal): not an array, a class instance or null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** An optional map: undefined when it has no entries. */
export function nonEmpty<T extends object>(value: T | undefined): T | undefined {
  return value !== undefined && Object.keys(value).length > 0 ? value : undefined;
}

/**
 * `value` without its `undefined` fields, at every depth: the one function
 * that strips `undefined` (TypeScript props carry it, a policy document and a
 * rendered object never do). With `dropEmptyLists`, undefined list items and
 * the lists left empty go too (`compact`). Empty objects are kept.
 */
export function withoutUndefined<T>(value: T, options: { readonly dropEmptyLists?: boolean } = {}): T {
  return strip(value, options.dropEmptyLists === true) as T;
}

/**
 * One walk (synthesis calls it on every object). With `like`, a part equal to `like`'s is `like`'s,
 * and nothing is built for it: a copy is made only from the first part that differs. No key lists
 * (for-in, and one stack of keys shared by every call).
 */
function strip(value: unknown, dropEmptyLists: boolean, like?: unknown): unknown {
  if (value === like) return like;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return stripList(value, dropEmptyLists, Array.isArray(like) ? like : undefined);
  const prior =
    like !== null && typeof like === 'object' && !Array.isArray(like) ? (like as Record<string, unknown>) : undefined;
  const base = keyTop;
  // undefined while every part so far is prior's
  let out: Record<string, unknown> | undefined = prior === undefined ? {} : undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue; // for-in also lists inherited enumerable keys (a polluted prototype)
    const c = strip((value as Record<string, unknown>)[key], dropEmptyLists, prior?.[key]);
    if (c === undefined) continue;
    if (out === undefined && c !== prior![key]) out = priorParts(prior!, base);
    if (out !== undefined) out[key] = c;
    if (prior !== undefined) keyStack[keyTop++] = key;
  }
  const result = out ?? (sameKeys(prior!, base) ? prior : priorParts(prior!, base));
  keyTop = base;
  return result;
}

function stripList(value: readonly unknown[], dropEmptyLists: boolean, prior: readonly unknown[] | undefined): unknown {
  let items: unknown[] | undefined = prior === undefined ? [] : undefined;
  let n = 0;
  for (const v of value) {
    const c = strip(v, dropEmptyLists, prior?.[n]);
    if (c === undefined && dropEmptyLists) continue;
    if (items === undefined && c !== prior![n]) items = prior!.slice(0, n);
    if (items !== undefined) items.push(c);
    n++;
  }
  if (dropEmptyLists && n === 0) return undefined;
  return items ?? (n === prior!.length ? prior : prior!.slice(0, n));
}

/** The keys kept so far by the `strip` calls in progress, each call's above its caller's, up to `keyTop` (never shrunk). */
const keyStack: string[] = [];
let keyTop = 0;

/** A new object with `prior`'s values of the keys on the stack from `base`. */
function priorParts(prior: Record<string, unknown>, base: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = base; i < keyTop; i++) out[keyStack[i]] = prior[keyStack[i]];
  return out;
}

/** `prior` has exactly the keys on the stack from `base`, in that order. */
function sameKeys(prior: object, base: number): boolean {
  let i = base;
  for (const key in prior) if (Object.hasOwn(prior, key) && (i >= keyTop || keyStack[i++] !== key)) return false;
  return i === keyTop;
}
