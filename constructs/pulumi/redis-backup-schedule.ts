import * as pulumi from '@pulumi/pulumi';
import { REDIS_PROPS_LAYOUT, redisSchedulePolicy } from '../../lib/engines/redis/props';
import type { RedisScheduleProps } from '../../lib/engines/redis/props';
import { PolicyComponent } from './policy-component';
import type { WithInputs } from './inputs';

/**
 * Backups of a sharded Redis behind Sentinel, as the cdk8s
 * `RedisBackupScheduleProps`: the fields of `spec.redis`, the job settings of
 * every shard, and `name` (prefix of every object name), `namespace`,
 * `labels`, `annotations`, `retention`, `metrics`. `pulumi.Input` for the
 * namespace, the Sentinel addresses, Secret names, the bucket and endpoint,
 * the images and pod ServiceAccount/Secret/PVC names; plain values elsewhere.
 */
export interface RedisBackupScheduleArgs extends WithInputs<RedisScheduleProps> {}

/**
 * `backup-cronjobs:index:RedisBackupSchedule`: one CronJob per shard
 * (`cronJob('<shard>')`). The args → policy mapping is the core's
 * (`redisSchedulePolicy`), shared with the cdk8s construct. Object names are
 * `<name>-<shard>`: the component name only names the Pulumi resources.
 */
export class RedisBackupSchedule extends PolicyComponent {
  constructor(name: string, args: RedisBackupScheduleArgs, opts?: pulumi.ComponentResourceOptions) {
    super('RedisBackupSchedule', name, { args, toPolicy: (marked) => redisSchedulePolicy(marked as RedisScheduleProps), layout: REDIS_PROPS_LAYOUT }, opts);
  }
}
