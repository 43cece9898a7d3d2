/** Props of one Redis backup schedule (cdk8s `RedisBackupSchedule`, a Pulumi component) → policy. */
import type { EngineProps } from '../engine';
import type { EnginePolicyDocument, PassThroughFields, PropsFields, PropsLayout, SchedulePolicyProps } from '../props';
import { flatEnginePolicy } from '../props';
import type { JobSettings } from '../../policy/types';
import type { RedisSpec } from './types';

/**
 * `spec.redis` plus the job settings of every shard (they become
 * `spec.defaults`; per-shard overrides go in `shards`), plus the policy-level
 * fields. `scheduleName` is not used: object names are `<name>-<shard>`.
 */
export interface RedisScheduleProps extends RedisSpec, JobSettings, Omit<SchedulePolicyProps, 'scheduleName'> {}

/** Keys of `RedisScheduleProps` that belong to `spec.redis`. */
export const REDIS_SPEC_KEYS = [
  'sentinel',
  'username',
  'passwordSecret',
  'shards',
  'allowMasterFallback',
  'compression',
  'verifyRdb',
  'scratch',
  's3',
  'copies',
  'images',
] as const;

// Compile-time guard: a new RedisSpec field must be listed above.
type Unlisted = Exclude<keyof RedisSpec, (typeof REDIS_SPEC_KEYS)[number]>;
const everySpecKeyListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everySpecKeyListed;

/** Where the props land in the policy: job settings in `spec.defaults`, the rest in `spec.redis`. */
export const REDIS_PROPS_LAYOUT: PropsLayout = { engine: 'redis', shape: 'flat' };

/** Redis fields that only pass through, besides the common ones: the Sentinel addresses and the password Secrets. */
export const REDIS_PASS_THROUGH = {
  values: {},
  items: { addresses: 'address' },
  objects: [],
  references: ['passwordSecret'],
} as const satisfies PassThroughFields;

/** The policy document for the props (not validated yet: pass it to `renderPolicy`). */
export function redisSchedulePolicy(props: RedisScheduleProps): EnginePolicyDocument<'redis', RedisSpec> {
  return flatEnginePolicy<'redis', RedisSpec>('redis', REDIS_SPEC_KEYS, props);
}

/** `RedisBackupSchedule` (cdk8s and Pulumi), made by the front ends from this. */
/** Redis fields a front end takes in another form: the pass-through fields above, an S3 Object Lock's `period` (a cdk8s `Duration` too). */
export const REDIS_FIELDS = {
  passThrough: REDIS_PASS_THROUGH,
  durations: ['period'],
} as const satisfies PropsFields;

export const REDIS_PROPS: EngineProps<RedisScheduleProps, typeof REDIS_FIELDS> = {
  typeName: 'RedisBackupSchedule',
  shape: REDIS_PROPS_LAYOUT.shape,
  toPolicy: (props) => redisSchedulePolicy(props),
  fields: REDIS_FIELDS,
};
