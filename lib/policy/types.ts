/**
 * The engine-neutral parts of a BackupPolicy document: the same structure in
 * YAML/JSON policy files and in the TypeScript props of the cdk8s constructs
 * and Pulumi components. The whole document type (with one key per engine) is
 * assembled from the engine definitions in `lib/registry.ts`. Defaults live in
 * `defaults.ts`.
 */
import type { RetentionOptions } from './retention-options';

export const API_VERSION = 'backup-cronjobs.io/v1alpha1';
export const KIND = 'BackupPolicy';

/** A key of a Secret in the policy's namespace. Secrets are only ever referenced. */
export interface SecretKeyRef {
  readonly name: string;
  readonly key: string;
}

export interface StaggerOptions {
  /**
   * Spread the start times of all targets sharing a schedule evenly over this
   * window (e.g. `2h`), so that no two start in the same minute while there are
   * at most as many targets as minutes in the window.
   */
  readonly window: string;
}

/** A node label requirement (cdk8s-plus `attract`). Hard without `weight`, soft with it. */
export interface NodeRequirement {
  readonly key: string;
  /** @default 'In' */
  readonly operator?: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  /** @default - none (required for In, NotIn, Gt, Lt) */
  readonly values?: readonly string[];
  /** Preference weight 1-100. @default - a hard requirement */
  readonly weight?: number;
}

export interface Toleration {
  /** @default - every taint key (only with operator Exists) */
  readonly key?: string;
  /** @default 'Equal' */
  readonly operator?: 'Equal' | 'Exists';
  /** @default - none */
  readonly value?: string;
  /** @default - every effect */
  readonly effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  /** @default - tolerate forever */
  readonly tolerationSeconds?: number;
}

/** Pods to run near (podAffinity) or away from (podAntiAffinity). */
export interface PodAffinityTerm {
  readonly labels: Readonly<Record<string, string>>;
  /** @default 'kubernetes.io/hostname' */
  readonly topologyKey?: string;
  /** Preference weight 1-100. @default - a hard requirement */
  readonly weight?: number;
  /** @default - the policy's namespace */
  readonly namespaces?: readonly string[];
}

/**
 * Backups that share a group never run at the same time: every pod carries the
 * group label and a required pod anti-affinity against it.
 */
export interface SerializationGroup {
  /** Group name (a label value). */
  readonly name: string;
  /**
   * `node`: at most one backup of the group per node. `cluster`: at most one in
   * the whole cluster (anti-affinity over `clusterTopologyKey`).
   * @default 'node'
   */
  readonly scope?: 'node' | 'cluster';
  /**
   * A node label that has the same value on every node that may run the backups.
   * @default 'kubernetes.io/os'
   */
  readonly clusterTopologyKey?: string;
}

export interface Placement {
  /** @default - none */
  readonly nodeSelector?: Readonly<Record<string, string>>;
  /** Node affinity terms (all hard terms must hold). @default - none */
  readonly nodeAffinity?: readonly NodeRequirement[];
  /** @default - none (engines may add their own, e.g. etcd control-plane taints) */
  readonly tolerations?: readonly Toleration[];
  /** @default - none */
  readonly podAffinity?: readonly PodAffinityTerm[];
  /** @default - none */
  readonly podAntiAffinity?: readonly PodAffinityTerm[];
  /** @default - none: backups of different targets may overlap */
  readonly serializationGroup?: SerializationGroup;
}

export interface ResourceRequirements {
  /** @default - none */
  readonly requests?: Readonly<Record<string, string>>;
  /** @default - none */
  readonly limits?: Readonly<Record<string, string>>;
}

export interface ExtraEnvVar {
  readonly name: string;
  /** Exactly one of value and secretKeyRef. */
  readonly value?: string;
  readonly secretKeyRef?: SecretKeyRef;
}

export interface ExtraVolume {
  readonly name: string;
  readonly mountPath: string;
  /** @default false */
  readonly readOnly?: boolean;
  /** Exactly one source. */
  readonly secret?: { readonly secretName: string };
  readonly configMap?: { readonly name: string };
  readonly persistentVolumeClaim?: { readonly claimName: string };
  readonly emptyDir?: { readonly sizeLimit?: string };
}

