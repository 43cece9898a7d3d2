import type { Construct } from 'constructs';
import { REDIS_PROPS_LAYOUT, redisSchedulePolicy } from '../../lib/engines/redis/props';
import type { RedisScheduleProps } from '../../lib/engines/redis/props';
import { PolicyConstruct } from './backup-policy';
import type { Cdk8sValues } from './values';

/**
 * Backups of a sharded Redis behind Sentinel: the fields of `spec.redis` plus
 * the job settings of every shard, plus `name` (prefix of every object name),
 * `namespace` (default: the chart's), `labels`, `annotations`, `retention`,
 * `metrics`. Durations also take a cdk8s `Duration`, schedules a `Cron`,
 * Secret names a cdk8s-plus `ISecret`. The props → policy mapping is the
 * core's (`redisSchedulePolicy`), shared with the Pulumi component.
 */
export interface RedisBackupScheduleProps extends Cdk8sValues<RedisScheduleProps> {}

/**
 * One CronJob per shard (`<name>-<shard>`): Sentinel discovery, `redis-cli --rdb`
 * from a read-only replica, gzip, S3. `cronJob('<shard>')` is a shard's CronJob.
 */
export class RedisBackupSchedule extends PolicyConstruct {
  constructor(scope: Construct, id: string, props: RedisBackupScheduleProps) {
    super(scope, id, { props, toPolicy: (plain) => redisSchedulePolicy(plain as RedisScheduleProps), layout: REDIS_PROPS_LAYOUT });
  }
}
