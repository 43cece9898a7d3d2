/** The schedule component of each engine of the core's registry (ARCHITECTURE.md, "Adding an engine"). */
import type * as pulumi from '@pulumi/pulumi';
import { engineProps } from '../../lib/internal';
import type { ScheduleEngineKey } from '../../lib/internal';
import { scheduleSource } from '../core';
import { PolicyComponent } from './policy-component';
import type { EtcdBackupScheduleArgs, RedisBackupScheduleArgs, VitessBackupScheduleArgs } from './args.generated';

/** The args of each engine's schedule component, by engine. */
export interface ScheduleArgsByEngine {
  /** `VitessBackupSchedule`'s args. */
  readonly vitess: VitessBackupScheduleArgs;
  /** `RedisBackupSchedule`'s args. */
  readonly redis: RedisBackupScheduleArgs;
  /** `EtcdBackupSchedule`'s args. */
  readonly etcd: EtcdBackupScheduleArgs;
}

/** The args of an engine's schedule component: its `<Class>Args` interface (constructs/pulumi/args.generated.ts). */
export type ScheduleArgs<K extends ScheduleEngineKey> = ScheduleArgsByEngine[K];

/**
 * `backup-cronjobs:index:VitessBackupSchedule`: one CronJob per keyspace/shard
 * of the strategies, running vtbackup (`cronJob('<keyspace>/<shard>')`). The
 * schedule is named by `scheduleName`, else the component name.
 */
export class VitessBackupSchedule extends PolicyComponent {
  constructor(name: string, args: VitessBackupScheduleArgs, opts?: pulumi.ComponentResourceOptions) {
    super(engineProps('vitess').typeName, name, scheduleSource('vitess', args, name), opts);
  }
}

/**
 * `backup-cronjobs:index:RedisBackupSchedule`: one CronJob per shard
 * (`cronJob('<shard>')`). Object names are `<name>-<shard>`.
 */
export class RedisBackupSchedule extends PolicyComponent {
  constructor(name: string, args: RedisBackupScheduleArgs, opts?: pulumi.ComponentResourceOptions) {
    super(engineProps('redis').typeName, name, scheduleSource('redis', args, name), opts);
  }
}

/**
 * `backup-cronjobs:index:EtcdBackupSchedule`: one CronJob on any
 * control-plane node (`mode: cluster`, key `cluster`) or one per node
 * (`mode: perNode`, keyed by node), plus retention-prune CronJobs with
 * `retention.schedule` (restore Jobs are printed by `backup-cronjobs restore`,
 * not created). Object names are `<name>` / `<name>-<node>` (prune:
 * `<name>-prune[-<node>]`).
 */
export class EtcdBackupSchedule extends PolicyComponent {
  constructor(name: string, args: EtcdBackupScheduleArgs, opts?: pulumi.ComponentResourceOptions) {
    super(engineProps('etcd').typeName, name, scheduleSource('etcd', args, name), opts);
  }
}
