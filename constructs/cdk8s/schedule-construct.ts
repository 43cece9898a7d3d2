import type { Construct } from 'constructs';
import type { ScheduleEngineKey } from '../../lib/internal';
import { scheduleSource } from '../core';
import { PolicyConstruct } from './backup-policy';
import type { SchedulePropsByEngine } from './engine-schedules';

/** The props of an engine's schedule construct: its `<Class>Props` interface (constructs/cdk8s/props.generated.ts). */
export type ScheduleProps<K extends ScheduleEngineKey> = SchedulePropsByEngine[K];

/** The class of an engine's schedule construct (`new RedisBackupSchedule(chart, 'cache', props)`). */
export type ScheduleConstructClass<K extends ScheduleEngineKey> = new (
  scope: Construct,
  id: string,
  props: ScheduleProps<K>,
) => PolicyConstruct;

/**
 * The schedule construct of an engine, made from its definition in the core
 * (`props` of `lib/engines/<engine>/index.ts`): the props → policy mapping is
 * the core's, shared with the Pulumi component, so the same props give the
 * same objects. The construct id names a Vitess schedule when `scheduleName`
 * is not set.
 */
export function scheduleConstruct<K extends ScheduleEngineKey>(engine: K): ScheduleConstructClass<K> {
  return class extends PolicyConstruct {
    constructor(scope: Construct, id: string, props: ScheduleProps<K>) {
      super(scope, id, scheduleSource(engine, props, id));
    }
  };
}
