/** One schedule construct per engine of the core's registry, one line each (ARCHITECTURE.md, "Adding an engine"). */
import { scheduleConstruct } from './schedule-construct';
import type { ScheduleProps } from './schedule-construct';

/**
 * One Vitess backup schedule: the cluster settings of `spec.vitess` plus one
 * schedule's strategies and job settings, plus `name` (policy name, prefix of
 * every object name), `scheduleName` (default: the construct id), `namespace`
 * (default: the chart's), `labels`, `annotations`, `retention`, `metrics`.
 * Durations also take a cdk8s `Duration`, `schedule` a `Cron`, Secret names a
 * cdk8s-plus `ISecret`, `storage.file.claimName` an `IPersistentVolumeClaim`.
 */
export interface VitessBackupScheduleProps extends ScheduleProps<'vitess'> {}

/**
 * Backups of a sharded Redis behind Sentinel: the fields of `spec.redis` plus
 * the job settings of every shard, plus `name` (prefix of every object name),
 * `namespace` (default: the chart's), `labels`, `annotations`, `retention`,
 * `metrics`. Durations also take a cdk8s `Duration`, schedules a `Cron`,
 * Secret names a cdk8s-plus `ISecret`.
 */
export interface RedisBackupScheduleProps extends ScheduleProps<'redis'> {}

/**
 * etcd control-plane snapshots: the fields of `spec.etcd` plus the job
 * settings of every CronJob, plus `name`, `namespace` (default: the chart's),
 * `labels`, `annotations`, `retention`, `metrics`. Durations also take a cdk8s
 * `Duration`, schedules a `Cron`, Secret names a cdk8s-plus `ISecret`, the
 * destination's `claimName` an `IPersistentVolumeClaim`.
 */
export interface EtcdBackupScheduleProps extends ScheduleProps<'etcd'> {}

/**
 * One CronJob per keyspace/shard of the strategies
 * (`<name>-<schedule>-<keyspace>-<shard>`), running vtbackup.
 * `cronJob('<keyspace>/<shard>')` is a shard's CronJob (`cronJob('commerce/-80')`).
 */
export class VitessBackupSchedule extends scheduleConstruct('vitess') {}

/**
 * One CronJob per shard (`<name>-<shard>`): Sentinel discovery, `redis-cli --rdb`
 * from a read-only replica, gzip, S3. `cronJob('<shard>')` is a shard's CronJob.
 */
export class RedisBackupSchedule extends scheduleConstruct('redis') {}

/**
 * One CronJob on any control-plane node (`mode: cluster`, key `cluster`) or
 * one per node (`mode: perNode`, keyed by node): `etcdctl snapshot save`,
 * checksum, `snapshot status` and a restore check, an atomic rename (or an
 * S3 upload), metadata, retention; plus retention-prune CronJobs with
 * `retention.schedule`. Restore Jobs are printed by `backup-cronjobs restore`,
 * not synthesized.
 */
export class EtcdBackupSchedule extends scheduleConstruct('etcd') {}
