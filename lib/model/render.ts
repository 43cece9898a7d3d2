/** The resolved model → the ordered list of plain Kubernetes objects. */
import type { Manifest } from '../kubernetes/objects';
import { buildCronJob, buildJob } from '../workload/jobs';
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

/** Each CronJob, followed by the one-off Jobs that belong to it; then the PrometheusRule. */
export function renderResolved(r: ResolvedPolicy): Manifest[] {
  const out: Manifest[] = [];
  for (const t of r.targets) {
    out.push(buildCronJob({ name: t.name, namespace: r.namespace, labels: t.labels, annotations: r.annotations }, t.schedule, t.settings, t.pod));
    for (const j of r.jobs.filter((job) => job.after === t.id)) {
      out.push(buildJob({ name: j.name, namespace: r.namespace, labels: j.labels, annotations: r.annotations }, j.settings, j.pod, {
        suspend: j.job.suspend,
        backoffLimit: j.job.backoffLimit,
        annotations: j.job.annotations,
      }));
    }
  }
  const rule = prometheusRule(r);
  return rule ? [...out, rule] : out;
}
