/**
 * What an engine is to the core: its schema, defaults, checks and targets.
 * `lib/registry.ts` lists the engines; the core validates, resolves and
 * renders every policy through these definitions and knows no engine itself.
 */
import type { EngineContainer, EnvVar, Manifest, PodSpec, Volume } from '../kubernetes/objects';
import type { IssueList, PolicyPath } from '../policy/errors';
import type { Schema } from '../policy/schema-builders';
import type { EngineSettingsDefaults, ResolvedJobSettings } from '../policy/settings';
import type {
  ContentCheckOptions,
  DrillOptions,
  EncryptionOptions,
  JobSettings,
  MetricsOptions,
  Placement,
  PolicyMetadata,
} from '../policy/types';
import type { RetentionOptions } from '../policy/retention-options';
import type { RetentionDestinationDefinition } from '../retention';
import type { EngineConverter } from './convert';
import type { EngineDiscover } from './discover';
import type { PropsLayout } from './props';

/** The policy around an engine's spec: what every engine may read besides its own spec. */
export interface PolicyContext {
  readonly metadata: PolicyMetadata;
  /** `metadata.namespace` or the default namespace. */
  readonly namespace: string;
  readonly defaults?: JobSettings;
  readonly retention?: RetentionOptions;
  readonly metrics?: MetricsOptions;
  /** `spec.encryption`, only ever set for an engine that supports it. @default - stored as written */
  readonly encryption?: EncryptionOptions;
  /** `spec.drill`, only ever set for an engine that supports it. @default - no drills */
  readonly drill?: DrillOptions;
  /** `spec.contentChecks`, only ever set for an engine that supports them. @default - CONTENT_CHECK_DEFAULTS */
  readonly contentChecks?: ContentCheckOptions;
  /** Path of the engine's spec (`['spec', key]`), for messages. */
  readonly path: PolicyPath;
}

/** Whether the schema found nothing wrong at or below a path of the policy (`['spec', 'redis', 'shards']`). */
export type Accepted = (path: PolicyPath) => boolean;

/** What an engine contributes to one pod. */
export interface EnginePod {
  readonly initContainers?: readonly EngineContainer[];
  readonly containers: readonly EngineContainer[];
  /** Containers that receive the policy's extra env, volumes and resources. */
  readonly mainContainers: readonly string[];
  readonly volumes?: readonly Volume[];
  readonly securityContext?: Record<string, unknown>;
  readonly hostNetwork?: boolean;
  /** Engine placement, merged before the policy's own. */
  readonly placement?: Placement;
  /** Engine default priority class (the policy's wins). */
  readonly priorityClassName?: string;
  /** Seconds between the kubelet's TERM and KILL, enough for the scripts' cleanup. @default - Kubernetes' 30s */
  readonly terminationGracePeriodSeconds?: number;
  /**
   * The ServiceAccount the engine runs the pod under (one it renders with the
   * permissions the pod needs); the policy's `pod.serviceAccountName` is then refused.
   * @default - the policy's, else the namespace's default
   */
  readonly serviceAccountName?: string;
}

/**
 * An object the engine's pods need besides their workloads (a ServiceAccount,
 * its permissions). The core adds the common labels (with `component`), the
 * policy's annotations and the provenance, and validates it like every object.
 */
export interface EngineObject {
  /** Component label value. */
  readonly component: string;
  /** The object without labels and annotations; no namespace when cluster-scoped. */
  readonly manifest: Manifest;
}

/** What every pod builder receives from the core. */
export interface PodContext {
  /** Env every container script receives (job identity, metrics), made by the core. */
  readonly env: readonly EnvVar[];
  /** The target's job settings, every default applied. */
  readonly settings: ResolvedJobSettings;
  /** The policy pushes metrics (scripts embed the metrics module). */
  readonly metrics: boolean;
}

