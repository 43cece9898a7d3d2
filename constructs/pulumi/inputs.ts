/**
 * `pulumi.Input` values in a component's args. The policy is rendered once,
 * when the component is constructed, with a validated stand-in for each
 * Output (or Promise); the children's args then get the Output itself at
 * exactly the places its stand-in landed. Once the values are known they are
 * validated with the whole policy (resolved, not rendered again). Only fields
 * that pass through unchanged take an Input (the schema's field metadata,
 * `passThrough`; the args' types are generated from it: args.generated.ts):
 * whatever shapes the objects is a plain value, known at construction.
 */
import * as pulumi from '@pulumi/pulumi';
import {
  PolicyError,
  formatPath,
  isPlainObject,
  literal,
  passThroughFormat,
  policySchema,
  propFieldName,
  renderShared,
  resolvePolicy,
  show,
} from '../../lib/internal';
import type { Manifest, PassThroughFormat, PolicyPath, ResolvedPolicy } from '../../lib/internal';
import { atPropPaths } from '../core';
import type { PolicySource } from '../core';

/** An Output (or Promise) found in the args. */
export interface InputSlot {
  /** Where the user wrote it. */
  readonly propPath: string;
  readonly value: pulumi.Input<unknown>;
}

/** Stands for the slot `index` in the args until the policy is built. */
class InputMarker {
  constructor(readonly index: number) {}
}

/** The args with every Output and Promise replaced by a marker, and the slots in marker order. */
export function markInputs(args: unknown): { readonly marked: unknown; readonly slots: readonly InputSlot[] } {
  const slots: InputSlot[] = [];
  const mark = (value: unknown, path: PolicyPath): unknown => {
    if (pulumi.Output.isInstance(value) || isPromiseLike(value)) {
      slots.push({ propPath: formatPath(path), value });
      return new InputMarker(slots.length - 1);
    }
    if (Array.isArray(value)) return value.map((v, i) => mark(v, [...path, i]));
    if (isPlainObject(value))
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mark(v, [...path, k])]));
    return value;
  };
  return { marked: mark(args, []), slots };
}

/** The policy path of each marker in `policy`, by slot index. */
export function markerPaths(policy: unknown): PolicyPath[] {
  const paths: PolicyPath[] = [];
  const visit = (value: unknown, path: PolicyPath): void => {
    if (value instanceof InputMarker) paths[value.index] = path;
    else if (Array.isArray(value)) value.forEach((v, i) => visit(v, [...path, i]));
    else if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) visit(v, [...path, k]);
  };
  visit(policy, []);
  return paths;
}

/**
 * The stand-in format of every slot; an Error naming each slot that is not
 * at a pass-through field (or did not reach the policy).
 */
export function slotFormats(slots: readonly InputSlot[], paths: readonly PolicyPath[]): PassThroughFormat[] {
  const problems: string[] = [];
  const formats = slots.map((slot, i) => {
    const format = paths[i] === undefined ? undefined : passThroughFormat(policySchema, paths[i]);
    if (format === undefined)
      problems.push(
        `${slot.propPath || '(args)'}: received a pulumi Output (or Promise); this value shapes the objects, so it must be a plain value`,
      );
    return format ?? 'name';
  });
  if (problems.length > 0) {
    throw new Error(
      `backup-cronjobs: ${problems.join('; ')}. Outputs are taken for the namespace, names of Secrets, PVCs, ConfigMaps and ServiceAccounts, addresses, endpoints, buckets and images`,
    );
  }
  return formats;
}

/** `policy` with marker i replaced by `values[i]`. */
export function fillMarkers(policy: unknown, values: readonly unknown[]): unknown {
  if (policy instanceof InputMarker) return values[policy.index];
  if (Array.isArray(policy)) return policy.map((v) => fillMarkers(v, values));
  if (isPlainObject(policy))
    return Object.fromEntries(Object.entries(policy).map(([k, v]) => [k, fillMarkers(v, values)]));
  return policy;
}

/**
 * A stand-in accepted wherever a value of `format` is (a DNS label, a
 * `host:port`, an https URL: a CA bundle beside it is accepted too, and an
 * http value is refused there once known) that nothing the core renders
 * contains by itself. `set` tells two stand-ins of one slot apart.
 */
export function standIn(format: PassThroughFormat, index: number, set: 'a' | 'b'): string {
  const token = `pulumi-input-${index}-${set}-4f1d0c`;
  if (format === 'address') return `${token}:1`;
  if (format === 'url') return `https://${token}`;
  return token;
}

/**
 * `value` (plain JSON) with every stand-in inside its strings replaced: a
 * string that is exactly stand-in i becomes `piece(i)`; a string with
 * stand-ins among other text becomes `join` of its parts. Throws when a
 * stand-in is in an object key.
 */
