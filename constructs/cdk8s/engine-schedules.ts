/** The schedule construct of each engine of the core's registry (ARCHITECTURE.md, "Adding an engine"). */
import type { Construct } from 'constructs';
import type { ScheduleEngineKey } from '../../lib/internal';
import { scheduleSource } from '../core';
import { PolicyConstruct } from './backup-policy';
import type { EtcdBackupScheduleProps, RedisBackupScheduleProps, VitessBackupScheduleProps } from './props.generated';

/** The props of each engine's schedule construct, by engine. */
export interface SchedulePropsByEngine {
  /** `VitessBackupSchedule`'s props. */
  readonly vitess: VitessBackupScheduleProps;
  /** `RedisBackupSchedule`'s props. */
  readonly redis: RedisBackupScheduleProps;
  /** `EtcdBackupSchedule`'s props. */
  readonly etcd: EtcdBackupScheduleProps;
}

/** The props of an engine's schedule construct: its `<Class>Props` interface (constructs/cdk8s/props.generated.ts). */
export type ScheduleProps<K extends ScheduleEngineKey> = SchedulePropsByEngine[K];

/**
 * One CronJob per keyspace/shard of the strategies
 * (`<name>-<schedule>-<keyspace>-<shard>`), running vtbackup.
 * `cronJob('<keyspace>/<shard>')` is a shard's CronJob (`cronJob('commerce/-80')`).
 * The schedule is named by `scheduleName`, else the construct id.
 */
export class VitessBackupSchedule extends PolicyConstruct {
  constructor(scope: Construct, id: string, props: VitessBackupScheduleProps) {
    super(scope, id, scheduleSource('vitess', props, id));
  }
}

/**
 * One CronJob per shard (`<name>-<shard>`): Sentinel discovery, `redis-cli --rdb`
 * from a read-only replica, gzip, S3. `cronJob('<shard>')` is a shard's CronJob.
 */
export class RedisBackupSchedule extends PolicyConstruct {
  constructor(scope: Construct, id: string, props: RedisBackupScheduleProps) {
    super(scope, id, scheduleSource('redis', props, id));
  }
}

/**
 * One CronJob on any control-plane node (`mode: cluster`, key `cluster`) or
 * one per node (`mode: perNode`, keyed by node): `etcdctl snapshot save`,
 * checksum, `snapshot status` and a restore check, an atomic rename (or an
 * S3 upload), metadata, retention; plus retention-prune CronJobs with
 * `retention.schedule`. Restore Jobs are printed by `backup-cronjobs restore`,
 * not synthesized.
 */
export class EtcdBackupSchedule extends PolicyConstruct {
  constructor(scope: Construct, id: string, props: EtcdBackupScheduleProps) {
    super(scope, id, scheduleSource('etcd', props, id));
  }
}
