/** The policy's container resources across levels and for one container: each resource on its own. */
import type { PodOptions, ResourceRequirements } from './types';

/** Per resource name: later levels win for that resource only. */
export function mergeResources(...levels: readonly (ResourceRequirements | undefined)[]): ResourceRequirements {
  let requests: Record<string, string> | undefined;
  let limits: Record<string, string> | undefined;
  for (const level of levels) {
    if (level?.requests) requests = { ...requests, ...level.requests };
    if (level?.limits) limits = { ...limits, ...level.limits };
  }
  return { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) };
}

/** The policy's overrides of one container: `resources` (main containers only), then `containerResources[name]`. */
export function resourceOverrides(options: PodOptions, name: string, main: boolean): ResourceRequirements {
  return mergeResources(main ? options.resources : undefined, options.containerResources?.[name]);
}
