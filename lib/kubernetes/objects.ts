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

/** One walk, no intermediate arrays (synthesis calls it on every object). */
function strip(value: unknown, dropEmptyLists: boolean): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const v of value) {
      const c = strip(v, dropEmptyLists);
      if (c !== undefined || !dropEmptyLists) items.push(c);
    }
    return dropEmptyLists && items.length === 0 ? undefined : items;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const c = strip((value as Record<string, unknown>)[key], dropEmptyLists);
    if (c !== undefined) out[key] = c;
  }
  return out;
}
