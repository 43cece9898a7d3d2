import * as pulumi from '@pulumi/pulumi';
import { vitessSchedulePolicy } from '../../lib/engines/vitess/props';
import type { VitessScheduleProps } from '../../lib/engines/vitess/props';
import { PolicyComponent } from './policy-component';

/**
 * One Vitess backup schedule, exactly the cdk8s `VitessBackupScheduleProps`:
 * the cluster settings of `spec.vitess`, one schedule's strategies and job
 * settings, and `name` (policy name, prefix of every object name),
 * `scheduleName` (default: the component name), `namespace`, `labels`,
 * `annotations`, `retention`, `metrics`. All plain values.
 */
export interface VitessBackupScheduleArgs extends VitessScheduleProps {}

/**
 * `backup-cronjobs:index:VitessBackupSchedule`: one CronJob per keyspace/shard
 * of the strategies, running vtbackup. The args → policy mapping is the
 * core's (`vitessSchedulePolicy`), shared with the cdk8s construct.
 */
export class VitessBackupSchedule extends PolicyComponent {
  constructor(name: string, args: VitessBackupScheduleArgs, opts?: pulumi.ComponentResourceOptions) {
    super('VitessBackupSchedule', name, vitessSchedulePolicy(args, name), opts);
  }
}
