/**
 * `backup-cronjobs convert FILE...` as a pure function: file texts in, the
 * converted policies (YAML with comments, one document each) and the notes
 * out. All or nothing: with any error, no policy is printed.
 */
import { Document, LineCounter, isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import { duplicateKeys, inputSizeProblem } from '../model/yaml-input';
import { formatPath } from '../policy/errors';
import type { Node } from 'yaml';
import { convertDocuments } from './index';
import type { ConvertedPolicy, Note } from './types';

/** At most this many alias expansions per document (as policy files). */
const MAX_ALIAS_COUNT = 100;
/** Comment lines are wrapped at this width. */
const COMMENT_WIDTH = 100;

export const CONVERT_USAGE =
  'backup-cronjobs convert <files...>   VitessCluster/VitessBackupSchedule, OpenShift Backup or ShardedRedisBackup objects → BackupPolicy YAML (notes on stderr)';

export interface ConvertResult {
  readonly stdout: string;
  readonly stderr: string;
  /** 0 converted; 1 an input that is not a known kind or cannot be converted (nothing printed); 2 usage. */
  readonly code: 0 | 1 | 2;
}

export function runConvert(files: readonly { readonly name: string; readonly text: string }[]): ConvertResult {
  if (files.length === 0) return { stdout: '', stderr: `no files given\nUsage: ${CONVERT_USAGE}\n`, code: 2 };
  const docs: unknown[] = [];
  const syntax: string[] = [];
  for (const file of files) {
    const sizeProblem = inputSizeProblem(file.text);
    if (sizeProblem !== undefined) {
      syntax.push(`error: ${file.name}: ${sizeProblem}`);
      continue;
    }
    const lineCounter = new LineCounter();
    const parsed = parseAllDocuments(file.text, { prettyErrors: true, uniqueKeys: false, lineCounter });
    (Array.isArray(parsed) ? parsed : [parsed]).forEach((doc, i) => {
      if (doc.errors.length > 0) {
        syntax.push(`error: ${file.name}: document ${i + 1}: YAML syntax: ${doc.errors[0].message.split('\n')[0]}`);
        return;
      }
      const duplicates = duplicateKeys(doc);
      for (const d of duplicates) {
        syntax.push(
          `error: ${file.name}:${lineCounter.linePos(d.offset).line}: document ${i + 1}: ${formatPath(d.path) || '(document)'}: duplicate key ${JSON.stringify(d.key)} (first at line ${lineCounter.linePos(d.first).line})`,
        );
      }
      if (duplicates.length > 0) return;
      try {
        docs.push(doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }));
      } catch (e) {
        syntax.push(`error: ${file.name}: document ${i + 1}: cannot read the document: ${(e as Error).message}`);
      }
    });
  }
  const { policies, notes } = convertDocuments(docs, files.map((f) => f.name).join(', '));
  const lines = [...syntax, ...notes.map(formatNote)];
  const failed = syntax.length > 0 || notes.some((n) => n.level === 'error');
  const summary = failed
    ? `convert: nothing written: ${lines.filter((l) => l.startsWith('error')).length} error(s)`
    : `convert: ${policies.length} BackupPolic${policies.length === 1 ? 'y' : 'ies'}${notes.length > 0 ? `, ${notes.length} note(s) above: fields without an equivalent` : ''}`;
  return {
    stdout: failed ? '' : policies.map(convertedYaml).join('---\n'),
    stderr: `${[...lines, summary].join('\n')}\n`,
    code: failed ? 1 : 0,
  };
}

function formatNote(note: Note): string {
  return `${note.level}: ${note.object}: ${note.path}: ${note.message}`;
}

/** The policy as YAML, each comment above the field it explains. */
export function convertedYaml(policy: ConvertedPolicy): string {
  const doc = new Document(policy.document);
  for (const { path, text } of policy.comments) {
    const comment = wrap(text);
    if (path.length === 0) {
      doc.commentBefore = doc.commentBefore ? `${doc.commentBefore}\n${comment}` : comment;
      continue;
    }
    const node = commentTarget(doc, path);
    if (!node)
      throw new Error(`internal: no field ${path.join('.')} to comment on in policy ${policy.document.metadata.name}`);
    node.commentBefore = node.commentBefore ? `${node.commentBefore}\n${comment}` : comment;
  }
  return doc.toString({ lineWidth: 0 });
}

/** The node a comment goes above: a map key, or a sequence item. */
function commentTarget(doc: Document, path: readonly (string | number)[]): Node | undefined {
  let node: unknown = doc.contents;
  let target: Node | undefined;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === segment);
      if (!pair) return undefined;
      target = pair.key as Node;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      target = node as Node | undefined;
    } else {
      return undefined;
    }
  }
  return target;
}

/** ` `-prefixed comment lines of at most COMMENT_WIDTH characters (explicit line breaks kept). */
function wrap(text: string): string {
  return text
    .split('\n')
    .flatMap((paragraph) => {
      const indent = /^\s*/.exec(paragraph)![0];
      const lines: string[] = [];
      let line = '';
      for (const word of paragraph.trim().split(/\s+/)) {
        if (line && indent.length + line.length + 1 + word.length > COMMENT_WIDTH) {
          lines.push(line);
          line = word;
        } else {
          line = line ? `${line} ${word}` : word;
        }
      }
      return [...lines, line].map((l) => ` ${indent}${l}`);
    })
    .join('\n');
}
