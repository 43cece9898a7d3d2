/** Policy files: YAML or JSON text (one or more documents) → validated policies, every problem with its file position. */
import { Document, LineCounter, Node, isMap, isPair, isScalar, isSeq, parseAllDocuments } from 'yaml';
import { PolicyError, PolicyIssue, pathSegments } from '../policy/errors';
import type { BackupPolicy } from '../registry';
import { policyIssues, validatePolicy } from './validate';

/** At most this many alias expansions per document: more is a "billion laughs" document, not a policy. */
const MAX_ALIAS_COUNT = 100;

/** Parses and validates every document of `text`; throws PolicyError listing every problem of every document. */
export function loadPolicies(text: string, source?: string): BackupPolicy[] {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true, lineCounter });
  const list = Array.isArray(docs) ? docs : [docs];
  const policies: BackupPolicy[] = [];
  const issues: PolicyIssue[] = [];
  const position = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  list.forEach((doc, i) => {
    const where = list.length > 1 ? `document ${i + 1}` : '(document)';
    const prefix = (path: string) => (list.length > 1 ? `${where}: ${path}` : path);
    if (doc.errors.length > 0) {
      for (const e of doc.errors) issues.push({ path: where, message: `YAML syntax: ${e.message.split('\n')[0]}`, ...position(e.pos[0]) });
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      const start = doc.contents?.range?.[0] ?? 0;
      issues.push({ path: where, message: `cannot read the document: ${(e as Error).message} (aliases expand to more than ${MAX_ALIAS_COUNT} nodes)`, ...position(start) });
      return;
    }
    if (value === null || value === undefined) return;
    const problems = policyIssues(value);
    if (problems.length === 0) {
      policies.push(validatePolicy(value));
      return;
    }
    for (const p of problems) issues.push({ ...p, path: prefix(p.path), ...position(offsetOf(doc, p.path)) });
  });
  if (issues.length > 0) throw new PolicyError(issues, source);
  if (policies.length === 0) throw new PolicyError([{ path: '(document)', message: 'no BackupPolicy document found' }], source);
  return policies;
}

/** The offset of the deepest node on `path` (the key of the last field found, or the item). */
function offsetOf(doc: Document, path: string): number {
  let node: unknown = doc.contents;
  let offset = (node as Node | null)?.range?.[0] ?? 0;
  for (const segment of pathSegments(path)) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) break;
      offset = (pair.key as Node).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number' && segment < node.items.length) {
      node = node.items[segment];
      offset = (node as Node).range?.[0] ?? offset;
    } else {
      break;
    }
  }
  return offset;
}
