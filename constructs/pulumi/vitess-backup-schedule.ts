import * as pulumi from '@pulumi/pulumi';
import { VITESS_PROPS_LAYOUT, vitessSchedulePolicy } from '../../lib/engines/vitess/props';
import type { VitessScheduleProps } from '../../lib/engines/vitess/props';
import { PolicyComponent } from './policy-component';
import type { WithInputs } from './inputs';

/**
 * One Vitess backup schedule, as the cdk8s `VitessBackupScheduleProps`: the
 * cluster settings of `spec.vitess`, one schedule's strategies and job
 * settings, and `name` (policy name, prefix of every object name),
 * `scheduleName` (default: the component name), `namespace`, `labels`,
 * `annotations`, `retention`, `metrics`. `pulumi.Input` for the namespace,
 * the topology and vtctld addresses, the storage bucket, endpoint, Secrets
 * and claim, the images and pod ServiceAccount/Secret/PVC names; plain values
 * elsewhere.
 */
export interface VitessBackupScheduleArgs extends WithInputs<VitessScheduleProps> {}

/**
 * `backup-cronjobs:index:VitessBackupSchedule`: one CronJob per keyspace/shard
 * of the strategies, running vtbackup (`cronJob('<keyspace>/<shard>')`). The
 * args → policy mapping is the core's (`vitessSchedulePolicy`), shared with
 * the cdk8s construct.
 */
export class VitessBackupSchedule extends PolicyComponent {
  constructor(name: string, args: VitessBackupScheduleArgs, opts?: pulumi.ComponentResourceOptions) {
    super('VitessBackupSchedule', name, {
      args,
      toPolicy: (marked) => vitessSchedulePolicy(marked as VitessScheduleProps, name),
      layout: VITESS_PROPS_LAYOUT,
      backupKeyPrefix: `${args.scheduleName ?? name}/`,
    }, opts);
  }
}
