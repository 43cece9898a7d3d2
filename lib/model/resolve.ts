/**
 * validate → resolve → render: a validated policy becomes one resolved model,
 * every default applied once, schedules hashed and staggered, object names
 * made and checked for collisions. Rendering, alerts and `plan` read this
 * model; nothing reads rendered objects back.
 */
import type { EnvVar } from '../kubernetes/objects';
import { joinName, labelValue } from '../kubernetes/names';
import { IssueList, closest, show } from '../policy/errors';
import type { PolicyPath } from '../policy/errors';
import { JOB_DEFAULTS, METRICS_DEFAULTS, basicAuthKeys } from '../policy/defaults';
import { mergeSettings } from '../policy/settings';
import {
  ResolvedJobSettings,
  ResolvedSerializationGroup,
  resolvePodPlacement,
  resolveSettings,
} from '../policy/resolve-settings';
import type { CaBundleRef } from '../policy/types';
import { parseDuration } from '../units';
import { annotationsSizeProblem } from '../kubernetes/validation';
import { MANAGED_BY, provenance } from './provenance';
import type { EnginePod, EngineTarget, PodContext } from '../engines/engine';
import { BackupPolicy, EngineKey, engineDefinition, enginesOf } from '../registry';
import { SCRIPTS_DIR, SCRIPTS_VOLUME } from '../workload/scripts';
import type { ResolvedPod } from '../workload/placement';
import { ResolvedMetricsAuth, withMetricsEndpoint } from '../workload/metrics-endpoint';
import { defaultResources, resolveResources, resourceOverrides } from '../workload/resources';
import { GroupPriorities } from './group-priorities';
import { resolveSchedules } from './resolve-schedules';
import { policyContext, validatePolicy } from './validate';

export { MANAGED_BY };

/** A schedule as written and as the CronJob gets it. */
export interface ResolvedSchedule {
  /** As written (or computed by the engine, e.g. from a Vitess frequency), before hashing and stagger. */
  readonly written: string;
  /** What the CronJob runs: H fields hashed, stagger applied. */
  readonly resolved: string;
  /** As written: the CronJob gets it only when set. @default - unset (the controller's zone) */
  readonly timeZone?: string;
  /** The zone its runs are computed in: `timeZone`, else TIME_ZONE_DEFAULT. */
  readonly zone: string;
}

/** The path of the policy-wide settings level (`spec.defaults`). */
export const DEFAULTS_PATH: PolicyPath = ['spec', 'defaults'];

/** One CronJob of the policy. */
export interface ResolvedTarget {
  readonly id: string;
  /** How users name the target among the targets of its component (shard, node, `<schedule>/<keyspace>/<shard>`). */
  readonly key: string;
  /** The CronJob's name. */
  readonly name: string;
  readonly component: EngineTarget['component'];
  /** Labels of the CronJob, its Jobs and pods (common and the target's own). */
  readonly labels: Readonly<Record<string, string>>;
  /** Path of the most specific settings level (`['spec', 'redis', 'shards', 0]`), for messages. */
  readonly settingsPath: readonly (string | number)[];
  readonly schedule: ResolvedSchedule;
  readonly settings: ResolvedJobSettings;
  /** The node the target is pinned to. @default - any node */
  readonly node?: string;
  /** The serialization group its pods are in (the policy's or the engine's). */
  readonly serializationGroup?: ResolvedSerializationGroup;
  /** Every run restores the newest backup first and pushes the restore-drill metrics (EngineTarget.restoresFirst). */
  readonly restoresFirst: boolean;
  /** The database shard it backs up (EngineTarget.shard). @default - none */
  readonly shard?: string;
  /** Incremental backups: the recovery point promised, in seconds (EngineTarget.maxRecoveryPointAgeSeconds). @default - from the schedule */
  readonly maxRecoveryPointAgeSeconds?: number;
  /** The engine's pod, its placement merged with the policy's and resolved. */
  readonly pod: ResolvedPod;
}

/**
 * A policy validated and resolved, every default applied once: what `planPolicies` and `restoreJob` take
 * (`resolvePolicy` makes it). Its targets and settings are the package's own model.
 */
