/** One problem in a policy: where, what was received, what is allowed. */
export interface PolicyIssue {
  /** Field path such as `spec.vitess.schedules[0].schedule`. */
  readonly path: string;
  readonly message: string;
}

/** Thrown with every problem found; no manifest is produced. */
export class PolicyError extends Error {
  public readonly issues: readonly PolicyIssue[];
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
  return [head, ...issues.map((i) => `  ${i.path}: ${i.message}`)].join('\n');
}

/** Renders a received value for a message: strings quoted, objects as JSON, long values cut. */
export function show(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** `a.b` + `c` → `a.b.c`; numbers become `[n]`. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/** Collects issues during validation. */
export class IssueList {
  private readonly items: PolicyIssue[] = [];

  add(path: string, message: string): void {
    this.items.push({ path, message });
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
