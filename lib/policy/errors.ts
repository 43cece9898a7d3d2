export { closest, show } from '../messages';

/**
 * A field's path as its keys and indexes, `['spec', 'vitess', 'schedules', 0, 'schedule']`: how validation
 * builds paths (`[...path, key]`), formatted once, by `formatPath`, where an issue is made.
 */
export type PolicyPath = readonly (string | number)[];

/** One problem in a policy: where, what was received, what is allowed. */
export interface PolicyIssue {
  /** Field path such as `spec.vitess.schedules[0].schedule`. */
  readonly path: string;
  /** The same path as its keys and indexes (`['spec', 'vitess', 'schedules', 0, 'schedule']`); `[]` for the whole input. */
  readonly segments: readonly (string | number)[];
  /** What was received and what is allowed. */
  readonly message: string;
  /**
   * The message as its text and the paths of the other fields it names, in order:
   * `['set ', ['spec', 'metrics', 'pushgatewayUrl'], ' too']`. A front end names those fields as its users
   * wrote them.
   * @default - the message names no other field
   */
  readonly parts?: MessageParts;
  /** Where in the source file (1-based), when the policy came from one. */
  readonly line?: number;
  /** The column of `line` (1-based). */
  readonly column?: number;
}

/** Thrown with every problem found; no manifest is produced. */
export class PolicyError extends Error {
  /** Every problem, in the order found. */
  public readonly issues: readonly PolicyIssue[];
  /** The file or construct the policy came from. @default - not known */
  public readonly source?: string;

  constructor(issues: readonly PolicyIssue[], source?: string) {
    super(formatIssues(issues, source));
    this.name = 'PolicyError';
    this.issues = issues;
    this.source = source;
  }
}

export function formatIssues(issues: readonly PolicyIssue[], source?: string): string {
  const where = source ? `${source}: ` : '';
  const head = `${where}invalid BackupPolicy (${issues.length} problem${issues.length === 1 ? '' : 's'})`;
  const at = (i: PolicyIssue) => (source && i.line !== undefined ? `${source}:${i.line}:${i.column ?? 1}: ` : '');
  return [head, ...issues.map((i) => `  ${at(i)}${i.path}: ${i.message}`)].join('\n');
}

/**
 * One key appended to a formatted path (what `formatPath` is made of): `a.b` + `c` → `a.b.c`; numbers become
 * `[n]`; keys that are not plain words are quoted: `labels["app.kubernetes.io/name"]`.
 */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path ? `${path}.${key}` : key;
}

/** A path as users read it: `['spec', 'redis', 'shards', 0, 'name']` → `spec.redis.shards[0].name` (`''` for `[]`). */
export function formatPath(path: PolicyPath): string {
  let out = '';
  for (const key of path) out = childPath(out, key);
  return out;
}

/**
 * A message's text and, where it names another field, that field's path: `['required with ', ['spec', 'drill']]`.
 * Joined, each path formatted by `formatPath`, they are the message.
 */
export type MessageParts = readonly (string | PolicyPath)[];

/**
 * A message that names other fields, each interpolated path a reference to one:
 * ``fieldText`set ${[...metrics, 'pushgatewayUrl']} too` `` (strings and numbers are text). A message never
 * writes another field's path as text: a front end could not find it to name it as its users wrote it.
 */
export function fieldText(
  strings: TemplateStringsArray,
  ...values: readonly (string | number | PolicyPath)[]
): MessageParts {
  const parts: (string | PolicyPath)[] = [];
  let text = strings[0];
  values.forEach((value, i) => {
    if (Array.isArray(value)) {
      if (text) parts.push(text);
      parts.push(value);
      text = '';
    } else text += String(value);
    text += strings[i + 1];
  });
  if (text) parts.push(text);
  return parts;
}

/** The text of a message's parts, each named field's path formatted by `format` (`formatPath`). */
export function formatParts(parts: MessageParts, format: (path: PolicyPath) => string = formatPath): string {
  return parts.map((part) => (typeof part === 'string' ? part : format(part))).join('');
}

/** An issue at `path` (its text formatted once, here). */
export function issueAt(path: PolicyPath, message: string | MessageParts): PolicyIssue {
  if (typeof message === 'string') return { path: formatPath(path), segments: path, message };
  return { path: formatPath(path), segments: path, message: formatParts(message), parts: message };
}

/** Collects issues during validation. */
export class IssueList {
  private readonly items: PolicyIssue[] = [];

  add(path: PolicyPath, message: string | MessageParts): void {
    this.items.push(issueAt(path, message));
  }

  /** Adds `problem` at `path` when there is one (the `...Problem` rules return undefined for a valid value). */
  addProblem(path: PolicyPath, problem: string | undefined): void {
    if (problem !== undefined) this.add(path, problem);
  }

  get issues(): readonly PolicyIssue[] {
    return this.items;
  }

  get empty(): boolean {
    return this.items.length === 0;
  }

  throwIfAny(source?: string): void {
    if (this.items.length > 0) throw new PolicyError(this.items, source);
  }
}
