/** Props of one Redis backup schedule (cdk8s `RedisBackupSchedule`, a Pulumi component) → policy. */
import type { EngineProps } from '../engine';
import type { EnginePolicyDocument, PropsLayout, SchedulePolicyProps } from '../props';
import { flatEnginePolicy } from '../props';
import type { JobSettings } from '../../policy/types';
import type { RedisSpec } from './types';
import { redisSchema } from './schema';

/**
 * `spec.redis` plus the job settings of every shard (they become
 * `spec.defaults`; per-shard overrides go in `shards`), plus the policy-level
 * fields. `scheduleName` is not used: object names are `<name>-<shard>`.
 */
export interface RedisScheduleProps extends RedisSpec, JobSettings, Omit<SchedulePolicyProps, 'scheduleName'> {}

/** Keys of `RedisScheduleProps` that belong to `spec.redis`: the fields of its schema. */
export const REDIS_SPEC_KEYS: readonly string[] = Object.keys(redisSchema.properties as object);

/** Where the props land in the policy: job settings in `spec.defaults`, the rest in `spec.redis`. */
export const REDIS_PROPS_LAYOUT: PropsLayout = { engine: 'redis', shape: 'flat' };

/** The policy document for the props (not validated yet: pass it to `renderPolicy`). */
export function redisSchedulePolicy(props: RedisScheduleProps): EnginePolicyDocument<'redis', RedisSpec> {
  return flatEnginePolicy<'redis', RedisSpec>('redis', REDIS_SPEC_KEYS, props);
}

/** `RedisBackupSchedule` (cdk8s and Pulumi), made by the front ends from this. */
export const REDIS_PROPS: EngineProps<RedisScheduleProps> = {
  typeName: 'RedisBackupSchedule',
  shape: REDIS_PROPS_LAYOUT.shape,
  toPolicy: (props) => redisSchedulePolicy(props),
};
