/**
 * Resource quantities and resource requirements.
 */
import { Problems, Seg, isObj } from '../problems';
import { R } from './meta';

const QUANTITY_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?\d+)?$/;

/** Whether a string parses as a Kubernetes quantity. */
export function isQuantity(s: string): boolean {
  return QUANTITY_RE.test(s);
}

const SUFFIX: Record<string, number> = {
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
};

/** Approximate numeric value of a quantity, or undefined when it's not a valid quantity. */
export function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string' || !QUANTITY_RE.test(q)) return undefined;
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(.*)$/.exec(q);
  if (!m) return undefined;
  const n = Number(m[1]);
  const suf = m[2];
  if (/^[eE]/.test(suf)) return n * 10 ** Number(suf.slice(1));
  return n * (SUFFIX[suf] ?? NaN);
}

export function checkResources(res: unknown, at: Seg[], p: Problems): void {
  if (!isObj(res)) return;
  const limits = isObj(res.limits) ? res.limits : {};
  const requests = isObj(res.requests) ? res.requests : {};
  for (const [kind, map] of [['limits', limits], ['requests', requests]] as const) {
    for (const [k, v] of Object.entries(map)) {
      const n = quantityValue(v);
      if (n !== undefined && n < 0) p.add([...at, kind, k], 'must be greater than or equal to 0', R);
    }
  }
  for (const [k, v] of Object.entries(requests)) {
    const r = quantityValue(v);
    const l = quantityValue(limits[k]);
    if (r !== undefined && l !== undefined && r > l) {
      p.add([...at, 'requests', k], `must be less than or equal to ${k} limit of ${String(limits[k])}`, R);
    }
  }
}
