import type * as pulumi from '@pulumi/pulumi';
import { engineProps } from '../../lib/internal';
import type { ScheduleEngineKey } from '../../lib/internal';
import { scheduleSource } from '../core';
import { PolicyComponent } from './policy-component';
import type { ScheduleArgsByEngine } from './engine-schedules';

/** The args of an engine's schedule component: its `<Class>Args` interface (constructs/pulumi/args.generated.ts). */
export type ScheduleArgs<K extends ScheduleEngineKey> = ScheduleArgsByEngine[K];

/** The class of an engine's schedule component (`new RedisBackupSchedule('cache', args)`). */
export type ScheduleComponentClass<K extends ScheduleEngineKey> = new (
  name: string,
  args: ScheduleArgs<K>,
  opts?: pulumi.ComponentResourceOptions,
) => PolicyComponent;

/**
 * The schedule component of an engine (`backup-cronjobs:index:<typeName>`),
 * made from its definition in the core (`props` of
 * `lib/engines/<engine>/index.ts`): the args → policy mapping is the core's,
 * shared with the cdk8s construct. The component name only names the Pulumi
 * resources (and a Vitess schedule when `scheduleName` is not set).
 */
export function scheduleComponent<K extends ScheduleEngineKey>(engine: K): ScheduleComponentClass<K> {
  const { typeName } = engineProps(engine);
  return class extends PolicyComponent {
    constructor(name: string, args: ScheduleArgs<K>, opts?: pulumi.ComponentResourceOptions) {
      super(typeName, name, scheduleSource(engine, args, name), opts);
    }
  };
}
