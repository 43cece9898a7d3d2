/**
 * What the oracle's rules found clean during one render, so that the identical parts of sibling
 * CronJobs (one object in memory: `compactLike`) are checked once.
 */
import type { Problem } from '../../../lib/kubernetes/validation/problems';

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