export interface ResolvedPolicy {
  /** The validated document. */
  readonly policy: BackupPolicy;
  /** The policy's name. */
  readonly name: string;
  /** The namespace of every object. */
  readonly namespace: string;
  /** Its engine (the key of its `spec.<engine>`). */
  readonly engine: EngineKey;
  /** Annotations of every object. */
  readonly annotations?: Readonly<Record<string, string>>;
  /** How the containers get their scripts: in their commands, or from the policy's ConfigMap. */
  readonly scripts: 'inline' | 'configMap';
  /** Where runs push their metrics, how they authenticate and trust it, and the metric name prefix. @default - no metrics pushed */
  readonly metrics?: {
    readonly pushgatewayUrl: string;
    readonly prefix: string;
    /** @default - no authentication */
    readonly auth?: ResolvedMetricsAuth;
    /** @default - the image's trusted CAs */
    readonly caBundle?: CaBundleRef;
  };
  /** The Grafana dashboard's ConfigMap (spec.metrics.grafanaDashboard, with a Pushgateway). @default - none */
  readonly dashboard?: { readonly labels: Readonly<Record<string, string>> };
  /** The alert rule options. @default - no PrometheusRule */
  readonly rule?: {
    readonly labels: Readonly<Record<string, string>>;
    readonly severity: string;
    readonly staleAfterIntervals: number;
  };
  /** One per CronJob: backups, prunes, drills and the engine's own. */
  readonly targets: readonly ResolvedTarget[];
}

/** Validates (unless already validated) and resolves a policy; throws PolicyError naming every problem. */
export function resolvePolicy(doc: unknown, source?: string): ResolvedPolicy {
  const policy = validatePolicy(doc, source);
  const engine = enginesOf(policy.spec)[0];
  const definition = engineDefinition(engine);
  const context = policyContext(policy, engine);
  const spec = policy.spec[engine];
  const engineTargets = definition.targets(spec, context);
  const issues = new IssueList();
  const namespace = context.namespace;
  const metrics = resolveMetrics(policy, definition.metricsPrefix);
  const scripts = policy.spec.scripts?.mode ?? JOB_DEFAULTS.scriptsMode;
  const settings = engineTargets.map((t) =>
    resolveSettings(mergeSettings(policy.spec.defaults, t.overrides), t.defaults, t.schedule),
  );
  const schedules = resolveSchedules(engineTargets, settings, issues);
  const names = new Map<string, EngineTarget>();
  const targets: ResolvedTarget[] = [];
  const priorities = new GroupPriorities();
  engineTargets.forEach((t, i) => {
    const name = joinName([policy.metadata.name, ...t.nameParts]);
    const clash = names.get(name);
    if (clash) {
      issues.add(t.settingsPath, `targets ${show(clash.id)} and ${show(t.id)} both get the CronJob name ${show(name)}`);
      return;
    }
    names.set(name, t);
    const schedule = schedules[i];
    if (schedule === undefined) return;
    const ctx: PodContext = {
      env: targetEnv(policy, engine, name, metrics, t.component),
      settings: settings[i],
      metrics: metrics !== undefined,
    };
    const pod = resolvePodPlacement(withMetricsEndpoint(t.pod(ctx), metrics?.auth, metrics?.caBundle), settings[i]);
    const podLevel = t.overrides?.pod ? t.settingsPath : DEFAULTS_PATH;
    checkPodAgainstEngine(pod, settings[i], podLevel, policy.metadata.annotations, scripts, issues);
    // the CronJob carries the policy's annotations and the provenance ones
    const own = annotationsSizeProblem({
      ...policy.metadata.annotations,
      ...provenance(policy.metadata.name, { written: settings[i].schedule, resolved: schedule }),
    });
    if (own && !issues.issues.some((i) => i.path === 'metadata.annotations'))
      issues.add(['metadata', 'annotations'], `${own}, with the backup-cronjobs.io annotations of CronJob ${name}`);
    const group = pod.placement.serializationGroup;
    if (group) priorities.add(group.name, settings[i].pod.priorityClassName ?? pod.priorityClassName, name, podLevel);
    targets.push({
      id: t.id,
      key: t.key ?? t.nameParts.join('/'),
      name,
      component: t.component,
      // Object.assign rather than spread: spreading maps of label keys cost about 4 µs, and this runs for every target
      labels: Object.assign(
        commonLabels(policy, engine, t.component),
        { 'backup-cronjobs.io/target': labelValue(name) },
        t.labels,
      ),
      settingsPath: t.settingsPath,
      schedule: {
        written: settings[i].schedule,
        resolved: schedule,
        timeZone: settings[i].timeZone,
        zone: settings[i].zone,
      },
      settings: settings[i],
      node: t.node,
      restoresFirst: t.restoresFirst ?? false,
      ...(t.shard !== undefined ? { shard: t.shard } : {}),
      ...(t.maxRecoveryPointAgeSeconds !== undefined
        ? { maxRecoveryPointAgeSeconds: t.maxRecoveryPointAgeSeconds }
        : {}),
      serializationGroup: group,
      pod,
    });
  });
  checkContainerResourceNames(targets, policy.spec.defaults?.pod?.containerResources, issues);
  priorities.check(issues);
  issues.throwIfAny(source);
  return {
    policy,
    name: policy.metadata.name,
    namespace,
    engine,
    annotations: policy.metadata.annotations,
    scripts,
    metrics,
    dashboard: resolveDashboard(policy, metrics),
    rule: resolveRule(policy),
    targets,
  };
}

