/** Props of one Redis backup schedule (cdk8s `RedisBackupSchedule`, a Pulumi component) → policy. */
import type { SchedulePolicyProps } from '../schedule-props';
import { SCHEDULE_POLICY_PROP_KEYS } from '../schedule-props';
import type { BackupPolicy, JobSettings } from '../../policy/types';
import { API_VERSION, KIND } from '../../policy/types';
import { pickSettings } from '../../target';
import type { RedisSpec } from './types';

/**
 * `spec.redis` plus the job settings of every shard (they become
 * `spec.defaults`; per-shard overrides go in `shards`), plus the policy-level
 * fields. `scheduleName` is not used: object names are `<name>-<shard>`.
 */
export interface RedisScheduleProps extends RedisSpec, JobSettings, Omit<SchedulePolicyProps, 'scheduleName'> {}

/** Keys of `RedisScheduleProps` that belong to `spec.redis`. */
export const REDIS_SPEC_KEYS = [
  'sentinel', 'username', 'passwordSecret', 'shards', 'allowMasterFallback', 'compression', 'verifyRdb', 'scratch', 's3', 'images',
] as const;

// Compile-time guard: a new RedisSpec field must be listed above.
type Unlisted = Exclude<keyof RedisSpec, (typeof REDIS_SPEC_KEYS)[number]>;
const everySpecKeyListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everySpecKeyListed;

/** The policy document for the props (not validated yet: pass it to `renderPolicy`). */
export function redisSchedulePolicy(props: RedisScheduleProps): BackupPolicy {
  const redis: Record<string, unknown> = {};
  for (const key of REDIS_SPEC_KEYS) if (props[key] !== undefined) redis[key] = props[key];
  const defaults = pickSettings(props);
  const known = new Set<string>([...REDIS_SPEC_KEYS, ...SCHEDULE_POLICY_PROP_KEYS, ...Object.keys(defaults)]);
  const unknown = Object.keys(props).filter((k) => !known.has(k) && (props as unknown as Record<string, unknown>)[k] !== undefined);
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: props.name, namespace: props.namespace, labels: props.labels, annotations: props.annotations },
    spec: {
      defaults: Object.keys(defaults).length > 0 ? defaults : undefined,
      retention: props.retention,
      metrics: props.metrics,
      // Unknown props land in spec.redis, where the closed schema names them.
      redis: { ...redis, ...Object.fromEntries(unknown.map((k) => [k, (props as unknown as Record<string, unknown>)[k]])) } as unknown as RedisSpec,
    },
  };
}
