/**
 * Flat "one engine schedule" props (as the cdk8s constructs and the Pulumi
 * components take them) mapped onto a BackupPolicy document. Shared by both
 * adapters so that the same props always give the same policy, hence the same
 * objects.
 */
import type { RetentionOptions } from '../policy/retention-options';
import { PolicyError, PolicyIssue, PolicyPath, formatParts, formatPath } from '../policy/errors';
import type {
  DrillOptions,
  EncryptionOptions,
  JobSettings,
  MetricsOptions,
  PolicyCommonSpec,
  PolicyDocument,
  ScriptsOptions,
} from '../policy/types';
import { API_VERSION, KIND } from '../policy/types';
import { fieldMeta } from '../policy/schema-builders';
import type { PassThroughFormat, Schema } from '../policy/schema-builders';
import { pickSettings } from '../policy/settings';

/** The policy-level part of every engine schedule's props. */
export interface SchedulePolicyProps {
  /** Prefix of every object name (the policy name). */
  readonly name: string;
  /** Schedule name in object names. @default - the construct id / component name */
  readonly scheduleName?: string;
  /** Namespace of every object. @default - the cdk8s chart's namespace, else 'default' */
  readonly namespace?: string;
  /** Labels added to every object. @default - none */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations added to every object. @default - none */
  readonly annotations?: Readonly<Record<string, string>>;
  /** Which backups to keep, and when pruning runs (`spec.retention`). @default - keep every backup */
  readonly retention?: RetentionOptions;
  /** Pushed metrics, alerts and the dashboard (`spec.metrics`). @default - no metrics */
  readonly metrics?: MetricsOptions;
  /** How the containers get their scripts (`spec.scripts`). @default - mode configMap: the policy's one ConfigMap */
  readonly scripts?: ScriptsOptions;
  /** Client-side encryption (`spec.encryption`; etcd and Redis). @default - stored as written */
  readonly encryption?: EncryptionOptions;
  /** Restore drills (`spec.drill`; etcd and Redis). @default - no drills */
  readonly drill?: DrillOptions;
}

/** `SchedulePolicyProps` keys that are `spec` fields of their own name. */
const SPEC_PROP_KEYS = ['retention', 'metrics', 'scripts', 'encryption', 'drill'] as const;

/** Keys of `SchedulePolicyProps`: they go to `metadata` and `spec`, never to the engine. */
export const SCHEDULE_POLICY_PROP_KEYS = [
  'name',
  'scheduleName',
  'namespace',
  'labels',
  'annotations',
  ...SPEC_PROP_KEYS,
] as const;

/** A policy document whose spec holds one engine (checked when it is validated). */
export type EnginePolicyDocument<Key extends string, Spec> = PolicyDocument<
  PolicyCommonSpec & { readonly [K in Key]: Spec }
>;

/**
 * Builds the policy document for one schedule of `engine`: keys listed in
 * `specKeys` go to `spec.<engine>`, the policy-level keys to `metadata` and
 * `spec`, every other key to `spec.<engine>.schedules[0]` (named
 * `scheduleName ?? defaultScheduleName`). `undefined` values are dropped.
 *
 * The result is not validated yet: pass it to `renderPolicy`.
 */
export function singleSchedulePolicy<Key extends string, Spec>(
  engine: Key,
  specKeys: readonly string[],
  props: SchedulePolicyProps,
  defaultScheduleName: string,
): EnginePolicyDocument<Key, Spec> {
  const engineSpec: Record<string, unknown> = {};
  const schedule: Record<string, unknown> = { name: props.scheduleName ?? defaultScheduleName };
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || (SCHEDULE_POLICY_PROP_KEYS as readonly string[]).includes(key)) continue;
    if (specKeys.includes(key)) engineSpec[key] = value;
    else schedule[key] = value;
  }
  return document(engine, props, undefined, { ...engineSpec, schedules: [schedule] } as Spec);
}

/**
 * Builds the policy document of an engine whose props are flat (Redis, etcd):
 * keys listed in `specKeys` go to `spec.<engine>`, the job settings to
 * `spec.defaults`, the policy-level keys to `metadata` and `spec`. Any other
 * key also lands in `spec.<engine>`, where the closed schema names it.
 * `undefined` values are dropped; `scheduleName` is not used.
 *
 * The result is not validated yet: pass it to `renderPolicy`.
 */
export function flatEnginePolicy<Key extends string, Spec>(
  engine: Key,
  specKeys: readonly string[],
  props: JobSettings & Omit<SchedulePolicyProps, 'scheduleName'>,
): EnginePolicyDocument<Key, Spec> {
  const values = props as unknown as Record<string, unknown>;
  const engineSpec: Record<string, unknown> = {};
  for (const key of specKeys) if (values[key] !== undefined) engineSpec[key] = values[key];
  const defaults = pickSettings(props);
  const known = new Set<string>([...specKeys, ...SCHEDULE_POLICY_PROP_KEYS, ...Object.keys(defaults)]);
  const unknown = Object.keys(values).filter((k) => !known.has(k) && values[k] !== undefined);
  return document(engine, props, Object.keys(defaults).length > 0 ? defaults : undefined, {
    ...engineSpec,
    ...Object.fromEntries(unknown.map((k) => [k, values[k]])),
  } as Spec);
}

