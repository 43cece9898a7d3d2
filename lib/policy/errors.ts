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

/** An issue at `path` (its text formatted once, here). */
export function issueAt(path: PolicyPath, message: string): PolicyIssue {
  return { path: formatPath(path), segments: path, message };
}

/**
 * The segments of a path as text (the inverse of `formatPath`). Only for a policy path quoted inside a
 * message (`withPropPaths`); a problem's own path is never parsed back: it has `segments`.
 */
export function pathSegments(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const token = /\.?([A-Za-z_][A-Za-z0-9_-]*)|\[([0-9]+)\]|\[("(?:[^"\\]|\\.)*")\]/y;
  for (let pos = 0; pos < path.length; pos = token.lastIndex) {
    token.lastIndex = pos;
    const m = token.exec(path);
    if (!m) break;
    out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3]) as string)));
  }
  return out;
}

/** Collects issues during validation. */
export class IssueList {
  private readonly items: PolicyIssue[] = [];

  add(path: PolicyPath, message: string): void {
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
