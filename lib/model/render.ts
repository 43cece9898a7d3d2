/** The resolved model → the ordered list of plain Kubernetes objects. */
import type { Manifest } from '../kubernetes/objects';
import { validateObject } from '../kubernetes/validation';
import { buildCronJob } from '../workload/jobs';
import { prometheusRule } from './alerts';
import { ResolvedPolicy, resolvePolicy } from './resolve';

/**
 * Renders a policy document (validated first, unless it already is) into
 * Kubernetes objects. Throws PolicyError naming every problem; never returns
 * a partial result.
 */
export function renderPolicy(doc: unknown, source?: string): Manifest[] {
  return renderResolved(resolvePolicy(doc, source));
}

/** Each CronJob, then the PrometheusRule. */
export function renderResolved(r: ResolvedPolicy): Manifest[] {
  const out = r.targets.map((t) => buildCronJob({ name: t.name, namespace: r.namespace, labels: t.labels, annotations: r.annotations }, t.schedule, t.settings, t.pod));
  const rule = prometheusRule(r);
  const objects = rule ? [...out, rule] : out;
  for (const o of objects) assertAccepted(o);
  return objects;
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
