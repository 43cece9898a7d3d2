import type { Construct } from 'constructs';
import { VITESS_PROPS_LAYOUT, vitessSchedulePolicy } from '../../lib/engines/vitess/props';
import type { VitessScheduleProps } from '../../lib/engines/vitess/props';
import { PolicyConstruct } from './backup-policy';
import type { Cdk8sValues } from './values';

/**
 * One Vitess backup schedule: the cluster settings of `spec.vitess` plus one
 * schedule's strategies and job settings, plus `name` (policy name, prefix of
 * every object name), `scheduleName` (default: the construct id), `namespace`
 * (default: the chart's), `labels`, `annotations`, `retention`, `metrics`.
 * Durations also take a cdk8s `Duration`, `schedule` a `Cron`, Secret names a
 * cdk8s-plus `ISecret`, `storage.file.claimName` an `IPersistentVolumeClaim`.
 * The props → policy mapping is the core's (`vitessSchedulePolicy`), shared
 * with the Pulumi component.
 */
export interface VitessBackupScheduleProps extends Cdk8sValues<VitessScheduleProps> {}

/**
 * One CronJob per keyspace/shard of the strategies
 * (`<name>-<schedule>-<keyspace>-<shard>`), running vtbackup.
 * `cronJob('<keyspace>/<shard>')` is a shard's CronJob (`cronJob('commerce/-80')`).
 */
export class VitessBackupSchedule extends PolicyConstruct {
  constructor(scope: Construct, id: string, props: VitessBackupScheduleProps) {
    super(scope, id, {
      props,
      toPolicy: (plain) => vitessSchedulePolicy(plain as VitessScheduleProps, id),
      layout: VITESS_PROPS_LAYOUT,
      backupKeyPrefix: `${props.scheduleName ?? id}/`,
    });
  }
}
