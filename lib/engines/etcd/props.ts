/** Props of one etcd backup schedule (cdk8s `EtcdBackupSchedule`, a Pulumi component) → policy. */
import type { EngineProps } from '../engine';
import type { EnginePolicyDocument, PropsFields, PropsLayout, SchedulePolicyProps } from '../props';
import { NO_OWN_FIELDS, flatEnginePolicy } from '../props';
import type { JobSettings } from '../../policy/types';
import type { EtcdSpec } from './types';

/**
 * `spec.etcd` plus the job settings of every CronJob (they become
 * `spec.defaults`; per-node overrides go in `nodes`), plus the policy-level
 * fields. `scheduleName` is not used: object names are `<name>` (cluster
 * mode) or `<name>-<node>` (perNode), and `<name>-prune[-<node>]` with
 * `retention.schedule`.
 */
export interface EtcdScheduleProps extends EtcdSpec, JobSettings, Omit<SchedulePolicyProps, 'scheduleName'> {}

/** Keys of `EtcdScheduleProps` that belong to `spec.etcd`. */
export const ETCD_SPEC_KEYS = [
  'mode',
  'nodes',
  'distribution',
  'nodeRole',
  'tolerateAllTaints',
  'endpoint',
  'hostNetwork',
  'certificates',
  'destination',
  'copies',
  'namePrefix',
  'retentionScope',
  'restoreCheck',
  'controlPlaneFiles',
  'images',
  'restore',
  'defragmentation',
] as const;

// Compile-time guard: a new EtcdSpec field must be listed above.
type Unlisted = Exclude<keyof EtcdSpec, (typeof ETCD_SPEC_KEYS)[number]>;
const everySpecKeyListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everySpecKeyListed;

/** Where the props land in the policy: job settings in `spec.defaults`, the rest in `spec.etcd`. */
export const ETCD_PROPS_LAYOUT: PropsLayout = { engine: 'etcd', shape: 'flat' };

/** The policy document for the props (not validated yet: pass it to `renderPolicy`). */
export function etcdSchedulePolicy(props: EtcdScheduleProps): EnginePolicyDocument<'etcd', EtcdSpec> {
  return flatEnginePolicy<'etcd', EtcdSpec>('etcd', ETCD_SPEC_KEYS, props);
}

/**
 * etcd fields a front end takes in another form: no pass-through field of its own (its `endpoint`'s scheme
 * decides TLS), the defragmentation's `memberTimeout` and an S3 Object Lock's `period` (cdk8s `Duration`s too).
 */
export const ETCD_FIELDS = {
  passThrough: NO_OWN_FIELDS.passThrough,
  durations: ['memberTimeout', 'period'],
} as const satisfies PropsFields;

/** `EtcdBackupSchedule` (cdk8s and Pulumi), made by the front ends from this. */
export const ETCD_PROPS: EngineProps<EtcdScheduleProps, typeof ETCD_FIELDS> = {
  typeName: 'EtcdBackupSchedule',
  shape: ETCD_PROPS_LAYOUT.shape,
  toPolicy: (props) => etcdSchedulePolicy(props),
  fields: ETCD_FIELDS,
};
