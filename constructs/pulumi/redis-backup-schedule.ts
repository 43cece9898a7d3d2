import * as pulumi from '@pulumi/pulumi';
import { redisSchedulePolicy } from '../../lib/engines/redis/props';
import type { RedisScheduleProps } from '../../lib/engines/redis/props';
import { PolicyComponent } from './policy-component';

/**
 * Backups of a sharded Redis behind Sentinel, exactly the cdk8s
 * `RedisBackupScheduleProps`: the fields of `spec.redis`, the job settings of
 * every shard, and `name` (prefix of every object name), `namespace`,
 * `labels`, `annotations`, `retention`, `metrics`. All plain values.
 */
export interface RedisBackupScheduleArgs extends RedisScheduleProps {}

/**
 * `backup-cronjobs:index:RedisBackupSchedule`: one CronJob per shard. The
 * args → policy mapping is the core's (`redisSchedulePolicy`), shared with the
 * cdk8s construct. Object names are `<name>-<shard>`: the component name only
 * names the Pulumi resources.
 */
export class RedisBackupSchedule extends PolicyComponent {
  constructor(name: string, args: RedisBackupScheduleArgs, opts?: pulumi.ComponentResourceOptions) {
    super('RedisBackupSchedule', name, redisSchedulePolicy(args), opts);
  }
}
