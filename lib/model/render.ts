/** The resolved model → the ordered list of plain Kubernetes objects. */
import type { EngineContainer, Manifest } from '../kubernetes/objects';
import { validateObject } from '../kubernetes/validation';
import { buildCronJob } from '../workload/jobs';
import { INLINE_SCRIPTS, ScriptsRendering, scriptsConfigMap } from '../workload/scripts';
import { prometheusRule } from './alerts';
import { provenance } from './provenance';
import { ResolvedPolicy, commonLabels, resolvePolicy } from './resolve';

/**
 * Renders a policy document (validated first, unless it already is) into
 * Kubernetes objects. Throws PolicyError naming every problem; never returns
 * a partial result.
 */
export function renderPolicy(doc: unknown, source?: string): Manifest[] {
  return renderResolved(resolvePolicy(doc, source));
}

/**
 * The policy's script ConfigMap (configMap mode), then each CronJob, then the
 * PrometheusRule. Every object carries the provenance annotations.
 */
export function renderResolved(r: ResolvedPolicy): Manifest[] {
  const configMap = r.scripts === 'configMap' ? scriptsConfigMap(r.name, r.namespace, commonLabels(r.policy, r.engine, 'scripts'), podContainers(r)) : undefined;
  const scripts: ScriptsRendering = configMap ? { mode: 'configMap', configMap: configMap.metadata.name } : INLINE_SCRIPTS;
  const annotations = (schedule?: { readonly written: string; readonly resolved: string }) => ({ ...r.annotations, ...provenance(r.name, schedule) });
  const out: Manifest[] = configMap ? [{ ...configMap, metadata: { ...configMap.metadata, annotations: annotations() } }] : [];
  for (const t of r.targets) {
    const id = { name: t.name, namespace: r.namespace, labels: t.labels, annotations: r.annotations };
    out.push(withAnnotations(buildCronJob(id, t.schedule, t.settings, t.pod, scripts), annotations(t.schedule)));
  }
  const rule = prometheusRule(r);
  const objects = rule ? [...out, withAnnotations(rule, annotations())] : out;
  for (const o of objects) assertAccepted(o);
  return objects;
}

/** Every container of the policy's pods, for the script ConfigMap. */
function podContainers(r: ResolvedPolicy): EngineContainer[] {
  return r.targets.flatMap((t) => [...(t.pod.initContainers ?? []), ...t.pod.containers]);
}

/** The object with `annotations` added to its own (not to its templates); provenance wins over a policy annotation of the same key. */
function withAnnotations(o: Manifest, annotations: Readonly<Record<string, string>>): Manifest {
  return { ...o, metadata: { ...o.metadata, annotations: { ...o.metadata.annotations, ...annotations } } };
}

/**
 * The last guard: an object the API server would refuse never leaves the
 * package. Policy validation reports problems at the policy's paths; reaching
 * this is a bug in backup-cronjobs.
 */
export function assertAccepted(o: Manifest): void {
  const problems = validateObject(o);
  if (problems.length === 0) return;
  const list = problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
  throw new Error(`backup-cronjobs rendered ${o.kind} ${o.metadata.name}, which the API server would refuse (a bug: please report it with the policy):\n${list}`);
}
