/**
 * The kubelet expands `$(NAME)` in a container's `command`, `args` and
 * `env[].value` (with the container's env) and turns `$$` into `$`. A value the
 * user wrote must reach the container exactly as written, so the workload
 * builder escapes every `$` of every env value and arg as `$$` — except the
 * values an engine marks with `expand()` because it means the kubelet to
 * expand them (its own `$(VAR)` references; user text inside them escaped with
 * `literal()`).
 */

/** A value the kubelet expands on purpose. */
export interface Expansion {
  readonly expand: string;
}

/** Marks `text` for kubelet expansion; user text inside it must go through `literal()`. */
export function expand(text: string): Expansion {
  return { expand: text };
}

/** `text` as the kubelet will pass it on unchanged (every `$` doubled). */
export function literal(text: string): string {
  return text.includes('$') ? text.replace(/\$/g, '$$$$') : text;
}

/** A value as written into the manifest: plain text escaped, expansions as they are. */
export function kubeletText(value: string | Expansion): string {
  return typeof value === 'string' ? literal(value) : value.expand;
}

/** `text` for the kubelet with only its `$(NAME)` references to `names` expanded: every other `$` reaches the container as written. */
export function expandOnly(text: string, names: readonly string[]): Expansion {
  return expand(names.reduce((t, name) => t.split(`$$(${name})`).join(`$(${name})`), literal(text)));
}