/** Where one target's backups are stored, as `backup-cronjobs list` reads them (the names the scripts write). */
export interface BackupStore {
  /** What the backups are of (a shard; the policy's name for etcd). */
  readonly target: string;
  /** Where they are: an S3 bucket, or a directory (a host path or a claim). */
  readonly kind: 's3' | 'dir';
  /** s3 */
  readonly bucket?: string;
  /** s3: the key prefix before the names (`<path>/`). @default - the bucket's root */
  readonly keyPrefix?: string;
  /** s3: the S3-compatible endpoint URL. @default - AWS */
  readonly endpoint?: string;
  /** s3 */
  readonly region?: string;
  /** Backup names: `<namePrefix><YYYY-MM-DDTHH:MM:SSZ><nameSuffix>`, `.age` after it when encrypted. */
  readonly namePrefix: string;
  /** What follows the time in a backup's name (`.rdb.gz`, `.db`). */
  readonly nameSuffix: string;
  /** Each backup's metadata (JSON): `<name without .age><metadataSuffix>`. */
  readonly metadataSuffix: string;
  /**
   * The names carry the node (`<time>_<node><nameSuffix>`): `each` node's backups are kept or deleted
   * on their own, or all nodes' `together` (etcd's retentionScope). @default - no node in the names
   */
  readonly nodes?: 'each' | 'together';
  /** Content facts of the metadata (`keyCount`, `revision`), in this order. */
  readonly contentFacts: readonly string[];
  /** s3: every object is locked this long after the time in its name (S3 Object Lock). @default - not locked */
  readonly objectLock?: { readonly mode: string; readonly seconds: number };
}

/**
 * What a CronJob does: back up, back up incrementally (Vitess), prune, test-restore the newest backup, or
 * maintain the source (etcd's defragmentation).
 */
export type TargetComponent = 'backup' | 'incremental-backup' | 'retention-prune' | 'restore-drill' | 'maintenance';

/**
 * Whether an engine implements a policy-wide feature (`spec.encryption`,
 * `spec.drill`): `true`, or why not, which the validation error quotes.
 */
export type FeatureSupport = true | { readonly refused: string };

/** One CronJob, as an engine describes it. */
export interface EngineTarget {
  /** Stable identity; hashed schedule fields and stagger order derive from it. */
  readonly id: string;
  /** Name parts after the policy name. */
  readonly nameParts: readonly string[];
  /**
   * How users name the target among the policy's targets of its component
   * (the shard, the node, `<schedule>/<keyspace>/<shard>`): the key of the
   * constructs' and components' handles (`cronJob(key)`).
   * @default - the name parts, joined with `/`
   */
  readonly key?: string;
  /** Component label value. */
  readonly component: TargetComponent;
  /** Target labels (besides the common ones). */
  readonly labels: Readonly<Record<string, string>>;
  /** The target's own settings levels, merged over `spec.defaults`. @default - none */
  readonly overrides?: JobSettings;
  /** Path of the most specific settings level, for messages. */
  readonly settingsPath: PolicyPath;
  /** A schedule the engine computed (a frequency, the retention schedule), instead of the settings' schedule. */
  readonly schedule?: string;
  /** The engine's settings under the policy's: the run deadline, a default stagger. */
  readonly defaults: EngineSettingsDefaults;
  /** The pinned node, when the target runs on one node only (for overlap checks). @default - any node */
  readonly node?: string;
  /**
   * Every run of this backup target restores the newest backup first and
   * pushes the restore-drill metrics (Vitess' vtbackup), so it is watched
   * like a drill.
   * @default false
   */
  readonly restoresFirst?: boolean;
  /**
   * The database shard it backs up (Vitess: `<cluster>/<keyspace>/<shard>`): `plan` warns where
   * a full and an incremental backup of one shard may run at once.
   * @default - none
   */
  readonly shard?: string;
  /**
   * An incremental backup target: the recovery point it promises, in seconds (the age of its
   * newest backup past which BackupRecoveryPointTooOld fires).
   * @default - `staleAfterIntervals` of its shortest interval, plus its deadline
   */
  readonly maxRecoveryPointAgeSeconds?: number;
  readonly pod: (ctx: PodContext) => EnginePod;
}

/** What `backup-cronjobs restore` asks an engine for (the command's flags). */
export interface RestoreRequest {
  /** `--target`: a target of the policy in the engine's terms (etcd: a node of `nodes`). @default - none */
  readonly target?: string;
  /** `--node`: the node to restore on, when no target names one (etcd cluster mode). @default - none */
  readonly node?: string;
  /** `--snapshot`: the backup to restore, as the engine names it (etcd: a snapshot file name). */
  readonly snapshot: string;
}

