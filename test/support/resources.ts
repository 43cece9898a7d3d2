/** Containers of rendered workloads without cpu and memory requests or without a memory limit. */
import type { V1PodSpec, V1PodTemplateSpec } from '@kubernetes/client-node';
import type { Manifest } from '../../lib';

/** Where the pod spec of a CronJob, a Job or a Pod is. */
interface WithPod {
  readonly spec?: V1PodSpec & {
    readonly template?: V1PodTemplateSpec;
    readonly jobTemplate?: { readonly spec?: { readonly template?: V1PodTemplateSpec } };
  };
}

/** The pod spec of a CronJob, Job or Pod; undefined for other objects. */
export function podSpecOf(o: Manifest): V1PodSpec | undefined {
  const spec = (o as WithPod).spec;
  if (o.kind === 'CronJob') return spec?.jobTemplate?.spec?.template?.spec;
  if (o.kind === 'Job') return spec?.template?.spec;
  if (o.kind === 'Pod') return spec;
  return undefined;
}

/** `<kind>/<name>/<container>: <what is missing>` for each container lacking requests.cpu, requests.memory or limits.memory. */
export function containersWithoutResources(objects: readonly Manifest[]): string[] {
  const missing: string[] = [];
  for (const o of objects) {
    const pod = podSpecOf(o);
    if (!pod) continue;
    for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
      const gaps = [
        c.resources?.requests?.cpu === undefined ? 'requests.cpu' : '',
        c.resources?.requests?.memory === undefined ? 'requests.memory' : '',
        c.resources?.limits?.memory === undefined ? 'limits.memory' : '',
      ].filter(Boolean);
      if (gaps.length > 0) missing.push(`${o.kind}/${o.metadata.name}/${c.name}: ${gaps.join(', ')}`);
    }
  }
  return missing;
}
