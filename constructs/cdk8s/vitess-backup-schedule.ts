import type { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { API_VERSION, KIND, renderPolicy } from '../../lib';
import type { Manifest, MetricsOptions, RetentionOptions, VitessSchedule, VitessSpec } from '../../lib';
import { addApiObjects } from './backup-policy';

/**
 * One Vitess backup schedule: the cluster settings of `spec.vitess` plus one
 * schedule's strategies and job settings.
 */
export interface VitessBackupScheduleProps extends Omit<VitessSpec, 'schedules'>, Omit<VitessSchedule, 'name'> {
  /** Prefix of every object name (the policy name). */
  readonly name: string;
  /** Schedule name in object names. @default - the construct id */
  readonly scheduleName?: string;
  /** @default 'default' */
  readonly namespace?: string;
  /** Labels added to every object. @default - none */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations added to every object. @default - none */
  readonly annotations?: Readonly<Record<string, string>>;
  /** @default - keep every backup */
  readonly retention?: RetentionOptions;
  /** @default - no metrics */
  readonly metrics?: MetricsOptions;
}

const SPEC_KEYS = [
  'cluster', 'images', 'mysqlFlavor', 'backupEngine', 'topology', 'vtctldServer', 'storage', 'dbInitScriptSecret',
  'scratch', 'allowFirstBackup', 'flagStyle', 'vtbackupRetention', 'extraFlags',
] as const;
const POLICY_KEYS = ['name', 'scheduleName', 'namespace', 'labels', 'annotations', 'retention', 'metrics'] as const;

/** One CronJob per keyspace/shard of the strategies, running vtbackup. */
export class VitessBackupSchedule extends Construct {
  public readonly manifests: readonly Manifest[];
  public readonly apiObjects: readonly ApiObject[];
  public readonly cronJobs: readonly ApiObject[];

  constructor(scope: Construct, id: string, props: VitessBackupScheduleProps) {
    super(scope, id);
    const spec: Record<string, unknown> = {};
    const schedule: Record<string, unknown> = { name: props.scheduleName ?? id };
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || (POLICY_KEYS as readonly string[]).includes(key)) continue;
      if ((SPEC_KEYS as readonly string[]).includes(key)) spec[key] = value;
      else schedule[key] = value;
    }
    this.manifests = renderPolicy({
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: props.name, namespace: props.namespace, labels: props.labels, annotations: props.annotations },
      spec: { retention: props.retention, metrics: props.metrics, vitess: { ...spec, schedules: [schedule] } },
    }, this.node.path);
    this.apiObjects = addApiObjects(this, this.manifests);
    this.cronJobs = this.apiObjects.filter((o) => o.kind === 'CronJob');
  }
}