/** What `backup-cronjobs restore --time` asks an engine for: a point-in-time restore procedure. */
export interface PointInTimeRequest {
  /** `--time`: the point in time, RFC 3339 as given (checked by the command). */
  readonly time: string;
  /** `--target`: one target of the policy in the engine's terms (Vitess: `<keyspace>/<shard>`). @default - every target that has one */
  readonly target?: string;
}

/** An engine's point-in-time restore procedure (the commands to run, as text), or why the request does not fit the policy. */
export type PointInTimeProcedure = { readonly text: string } | { readonly problems: readonly string[] };

/** A one-off restore Job an engine describes, built by the same workload builder as the CronJobs. */
export interface EngineJob {
  /** Name parts after the policy name. */
  readonly nameParts: readonly string[];
  /** How users name the Job among the policy's Jobs (etcd: the node). @default - the name parts, joined with `/` */
  readonly key?: string;
  readonly component: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Annotations of the Job and its pods, besides the policy's. @default - none */
  readonly annotations?: Readonly<Record<string, string>>;
  /** The settings level of the target it belongs to, merged over `spec.defaults` as for its CronJob. @default - none */
  readonly overrides?: JobSettings;
  /** Path of that settings level, for messages. */
  readonly settingsPath: PolicyPath;
  readonly defaults: EngineSettingsDefaults;
  /** @default - the policy's backoffLimit */
  readonly backoffLimit?: number;
  readonly pod: (ctx: PodContext) => EnginePod;
}

/** An engine's answer to a restore request: the Job (and notes for the person running it), or why the flags do not fit the policy. */
export type EngineRestore =
  { readonly job: EngineJob; readonly notes: readonly string[] } | { readonly problems: readonly string[] };

/**
 * How an engine's flat props (its cdk8s schedule construct and its Pulumi
 * component, both made from this by the front ends' generic factory) become a
 * policy. What a front end takes in another form (a Pulumi `Input`, a cdk8s
 * `Duration`, a cdk8s-plus `ISecret`) is the schema's field metadata.
 */
export interface EngineProps<Props> {
  /** The construct's and the component's class name (the Pulumi type `backup-cronjobs:index:<typeName>`). */
  readonly typeName: string;
  /** `schedule`: the props are one `spec.<engine>.schedules[0]` (named after the construct id); `flat`: job settings go to `spec.defaults`. */
  readonly shape: PropsLayout['shape'];
  /** The policy document of the props (not validated yet); `defaultScheduleName` is the construct id / component name. */
  toPolicy(props: Props, defaultScheduleName: string): object;
}

/**
 * What an engine's own alert rules (`alertRules`) may read of a policy that
 * pushes metrics and renders a PrometheusRule.
 */
export interface AlertContext {
  readonly namespace: string;
  /** The policy's name (its `policy` label). */
  readonly policy: string;
  /** The metric name prefix (the engine's). */
  readonly prefix: string;
  readonly severity: string;
  /** How long a value a run pushed must be seen before its alert fires: once per run. */
  readonly reportedFor: string;
  /** The CronJob names of the policy's targets of `component` that are not suspended. */
  targets(component: TargetComponent): readonly string[];
  /** The series of `<prefix>_<metric>` that the runs of those targets push (`matchers`: more label matchers, `, a="b"`). */
  series(metric: string, component: TargetComponent, matchers?: string): string;
}

