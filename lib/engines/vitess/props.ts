/** Props of one Vitess backup schedule (cdk8s `VitessBackupSchedule`, Pulumi `VitessBackupSchedule`) → policy. */
import type { EngineProps } from '../engine';
import {
  EnginePolicyDocument,
  PassThroughFields,
  PropsFields,
  PropsLayout,
  SchedulePolicyProps,
  singleSchedulePolicy,
} from '../props';
import type { VitessSchedule, VitessSpec } from './types';

/**
 * One Vitess backup schedule: the cluster settings of `spec.vitess` plus one
 * schedule's strategies and job settings, plus the policy-level fields.
 */
export interface VitessScheduleProps
  extends Omit<VitessSpec, 'schedules'>, Omit<VitessSchedule, 'name'>, SchedulePolicyProps {}

/** Keys of `VitessScheduleProps` that belong to `spec.vitess` (the rest is the schedule's). */
export const VITESS_SPEC_KEYS = [
  'cluster',
  'images',
  'mysqlFlavor',
  'backupEngine',
  'topology',
  'vtctldServer',
  'storage',
  'dbInitScriptSecret',
  'scratch',
  'allowFirstBackup',
  'flagStyle',
  'vtbackupRetention',
  'extraFlags',
] as const;

// Compile-time guard: a new VitessSpec field must be listed above, or it would be routed into the schedule.
type Unlisted = Exclude<keyof Omit<VitessSpec, 'schedules'>, (typeof VITESS_SPEC_KEYS)[number]>;
const everySpecKeyListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everySpecKeyListed;

/** Where the props land in the policy: cluster settings in `spec.vitess`, the rest in `spec.vitess.schedules[0]`. */
export const VITESS_PROPS_LAYOUT: PropsLayout = { engine: 'vitess', shape: 'schedule' };

/** Vitess fields that only pass through, besides the common ones: the topology and vtctld addresses, the storage and init Secrets. */
export const VITESS_PASS_THROUGH = {
  values: { globalServerAddress: 'address', vtctldServer: 'address' },
  items: {},
  objects: [],
  references: ['authSecret', 'dbInitScriptSecret'],
} as const satisfies PassThroughFields;

/** The policy document for one Vitess schedule (not validated yet: pass it to `renderPolicy`). */
export function vitessSchedulePolicy(
  props: VitessScheduleProps,
  defaultScheduleName: string,
): EnginePolicyDocument<'vitess', VitessSpec> {
  return singleSchedulePolicy<'vitess', VitessSpec>('vitess', VITESS_SPEC_KEYS, props, defaultScheduleName);
}

/** `VitessBackupSchedule` (cdk8s and Pulumi), made by the front ends from this: one schedule, named after the construct id by default. */
/** Vitess fields a front end takes in another form: the pass-through fields above, the schedule's frequency, vtbackup's retention durations and the incremental backups' recovery point. */
export const VITESS_FIELDS = {
  passThrough: VITESS_PASS_THROUGH,
  durations: ['frequency', 'minBackupInterval', 'minRetentionTime', 'maxRecoveryPointAge'],
} as const satisfies PropsFields;

export const VITESS_PROPS: EngineProps<VitessScheduleProps, typeof VITESS_FIELDS> = {
  typeName: 'VitessBackupSchedule',
  shape: VITESS_PROPS_LAYOUT.shape,
  toPolicy: (props, defaultScheduleName) => vitessSchedulePolicy(props, defaultScheduleName),
  fields: VITESS_FIELDS,
};
