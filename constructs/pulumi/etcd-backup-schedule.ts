import * as pulumi from '@pulumi/pulumi';
import { ETCD_PROPS_LAYOUT, etcdSchedulePolicy } from '../../lib/engines/etcd/props';
import type { EtcdScheduleProps } from '../../lib/engines/etcd/props';
import { PolicyComponent } from './policy-component';
import type { WithInputs } from './inputs';

/**
 * etcd control-plane snapshots, as the cdk8s `EtcdBackupScheduleProps`: the
 * fields of `spec.etcd`, the job settings of every CronJob, and `name`
 * (prefix of every object name), `namespace`, `labels`, `annotations`,
 * `retention`, `metrics`. `pulumi.Input` for the namespace, the
 * destination's claim, bucket, endpoint and Secret, the images and pod
 * ServiceAccount/Secret/PVC names; plain values elsewhere.
 */
export interface EtcdBackupScheduleArgs extends WithInputs<EtcdScheduleProps> {}

/**
 * `backup-cronjobs:index:EtcdBackupSchedule`: one CronJob on any
 * control-plane node (`mode: cluster`, key `cluster`) or one per node
 * (`mode: perNode`, keyed by node), plus retention-prune CronJobs with
 * `retention.schedule` (restore Jobs are printed by `backup-cronjobs restore`,
 * not created). The args → policy mapping is the core's (`etcdSchedulePolicy`),
 * shared with the cdk8s construct. Object names are `<name>` / `<name>-<node>`
 * (prune: `<name>-prune[-<node>]`): the component name only names the Pulumi
 * resources.
 */
export class EtcdBackupSchedule extends PolicyComponent {
  constructor(name: string, args: EtcdBackupScheduleArgs, opts?: pulumi.ComponentResourceOptions) {
    super('EtcdBackupSchedule', name, { args, toPolicy: (marked) => etcdSchedulePolicy(marked as EtcdScheduleProps), layout: ETCD_PROPS_LAYOUT }, opts);
  }
}
