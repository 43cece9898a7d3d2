import type { Construct } from 'constructs';
import { etcdSchedulePolicy } from '../../lib/engines/etcd/props';
import type { EtcdScheduleProps } from '../../lib/engines/etcd/props';
import { PolicyConstruct } from './backup-policy';

/**
 * etcd control-plane snapshots: the fields of `spec.etcd` plus the job
 * settings of every CronJob. The props → policy mapping is the core's
 * (`etcdSchedulePolicy`), shareable with a Pulumi component.
 */
export interface EtcdBackupScheduleProps extends EtcdScheduleProps {}

/**
 * One CronJob on any control-plane node (`mode: cluster`) or one per node
 * (`mode: perNode`): `etcdctl snapshot save`, checksum, `snapshot status` and a
 * restore check, an atomic rename (or an S3 upload), metadata, retention; plus
 * retention-prune CronJobs with `retention.schedule`. Restore Jobs are printed
 * by `backup-cronjobs restore`, not synthesized.
 */
export class EtcdBackupSchedule extends PolicyConstruct {
  constructor(scope: Construct, id: string, props: EtcdBackupScheduleProps) {
    super(scope, id, etcdSchedulePolicy(props));
  }
}