export function substitute<T>(
  value: unknown,
  standIns: readonly string[],
  piece: (index: number) => T,
  join: (parts: readonly (string | T)[]) => unknown,
): unknown {
  if (standIns.length === 0) return value;
  const pattern = new RegExp(
    `(${[...standIns]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|')})`,
  );
  const replace = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const texts = v.split(pattern).filter((p) => p !== '');
      if (!texts.some((t) => standIns.includes(t))) return v;
      const parts = texts.map((t) => (standIns.includes(t) ? piece(standIns.indexOf(t)) : t));
      return parts.length === 1 ? parts[0] : join(parts);
    }
    if (Array.isArray(v)) return v.map(replace);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => {
          if (pattern.test(k))
            throw new Error(
              `backup-cronjobs: a pulumi Output reached the object key ${JSON.stringify(k)} (a bug: please report it)`,
            );
          return [k, replace(x)];
        }),
      );
    }
    return v;
  };
  return replace(value);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A Promise, from any realm. */
function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

/** The policy rendered at construction, with a stand-in for each Output. */
export interface Rendering {
  readonly resolved: ResolvedPolicy;
  readonly manifests: Manifest[];
  /** The policy with a marker for each slot. */
  readonly template: unknown;
  readonly slots: readonly InputSlot[];
  /** The stand-in each slot was rendered with. */
  readonly standIns: readonly string[];
  /** The slot of `metadata.namespace`, when it is an Output. */
  readonly namespaceSlot?: number;
  /** The slots rendered into text the kubelet expands (`$(VAR)` in a container's command, args, env values). */
  readonly expandedSlots: ReadonlySet<number>;
}

/**
 * The one render of a component: the policy of the args, an Output (or
 * Promise) standing in as a valid placeholder. Throws `PolicyError` with the
 * problems at the arg paths written, or an Error naming an Output where a
 * value shapes the objects.
 */
export function renderWithStandIns(source: PolicySource, label: string): Rendering {
  const { marked, slots } = markInputs(source.props);
  const template = source.toPolicy(marked);
  const paths = markerPaths(template);
  const standIns = slotFormats(slots, paths).map((format, i) => standIn(format, i, 'a'));
  try {
    const resolved = resolvePolicy(fillMarkers(template, standIns), label);
    const manifests = renderShared(resolved);
    const namespaceSlot = paths.findIndex((p) => p?.length === 2 && p[0] === 'metadata' && p[1] === 'namespace');
    if (namespaceSlot >= 0 && resolved.dashboard) {
      // the dashboard's uid is a hash of the namespace: a stand-in's hash would be written in its place
      throw new Error(
        `backup-cronjobs: ${slots[namespaceSlot].propPath}: received a pulumi Output (or Promise) beside ${propFieldName(source.layout, ['spec', 'metrics', 'grafanaDashboard'])}; the dashboard's file name and uid are made from the namespace, so it must be a plain value there (or leave out grafanaDashboard)`,
      );
    }
    const expanded = standIns.length > 0 ? kubeletExpandedTexts(manifests) : [];
    return {
      resolved,
      manifests,
      template,
      slots,
      standIns,
      namespaceSlot: namespaceSlot < 0 ? undefined : namespaceSlot,
      expandedSlots: new Set(standIns.flatMap((s, i) => (expanded.some((t) => t.includes(s)) ? [i] : []))),
    };
  } catch (e) {
    throw e instanceof PolicyError ? atPropPaths(e, source) : e;
  }
}

/**
 * What is wrong with the slots' values, once known, or undefined: a value
 * that is not a string; the whole policy with the values, resolved as the
 * plain args would be (its `PolicyError` at the arg paths); a value the core
 * would write otherwise than as written, because its stand-in landed in text
 * the kubelet expands and the value holds a `$` (the core writes it `$$`).
 * Nothing is rendered: the objects are those of `r` with the values in place.
 */
export function valuesProblem(
  r: Rendering,
  values: readonly unknown[],
  source: PolicySource,
  label: string,
): string | undefined {
  const notStrings = values.flatMap((v, i) =>
    typeof v === 'string' ? [] : [`  ${r.slots[i].propPath}: the Output resolved to ${show(v)}; a string is required`],
  );
  if (notStrings.length > 0) return `${label}: invalid Output value(s)\n${notStrings.join('\n')}`;
  try {
    resolvePolicy(fillMarkers(r.template, values), label);
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
    return atPropPaths(e, source).message;
  }
  const escaped = [...r.expandedSlots].filter((i) => literal(values[i] as string) !== values[i]);
  if (escaped.length > 0) {
    return (
      `${label}: the value(s) of ${escaped.map((i) => r.slots[i].propPath).join(', ')} render differently from the value as written ` +
      "(escaped for the kubelet's $(VAR) expansion): pass such a value as a plain string"
    );
  }
  return undefined;
}

/** Keys of a pod spec's container lists. */
const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/** Every string of `manifests` the kubelet expands `$(VAR)` in: each container's command, args and env values. */
export function kubeletExpandedTexts(manifests: readonly unknown[]): string[] {
  const texts: string[] = [];
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isPlainObject(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (!CONTAINER_LISTS.has(k) || !Array.isArray(v)) {
          visit(v);
          continue;
        }
        for (const c of v.filter(isPlainObject)) {
          const env = Array.isArray(c.env) ? c.env.filter(isPlainObject).map((e) => e.value) : [];
          texts.push(...strings(c.command), ...strings(c.args), ...strings(env));
        }
      }
    }
  };
  visit(manifests);
  return texts;
}
