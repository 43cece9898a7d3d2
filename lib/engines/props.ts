/**
 * Flat "one engine schedule" props (as the cdk8s constructs and the Pulumi
 * components take them) mapped onto a BackupPolicy document. Shared by both
 * adapters so that the same props always give the same policy, hence the same
 * objects.
 */
import type { RetentionOptions } from '../policy/retention-options';
import type { JobSettings, MetricsOptions, PolicyCommonSpec, PolicyDocument, ScriptsOptions } from '../policy/types';
import { API_VERSION, KIND } from '../policy/types';
import { pickSettings } from '../policy/settings';

/** The policy-level part of every engine schedule's props. */
export interface SchedulePolicyProps {
  /** Prefix of every object name (the policy name). */
  readonly name: string;
  /** Schedule name in object names. @default - the construct id / component name */
  readonly scheduleName?: string;
  /** @default - the cdk8s chart's namespace, else 'default' */
  readonly namespace?: string;
  /** Labels added to every object. @default - none */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations added to every object. @default - none */
  readonly annotations?: Readonly<Record<string, string>>;
  /** @default - keep every backup */
  readonly retention?: RetentionOptions;
  /** @default - no metrics */
  readonly metrics?: MetricsOptions;
  /** @default - inline */
  readonly scripts?: ScriptsOptions;
}

/** Keys of `SchedulePolicyProps`: they go to `metadata` and `spec`, never to the engine. */
export const SCHEDULE_POLICY_PROP_KEYS = ['name', 'scheduleName', 'namespace', 'labels', 'annotations', 'retention', 'metrics', 'scripts'] as const;

/** A policy document whose spec holds one engine (checked when it is validated). */
export type EnginePolicyDocument<Key extends string, Spec> = PolicyDocument<PolicyCommonSpec & { readonly [K in Key]: Spec }>;

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

function document<Key extends string, Spec>(engine: Key, props: Omit<SchedulePolicyProps, 'scheduleName'>, defaults: JobSettings | undefined, spec: Spec): EnginePolicyDocument<Key, Spec> {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: props.name, namespace: props.namespace, labels: props.labels, annotations: props.annotations },
    spec: { defaults, retention: props.retention, metrics: props.metrics, scripts: props.scripts, [engine]: spec } as PolicyCommonSpec & { readonly [K in Key]: Spec },
  };
}