function document<Key extends string, Spec>(
  engine: Key,
  props: Omit<SchedulePolicyProps, 'scheduleName'>,
  defaults: JobSettings | undefined,
  spec: Spec,
): EnginePolicyDocument<Key, Spec> {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: props.name, namespace: props.namespace, labels: props.labels, annotations: props.annotations },
    spec: {
      defaults,
      retention: props.retention,
      metrics: props.metrics,
      scripts: props.scripts,
      encryption: props.encryption,
      drill: props.drill,
      [engine]: spec,
    } as PolicyCommonSpec & { readonly [K in Key]: Spec },
  };
}

/**
 * How one engine's flat props land in the policy: `schedule` props are one
 * `spec.<engine>.schedules[0]` (`singleSchedulePolicy`), `flat` props put the
 * job settings in `spec.defaults` (`flatEnginePolicy`).
 */
export interface PropsLayout {
  readonly engine: string;
  readonly shape: 'schedule' | 'flat';
}

/** `SchedulePolicyProps` keys that are `metadata` fields. */
const METADATA_KEYS = ['name', 'namespace', 'labels', 'annotations'];

/**
 * The prop path a policy path comes from, for the props of `layout` (the
 * inverse of the mapping above): `spec.redis.s3.bucket` → `s3.bucket`,
 * `spec.vitess.schedules[0].name` → `scheduleName`, `metadata.namespace` →
 * `namespace`; `[]` for the props as a whole; undefined for a path no prop
 * maps to.
 */
export function propPath(layout: PropsLayout, policyPath: PolicyPath): PolicyPath | undefined {
  const [top, key, ...rest] = policyPath;
  if (top === 'metadata') {
    if (key === undefined) return [];
    if (typeof key === 'string' && METADATA_KEYS.includes(key)) return [key, ...rest];
  }
  if (top === 'spec') {
    if (key === undefined || (key === layout.engine && rest.length === 0)) return [];
    if (typeof key === 'string' && (SPEC_PROP_KEYS as readonly string[]).includes(key)) return [key, ...rest];
    if (key === 'defaults') return rest;
    if (key === layout.engine) {
      if (layout.shape === 'schedule' && rest[0] === 'schedules') {
        if (rest.length <= 2) return [];
        if (rest[1] === 0) return rest[2] === 'name' ? ['scheduleName', ...rest.slice(3)] : rest.slice(2);
      }
      return rest;
    }
  }
  return undefined;
}

/**
 * How a user of the props of `layout` names the policy field at `policyPath`:
 * its prop path, else (no prop maps to it alone) its policy path as text.
 */
function asProp(layout: PropsLayout, policyPath: PolicyPath): PolicyPath | string {
  const mapped = propPath(layout, policyPath);
  return mapped === undefined || mapped.length === 0 ? formatPath(policyPath) : mapped;
}

/** The name of the policy field at `policyPath` as a user of the props of `layout` writes it (`metrics.grafanaDashboard`); its policy path without a layout. */
export function propFieldName(layout: PropsLayout | undefined, policyPath: PolicyPath): string {
  return layout === undefined ? formatPath(policyPath) : formatParts([asProp(layout, policyPath)]);
}

/**
 * The problems of `error` at the prop paths the user wrote (`s3.bucket`,
 * `shards[1]`; `(props)` for the props as a whole), each naming the policy
 * field it became. The other fields a message names (its `parts`) are named
 * as props too; a field no prop maps to keeps its policy path, as text.
 */
export function withPropPaths(error: PolicyError, layout: PropsLayout): PolicyError {
  const issues = error.issues.map((issue): PolicyIssue => {
    const segments = propPath(layout, issue.segments);
    const moved = segments !== undefined && formatPath(segments) !== issue.path;
    const where = moved ? { path: formatPath(segments) || '(props)', segments } : {};
    const suffix = moved ? ` (policy field ${issue.path})` : '';
    if (issue.parts === undefined) return { ...issue, ...where, message: issue.message + suffix };
    const parts = issue.parts.map((part) => (typeof part === 'string' ? part : asProp(layout, part)));
    if (suffix) parts.push(suffix);
    return { ...issue, ...where, message: formatParts(parts), parts };
  });
  return new PolicyError(issues, error.source);
}

/** What a stand-in for a pass-through value must look like where it stands (declared by the schema's field metadata). */
export type { PassThroughFormat } from '../policy/schema-builders';

/**
 * The stand-in format of the pass-through field at `policyPath` of `schema`
 * (a field whose metadata says it only passes through into the objects, or
 * a string field of an object whose fields all do), or undefined when the
 * field shapes the objects or is not in the schema.
 */
export function passThroughFormat(schema: Schema, policyPath: PolicyPath): PassThroughFormat | undefined {
  let field: Schema | undefined = schema;
  let parent: Schema | undefined;
  for (const segment of policyPath) {
    parent = field;
    field = childSchema(field, segment);
    if (field === undefined) return undefined;
  }
  return fieldMeta(field).passThrough ?? (parent === undefined ? undefined : fieldMeta(parent).passThroughFields);
}

/** The schema of `segment` (a key or an index) under `schema`. */
function childSchema(schema: Schema | undefined, segment: string | number): Schema | undefined {
  if (schema === undefined) return undefined;
  if (typeof segment === 'number') return schema.items as Schema | undefined;
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (properties !== undefined && Object.hasOwn(properties, segment)) return properties[segment];
  return typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : undefined;
}
