/**
 * resource.Quantity parsed, compared and printed exactly as the API server does it, in exact
 * (BigInt) arithmetic.
 *
 * Source: k8s.io/apimachinery/pkg/api/resource (apimachinery v0.28.8; unchanged in parsing up to
 * v0.33): quantity.go parseQuantityString, ParseQuantity, UnmarshalJSON, CanonicalizeBytes;
 * suffix.go (n u m "" k M G T P E, Ki Mi Gi Ti Pi Ei, e/E exponents); amount.go
 * AsCanonicalBytes, AsCanonicalBase1024Bytes. The grammar is
 * `<signedNumber><suffix>`, number `<digits> | <digits>.<digits> | <digits>. | .<digits>`.
 *
 * What ParseQuantity does that this module reproduces:
 * - values are rounded up (away from zero) to a multiple of 10^-9 (`0.1n` → `1n`);
 * - BinarySI values are capped at 2^63-1 in magnitude; decimal ones are not;
 * - the quirks of its scanner: a sign, a dot or a suffix without digits means 0 (`-`, `.`, `Ki`,
 *   `e5`), except where the slow path needs digits (`Pi`, `Ei`, `.e-10` are rejected);
 * - the e/E exponent is parsed as int64 and then truncated to int32, and scale arithmetic wraps at
 *   32 bits.
 * A manifest value is decoded like UnmarshalJSON: a JSON string with surrounding white space
 * trimmed (Go's unicode.IsSpace), or a JSON number.
 * Printing: BinarySI between -1024 and 1024 or with a fraction prints as DecimalSI; a DecimalSI
 * exponent outside n..E prints as `e<exp>` (Go prints the bare mantissa there, dropping the
 * exponent).
 */
import { show } from '../../messages';

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** A parsed quantity: its exact value is coefficient × 10^exponent. */
export interface Quantity {
  /** Signed; no trailing decimal zeros (0 has exponent 0). */
  readonly coefficient: bigint;
  readonly exponent: number;
  readonly format: QuantityFormat;
  /** What the API server prints for it (Quantity.String()). */
  readonly printed: string;
}

export type QuantityResult = { readonly quantity: Quantity } | { readonly problem: string };

const SPLIT_RE_STRING = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
const FORMAT_WRONG = `quantities must match the regular expression '${SPLIT_RE_STRING}'`;
const NUMERIC = 'unable to parse numeric part of quantity';
const SUFFIX = "unable to parse quantity's suffix";

const SUFFIX_CHARS = 'eEinumkKMGTP';
const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = {
  '': 0,
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const BINARY_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const NANO = -9;
/** Go's maxInt64Factors: more digits than this leave the int64 fast path. */
const MAX_INT64_FACTORS = 18;
/** Characters Go's unicode.IsSpace accepts (strings.TrimSpace). */
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]';
const GO_TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');

const int32 = (n: number): number => n | 0;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const abs = (n: bigint): bigint => (n < 0n ? -n : n);
const pow10 = (n: number): bigint => 10n ** BigInt(n);
const digitCount = (n: bigint): number => abs(n).toString().length;

interface Scanned {
  readonly positive: boolean;
  /** Sign, digits and dot as written (what inf.Dec.SetString reads on the slow path). */
  readonly value: string;
  readonly num: string;
  readonly denom: string;
  readonly suffix: string;
}

/** parseQuantityString. */
function scan(str: string): Scanned | undefined {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-' || str[0] === '+') {
    positive = str[0] === '+';
    pos++;
  }
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  const numStart = pos;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos >= end) return { positive, value: str, num: str.slice(numStart), denom: '', suffix: '' };
  const num = str.slice(numStart, pos) || '0';
  let denom = '';
  if (str[pos] === '.') {
    const denomStart = ++pos;
    while (pos < end && isDigit(str[pos])) pos++;
    denom = str.slice(denomStart, pos);
    if (pos >= end) return { positive, value: str, num, denom, suffix: '' };
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.includes(str[pos])) pos++;
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) return undefined;
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

