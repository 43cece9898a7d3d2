import { createHash } from 'node:crypto';
import { scheduleFields, validateSchedule } from './cron';
import { ScheduleError } from './errors';
import { FIELDS, FieldSpec, splitTokens, trimSpace } from './fields';

/** The first 8 bytes of sha256(input) as a big-endian unsigned integer. */
export function hash64(input: string): bigint {
  return createHash('sha256').update(input, 'utf8').digest().readBigUInt64BE(0);
}

/** hash64(input) mod `modulus` (a positive safe integer). */
export function hashModulo(input: string, modulus: number): number {
  if (!Number.isSafeInteger(modulus) || modulus < 1)
    throw new RangeError(`modulus must be a positive integer, got ${modulus}`);
  return Number(hash64(input) % BigInt(modulus));
}

const HASH_ELEMENT = /^H(?:\((\d+)-(\d+)\))?(?:\/(\d+))?$/;
const STARTS_HASHED = /^H([(/]|$)/;

/** True when some field of `expr` has a hashed element (H, H/n, H(a-b), H(a-b)/n). */
export function containsHash(expr: string): boolean {
  return splitTokens(trimSpace(expr)).some((field) => field.split(',').some((item) => STARTS_HASHED.test(item)));
}

/**
 * Replaces each hashed element with a value derived from `identity` (stable per identity and field):
 * `H` → a value of the field's range (day-of-month: 1-28, so every month has it), `H(a-b)` → a value in a..b,
 * `H/n` and `H(a-b)/n` → `start-end/n` with start in [a, a+n). Other fields are kept as they are.
 * The hash of a field is hash64(`${identity}|${fieldName}`), field names as in FIELDS.
 */
export function resolveHashedSchedule(expr: string, identity: string): string {
  if (identity === '') throw new ScheduleError('identity for hashed schedule fields must not be empty');
  let resolved = expr;
  if (containsHash(expr)) {
    const fields = scheduleFields(expr);
    resolved = fields
      .map((text, i) => {
        const spec = FIELDS[i];
        const items = text.split(',');
        if (!items.some((item) => STARTS_HASHED.test(item))) return text;
        const hash = hash64(`${identity}|${spec.name}`);
        return items.map((item) => (STARTS_HASHED.test(item) ? resolveElement(spec, item, hash) : item)).join(',');
      })
      .join(' ');
  }
  const problem = validateSchedule(resolved);
  if (problem) throw new ScheduleError(problem);
  return resolved;
}

function resolveElement(spec: FieldSpec, item: string, hash: bigint): string {
  const field = `field "${spec.name}"`;
  const match = HASH_ELEMENT.exec(item);
  if (!match) throw new ScheduleError(`${field} hashed element "${item}" is not valid: use H, H/n, H(a-b) or H(a-b)/n`);
  const [, low, high, stepText] = match;
  const start = low === undefined ? spec.min : Number(low);
  const end = high === undefined ? (spec.name === 'day-of-month' ? 28 : spec.max) : Number(high);
  if (start < spec.min || end > spec.max) {
    throw new ScheduleError(`${field} hashed range "${item}" is out of range ${spec.min}-${spec.max}`);
  }
  if (start > end)
    throw new ScheduleError(`${field} hashed range "${item}" is reversed: the start must not be greater than the end`);
  const size = end - start + 1;
  if (stepText === undefined) return String(start + Number(hash % BigInt(size)));
  const step = Number(stepText);
  if (step < 1 || step > size)
    throw new ScheduleError(`${field} step in "${item}" must be a whole number from 1 to ${size}`);
  return `${start + Number(hash % BigInt(step))}-${end}/${step}`;
}
