import type { Construct } from 'constructs';
import { vitessSchedulePolicy } from '../../lib/engines/vitess/props';
import type { VitessScheduleProps } from '../../lib/engines/vitess/props';
import { PolicyConstruct } from './backup-policy';

/**
 * One Vitess backup schedule: the cluster settings of `spec.vitess` plus one
 * schedule's strategies and job settings (`scheduleName` defaults to the
 * construct id). The props → policy mapping is the core's
 * (`vitessSchedulePolicy`), shared with the Pulumi component.
 */
export interface VitessBackupScheduleProps extends VitessScheduleProps {}

/** One CronJob per keyspace/shard of the strategies, running vtbackup. */
export class VitessBackupSchedule extends PolicyConstruct {

  constructor(scope: Construct, id: string, props: VitessBackupScheduleProps) {
    super(scope, id, vitessSchedulePolicy(props, id));
  }
}
