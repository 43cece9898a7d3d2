/** Policy files: YAML or JSON text (one or more documents) → validated policies, every problem with its file position. */
import { Document, LineCounter, Node, Pair, YAMLMap, isMap, isPair, isScalar, isSeq, parseAllDocuments } from 'yaml';
import { PolicyError, PolicyIssue, PolicyPath, formatPath } from '../policy/errors';
import type { BackupPolicy } from '../registry';
import { validateParsedDocument } from './validate';
import { duplicateKeys, inputSizeProblem } from './yaml-input';

/** At most this many alias expansions per document: more is a "billion laughs" document, not a policy. */
const MAX_ALIAS_COUNT = 100;

/**
 * Parses and validates every document of `text`; throws PolicyError listing every problem of every
 * document, in file order. A text over MAX_INPUT_BYTES is refused before it is parsed.
 */
export function loadPolicies(text: string, source?: string): BackupPolicy[] {
  const read = readPolicies(text, source);
  if (read.error) throw read.error;
  return read.policies;
}

/** What `readPolicies` found: the policies, or the problems; and what each document holds. */
export interface ReadPolicies {
  readonly policies: BackupPolicy[];
  /** Every problem of every document, as `loadPolicies` throws it. */
  readonly error?: PolicyError;
  /**
   * Each document's value, in file order (undefined for one that could not be read: a syntax error, a
   * repeated key, too many aliases); none for a text over MAX_INPUT_BYTES. The CLI tells from them what a
   * file that is no policy is (`convert`'s hints) without parsing it again.
   */
  readonly documents: readonly unknown[];
}

/**
 * `loadPolicies` without the throw: the text is parsed once, and every problem's position is looked up
 * in that parse (`offsetOf`, each map indexed once), whatever the document's size and wherever the
 * problem is.
 */
export function readPolicies(text: string, source?: string): ReadPolicies {
  const sizeProblem = inputSizeProblem(text);
  if (sizeProblem !== undefined)
    return {
      policies: [],
      error: new PolicyError([{ path: '(file)', segments: [], message: sizeProblem }], source),
      documents: [],
    };
  const lineCounter = new LineCounter();
  // Duplicate keys are found by duplicateKeys (linear); the parser's own check is quadratic.
  const docs = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: false, lineCounter });
  const list = Array.isArray(docs) ? docs : [docs];
  const policies: BackupPolicy[] = [];
  const issues: PolicyIssue[] = [];
  const documents: unknown[] = list.map(() => undefined);
  const position = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  list.forEach((doc, i) => {
    const where = list.length > 1 ? `document ${i + 1}` : '(document)';
    const prefix = (path: string) => (list.length > 1 ? `${where}: ${path}` : path);
    if (doc.errors.length > 0) {
      for (const e of doc.errors)
        issues.push({
          path: where,
          segments: [],
          message: `YAML syntax: ${e.message.split('\n')[0]}`,
          ...position(e.pos[0]),
        });
      return;
    }
    const duplicates = duplicateKeys(doc);
    if (duplicates.length > 0) {
      for (const d of duplicates) {
        issues.push({
          path: prefix(formatPath(d.path) || '(document)'),
          segments: d.path,
          message: `duplicate key ${JSON.stringify(d.key)} (first at line ${position(d.first).line}); a key appears once per map`,
          ...position(d.offset),
        });
      }
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      const start = doc.contents?.range?.[0] ?? 0;
      issues.push({
        path: where,
        segments: [],
        message: `cannot read the document: ${(e as Error).message} (aliases expand to more than ${MAX_ALIAS_COUNT} nodes)`,
        ...position(start),
      });
      return;
    }
    documents[i] = value;
    if (value === null || value === undefined) return;
    let problems: readonly PolicyIssue[];
    try {
      policies.push(validateParsedDocument(value)); // validated once: its PolicyError holds the problems
      return;
    } catch (e) {
      if (!(e instanceof PolicyError)) throw e;
      problems = e.issues;
    }
    const placed = problems.map((p) => ({ ...p, path: prefix(p.path), ...position(offsetOf(doc, p.segments)) }));
    issues.push(...placed.sort((a, b) => a.line - b.line || a.column - b.column));
  });
  if (issues.length > 0) return { policies: [], error: new PolicyError(issues, source), documents };
  if (policies.length === 0) {
    const error = new PolicyError(
      [{ path: '(document)', segments: [], message: 'no BackupPolicy document found' }],
      source,
    );
    return { policies: [], error, documents };
  }
  return { policies, documents };
}

/** The pairs of each map by key, made once per map looked into (many problems in one large map stay linear). */
const pairsByKey = new WeakMap<object, Map<string, Pair>>();

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  let pairs = pairsByKey.get(map);
  if (pairs === undefined) {
    pairs = new Map();
    for (const p of map.items)
      if (isPair(p) && isScalar(p.key) && !pairs.has(String(p.key.value))) pairs.set(String(p.key.value), p);
    pairsByKey.set(map, pairs);
  }
  return pairs.get(key);
}

/** The offset of the deepest node on `path` (the key of the last field found, or the item). */
function offsetOf(doc: Document, path: PolicyPath): number {
  let node: unknown = doc.contents;
  let offset = (node as Node | null)?.range?.[0] ?? 0;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = pairOf(node, String(segment));
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
