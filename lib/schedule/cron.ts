import { ScheduleError } from './errors';
import { FIELD_LIST, FIELDS, FieldSpec, MACRO_LIST, MACROS, splitTokens, trimSpace } from './fields';

/** One parsed field: the values it selects and whether robfig/cron treats it as `*`. */
export interface ParsedField {
  readonly text: string;
  /** Selected values, ascending. */
  readonly values: readonly number[];
  /** contains[v] is true when v is selected. */
  readonly contains: readonly boolean[];
  /** True when an element is `*` or `?` without a step above 1 (robfig's star bit). */
  readonly star: boolean;
  /** True when every value of the field's range is selected. */
  readonly full: boolean;
}

export interface ParsedSchedule {
  /** The five field texts (macros expanded). */
  readonly fields: readonly string[];
  readonly minute: ParsedField;
  readonly hour: ParsedField;
  readonly dayOfMonth: ParsedField;
  readonly month: ParsedField;
  readonly dayOfWeek: ParsedField;
}

const QUARTZ = /#|^L(W|-\d+)?$|^\d+[LW]$|^[A-Z]{3}L$/i;
const HASHED = /^H([(/]|$)/;
const TZ_PREFIX = /^(CRON_)?TZ=\S*/;

/**
 * Schedules found valid, checked once each: every shard's CronJob validates its own, and hashed fields give
 * at most a few thousand distinct ones. Bounded, so a long-lived process cannot grow it without end.
 */
const validSchedules = new Set<string>();
const VALID_SCHEDULES_LIMIT = 10_000;

/**
 * Parses a schedule with the rules of the Kubernetes API server (robfig/cron v3 ParseStandard).
 * Throws ScheduleError with one precise message otherwise.
 */
export function parseSchedule(expr: string): ParsedSchedule {
  const fields = scheduleFields(expr);
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields.map((text, i) => parseField(FIELDS[i], text));
  const schedule = { fields, minute, hour, dayOfMonth, month, dayOfWeek };
  checkRuns(schedule);
  return schedule;
}

/** Returns undefined when the Kubernetes API server accepts `expr` as a CronJob schedule, else why not. */
export function validateSchedule(expr: string): string | undefined {
  if (typeof expr !== 'string') return `schedule must be a string, got ${typeof expr}`;
  if (validSchedules.has(expr)) return undefined;
  try {
    parseSchedule(expr);
    if (validSchedules.size >= VALID_SCHEDULES_LIMIT) validSchedules.clear();
    validSchedules.add(expr);
    return undefined;
  } catch (err) {
    if (err instanceof ScheduleError) return err.message;
    throw err;
  }
}

/**
 * Returns undefined when the API server parses `expr` (robfig/cron v3 ParseStandard), else why not. Unlike
 * validateSchedule, a schedule that never runs (`0 0 31 2 *`) passes: the API server accepts it.
 */
export function scheduleSyntaxProblem(expr: string): string | undefined {
  try {
    scheduleFields(expr).forEach((text, i) => parseField(FIELDS[i], text));
    return undefined;
  } catch (err) {
    if (err instanceof ScheduleError) return err.message;
    throw err;
  }
}

/** The five field texts of `expr` (macros expanded), after the whole-expression checks. */
export function scheduleFields(expr: string): string[] {
  const trimmed = trimSpace(expr);
  if (expr.includes('TZ')) {
    const prefix = TZ_PREFIX.exec(trimmed);
    throw new ScheduleError(
      prefix
        ? `"${prefix[0]}" prefixes are not allowed in a schedule: set timeZone instead`
        : '"TZ" must not appear anywhere in a schedule (the API server rejects TZ and CRON_TZ): set timeZone instead',
    );
  }
  if (trimmed === '') {
    throw new ScheduleError(`schedule is empty: expected 5 fields (${FIELD_LIST}) or a macro such as @daily`);
  }
  const tokens = splitTokens(trimmed);
  if (trimmed.startsWith('@')) return splitTokens(expandMacro(expr, tokens));
  if (tokens.length !== 5) {
    const hint =
      tokens.length === 6 && /^[\d*,/-]+$/.test(tokens[0])
        ? ': a 6-field expression with seconds first is not supported by Kubernetes CronJobs'
        : '';
    throw new ScheduleError(`expected 5 fields (${FIELD_LIST}), got ${tokens.length}${hint}`);
  }
  return tokens;
}

function expandMacro(expr: string, tokens: readonly string[]): string {
  const macro = tokens[0];
  if (macro === '@every') {
    throw new ScheduleError(`@every is not supported: use 5 fields (${FIELD_LIST}) or one of ${MACRO_LIST}`);
  }
  const expansion = MACROS[macro];
  if (expansion === undefined) {
    throw new ScheduleError(`unknown macro "${macro}": allowed macros are ${MACRO_LIST}`);
  }
  if (tokens.length > 1) {
    throw new ScheduleError(
      `macro "${macro}" must be the whole schedule, found extra text "${tokens.slice(1).join(' ')}"`,
    );
  }
  if (expr !== macro) {
    throw new ScheduleError(
      `macro "${macro}" must not be surrounded by whitespace: the API server does not trim macros`,
    );
  }
  return expansion;
}

function parseField(spec: FieldSpec, text: string): ParsedField {
  const contains: boolean[] = new Array<boolean>(spec.max + 1).fill(false);
  let star = false;
  for (const item of text.split(',')) {
    const element = parseElement(spec, text, item);
    for (let v = element.start; v <= element.end; v += element.step) contains[v] = true;
    star ||= element.star;
  }
  const values: number[] = [];
  contains.forEach((selected, v) => selected && values.push(v));
  return { text, values, contains, star, full: values.length === spec.max - spec.min + 1 };
}

interface Element {
  start: number;
  end: number;
  step: number;
  star: boolean;
}

function parseElement(spec: FieldSpec, text: string, item: string): Element {
  const field = `field "${spec.name}"`;
  if (item === '') throw new ScheduleError(`${field} has an empty element in the list "${text}"`);
  if (HASHED.test(item)) {
    throw new ScheduleError(
      `${field} value "${item}" is a hashed (H) value: resolve it with resolveHashedSchedule first`,
    );
  }
  if (QUARTZ.test(item)) {
    throw new ScheduleError(
      `${field} value "${item}" uses L, W or # (Quartz extensions), which Kubernetes CronJobs do not support`,
    );
  }
  const slashParts = item.split('/');
  if (slashParts.length > 2) throw new ScheduleError(`${field} element "${item}" has more than one "/"`);
  const [base, stepText] = slashParts;
  let element: Element;
  if (base === '*' || base === '?') {
    if (base === '?' && !spec.question) {
      throw new ScheduleError(`${field} does not allow "?": only day-of-month and day-of-week do`);
    }
    element = { start: spec.min, end: spec.max, step: 1, star: true };
  } else {
    const bounds = base.split('-');
    if (bounds.length > 2) throw new ScheduleError(`${field} element "${item}" is not a value, a range a-b or a step`);
    const start = parseValue(spec, bounds[0], item);
    const end = bounds.length === 2 ? parseValue(spec, bounds[1], item) : stepText === undefined ? start : spec.max;
    if (start > end) {
      throw new ScheduleError(
        `${field} range "${base}" is reversed: the start must not be greater than the end (ranges do not wrap around)`,
      );
    }
    element = { start, end, step: 1, star: false };
  }
  if (stepText !== undefined) {
    const size = spec.max - spec.min + 1;
    const step = /^\d+$/.test(stepText) ? Number(stepText) : NaN;
    if (!(step >= 1 && step <= size)) {
      throw new ScheduleError(`${field} step "${stepText}" in "${item}" must be a whole number from 1 to ${size}`);
    }
    element.step = step;
    element.star &&= step === 1;
  }
  return element;
}

function parseValue(spec: FieldSpec, token: string, item: string): number {
  const field = `field "${spec.name}"`;
  const allowed =
    `${spec.min}-${spec.max}` + (spec.names ? ` or ${spec.names[0]}-${spec.names[spec.names.length - 1]}` : '');
  if (token === '')
    throw new ScheduleError(`${field} element "${item}" is missing a value: allowed values are ${allowed}`);
  if (/^\d+$/.test(token)) {
    const value = Number(token);
    if (value < spec.min || value > spec.max) {
      const hint = spec.name === 'day-of-week' && value === 7 ? ' (use 0 or SUN for Sunday)' : '';
      throw new ScheduleError(`${field} value "${token}" is out of range ${spec.min}-${spec.max}${hint}`);
    }
    return value;
  }
  const index = spec.names?.indexOf(token.toUpperCase()) ?? -1;
  if (index < 0) throw new ScheduleError(`${field} value "${token}" is not valid: allowed values are ${allowed}`);
  return spec.min + index;
}

const MAX_DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Rejects schedules that can never run, such as `0 0 30 2 *` (robfig accepts them, but the CronJob never fires). */
function checkRuns(s: ParsedSchedule): void {
  // Only when day-of-week is `*` must day-of-month match on its own (robfig's star-bit rule).
  if (!s.dayOfWeek.star) return;
  const firstDay = s.dayOfMonth.values[0];
  if (s.month.values.some((m) => firstDay <= MAX_DAYS[m])) return;
  throw new ScheduleError(
    `schedule never runs: day-of-month "${s.dayOfMonth.text}" does not occur in any month selected by "${s.month.text}"`,
  );
}