/**
 * The policy's extra volumes, mounts and env must not clash with the engine's
 * (the API server refuses duplicate volume names and mount paths; a duplicate
 * env name silently replaces the engine's; in configMap mode the scripts
 * volume and its mount are the engine's too), nor its ServiceAccount with the
 * one the engine runs the pod under, and the pod's annotations with the
 * policy's must fit one object.
 */
export function checkPodAgainstEngine(
  pod: EnginePod,
  settings: ResolvedJobSettings,
  levelPath: PolicyPath,
  policyAnnotations: Readonly<Record<string, string>> | undefined,
  scripts: ResolvedPolicy['scripts'],
  issues: IssueList,
): void {
  const options = settings.pod;
  const at = (field: string, i: number, key: string) => [...levelPath, 'pod', field, i, key];
  const mains = () =>
    [...(pod.initContainers ?? []), ...pod.containers].filter((c) => pod.mainContainers.includes(c.name));
  const sourced = scripts === 'configMap';
  // the engine's names, only when the policy adds volumes or env (resolve runs this for every target)
  const volumes = options.volumes?.length
    ? new Set([...(pod.volumes ?? []).map((v) => v.name), ...(sourced ? [SCRIPTS_VOLUME] : [])])
    : new Set<string>();
  const mountPaths = options.volumes?.length
    ? new Set([
        ...mains().flatMap((c) => (c.volumeMounts ?? []).map((m) => m.mountPath)),
        ...(sourced ? [SCRIPTS_DIR] : []),
      ])
    : new Set<string>();
  const envNames = options.env?.length
    ? new Set(mains().flatMap((c) => (c.env ?? []).map((e) => e.name)))
    : new Set<string>();
  options.volumes?.forEach((v, i) => {
    if (volumes.has(v.name))
      issues.add(
        at('volumes', i, 'name'),
        `received ${show(v.name)}; the engine's pod already has a volume of that name: choose another`,
      );
    if (mountPaths.has(v.mountPath))
      issues.add(
        at('volumes', i, 'mountPath'),
        `received ${show(v.mountPath)}; the engine already mounts a volume there: choose another path`,
      );
  });
  options.env?.forEach((e, i) => {
    if (envNames.has(e.name))
      issues.add(
        at('env', i, 'name'),
        `received ${show(e.name)}; the engine sets this variable itself: choose another name`,
      );
  });
  if (
    pod.serviceAccountName !== undefined &&
    options.serviceAccountName !== undefined &&
    options.serviceAccountName !== pod.serviceAccountName
  ) {
    issues.add(
      [...levelPath, 'pod', 'serviceAccountName'],
      `received ${show(options.serviceAccountName)}; the engine runs these pods under its own ServiceAccount ${show(pod.serviceAccountName)}, which it renders with the permissions they need: remove serviceAccountName`,
    );
  }
  if (options.annotations)
    issues.addProblem(
      [...levelPath, 'pod', 'annotations'],
      annotationsSizeProblem({ ...policyAnnotations, ...options.annotations }),
    );
  for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
    const main = pod.mainContainers.includes(c.name);
    for (const k of resolveResources(defaultResources(c), resourceOverrides(options, c.name, main)).conflicts) {
      const field = options.containerResources?.[c.name] ? ['containerResources', c.name] : ['resources'];
      issues.add(
        [...levelPath, 'pod', ...field],
        `container ${show(c.name)} gets requests.${k.resource} ${show(k.request)} and limits.${k.resource} ${show(k.limit)} from the policy's levels; a request must not exceed its limit: raise limits.${k.resource} or lower requests.${k.resource}`,
      );
    }
  }
}

