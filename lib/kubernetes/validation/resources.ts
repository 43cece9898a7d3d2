/**
 * Container resource requirements (`resources.requests` / `resources.limits`) as the Kubernetes
 * 1.28 API server checks them.
 *
 * Sources (kubernetes v1.28.8; same rules in v1.33.3, where the function is named
 * ValidateContainerResourceRequirements):
 * - pkg/apis/core/validation/validation.go: ValidateResourceRequirements (names, quantities,
 *   "must be less than or equal to <resource> limit of <limit>", "must be equal to ..." and
 *   "Limit must be set for non overcommitable resources" for extended resources and hugepages,
 *   "HugePages require cpu or memory"), validateContainerResourceName, validateResourceName,
 *   ValidateResourceQuantityValue (non-negative; integer resources "must be an integer"),
 *   validateResourceQuantityHugePageValue.
 * - pkg/apis/core/helper/helpers.go: IsStandardContainerResourceName, IsStandardResourceName,
 *   IsNativeResource, IsExtendedResourceName, IsOvercommitAllowed, IsHugePageResourceName,
 *   IsIntegerResourceName, IsHugePageResourceValueDivisible.
 */
import { show } from '../../messages';
import { qualifiedNameErrors } from './labels';
import { asRecord, received } from './problems';
import {
  type Quantity,
  compareQuantities,
  decodeQuantity,
  nonNegativeQuantityProblem,
  parseQuantity,
  scaledValue,
} from './quantity';

const HUGEPAGES_PREFIX = 'hugepages-';
const DEFAULT_NAMESPACE_PREFIX = 'kubernetes.io/';
const REQUESTS_PREFIX = 'requests.';
const CONTAINER_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];
const STANDARD_RESOURCES = [
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
];
const INTEGER_RESOURCES = [
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
];

const isHugePages = (name: string): boolean => name.startsWith(HUGEPAGES_PREFIX);
const isNative = (name: string): boolean => !name.includes('/') || name.includes(DEFAULT_NAMESPACE_PREFIX);
const isExtended = (name: string): boolean =>
  !isNative(name) && !name.startsWith(REQUESTS_PREFIX) && qualifiedNameErrors(REQUESTS_PREFIX + name).length === 0;
const isOvercommitAllowed = (name: string): boolean => isNative(name) && !isHugePages(name);
const isInteger = (name: string): boolean => INTEGER_RESOURCES.includes(name) || isExtended(name);

/** validateContainerResourceName: cpu, memory, ephemeral-storage, hugepages-<size>, or a prefixed (extended) name. */
export function containerResourceNameProblem(name: string): string | undefined {
  const errors = qualifiedNameErrors(name);
  if (!name.includes('/')) {
    const standard =
      STANDARD_RESOURCES.includes(name) ||
      isHugePages(name) ||
      name.startsWith(`${REQUESTS_PREFIX}${HUGEPAGES_PREFIX}`);
    if (errors.length === 0 && !standard) errors.push('must be a standard resource type or fully qualified');
    if (!CONTAINER_RESOURCES.includes(name) && !isHugePages(name))
      errors.push('must be a standard resource for containers (cpu, memory, ephemeral-storage, hugepages-<size>)');
  } else if (!isNative(name) && !isExtended(name)) {
    errors.push("doesn't follow extended resource name standard");
  }
  return received(name, errors);
}

/** ValidateResourceQuantityValue plus the hugepages multiple rule, for one resource. */
function quantityValueProblem(name: string, q: Quantity): string | undefined {
  const negative = nonNegativeQuantityProblem(q);
  if (negative) return negative;
  if (isInteger(name) && scaledValue(q, -3) % 1000n !== 0n) return `received ${show(q.printed)}; must be an integer`;
  if (isHugePages(name) && !hugePagesDivisible(name, q))
    return `received ${show(q.printed)}; ${q.printed} is not positive integer multiple of ${name}`;
  return undefined;
}

/** IsHugePageResourceValueDivisible: the page size comes from the name (`hugepages-2Mi`). */
function hugePagesDivisible(name: string, q: Quantity): boolean {
  const page = parseQuantity(name.slice(HUGEPAGES_PREFIX.length));
  if ('problem' in page) return false;
  const size = page.quantity;
  if (size.coefficient <= 0n || scaledValue(size, -3) % 1000n !== 0n) return false;
  return scaledValue(q, 0) % scaledValue(size, 0) === 0n;
}

/** The request of one resource against its limit: ≤ for overcommittable resources, = for the others. */
export function requestLimitProblem(resource: string, request: Quantity, limit: Quantity): string | undefined {
  const order = compareQuantities(request, limit);
  if (order !== 0 && !isOvercommitAllowed(resource))
    return `received ${show(request.printed)}; must be equal to ${resource} limit of ${limit.printed}`;
  if (order > 0)
    return `received ${show(request.printed)}; must be less than or equal to ${resource} limit of ${limit.printed}`;
  return undefined;
}

/** Takes one problem at a path relative to the checked `resources` (`['requests', 'memory']`; `[]` for the value itself). */
export type ReportProblem = (path: readonly string[], message: string) => void;

/** The valid quantities of one map (`limits` or `requests`), with problems at `[field, resource]`. */
function quantities(field: string, value: unknown, report: ReportProblem): Map<string, Quantity> {
  const found = new Map<string, Quantity>();
  if (value === undefined) return found;
  const map = asRecord(value);
  if (!map) {
    report([field], `received ${show(value)}; must be a map of resource names to quantities`);
    return found;
  }
  for (const [name, raw] of Object.entries(map)) {
    const nameProblem = containerResourceNameProblem(name);
    if (nameProblem !== undefined) report([field, name], nameProblem);
    const decoded = decodeQuantity(raw);
    if ('problem' in decoded) {
      report([field, name], decoded.problem);
      continue;
    }
    const valueProblem = quantityValueProblem(name, decoded.quantity);
    if (valueProblem !== undefined) report([field, name], valueProblem);
    found.set(name, decoded.quantity);
  }
  return found;
}

/**
 * A container's `resources`: names, quantities, requests against limits; each problem goes to `report`
 * at its path under `resources` (`['requests', 'memory']`, `['limits']`, `[]`).
 */
export function checkResourceRequirements(resources: unknown, report: ReportProblem): void {
  const r = asRecord(resources);
  if (!r) return;
  const limits = quantities('limits', r.limits, report);
  const requests = quantities('requests', r.requests, report);
  for (const [name, request] of requests) {
    const limit = limits.get(name);
    if (limit) {
      const problem = requestLimitProblem(name, request, limit);
      if (problem !== undefined) report(['requests', name], problem);
    } else if (!isOvercommitAllowed(name))
      report(['limits'], `Limit must be set for non overcommitable resources: ${name} is requested but has no limit`);
  }
  const names = [...limits.keys(), ...requests.keys()];
  if (names.some(isHugePages) && !names.some((n) => n === 'cpu' || n === 'memory')) {
    report([], 'HugePages require cpu or memory');
  }
}