/** suffixer.interpret. */
function interpretSuffix(suffix: string): { base: 10 | 2; exponent: number; format: QuantityFormat } | undefined {
  if (suffix in DECIMAL_SUFFIXES) return { base: 10, exponent: DECIMAL_SUFFIXES[suffix], format: 'DecimalSI' };
  if (suffix in BINARY_SUFFIXES) return { base: 2, exponent: BINARY_SUFFIXES[suffix], format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const digits = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(digits)) return undefined;
    const parsed = BigInt(digits);
    if (parsed > INT64_MAX || parsed < INT64_MIN) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  return undefined;
}

/** coefficient × 10^exponent with trailing zeros moved into the exponent. */
function normalized(coefficient: bigint, exponent: number): [bigint, number] {
  if (coefficient === 0n) return [0n, 0];
  let c = coefficient;
  let e = exponent;
  while (c % 10n === 0n) {
    c /= 10n;
    e++;
  }
  return [c, e + 0]; // no -0
}

/** Rounds |numerator / denominator| up, keeping the sign. */
function divideAwayFromZero(numerator: bigint, denominator: bigint): bigint {
  const q = abs(numerator) / denominator;
  const up = abs(numerator) % denominator === 0n ? q : q + 1n;
  return numerator < 0n ? -up : up;
}

/** coefficient × 10^exponent rounded away from zero to a multiple of 10^-9, as [coefficient, exponent]. */
function roundedToNano(coefficient: bigint, exponent: number): [bigint, number] {
  if (coefficient === 0n || exponent >= NANO) return [coefficient, exponent];
  const shift = NANO - exponent;
  if (shift > digitCount(coefficient)) return [coefficient < 0n ? -1n : 1n, NANO];
  return [divideAwayFromZero(coefficient, pow10(shift)), NANO];
}

function compareMagnitude(a: bigint, aExp: number, b: bigint, bExp: number): -1 | 0 | 1 {
  const aTop = digitCount(a) + aExp;
  const bTop = digitCount(b) + bExp;
  if (aTop !== bTop) return aTop < bTop ? -1 : 1;
  const low = Math.min(aExp, bExp);
  const x = abs(a) * pow10(aExp - low);
  const y = abs(b) * pow10(bExp - low);
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Quantity.Cmp: -1, 0 or 1, exactly. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const sa = a.coefficient === 0n ? 0 : a.coefficient < 0n ? -1 : 1;
  const sb = b.coefficient === 0n ? 0 : b.coefficient < 0n ? -1 : 1;
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const m = compareMagnitude(a.coefficient, a.exponent, b.coefficient, b.exponent);
  return (sa > 0 ? m : -m) as -1 | 0 | 1;
}

/** The value divided by 10^scale, rounded away from zero (ScaledValue: scale 0 = Value(), -3 = MilliValue()). */
export function scaledValue(q: Quantity, scale: number): bigint {
  const e = q.exponent - scale;
  if (e >= 0) return q.coefficient * pow10(e);
  if (-e > digitCount(q.coefficient)) return q.coefficient === 0n ? 0n : q.coefficient < 0n ? -1n : 1n;
  return divideAwayFromZero(q.coefficient, pow10(-e));
}

/** CanonicalizeBytes: what Quantity.String() prints when the input was not kept as written. */
function canonical(coefficient: bigint, exponent: number, format: QuantityFormat): string {
  if (coefficient === 0n) return '0';
  if (format === 'BinarySI' && compareMagnitude(coefficient, exponent, 1024n, 0) >= 0 && exponent >= 0) {
    let n = coefficient * pow10(exponent);
    let power = 0;
    while (power < BINARY_BY_POWER.length - 1 && n % 1024n === 0n) {
      n /= 1024n;
      power++;
    }
    return `${n}${BINARY_BY_POWER[power]}`;
  }
  const down = ((exponent % 3) + 3) % 3;
  const mantissa = coefficient * pow10(down);
  const e = exponent - down;
  if (format === 'DecimalExponent') return e === 0 ? `${mantissa}` : `${mantissa}e${e}`;
  const suffix = DECIMAL_BY_EXPONENT.get(e);
  return suffix === undefined ? `${mantissa}e${e}` : `${mantissa}${suffix}`;
}

