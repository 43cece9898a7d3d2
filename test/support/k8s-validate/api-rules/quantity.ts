/**
 * Resource quantities, compared exactly, and container resource requirements (Kubernetes 1.28).
 *
 * Sources (kubernetes/kubernetes, release-1.28):
 *  - staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go: the quantity grammar and ParseQuantity,
 *    which rounds values finer than 1n up (away from zero) to nano precision
 *  - pkg/apis/core/validation/validation.go: ValidateResourceRequirements, validateContainerResourceName,
 *    ValidateResourceQuantityValue, ValidateNonnegativeQuantity
 *  - pkg/apis/core/helper/helpers.go: IsStandardContainerResourceName, IsNativeResource,
 *    IsHugePageResourceName, IsOvercommitAllowed, IsExtendedResourceName
 */
import { Problems, Seg, isObj } from '../problems';
import { R, qualifiedName } from './meta';

const QUANTITY_RE = /^([+-]?)(\d*)(?:\.(\d*))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;
const BINARY_POWER: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_POWER: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
/** Bound on decimal exponents, so that "1e999999999" cannot make a huge BigInt; such values are far beyond any cap. */
const MAX_DECIMAL_EXPONENT = 1000;

/** A quantity as an exact number of nano-units (1e-9), rounded up away from zero like ParseQuantity. */
export function quantityNanos(q: unknown): bigint | undefined {
  const text =
    typeof q === 'number' ? (Number.isFinite(q) ? String(q) : undefined) : typeof q === 'string' ? q : undefined;
  if (text === undefined) return undefined;
  const m = QUANTITY_RE.exec(text);
  if (!m) return undefined;
  const [, sign, whole, fraction = '', suffix = ''] = m;
  if (whole === '' && fraction === '') return undefined;
  let digits = BigInt(`${whole}${fraction}` || '0');
  let exponent = -fraction.length + 9;
  if (suffix in BINARY_POWER) digits <<= BigInt(BINARY_POWER[suffix]);
  else if (suffix in DECIMAL_POWER) exponent += DECIMAL_POWER[suffix];
  else if (suffix !== '')
    exponent += Math.max(-MAX_DECIMAL_EXPONENT, Math.min(MAX_DECIMAL_EXPONENT, Number(suffix.slice(1))));
  let nanos: bigint;
  if (exponent >= 0) nanos = digits * 10n ** BigInt(exponent);
  else {
    const divisor = 10n ** BigInt(-exponent);
    nanos = digits / divisor + (digits % divisor === 0n ? 0n : 1n);
  }
  return sign === '-' ? -nanos : nanos;
}

/** Whether a string parses as a Kubernetes quantity. */
export function isQuantity(s: string): boolean {
  return quantityNanos(s) !== undefined;
}

export function checkNonNegativeQuantity(v: unknown, at: Seg[], p: Problems): void {
  const n = quantityNanos(v);
  if (n !== undefined && n < 0n) p.add(at, 'must be greater than or equal to 0', R);
}

const STANDARD_CONTAINER_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];
const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
/** IsOvercommitAllowed: requests may be below limits only for native, non-hugepages resources. */
const overcommitAllowed = (name: string): boolean => isNative(name) && !isHugePages(name);

function containerResourceNameError(name: string): string | undefined {
  const e = qualifiedName(name);
  if (e) return e;
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.includes(name) && !isHugePages(name)) {
      return `must be a standard resource for containers (${STANDARD_CONTAINER_RESOURCES.join(', ')}, hugepages-<size>) or a domain-prefixed extended resource`;
    }
  }
  return undefined;
}

/** ValidateResourceRequirements for a container's `resources`. */
export function checkResources(res: unknown, at: Seg[], p: Problems): void {
  if (!isObj(res)) return;
  const limits = isObj(res.limits) ? res.limits : {};
  const requests = isObj(res.requests) ? res.requests : {};
  for (const [kind, map] of [
    ['limits', limits],
    ['requests', requests],
  ] as const) {
    for (const [name, v] of Object.entries(map)) {
      const rat = [...at, kind, name];
      const e = containerResourceNameError(name);
      if (e) p.add(rat, `bad resource name ${JSON.stringify(name)}: ${e}`, R);
      checkNonNegativeQuantity(v, rat, p);
      const n = quantityNanos(v);
      if (!isNative(name) && n !== undefined && n % 1_000_000_000n !== 0n)
        p.add(rat, `must be an integer (extended resource), got ${String(v)}`, R);
    }
  }
  for (const [name, v] of Object.entries(requests)) {
    const request = quantityNanos(v);
    if (request === undefined) continue;
    if (!(name in limits)) {
      if (!overcommitAllowed(name))
        p.add(
          [...at, 'limits', name],
          `missing required field: a limit must be set for ${name} (not overcommitable)`,
          R,
        );
      continue;
    }
    const limit = quantityNanos(limits[name]);
    if (limit === undefined) continue;
    if (!overcommitAllowed(name) && request !== limit) {
      p.add(
        [...at, 'requests', name],
        `must be equal to ${name} limit of ${String(limits[name])} (not overcommitable), got ${String(v)}`,
        R,
      );
    } else if (request > limit) {
      p.add(
        [...at, 'requests', name],
        `must be less than or equal to ${name} limit of ${String(limits[name])}, got ${String(v)}`,
        R,
      );
    }
  }
  const names = [...Object.keys(limits), ...Object.keys(requests)];
  if (names.some(isHugePages) && !names.some((n) => n === 'cpu' || n === 'memory')) {
    p.add(at, 'HugePages require cpu or memory', R);
  }
}
