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

/** `base` + a map key: `labels` + `a/b` → `labels[a/b]` (field.Path.Key form). */
export function keyPath(base: string, key: string): string {
  return `${base}[${key}]`;
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
