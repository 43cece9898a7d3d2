/**
 * The subset of Kubernetes object shapes the renderer emits. Plain JSON
 * values only: no undefined, no empty collections (see `compact`).
 */
import type { Expansion } from './expansion';
import type { ScriptCommand } from '../scripts';
export interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

/** A Kubernetes object as the core emits it. */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly [field: string]: unknown;
}

export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: {
    readonly secretKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean };
    readonly fieldRef?: { readonly fieldPath: string };
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
 * memory, and rules that remember what they checked check them once. Rendered
 * objects are never changed, so sharing is safe.
 */
export function compactLike<T>(value: T, earlier: T | undefined): T {
  return strip(value, true, earlier) as T;
}

/**
 * `value`, where every part equal to the same part of `earlier` is that part
 * of `earlier` (`compactLike` without the compacting): the equal parts of
 * sibling values are one object in memory. Neither value is changed; the
 * parts on the way to a difference are copied.
 */
export function shareEqualParts<T>(value: T, earlier: T | undefined): T {
  return share(value, earlier) as T;
}

function share(value: unknown, like: unknown): unknown {
  if (value === like) return like;
  if (value === null || typeof value !== 'object' || like === null || typeof like !== 'object') return value;
  if (Array.isArray(value)) {
    if (!Array.isArray(like)) return value;
    let copy: unknown[] | undefined;
    let same = value.length === like.length;
    for (let i = 0; i < value.length; i++) {
      const v = share(value[i], like[i]);
      if (v !== like[i]) same = false;
      if (v !== value[i]) (copy ??= [...(value as unknown[])])[i] = v;
    }
    return same ? like : (copy ?? value);
  }
  if (Array.isArray(like) || !isPlainObject(value) || !isPlainObject(like)) return value;
  const likeKeys = Object.keys(like);
  const keys = Object.keys(value);
  let copy: Record<string, unknown> | undefined;
  let same = keys.length === likeKeys.length;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const v = share(value[key], like[key]);
    if (v !== like[key] || likeKeys[i] !== key) same = false;
    if (v !== value[key]) (copy ??= { ...value })[key] = v;
  }
  return same ? like : (copy ?? value);
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

/** One walk, no intermediate arrays (synthesis calls it on every object); equal parts of `like` are reused. */
function strip(value: unknown, dropEmptyLists: boolean, like?: unknown): unknown {
  if (value === like) return like;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const prior = Array.isArray(like) ? (like as unknown[]) : undefined;
    const items: unknown[] = [];
    let same = prior !== undefined;
    for (const v of value) {
      const c = strip(v, dropEmptyLists, prior?.[items.length]);
      if (c === undefined && dropEmptyLists) continue;
      if (same && c !== prior![items.length]) same = false;
      items.push(c);
    }
    if (dropEmptyLists && items.length === 0) return undefined;
    return same && items.length === prior!.length ? prior : items;
  }
  const prior =
    like !== null && typeof like === 'object' && !Array.isArray(like) ? (like as Record<string, unknown>) : undefined;
  const priorKeys = prior && Object.keys(prior);
  const out: Record<string, unknown> = {};
  let kept = 0;
  let same = priorKeys !== undefined;
  for (const key of Object.keys(value)) {
    const c = strip((value as Record<string, unknown>)[key], dropEmptyLists, prior?.[key]);
    if (c === undefined) continue;
    if (same && (priorKeys![kept] !== key || c !== prior![key])) same = false;
    out[key] = c;
    kept++;
  }
  return same && kept === priorKeys!.length ? prior : out;
}
