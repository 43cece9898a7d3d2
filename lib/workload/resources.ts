/**
 * Container resources: the default requests and memory limit of every step
 * (one profile per tool the step runs; the numbers and their sources are in
 * docs/operations/resources.md), and the policy's overrides on top of them
 * (`pod.resources` for the engine's main containers, then
 * `pod.containerResources.<container>`), each resource on its own.
 */
import type { ContainerResources, EngineContainer } from '../kubernetes/objects';
import { compareQuantities, parseQuantity } from '../kubernetes/validation/quantity';
import type { Quantity } from '../kubernetes/validation/quantity';
import type { PodOptions, ResourceRequirements } from '../policy/types';
import { resourceOverrides } from '../policy/resources';

export { resourceOverrides };

export type { ContainerResources };

// no cpu limit: a throttled backup only gets slower, and an idle node's cpu is free to use
const profile = (cpu: string, memory: string, memoryLimit: string): ContainerResources => ({
  requests: { cpu, memory },
  limits: { memory: memoryLimit },
});

/**
 * The default of each kind of step, by the tool it runs: the request covers
 * the peak resident memory measured for a typical run (bench/peak-rss.sh),
 * the limit the largest run the engine's own defaults allow, with a margin.
 * Numbers and sources: docs/operations/resources.md.
 */
export const STEP_RESOURCES = {
  /** POSIX sh (busybox or the image's) with its tools: copies, renames, sha256sum, tar, gzip, listings, curl pushes (2-11 MiB measured). */
  shell: profile('10m', '16Mi', '64Mi'),
  /** The aws CLI (Python): uploads, downloads, listings, deletions (74-143 MiB measured; the stdin upload buffers 10 parts of 8 MiB). */
  awsCli: profile('100m', '128Mi', '512Mi'),
  /** age streaming a file, encrypt or decrypt (5-11 MiB measured). */
  age: profile('50m', '16Mi', '128Mi'),
  /**
   * etcdctl endpoint status and snapshot save (16-31 MiB), then snapshot status and the restore
   * check, which map the whole snapshot (the snapshot's size + 16-40 MiB measured): a limit for
   * etcd's default 2 GiB backend quota, filled.
   */
  etcdSnapshot: profile('100m', '256Mi', '3Gi'),
  /** etcdctl calls whose work the server does (member list, endpoint status and health, defrag): a Go gRPC client (endpoint status: 16 MiB measured). */
  etcdctl: profile('10m', '32Mi', '128Mi'),
  /** etcdctl/etcdutl snapshot restore (the snapshot's size + 40 MiB) and, in a drill, a temporary etcd member on it. */
  etcdRestore: profile('100m', '256Mi', '3Gi'),
  /** redis-cli --rdb to a file (7 MiB measured) and gzip (2 MiB). */
  redisDump: profile('100m', '32Mi', '256Mi'),
  /** gunzip, redis-check-rdb and a temporary redis-server that holds the whole data set. */
  redisRestore: profile('100m', '256Mi', '2Gi'),
  /** vtbackup and the mysqld it runs: vitess-operator's example mysqld resources (it gives vtbackup the first pool's). */
  vtbackup: profile('100m', '512Mi', '1Gi'),
  /** vtctldclient calls (Vitess retention-prune): a Go gRPC client, like etcdctl (16-31 MiB measured). */
  vtctldclient: profile('10m', '32Mi', '128Mi'),
} as const;

/** A request the policy sets and a limit it sets too (at any levels), the request above the limit. */
export interface ResourceConflict {
  readonly resource: string;
  readonly request: string;
  readonly limit: string;
}

export interface ResolvedResources {
  readonly resources: ContainerResources;
  readonly conflicts: readonly ResourceConflict[];
}

/**
 * The default under the overrides, resource by resource. A request the policy
 * raises above the default limit raises that limit to it; a limit it lowers
 * below the default request lowers that request to it; a request above a limit
 * that the policy sets both of is a conflict (reported, the limit kept).
 */
export function resolveResources(defaults: ContainerResources, overrides: ResourceRequirements): ResolvedResources {
  const requests: Record<string, string> = { ...defaults.requests, ...overrides.requests };
  const limits: Record<string, string> = { ...defaults.limits, ...overrides.limits };
  const conflicts: ResourceConflict[] = [];
  for (const [resource, request] of Object.entries(requests)) {
    const limit = limits[resource];
    if (limit === undefined || !above(request, limit)) continue;
    const setRequest = overrides.requests?.[resource] !== undefined;
    const setLimit = overrides.limits?.[resource] !== undefined;
    if (setRequest && !setLimit) limits[resource] = request;
    else if (setLimit && !setRequest) requests[resource] = limit;
    else conflicts.push({ resource, request, limit });
  }
  return { resources: { requests, limits }, conflicts };
}

/** A container's own default, or a shell step's when the engine sets none. */
export function defaultResources(c: EngineContainer): ContainerResources {
  return c.resources ?? STEP_RESOURCES.shell;
}

/** The container with its resources resolved under the policy's overrides (conflicts are refused when the policy is resolved). */
export function withResources(c: EngineContainer, options: PodOptions, main: boolean): EngineContainer {
  return { ...c, resources: resolveResources(defaultResources(c), resourceOverrides(options, c.name, main)).resources };
}

function above(request: string, limit: string): boolean {
  const a = quantity(request);
  const b = quantity(limit);
  return a !== undefined && b !== undefined && compareQuantities(a, b) > 0;
}

function quantity(text: string): Quantity | undefined {
  const parsed = parseQuantity(text);
  return 'quantity' in parsed ? parsed.quantity : undefined;
}
