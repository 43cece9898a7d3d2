/** One schedule component per engine of the core's registry, one line each (ARCHITECTURE.md, "Adding an engine"). */
import { scheduleComponent } from './schedule-component';
import type { ScheduleArgs } from './schedule-component';

/**
 * One Vitess backup schedule, as the cdk8s `VitessBackupScheduleProps`: the
 * cluster settings of `spec.vitess`, one schedule's strategies and job
 * settings, and `name` (policy name, prefix of every object name),
 * `scheduleName` (default: the component name), `namespace`, `labels`,
 * `annotations`, `retention`, `metrics`. `pulumi.Input` for the namespace,
 * the topology and vtctld addresses, the storage bucket, endpoint, Secrets
 * and claim, the images and pod ServiceAccount/Secret/PVC names; plain values
 * elsewhere.
 */
export interface VitessBackupScheduleArgs extends ScheduleArgs<'vitess'> {}

/**
 * Backups of a sharded Redis behind Sentinel, as the cdk8s
 * `RedisBackupScheduleProps`: the fields of `spec.redis`, the job settings of
 * every shard, and `name` (prefix of every object name), `namespace`,
 * `labels`, `annotations`, `retention`, `metrics`. `pulumi.Input` for the
 * namespace, the Sentinel addresses, Secret names, the bucket and endpoint,
 * the images and pod ServiceAccount/Secret/PVC names; plain values elsewhere.
 */
export interface RedisBackupScheduleArgs extends ScheduleArgs<'redis'> {}

/**
 * etcd control-plane snapshots, as the cdk8s `EtcdBackupScheduleProps`: the
 * fields of `spec.etcd`, the job settings of every CronJob, and `name`
 * (prefix of every object name), `namespace`, `labels`, `annotations`,
 * `retention`, `metrics`. `pulumi.Input` for the namespace, the
 * destination's claim, bucket, endpoint and Secret, the images and pod
 * ServiceAccount/Secret/PVC names; plain values elsewhere.
 */
export interface EtcdBackupScheduleArgs extends ScheduleArgs<'etcd'> {}

/**
 * `backup-cronjobs:index:VitessBackupSchedule`: one CronJob per keyspace/shard
 * of the strategies, running vtbackup (`cronJob('<keyspace>/<shard>')`).
 */
export class VitessBackupSchedule extends scheduleComponent('vitess') {}

/**
 * `backup-cronjobs:index:RedisBackupSchedule`: one CronJob per shard
 * (`cronJob('<shard>')`). Object names are `<name>-<shard>`.
 */
export class RedisBackupSchedule extends scheduleComponent('redis') {}

/**
 * `backup-cronjobs:index:EtcdBackupSchedule`: one CronJob on any
 * control-plane node (`mode: cluster`, key `cluster`) or one per node
 * (`mode: perNode`, keyed by node), plus retention-prune CronJobs with
 * `retention.schedule` (restore Jobs are printed by `backup-cronjobs restore`,
 * not created). Object names are `<name>` / `<name>-<node>` (prune:
 * `<name>-prune[-<node>]`).
 */
export class EtcdBackupSchedule extends scheduleComponent('etcd') {}
