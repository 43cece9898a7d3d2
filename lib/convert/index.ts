/**
 * `convert`: the operators' own objects in, equivalent BackupPolicies out.
 * Engine-aware like the model (it reads engine types and the registry); the
 * core below never imports it. Every converted policy is validated; a policy
 * that does not validate is not returned, and its problems become errors.
 */
import { validatePolicy } from '../model/validate';
import { PolicyError } from '../policy/errors';
import { CONVERTERS } from '../registry';
import type { EngineConverter, SourceKind } from '../engines/convert';
import { ConvertedPolicy, Draft, Note, Notes, Obj, asObj, asStr, objectName } from './types';

export type { ConvertedPolicy, FieldComment, Note } from './types';

/** The kinds `convert` reads: every engine's converters' (through the registry). */
const SOURCE_KINDS: readonly SourceKind[] = CONVERTERS.flatMap((c) => c.kinds);

const KNOWN = SOURCE_KINDS.map((k) => `${k.kind} (${k.apiVersion})`).join(', ');

function sourceKind(doc: Obj): SourceKind | undefined {
  return SOURCE_KINDS.find((k) => k.apiVersion === doc.apiVersion && k.kind === doc.kind);
}

/**
 * For `validate`: when a document is one of the kinds `convert` reads, the
 * sentence telling the user so; otherwise undefined.
 */
export function convertHint(doc: unknown): string | undefined {
  const o = asObj(doc);
  const kind = o && sourceKind(o)?.kind;
  return kind
    ? `this is a ${kind} (${String(o.apiVersion)}), not a BackupPolicy: \`backup-cronjobs convert FILE...\` writes the equivalent BackupPolicy`
    : undefined;
}

/** `kind: List` (kubectl get -o yaml) and `<Kind>List` documents stand for their items. */
function flatten(docs: readonly unknown[]): unknown[] {
  return docs.flatMap((d) => {
    const o = asObj(d);
    return o && typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items)
      ? flatten(o.items)
      : [d];
  });
}

/** Converts parsed documents (`source` names them in messages: a file, or several). */
export function convertDocuments(
  docs: readonly unknown[],
  source: string,
): { policies: ConvertedPolicy[]; notes: Note[] } {
  const notes = new Notes();
  const byKind = new Map<SourceKind, Obj[]>();
  flatten(docs).forEach((doc, i) => {
    if (doc === null || doc === undefined) return;
    const o = asObj(doc);
    const kind = o && sourceKind(o);
    if (!o || !kind) {
      const what = o
        ? `apiVersion ${JSON.stringify(o.apiVersion ?? null)}, kind ${JSON.stringify(o.kind ?? null)}`
        : `a ${Array.isArray(doc) ? 'list' : typeof doc}`;
      const name = o && asStr(o.kind) ? objectName(String(o.kind), asObj(o.metadata)) : `${source}: document ${i + 1}`;
      notes.error(name, o ? 'kind' : '(document)', `received ${what}; convert reads ${KNOWN}`);
      return;
    }
    byKind.set(kind, [...(byKind.get(kind) ?? []), o]);
  });
  if (byKind.size === 0 && notes.items.length === 0)
    notes.error(source, '(document)', `no document; convert reads ${KNOWN}`);
  const ofConverter = (converter: EngineConverter) => (kind: string) =>
    converter.kinds.filter((k) => k.kind === kind).flatMap((k) => byKind.get(k) ?? []);
  const drafts: Draft[] = CONVERTERS.flatMap((converter) => converter.convert(ofConverter(converter), notes)).filter(
    (d): d is Draft => d !== undefined,
  );
  const policies = drafts.flatMap((draft) => validated(draft, notes));
  return { policies, notes: notes.items };
}

/** The draft as a validated policy, or nothing with its problems as errors (at the source field when known). */
function validated(draft: Draft, notes: Notes): ConvertedPolicy[] {
  try {
    return [{ source: draft.source, document: validatePolicy(draft.document), comments: draft.comments }];
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
    for (const issue of e.issues) {
      const origin = draft.origins?.[issue.path];
      if (origin)
        notes.error(origin.object, origin.path, `${issue.message} (as ${issue.path} of the converted policy)`);
      else notes.error(draft.source, `converted policy ${issue.path}`, issue.message);
    }
    return [];
  }
}
