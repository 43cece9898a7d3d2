import type { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { renderPolicy } from '../../lib';
import type { Manifest } from '../../lib';
import { redisSchedulePolicy } from '../../lib/engines/redis/schedule-props';
import type { RedisScheduleProps } from '../../lib/engines/redis/schedule-props';
import { addApiObjects } from './backup-policy';

/**
 * Backups of a sharded Redis behind Sentinel: the fields of `spec.redis` plus
 * the job settings of every shard. The props → policy mapping is the core's
 * (`redisSchedulePolicy`), shareable with a Pulumi component.
 */
export interface RedisBackupScheduleProps extends RedisScheduleProps {}

/** One CronJob per shard: Sentinel discovery, `redis-cli --rdb` from a read-only replica, gzip, S3. */
export class RedisBackupSchedule extends Construct {
  public readonly manifests: readonly Manifest[];
  public readonly apiObjects: readonly ApiObject[];
  public readonly cronJobs: readonly ApiObject[];

  constructor(scope: Construct, id: string, props: RedisBackupScheduleProps) {
    super(scope, id);
    this.manifests = renderPolicy(redisSchedulePolicy(props), this.node.path);
    this.apiObjects = addApiObjects(this, this.manifests);
    this.cronJobs = this.apiObjects.filter((o) => o.kind === 'CronJob');
  }
}
