/**
 * The one size grammar of a policy: a Kubernetes quantity with a unit, binary
 * (Ki, Mi, Gi, Ti, Pi, Ei) or decimal (k, M, G, T, P, E): `10Gi`, `500M`,
 * `1.5T`. Stricter than a resource.Quantity (no plain numbers, no milli, no
 * exponents), so every size is also a valid Kubernetes quantity and never
 * ambiguous.
 */
import { UnitError } from './errors';

const MULTIPLIERS: Readonly<Record<string, bigint>> = {
  Ki: 1024n,
  Mi: 1024n ** 2n,
  Gi: 1024n ** 3n,
  Ti: 1024n ** 4n,
  Pi: 1024n ** 5n,
  Ei: 1024n ** 6n,
  k: 1000n,
  M: 1000n ** 2n,
  G: 1000n ** 3n,
  T: 1000n ** 4n,
  P: 1000n ** 5n,
  E: 1000n ** 6n,
};
const GRAMMAR = /^([0-9]+)(?:\.([0-9]+))?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)$/;

/** The JSON Schema pattern of a size (the same grammar). */
export const SIZE_PATTERN = '^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)$';

/** How the grammar is explained in messages. */
export const SIZE_GRAMMAR =
  'a size: a number and a unit, binary Ki, Mi, Gi, Ti, Pi, Ei or decimal k, M, G, T, P, E, e.g. "10Gi" or "500M"';

/** Why `text` is not a size, or undefined when it is one. */
export function sizeProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return `must be ${SIZE_GRAMMAR}`;
  const match = GRAMMAR.exec(text);
  if (!match) {
    const unit = /^[0-9.]+\s*([A-Za-z]*)$/.exec(text)?.[1];
    let hint = '';
    if (unit === '') hint = ' (a unit is required)';
    else if (unit && /^[KMGTPE]iB$/.test(unit)) hint = ` (write "${unit.slice(0, 2)}")`;
    else if (unit && /^[kKMGTPE]B$/.test(unit)) hint = ` (write "${unit[0] === 'K' ? 'k' : unit[0]}")`;
    else if (unit && /^[kmgtpe]i?b$/i.test(unit)) hint = ' (bits or bytes? write Ki, Mi, Gi, ... or k, M, G, ...)';
    return `must be ${SIZE_GRAMMAR}${hint}`;
  }
  const bytes = toBytes(match);
  if (bytes > BigInt(Number.MAX_SAFE_INTEGER)) return 'is too large';
  if (bytes < 1n) return 'is less than one byte';
  return undefined;
}

/** Bytes in a size (rounded down); throws UnitError saying what is allowed. */
export function parseSize(text: string): number {
  const problem = sizeProblem(text);
  if (problem) throw new UnitError(`${JSON.stringify(text)} ${problem}`);
  return Number(toBytes(GRAMMAR.exec(text)!));
}

function toBytes([, whole, fraction = '', unit]: RegExpExecArray): bigint {
  const scale = 10n ** BigInt(fraction.length);
  return ((BigInt(whole) * scale + BigInt(fraction || '0')) * MULTIPLIERS[unit]) / scale;
}
