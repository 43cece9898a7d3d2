import type { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { renderPolicy } from '../../lib';
import type { Manifest } from '../../lib';
import { vitessSchedulePolicy } from '../../lib/engines/vitess/schedule-props';
import type { VitessScheduleProps } from '../../lib/engines/vitess/schedule-props';
import { addApiObjects } from './backup-policy';

/**
 * One Vitess backup schedule: the cluster settings of `spec.vitess` plus one
 * schedule's strategies and job settings (`scheduleName` defaults to the
 * construct id). The props → policy mapping is the core's
 * (`vitessSchedulePolicy`), shared with the Pulumi component.
 */
export interface VitessBackupScheduleProps extends VitessScheduleProps {}

/** One CronJob per keyspace/shard of the strategies, running vtbackup. */
export class VitessBackupSchedule extends Construct {
  public readonly manifests: readonly Manifest[];
  public readonly apiObjects: readonly ApiObject[];
  public readonly cronJobs: readonly ApiObject[];

  constructor(scope: Construct, id: string, props: VitessBackupScheduleProps) {
    super(scope, id);
    this.manifests = renderPolicy(vitessSchedulePolicy(props, id), this.node.path);
    this.apiObjects = addApiObjects(this, this.manifests);
    this.cronJobs = this.apiObjects.filter((o) => o.kind === 'CronJob');
  }
}
