/** The resolved model → the ordered list of plain Kubernetes objects. */
import type { EngineContainer, Manifest, PodSpec } from '../kubernetes/objects';
import { copyManifests } from '../kubernetes/objects';
import { buildCronJob } from '../workload/jobs';
import { INLINE_SCRIPTS, ScriptsRendering, scriptsConfigMap } from '../workload/scripts';
import { DNS_SUBDOMAIN_MAX, joinName } from '../kubernetes/names';
import { prometheusRule } from './alerts';
import { grafanaDashboard } from './dashboard';
import { provenance } from './provenance';
import { engineDefinition } from '../registry';
import { ResolvedPolicy, commonLabels, resolvePolicy } from './resolve';
import { policyContext } from './validate';

/**
 * Renders a policy document (validated first, unless it already is) into
 * Kubernetes objects. Throws PolicyError naming every problem; never returns
 * a partial result. The objects are the caller's to change: each is a tree of
 * its own, sharing no part with another object or with another render.
 */
export function renderPolicy(doc: unknown, source?: string): Manifest[] {
  return renderResolved(resolvePolicy(doc, source));
}

/**
 * The policy's script ConfigMap (configMap mode), then the objects the
 * engine's pods need (e.g. their ServiceAccount), then each CronJob, then the
 * PrometheusRule. Every object carries the provenance annotations. The
 * objects are the caller's to change: each is a tree of its own, sharing no
 * part with another object or with another render.
 */
export function renderResolved(r: ResolvedPolicy): Manifest[] {
  return copyManifests(renderShared(r));
}

/**
 * `renderResolved`'s objects as built, for the package's own code only (the
 * CLI writes them, the front ends keep them and hand out `copyManifests`):
 * each CronJob's parts equal to the previous one's of its component are that
 * one's (`compactLike`: one pod template in memory per shard kind). Never
 * changed, never handed to a user.
 */
export function renderShared(r: ResolvedPolicy): Manifest[] {
  const configMap =
    r.scripts === 'configMap'
      ? scriptsConfigMap(r.name, r.namespace, commonLabels(r.policy, r.engine, 'scripts'), podContainers(r))
      : undefined;
  const scripts: ScriptsRendering = configMap
    ? { mode: 'configMap', configMap: configMap.metadata.name }
    : INLINE_SCRIPTS;
  const annotations = (schedule?: { readonly written: string; readonly resolved: string }) =>
    Object.assign({}, r.annotations, provenance(r.name, schedule));
  // each CronJob shares its parts equal to the previous one's of its component (one pod template in memory per shard kind)
  const previous = new Map<string, Manifest>();
  const cronJobs = r.targets.map((t) => {
    const id = { name: t.name, namespace: r.namespace, labels: t.labels, annotations: r.annotations };
    const built = buildCronJob(id, t.schedule, t.settings, t.pod, scripts, previous.get(t.component));
    previous.set(t.component, built);
    return withAnnotations(built, annotations(t.schedule));
  });
  const rule = prometheusRule(r);
  const dashboard = dashboardConfigMap(r);
  return [
    ...(configMap ? [withAnnotations(configMap, annotations())] : []),
    ...engineObjects(r, cronJobs.map(podSpecOf)).map((o) => withAnnotations(o, annotations())),
    ...cronJobs,
    ...(rule ? [withAnnotations(rule, annotations())] : []),
    ...(dashboard ? [withAnnotations(dashboard, annotations())] : []),
  ];
}

/** `spec.metrics.grafanaDashboard`: the dashboard of this policy, in a ConfigMap for Grafana's dashboard sidecar. */
function dashboardConfigMap(r: ResolvedPolicy): Manifest | undefined {
  if (!r.dashboard || !r.metrics) return undefined;
  const dashboard = grafanaDashboard({ namespace: r.namespace, policy: r.name, prefix: r.metrics.prefix });
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: joinName([r.name, 'grafana-dashboard'], DNS_SUBDOMAIN_MAX),
      namespace: r.namespace,
      labels: {
        ...commonLabels(r.policy, r.engine, 'dashboard'),
        ...r.dashboard.labels,
      },
    },
    data: { [`backup-cronjobs-${r.namespace}-${r.name}.json`]: `${JSON.stringify(dashboard, null, 2)}\n` },
  };
}

/** The engine's objects for these pods, with the labels every object of the policy carries. */
function engineObjects(r: ResolvedPolicy, pods: readonly PodSpec[]): Manifest[] {
  const objects =
    engineDefinition(r.engine).objects?.(r.policy.spec[r.engine], policyContext(r.policy, r.engine), pods) ?? [];
  return objects.map(({ component, manifest }) => ({
    ...manifest,
    metadata: { ...manifest.metadata, labels: commonLabels(r.policy, r.engine, component) },
  }));
}

/** The pod template of a rendered CronJob. */
function podSpecOf(cronJob: Manifest): PodSpec {
  const jobTemplate = (cronJob.spec as { jobTemplate: { spec: { template: { spec: PodSpec } } } }).jobTemplate;
  return jobTemplate.spec.template.spec;
}

/** Every container of the policy's pods, for the script ConfigMap. */
function podContainers(r: ResolvedPolicy): EngineContainer[] {
  return r.targets.flatMap((t) => [...(t.pod.initContainers ?? []), ...t.pod.containers]);
}

/** The object with `annotations` added to its own (not to its templates); provenance wins over a policy annotation of the same key. */
function withAnnotations(o: Manifest, annotations: Readonly<Record<string, string>>): Manifest {
  // Object.assign rather than spread: spreading maps of annotation keys cost microseconds, for every object
  return { ...o, metadata: { ...o.metadata, annotations: Object.assign({}, o.metadata.annotations, annotations) } };
}