/** Every key of `pod.containerResources` names a container of some pod of the policy. */
function checkContainerResourceNames(
  targets: readonly ResolvedTarget[],
  defaults: Readonly<Record<string, unknown>> | undefined,
  issues: IssueList,
): void {
  const names = new Set(
    targets.flatMap((t) => [...(t.pod.initContainers ?? []), ...t.pod.containers].map((c) => c.name)),
  );
  const allowed = [...names].sort();
  const reported = new Set<string>();
  for (const t of targets) {
    for (const name of Object.keys(t.settings.pod.containerResources ?? {})) {
      const level = defaults?.[name] !== undefined ? DEFAULTS_PATH : t.settingsPath;
      const key = JSON.stringify([...level, name]);
      if (names.has(name) || reported.has(key)) continue;
      reported.add(key);
      const hint = closest(name, allowed);
      issues.add(
        [...level, 'pod', 'containerResources', name],
        `received ${show(name)}; no pod of this policy has a container of that name${hint ? ` (did you mean ${show(hint)}?)` : ''}: the containers are ${allowed.map((n) => show(n)).join(', ')}`,
      );
    }
  }
}

/** The labels every object of a policy carries. */
export function commonLabels(policy: BackupPolicy, engine: EngineKey, component: string): Record<string, string> {
  return {
    ...policy.metadata.labels,
    'app.kubernetes.io/name': MANAGED_BY,
    'app.kubernetes.io/instance': policy.metadata.name,
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/managed-by': MANAGED_BY,
    'backup-cronjobs.io/policy': policy.metadata.name,
    'backup-cronjobs.io/engine': engine,
  };
}

/** Env every container script of a CronJob receives: its identity, where to push metrics, a drill's limit. */
function targetEnv(
  policy: BackupPolicy,
  engine: EngineKey,
  name: string,
  metrics: ResolvedPolicy['metrics'],
  component: EngineTarget['component'],
): EnvVar[] {
  const maxBackupAge = component === 'restore-drill' ? policy.spec.drill?.maxBackupAge : undefined;
  return [
    { name: 'BACKUP_JOB', value: name },
    { name: 'BACKUP_POLICY', value: policy.metadata.name },
    { name: 'BACKUP_ENGINE', value: engine },
    { name: 'BACKUP_TARGET', value: name },
    ...(metrics
      ? [
          { name: 'BACKUP_PUSHGATEWAY_URL', value: metrics.pushgatewayUrl },
          { name: 'BACKUP_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          { name: 'BACKUP_METRICS_PREFIX', value: metrics.prefix },
        ]
      : []),
    ...(maxBackupAge !== undefined
      ? [{ name: 'BACKUP_DRILL_MAX_AGE_SECONDS', value: String(parseDuration(maxBackupAge)) }]
      : []),
  ];
}

function resolveMetrics(policy: BackupPolicy, prefix: string): ResolvedPolicy['metrics'] {
  const metrics = policy.spec.metrics;
  const url = metrics?.pushgatewayUrl;
  if (url === undefined) return undefined;
  const basic = metrics?.basicAuthSecret;
  const keys = basic && basicAuthKeys(basic);
  const auth: ResolvedMetricsAuth | undefined =
    basic && keys
      ? {
          kind: 'basic',
          username: { name: basic.name, key: keys.username },
          password: { name: basic.name, key: keys.password },
        }
      : metrics?.bearerTokenSecret && { kind: 'bearer', token: metrics.bearerTokenSecret };
  return { pushgatewayUrl: url, prefix, auth, caBundle: metrics?.caBundle };
}

function resolveDashboard(policy: BackupPolicy, metrics: ResolvedPolicy['metrics']): ResolvedPolicy['dashboard'] {
  const dashboard = policy.spec.metrics?.grafanaDashboard;
  return dashboard && metrics && { labels: dashboard.labels ?? METRICS_DEFAULTS.grafanaDashboardLabels };
}

function resolveRule(policy: BackupPolicy): ResolvedPolicy['rule'] {
  const rule = policy.spec.metrics?.prometheusRule;
  return (
    rule && {
      labels: rule.labels ?? {},
      severity: rule.severity ?? JOB_DEFAULTS.alertSeverity,
      staleAfterIntervals: rule.staleAfterIntervals ?? JOB_DEFAULTS.staleAfterIntervals,
    }
  );
}
