import * as pulumi from '@pulumi/pulumi';
import * as k8s from '@pulumi/kubernetes';
import { objectByKey } from '../../lib';
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
 * `retention.schedule` and the suspended restore Jobs when `restore` is set.
 * The args → policy mapping is the core's (`etcdSchedulePolicy`), shared with
 * the cdk8s construct. Object names are `<name>` / `<name>-<node>` (prune:
 * `<name>-prune[-<node>]`): the component name only names the Pulumi resources.
 */
export class EtcdBackupSchedule extends PolicyComponent {
  /** The restore Job children (empty without `restore`). */
  public readonly restoreJobs: readonly k8s.batch.v1.Job[];

  constructor(name: string, args: EtcdBackupScheduleArgs, opts?: pulumi.ComponentResourceOptions) {
    super('EtcdBackupSchedule', name, { args, toPolicy: (marked) => etcdSchedulePolicy(marked as EtcdScheduleProps), layout: ETCD_PROPS_LAYOUT }, opts);
    this.restoreJobs = this.resources.filter((r): r is k8s.batch.v1.Job => k8s.batch.v1.Job.isInstance(r));
  }

  /** The restore Job child of a node; without a node, the only one. */
  public restoreJob(node?: string): k8s.batch.v1.Job {
    return objectByKey(this.jobs, node, `${this.label}: restore Job`);
  }
}