export interface PodOptions {
  /**
   * Requests and limits of the engine's main containers (each resource over
   * that container's default; a request above the default limit raises it).
   * @default - per container and step: docs/operations/resources.md
   */
  readonly resources?: ResourceRequirements;
  /**
   * Requests and limits per container name (init containers included), over
   * `resources` and the defaults, each resource on its own.
   * @default - none
   */
  readonly containerResources?: Readonly<Record<string, ResourceRequirements>>;
  /** @default - none */
  readonly imagePullSecrets?: readonly string[];
  /** @default - none (etcd: 'system-node-critical') */
  readonly priorityClassName?: string;
  /** @default - the namespace's default ServiceAccount, with no API token mounted */
  readonly serviceAccountName?: string;
  /** @default 'IfNotPresent' */
  readonly imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  /** Extra env for the backup container. @default - none */
  readonly env?: readonly ExtraEnvVar[];
  /** Extra volumes mounted into the backup container. @default - none */
  readonly volumes?: readonly ExtraVolume[];
  /** Extra pod template labels. @default - none */
  readonly labels?: Readonly<Record<string, string>>;
  /** Extra pod template annotations. @default - none */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** CronJob and pod settings shared by every target; any level may override them. */
export interface JobSettings {
  /**
   * 5-field cron or macro (`@daily`), Kubernetes rules; `H` fields are hashed
   * from the target's identity (`H 2 * * *`).
   * @default `'@daily'`
   */
  readonly schedule?: string;
  /** IANA time zone of the schedule. @default - the kube-controller-manager's zone (UTC almost everywhere) */
  readonly timeZone?: string;
  /** @default - no stagger: every target starts at the schedule's time */
  readonly stagger?: StaggerOptions;
  /** Pause: no new runs start. @default false */
  readonly suspend?: boolean;
  /** @default 'Forbid' */
  readonly concurrencyPolicy?: 'Forbid' | 'Allow' | 'Replace';
  /** How late a run may start before it is skipped (`startingDeadlineSeconds`). @default '10m' */
  readonly startingDeadline?: string;
  /** @default 3 */
  readonly successfulJobsHistoryLimit?: number;
  /** @default 3 */
  readonly failedJobsHistoryLimit?: number;
  /** Run deadline (`activeDeadlineSeconds`). @default - per engine: vitess '2h', etcd '15m', redis '10m' */
  readonly timeout?: string;
  /** @default 1 */
  readonly backoffLimit?: number;
  /** Delete finished Jobs after this long (`ttlSecondsAfterFinished`). @default - kept by the history limits */
  readonly ttlAfterFinished?: string;
  /** @default - no constraints beyond the engine's */
  readonly placement?: Placement;
  /** @default - engine defaults */
  readonly pod?: PodOptions;
}

export interface MetricsOptions {
  /** Pushgateway base URL; every run pushes its metrics there. @default - no metrics pushed */
  readonly pushgatewayUrl?: string;
  /**
   * HTTP basic auth for the Pushgateway (`--web.config.file` `basic_auth_users`):
   * a Secret holding the username and the password, such as a
   * `kubernetes.io/basic-auth` Secret (cdk8s-plus `BasicAuthSecret`). They reach
   * the push through env vars, never its arguments or logs.
   * @default - no authentication
   */
  readonly basicAuthSecret?: BasicAuthSecretRef;
  /**
   * A bearer token for the Pushgateway (`Authorization: Bearer`), e.g. for an
   * authenticating proxy in front of it; from a Secret key, never in arguments or logs.
   * @default - no authentication
   */
  readonly bearerTokenSecret?: SecretKeyRef;
  /**
   * The CA bundle (PEM) that signs the Pushgateway's certificate, for an
   * `https://` pushgatewayUrl signed by a private CA.
   * @default - the image's trusted CAs
   */
  readonly caBundle?: CaBundleRef;
  /**
   * Emit a PrometheusRule (prometheus-operator) alerting on backups that are
   * stale, never succeeded, failed or did not start, with thresholds sized from
   * each schedule. Reads kube-state-metrics, and the pushed metrics too when
   * `pushgatewayUrl` is set.
   * @default - no PrometheusRule
   */
  readonly prometheusRule?: PrometheusRuleOptions;
  /**
   * Render a ConfigMap `<policy>-grafana-dashboard` holding the Grafana dashboard of this
   * policy's pushed metrics (`backup-cronjobs dashboard`, set to this namespace, policy and
   * engine), for Grafana's dashboard sidecar. Needs `pushgatewayUrl`.
   * @default - no dashboard ConfigMap
   */
  readonly grafanaDashboard?: GrafanaDashboardOptions;
}

export interface GrafanaDashboardOptions {
  /** Labels of the ConfigMap, which the sidecar selects. @default - `grafana_dashboard: "1"` (kube-prometheus-stack's) */
  readonly labels?: Readonly<Record<string, string>>;
}

export interface PrometheusRuleOptions {
  /** Labels of the PrometheusRule (e.g. the `release` your Prometheus selects). @default - none */
  readonly labels?: Readonly<Record<string, string>>;
  /** `severity` label of the alerts. @default 'warning' */
  readonly severity?: string;
  /** A backup is stale after this many schedule intervals (plus the run timeout). @default 2 */
  readonly staleAfterIntervals?: number;
}

/** How the containers get their shell scripts. */
export interface ScriptsOptions {
  /**
   * `configMap`: one immutable ConfigMap per policy, named `<policy>-scripts-<content hash>`, holds
   * every script file once, as written, mounted read-only at `/scripts`; each command keeps its
   * entry's `main` and sources the rest. Apply the ConfigMap with the CronJobs and prune the old
   * ones (docs/operations/upgrades.md).
   * `inline`: each container's command holds the shell functions it runs, comments dropped
   * (self-contained CronJobs).
   * @default 'configMap'
   */
  readonly mode?: 'configMap' | 'inline';
}

export interface PolicyMetadata {
  /** DNS-1123 label; prefixes every object name. */
  readonly name: string;
  /** @default 'default' */
  readonly namespace?: string;
  /** Added to every object. @default - none */
  readonly labels?: Readonly<Record<string, string>>;
  /** Added to every object. @default - none */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A key of a ConfigMap in the policy's namespace. */
export interface ConfigMapKeyRef {
  readonly name: string;
  readonly key: string;
}

/**
 * A CA bundle (PEM certificates) by reference: exactly one of a ConfigMap key
 * or a Secret key, in the policy's namespace. Mounted read-only into the
 * containers that talk to the endpoint it is for.
 */
export interface CaBundleRef {
  /** A ConfigMap key holding the bundle (e.g. `kube-root-ca.crt`'s `ca.crt`, or a trust-manager bundle). @default - none */
  readonly configMap?: ConfigMapKeyRef;
  /** A Secret key holding the bundle (e.g. a cert-manager Certificate's `ca.crt`). @default - none */
  readonly secret?: SecretKeyRef;
}

/** A Secret holding a username and a password (the keys of a `kubernetes.io/basic-auth` Secret by default). */
export interface BasicAuthSecretRef {
  /** Secret name. */
  readonly name: string;
  /** @default 'username' */
  readonly usernameKey?: string;
  /** @default 'password' */
  readonly passwordKey?: string;
}

/**
 * Client-side encryption with age (https://age-encryption.org): the artifact
 * is encrypted while it is written and stored as `<name>.age`.
 */
export interface AgeEncryption {
  /**
   * age recipients (`age1…` public keys or `ssh-ed25519`/`ssh-rsa` public keys).
   * Exactly one of `recipients`, `recipientsSecret` and `recipientsConfigMap`.
   * @default - none
   */
  readonly recipients?: readonly string[];
  /** A Secret key holding a recipients file (one recipient per line, `#` comments). @default - none */
  readonly recipientsSecret?: SecretKeyRef;
  /** A ConfigMap key holding a recipients file. @default - none */
  readonly recipientsConfigMap?: ConfigMapKeyRef;
  /**
   * A Secret key holding an age identity file (`AGE-SECRET-KEY-1…`), which the
   * restore drills decrypt with. Never needed to write backups.
   * @default - none: restore drills are refused
   */
  readonly identitySecret?: SecretKeyRef;
  /**
   * An image with `sh`, POSIX tools and `age` on its PATH, e.g. built
   * `FROM alpine:3.20` with `RUN apk add --no-cache age`. The containers that
   * encrypt or decrypt run it.
   */
  readonly image: string;
}

export interface EncryptionOptions {
  readonly age: AgeEncryption;
}

/**
 * Restore drills: CronJobs that take the newest backup of each target, decrypt
 * and verify it, restore it into a throw-away instance inside the pod and
 * compare it with what the backup recorded. Job settings as at `spec.defaults`
 * (merged over them), with their own schedule.
 */
export interface DrillOptions extends JobSettings {
  /** When the drills run (`H` fields hashed per target). */
  readonly schedule: string;
  /**
   * A drill fails when the newest backup is older than this (a recovery point
   * objective).
   * @default - any age: the age is pushed and alerted on, not checked
   */
  readonly maxBackupAge?: string;
}

/**
 * Checks of what each backup holds before it is stored, against the newest earlier backup of the same
 * target (its metadata's key count): an empty backup, and one that shrank.
 */
export interface ContentCheckOptions {
  /** The source may be empty: a backup of no keys is stored. @default false - it fails its run, nothing stored */
  readonly allowEmpty?: boolean;
  /** A backup holding fewer keys than this percentage of the newest earlier backup's has shrunk. @default 50 */
  readonly shrinkBelowPercent?: number;
  /** A shrunk backup: `warn` stores it with a warning, `fail` fails the run and stores nothing. @default warn */
  readonly onShrink?: 'warn' | 'fail';
}

/** The spec fields every policy has, whatever its engine. */
export interface PolicyCommonSpec {
  /** Settings for every target; schedules and targets override them field by field. @default - see JobSettings */
  readonly defaults?: JobSettings;
  /** Retention applied after each verified backup. @default - keep everything */
  readonly retention?: RetentionOptions;
  /** @default - no metrics */
  readonly metrics?: MetricsOptions;
  /** @default - inline */
  readonly scripts?: ScriptsOptions;
  /** Client-side encryption of every artifact (engines that support it). @default - stored as written */
  readonly encryption?: EncryptionOptions;
  /** Restore drills (engines that support them). @default - no drills */
  readonly drill?: DrillOptions;
  /** Content checks of every backup (engines that support them: etcd, Redis). @default - see ContentCheckOptions */
  readonly contentChecks?: ContentCheckOptions;
}

/** A policy document with the given spec type. */
export interface PolicyDocument<Spec extends PolicyCommonSpec = PolicyCommonSpec> {
  readonly apiVersion: typeof API_VERSION;
  readonly kind: typeof KIND;
  readonly metadata: PolicyMetadata;
  readonly spec: Spec;
}
