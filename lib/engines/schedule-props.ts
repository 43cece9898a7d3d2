/**
 * Flat "one engine schedule" props (as the cdk8s constructs and the Pulumi
 * components take them) mapped onto a BackupPolicy document. Shared by both
 * adapters so that the same props always give the same policy, hence the same
 * objects.
 */
import type { RetentionOptions } from '../policy/retention-options';
import type { BackupPolicy, JobSettings, MetricsOptions } from '../policy/types';
import { API_VERSION, KIND } from '../policy/types';
import { pickSettings } from '../target';

/** The policy-level part of every engine schedule's props. */
export interface SchedulePolicyProps {
  /** Prefix of every object name (the policy name). */
  readonly name: string;
  /** Schedule name in object names. @default - the construct id / component name */
  readonly scheduleName?: string;
  /** @default 'default' */
  readonly namespace?: string;
  /** Labels added to every object. @default - none */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations added to every object. @default - none */
  readonly annotations?: Readonly<Record<string, string>>;
  /** @default - keep every backup */
  readonly retention?: RetentionOptions;
  /** @default - no metrics */
  readonly metrics?: MetricsOptions;
}

/** Keys of `SchedulePolicyProps`: they go to `metadata` and `spec`, never to the engine. */
export const SCHEDULE_POLICY_PROP_KEYS = ['name', 'scheduleName', 'namespace', 'labels', 'annotations', 'retention', 'metrics'] as const;

/**
 * Builds the policy document for one schedule of `engine`: keys listed in
 * `specKeys` go to `spec.<engine>`, the policy-level keys to `metadata` and
 * `spec`, every other key to `spec.<engine>.schedules[0]` (named
 * `scheduleName ?? defaultScheduleName`). `undefined` values are dropped.
 *
 * The result is not validated yet: pass it to `renderPolicy`.
 */
export function singleSchedulePolicy(
  engine: string,
  specKeys: readonly string[],
  props: SchedulePolicyProps,
  defaultScheduleName: string,
): BackupPolicy {
  const engineSpec: Record<string, unknown> = {};
  const schedule: Record<string, unknown> = { name: props.scheduleName ?? defaultScheduleName };
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || (SCHEDULE_POLICY_PROP_KEYS as readonly string[]).includes(key)) continue;
    if (specKeys.includes(key)) engineSpec[key] = value;
    else schedule[key] = value;
  }
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: props.name, namespace: props.namespace, labels: props.labels, annotations: props.annotations },
    spec: { retention: props.retention, metrics: props.metrics, [engine]: { ...engineSpec, schedules: [schedule] } },
  };
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
export function flatEnginePolicy(
  engine: string,
  specKeys: readonly string[],
  props: JobSettings & Omit<SchedulePolicyProps, 'scheduleName'>,
): BackupPolicy {
  const values = props as unknown as Record<string, unknown>;
  const engineSpec: Record<string, unknown> = {};
  for (const key of specKeys) if (values[key] !== undefined) engineSpec[key] = values[key];
  const defaults = pickSettings(props);
  const known = new Set<string>([...specKeys, ...SCHEDULE_POLICY_PROP_KEYS, ...Object.keys(defaults)]);
  const unknown = Object.keys(values).filter((k) => !known.has(k) && values[k] !== undefined);
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: props.name, namespace: props.namespace, labels: props.labels, annotations: props.annotations },
    spec: {
      defaults: Object.keys(defaults).length > 0 ? defaults : undefined,
      retention: props.retention,
      metrics: props.metrics,
      [engine]: { ...engineSpec, ...Object.fromEntries(unknown.map((k) => [k, values[k]])) },
    },
  };
}