function quantity(coefficient: bigint, exponent: number, format: QuantityFormat, written?: string): Quantity {
  const [c, e] = normalized(coefficient, exponent);
  return { coefficient: c, exponent: e, format, printed: written ?? canonical(c, e, format) };
}

/** Results are immutable and every pod asks for the same few texts: each is parsed once. */
const parsedQuantities = new Map<string, QuantityResult>();

/** ParseQuantity, exactly: the quantity, or the API server's reason for refusing the text. */
export function parseQuantity(str: string): QuantityResult {
  let result = parsedQuantities.get(str);
  if (result === undefined) {
    result = parseQuantityText(str);
    if (parsedQuantities.size > 10000) parsedQuantities.clear();
    parsedQuantities.set(str, result);
  }
  return result;
}

function parseQuantityText(str: string): QuantityResult {
  if (str.length === 0) return { problem: FORMAT_WRONG };
  if (str === '0') return { quantity: quantity(0n, 0, 'DecimalSI', '0') };
  const s = scan(str);
  if (!s) return { problem: FORMAT_WRONG };
  const suffix = interpretSuffix(s.suffix);
  if (!suffix) return { problem: SUFFIX };
  const sign = s.positive ? 1n : -1n;

  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (suffix.base === 10) {
    scale = suffix.exponent;
    precision = MAX_INT64_FACTORS - (s.num.length + s.denom.length);
  } else if (s.denom.length === 0) {
    mantissa = 1n << BigInt(suffix.exponent);
    precision = 15 - s.num.length - Math.trunc((suffix.exponent * 3) / 10) - 1;
  } else {
    precision = -1;
  }

  // Fast path (int64 arithmetic).
  if (precision >= 0) {
    scale = int32(scale - s.denom.length);
    if (scale >= NANO) {
      const shifted = s.num + s.denom;
      const value = BigInt(shifted);
      const result = value * mantissa;
      if (result <= INT64_MAX) {
        const keepsText =
          suffix.format === 'BinarySI'
            ? (value & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return { quantity: quantity(sign * result, scale, suffix.format, keepsText ? str : undefined) };
      }
    }
  }

  // Slow path (inf.Dec arithmetic).
  const digits = s.value.replace(/[^0-9]/g, '');
  if (digits.length === 0) return { problem: NUMERIC };
  const unscaled = sign * BigInt(digits);
  let coefficient: bigint;
  let exponent: number;
  if (suffix.base === 10) {
    [coefficient, exponent] = roundedToNano(unscaled, -int32(s.denom.length + int32(-suffix.exponent)));
  } else {
    const exact = unscaled * (1n << BigInt(suffix.exponent));
    [coefficient, exponent] = roundedToNano(exact, -s.denom.length);
  }
  let format = suffix.format;
  if (format === 'BinarySI') {
    if (compareMagnitude(coefficient, exponent, INT64_MAX, 0) > 0) [coefficient, exponent] = [sign * INT64_MAX, 0];
    if (coefficient !== 0n && compareMagnitude(coefficient, exponent, 1n, 0) < 0) format = 'DecimalSI';
  }
  return { quantity: quantity(coefficient, exponent, format) };
}

/**
 * A quantity field of a manifest as the API server decodes it (Quantity.UnmarshalJSON): a string
 * with surrounding white space trimmed, or a JSON number.
 */
export function decodeQuantity(value: unknown): QuantityResult {
  if (typeof value === 'number' && Number.isFinite(value)) return parseQuantity(String(value));
  if (typeof value !== 'string') return { problem: `received ${show(value)}; a quantity must be a string or a number` };
  const result = parseQuantity(value.replace(GO_TRIM, ''));
  return 'problem' in result ? { problem: `received ${show(value)}; ${result.problem}` } : result;
}

/** Why the API server would refuse this quantity field, or undefined. */
export function quantityProblem(value: unknown): string | undefined {
  const result = decodeQuantity(value);
  return 'problem' in result ? result.problem : undefined;
}

/** ValidateNonnegativeQuantity. */
export function nonNegativeQuantityProblem(q: Quantity): string | undefined {
  return q.coefficient < 0n ? `received ${show(q.printed)}; must be greater than or equal to 0` : undefined;
}