/** An engine: one folder under `lib/engines/`, one line in `lib/registry.ts`. */
export interface EngineDefinition<Spec, Props = never> {
  /** Its flat props for the front ends' schedule construct and component. @default - none: only `BackupPolicy` renders it */
  readonly props?: EngineProps<Props>;
  /** JSON Schema of `spec.<key>` (closed, with its description). */
  readonly schema: Schema;
  /** Prefix of the metric names its scripts push. */
  readonly metricsPrefix: string;
  /**
   * Its converters for `backup-cronjobs convert`: other operators' objects that become its policies.
   * @default - none
   */
  readonly converters?: readonly EngineConverter[];
  /** Its part of `backup-cronjobs discover`: asking a running cluster for its shards. @default - none */
  readonly discover?: EngineDiscover;
  /**
   * Its CronJobs besides backups, prunes and drills that the front ends hand out (their `extraCronJobs`,
   * by role): each role (the component) with what its CronJobs are; keyed as the backups they go with.
   * @default - none
   */
  readonly extraCronJobs?: Readonly<Partial<Record<TargetComponent, string>>>;
  /**
   * Its own kinds of retention destination, besides the generic `dir` and `s3` (Vitess: the backups vtctld
   * lists): each its kind name, the env its script reads, the rules it cannot apply and its script.
   * @default - none
   */
  readonly retentionDestinations?: readonly RetentionDestinationDefinition[];
  /**
   * The kind of destination its backups are pruned at (`dir`, `s3` or one of its `retentionDestinations`),
   * for the retention rules it supports. @default - every rule
   */
  retentionDestination?(spec: Spec): string;
  /**
   * Checks beyond the schema, its settings levels included. The spec may lack parts the schema refused;
   * `accepted(path)` says whether the schema found nothing wrong at or below `path`, and a check reads only
   * accepted parts (so a refused bucket name does not hide a duplicate shard name).
   */
  validate(spec: Spec, policy: PolicyContext, issues: IssueList, accepted: Accepted): void;
  /** One target per CronJob, in policy order (validated specs only). */
  targets(spec: Spec, policy: PolicyContext): EngineTarget[];
  /**
   * The one-off Job that restores a backup (`backup-cronjobs restore`), for a
   * validated spec; each problem names the flag it is about.
   * @default - none: the command prints `restoreHelp`
   */
  restoreJob?(spec: Spec, policy: PolicyContext, request: RestoreRequest): EngineRestore;
  /** Without `restoreJob`: how this engine's backups are restored instead. @default - none */
  readonly restoreHelp?: string;
  /**
   * The procedure that restores the policy's targets to a point in time (`backup-cronjobs restore
   * --time`), printed for a person to follow, for a validated spec.
   * @default - none: `--time` is refused
   */
  pointInTime?(spec: Spec, policy: PolicyContext, request: PointInTimeRequest): PointInTimeProcedure;
  /** Where each target's backups are stored (`backup-cronjobs list`). @default - none: `listHelp` */
  backupStores?(spec: Spec, policy: PolicyContext): readonly BackupStore[];
  /** Without `backupStores`: how this engine's backups are listed instead. @default - none */
  readonly listHelp?: string;
  /**
   * The objects the policy's pods need besides their CronJobs, given the pod
   * spec of every CronJob as rendered (validated specs only).
   * @default - none
   */
  objects?(spec: Spec, policy: PolicyContext, pods: readonly PodSpec[]): EngineObject[];
  /** `spec.encryption`: encrypts its artifacts. @default - refused */
  readonly encryption?: FeatureSupport;
  /** `spec.drill`: renders restore-drill targets. @default - refused */
  readonly drill?: FeatureSupport;
  /** `spec.contentChecks`: its backups check their content before they are stored. @default - refused */
  readonly contentChecks?: FeatureSupport;
  /**
   * Its backup runs push `<prefix>_uncovered_shards`: the cluster's shards that
   * no CronJob of the policy backs up (the PrometheusRule's BackupPolicyDrift).
   * @default false
   */
  readonly reportsCoverage?: boolean;
  /**
   * The alarms its database raises, with what each means: its backup runs push
   * `<prefix>_source_alarm{alarm="<name>"}`, 1 while raised and 0 otherwise (the
   * PrometheusRule's BackupSourceAlarm). @default - none
   */
  readonly sourceAlarms?: Readonly<Record<string, string>>;
  /**
   * Its own alert rules over what its runs push (etcd: a member still fragmented after a defragmentation),
   * added to the policy's PrometheusRule when the policy pushes metrics (validated specs only).
   * @default - none
   */
  alertRules?(spec: Spec, context: AlertContext): Record<string, unknown>[];
}
