/** Props of one Vitess backup schedule (cdk8s `VitessBackupSchedule`, Pulumi `VitessBackupSchedule`) → policy. */
import type { EngineProps } from '../engine';
import { EnginePolicyDocument, PropsLayout, SchedulePolicyProps, singleSchedulePolicy } from '../props';
import type { VitessSchedule, VitessSpec } from './types';
import { vitessSchema } from './schema';

/**
 * One Vitess backup schedule: the cluster settings of `spec.vitess` plus one
 * schedule's strategies and job settings, plus the policy-level fields.
 */
export interface VitessScheduleProps
  extends Omit<VitessSpec, 'schedules'>, Omit<VitessSchedule, 'name'>, SchedulePolicyProps {}

/** Keys of `VitessScheduleProps` that belong to `spec.vitess`: the fields of its schema but `schedules` (the rest is the schedule's). */
export const VITESS_SPEC_KEYS: readonly string[] = Object.keys(vitessSchema.properties as object).filter(
  (key) => key !== 'schedules',
);

/** Where the props land in the policy: cluster settings in `spec.vitess`, the rest in `spec.vitess.schedules[0]`. */
export const VITESS_PROPS_LAYOUT: PropsLayout = { engine: 'vitess', shape: 'schedule' };

/** The policy document for one Vitess schedule (not validated yet: pass it to `renderPolicy`). */
export function vitessSchedulePolicy(
  props: VitessScheduleProps,
  defaultScheduleName: string,
): EnginePolicyDocument<'vitess', VitessSpec> {
  return singleSchedulePolicy<'vitess', VitessSpec>('vitess', VITESS_SPEC_KEYS, props, defaultScheduleName);
}

/** `VitessBackupSchedule` (cdk8s and Pulumi), made by the front ends from this: one schedule, named after the construct id by default. */
export const VITESS_PROPS: EngineProps<VitessScheduleProps> = {
  typeName: 'VitessBackupSchedule',
  shape: VITESS_PROPS_LAYOUT.shape,
  toPolicy: (props, defaultScheduleName) => vitessSchedulePolicy(props, defaultScheduleName),
};
