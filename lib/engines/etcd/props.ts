/** Props of one etcd backup schedule (cdk8s `EtcdBackupSchedule`, a Pulumi component) → policy. */
import type { EngineProps } from '../engine';
import type { EnginePolicyDocument, PropsLayout, SchedulePolicyProps } from '../props';
import { flatEnginePolicy } from '../props';
import type { JobSettings } from '../../policy/types';
import type { EtcdSpec } from './types';
import { etcdSchema } from './schema';

/**
 * `spec.etcd` plus the job settings of every CronJob (they become
 * `spec.defaults`; per-node overrides go in `nodes`), plus the policy-level
 * fields. `scheduleName` is not used: object names are `<name>` (cluster
 * mode) or `<name>-<node>` (perNode), and `<name>-prune[-<node>]` with
 * `retention.schedule`.
 */
export interface EtcdScheduleProps extends EtcdSpec, JobSettings, Omit<SchedulePolicyProps, 'scheduleName'> {}

/** Keys of `EtcdScheduleProps` that belong to `spec.etcd`: the fields of its schema. */
export const ETCD_SPEC_KEYS: readonly string[] = Object.keys(etcdSchema.properties as object);

/** Where the props land in the policy: job settings in `spec.defaults`, the rest in `spec.etcd`. */
export const ETCD_PROPS_LAYOUT: PropsLayout = { engine: 'etcd', shape: 'flat' };

/** The policy document for the props (not validated yet: pass it to `renderPolicy`). */
export function etcdSchedulePolicy(props: EtcdScheduleProps): EnginePolicyDocument<'etcd', EtcdSpec> {
  return flatEnginePolicy<'etcd', EtcdSpec>('etcd', ETCD_SPEC_KEYS, props);
}

/** `EtcdBackupSchedule` (cdk8s and Pulumi), made by the front ends from this. */
export const ETCD_PROPS: EngineProps<EtcdScheduleProps> = {
  typeName: 'EtcdBackupSchedule',
  shape: ETCD_PROPS_LAYOUT.shape,
  toPolicy: (props) => etcdSchedulePolicy(props),
};
