import type { Construct } from 'constructs';
import { redisSchedulePolicy } from '../../lib/engines/redis/props';
import type { RedisScheduleProps } from '../../lib/engines/redis/props';
import { PolicyConstruct } from './backup-policy';

/**
 * Backups of a sharded Redis behind Sentinel: the fields of `spec.redis` plus
 * the job settings of every shard. The props → policy mapping is the core's
 * (`redisSchedulePolicy`), shareable with a Pulumi component.
 */
export interface RedisBackupScheduleProps extends RedisScheduleProps {}

/** One CronJob per shard: Sentinel discovery, `redis-cli --rdb` from a read-only replica, gzip, S3. */
export class RedisBackupSchedule extends PolicyConstruct {

  constructor(scope: Construct, id: string, props: RedisBackupScheduleProps) {
    super(scope, id, redisSchedulePolicy(props));
  }
}
