import type { Construct } from 'constructs';
import { ETCD_PROPS_LAYOUT, etcdSchedulePolicy } from '../../lib/engines/etcd/props';
import type { EtcdScheduleProps } from '../../lib/engines/etcd/props';
import { PolicyConstruct } from './backup-policy';
import type { Cdk8sValues } from './values';

/**
 * etcd control-plane snapshots: the fields of `spec.etcd` plus the job
 * settings of every CronJob, plus `name`, `namespace` (default: the chart's),
 * `labels`, `annotations`, `retention`, `metrics`. Durations also take a cdk8s
 * `Duration`, schedules a `Cron`, Secret names a cdk8s-plus `ISecret`, the
 * destination's `claimName` an `IPersistentVolumeClaim`. The props → policy
 * mapping is the core's (`etcdSchedulePolicy`), shared with the Pulumi component.
 */
export interface EtcdBackupScheduleProps extends Cdk8sValues<EtcdScheduleProps> {}

/**
 * One CronJob on any control-plane node (`mode: cluster`, key `cluster`) or
 * one per node (`mode: perNode`, keyed by node): `etcdctl snapshot save`,
 * checksum, `snapshot status` and a restore check, an atomic rename (or an
 * S3 upload), metadata, retention; plus retention-prune CronJobs with
 * `retention.schedule`. Restore Jobs are printed by `backup-cronjobs restore`,
 * not synthesized.
 */
export class EtcdBackupSchedule extends PolicyConstruct {
  constructor(scope: Construct, id: string, props: EtcdBackupScheduleProps) {
    super(scope, id, { props, toPolicy: (plain) => etcdSchedulePolicy(plain as EtcdScheduleProps), layout: ETCD_PROPS_LAYOUT });
  }
}
