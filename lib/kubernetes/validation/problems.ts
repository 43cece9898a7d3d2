/**
 * Shared shapes of the Kubernetes validation rules: a problem with a field path
 * relative to the value checked, path joining, the API server's message forms.
 *
 * Message forms follow k8s.io/apimachinery/pkg/util/validation/validation.go
 * (MaxLenError, RegexError, EmptyError) at Kubernetes 1.28 (apimachinery v0.28.8).
 */
import { show } from '../../messages';

/** One problem, located relative to the value the rule was applied to. */
export interface Problem {
  /**
   * Field path in JSON-path form relative to the checked value: `containers[0].env[3].name`;
   * map keys in brackets as the API server prints them (`labels[app.kubernetes.io/name]`);
   * `''` for the checked value itself.
   */
  readonly path: string;
  /** What is wrong (with the received value) and what is allowed. */
  readonly message: string;
}

/** `base` + a field name or list index: `a` + `b` → `a.b`, `a` + 0 → `a[0]`. */
export function fieldPath(base: string, field: string | number): string {
  if (typeof field === 'number') return `${base}[${field}]`;
  return base ? `${base}.${field}` : field;
}

/** `base` + a map key: `labels` + `a/b` → `labels[a/b]` (field.Path.Key form). */
export function keyPath(base: string, key: string): string {
  return `${base}[${key}]`;
}

/** Joins a base path and a relative path (`''`, `name`, `[0].name`). */
export function joinPath(base: string, relative: string): string {
  if (!relative) return base;
  if (!base || relative.startsWith('[')) return base + relative;
  return `${base}.${relative}`;
}

/** Moves problems found in a nested value under `base`. */
export function under(base: string, problems: readonly Problem[]): Problem[] {
  return problems.map((p) => ({ path: joinPath(base, p.path), message: p.message }));
}

/** A problem list with one entry at `path` when `message` is set. */
export function problemAt(path: string, message: string | undefined): Problem[] {
  return message === undefined ? [] : [{ path, message }];
}

/** `received "x"; detail; detail`, or undefined when there is no detail. */
export function received(value: unknown, details: readonly string[]): string | undefined {
  return details.length === 0 ? undefined : `received ${show(value)}; ${details.join('; ')}`;
}

/** Length as Go's len() counts it: UTF-8 bytes. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** MaxLenError. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** RegexError: the rule in words, examples, and the regex itself (the API server's exact text). */
export function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${format}')`;
}

/** The whole-string regex of a Go validation format. */
export function anchored(format: string): RegExp {
  return new RegExp(`^(?:${format})$`);
}

/** The value as a plain object, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The value as a list (absent → empty). */
export function asList(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A rule of one value (an env var, a toleration, a container's resources). */
export type Rule = (value: unknown) => Problem[];

/**
 * What a rule found clean, by object, while the objects do not change: during one render the
 * identical parts of sibling CronJobs are one object (`compactLike`), so each is checked once.
 * `EVERY_TIME` checks every value every time (the default of the validators).
 */
export class CleanParts {
  private readonly clean = new Map<Rule, WeakSet<object>>();

  private readonly derived = new Map<(value: never) => unknown, WeakMap<object, unknown>>();
  private readonly cleanTexts = new Map<TextRule, Set<string>>();

  /** `rule(text)`, or no problem when `rule` found this text clean before (label keys and values). */
  public text(rule: TextRule, text: string): string | undefined {
    let seen = this.cleanTexts.get(rule);
    if (seen === undefined) this.cleanTexts.set(rule, (seen = new Set()));
    if (seen.has(text)) return undefined;
    const problem = rule(text);
    if (problem === undefined) seen.add(text);
    return problem;
  }

  /** `rule(value)`, or no problems when `rule` found this very object clean before. */
  public check(rule: Rule, value: unknown): Problem[] {
    if (value === null || typeof value !== 'object') return rule(value);
    let seen = this.clean.get(rule);
    if (seen === undefined) this.clean.set(rule, (seen = new WeakSet()));
    if (seen.has(value)) return [];
    const problems = rule(value);
    if (problems.length === 0) seen.add(value);
    return problems;
  }

  /** `derive(value)`, worked out once per object (the result is shared: never change it). */
  public derive<V extends object, T>(derive: (value: V) => T, value: V): T {
    let results = this.derived.get(derive);
    if (results === undefined) this.derived.set(derive, (results = new WeakMap()));
    if (results.has(value)) return results.get(value) as T;
    const result = derive(value);
    results.set(value, result);
    return result;
  }
}

/** A rule of one text: its problem, or undefined. */
export type TextRule = (text: string) => string | undefined;

/** What the validators take: a `CleanParts`, or `EVERY_TIME`. */
export type Checks = Pick<CleanParts, 'check' | 'derive' | 'text'>;

/** Checks every value every time: for values that may change between checks. */
export const EVERY_TIME: Checks = {
  check: (rule, value) => rule(value),
  derive: (derive, value) => derive(value),
  text: (rule, text) => rule(text),
};
