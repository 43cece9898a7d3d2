/** Props of one Vitess backup schedule (cdk8s `VitessBackupSchedule`, Pulumi `VitessBackupSchedule`) → policy. */
import { EnginePolicyDocument, SchedulePolicyProps, singleSchedulePolicy } from '../props';
import type { VitessSchedule, VitessSpec } from './types';

/**
 * One Vitess backup schedule: the cluster settings of `spec.vitess` plus one
 * schedule's strategies and job settings, plus the policy-level fields.
 */
export interface VitessScheduleProps extends Omit<VitessSpec, 'schedules'>, Omit<VitessSchedule, 'name'>, SchedulePolicyProps {}

/** Keys of `VitessScheduleProps` that belong to `spec.vitess` (the rest is the schedule's). */
export const VITESS_SPEC_KEYS = [
  'cluster', 'images', 'mysqlFlavor', 'backupEngine', 'topology', 'vtctldServer', 'storage', 'dbInitScriptSecret',
  'scratch', 'allowFirstBackup', 'flagStyle', 'vtbackupRetention', 'extraFlags',
] as const;

// Compile-time guard: a new VitessSpec field must be listed above, or it would be routed into the schedule.
type Unlisted = Exclude<keyof Omit<VitessSpec, 'schedules'>, (typeof VITESS_SPEC_KEYS)[number]>;
const everySpecKeyListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everySpecKeyListed;

/** The policy document for one Vitess schedule (not validated yet: pass it to `renderPolicy`). */
export function vitessSchedulePolicy(props: VitessScheduleProps, defaultScheduleName: string): EnginePolicyDocument<'vitess', VitessSpec> {
  return singleSchedulePolicy<'vitess', VitessSpec>('vitess', VITESS_SPEC_KEYS, props, defaultScheduleName);
}
