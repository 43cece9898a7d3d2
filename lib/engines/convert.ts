/**
 * What an engine's converter (`backup-cronjobs convert`: another operator's objects in, a policy draft
 * out) is to the core, and the helpers every converter reads objects with. Engine-neutral: each engine's
 * converters live in its folder and reach `lib/convert` through the registry.
 */
import { childPath } from '../policy/errors';

/** A YAML comment printed above one field of the converted policy (`path` [] = the document). */
export interface FieldComment {
  readonly path: readonly (string | number)[];
  readonly text: string;
}

/**
 * A policy before its validation: the document, its comments, and where
 * some of its fields came from (policy path → source object and field path),
 * to point a validation problem at the field the user wrote.
 */
export interface Draft {
  readonly source: string;
  readonly document: Record<string, unknown>;
  readonly comments: readonly FieldComment[];
  readonly origins?: Readonly<Record<string, { readonly object: string; readonly path: string }>>;
}

/**
 * A field of a source object without an equivalent (`note`: what the user
 * should do), or a reason why an object cannot be converted (`error`).
 */
export interface Note {
  readonly level: 'error' | 'note';
  /** The source object, e.g. `VitessBackupSchedule example/example-vbsc-daily-1234abcd`. */
  readonly object: string;
  /** Field path in the source object, e.g. `spec.affinity`. */
  readonly path: string;
  readonly message: string;
}

export type Obj = Readonly<Record<string, unknown>>;

export function asObj(value: unknown): Obj | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : undefined;
}

export function asArr(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A non-empty string, or undefined. */
export function asStr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function asInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

export function asBool(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** A map of strings (YAML may have parsed `cpu: 1` as a number: kept as its text). */
export function asStringMap(value: unknown): Record<string, string> | undefined {
  const o = asObj(value);
  if (!o) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o))
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** `Kind namespace/name` (`Kind name` for cluster-scoped objects). */
export function objectName(kind: string, meta: Obj | undefined): string {
  const name = asStr(meta?.name) ?? '(no name)';
  const ns = asStr(meta?.namespace);
  return ns ? `${kind} ${ns}/${name}` : `${kind} ${name}`;
}

/** Collects the notes of one conversion, each once (a template shared by many shards is noted once). */
export class Notes {
  readonly items: Note[] = [];
  private readonly seen = new Set<string>();

  note(object: string, path: string, message: string): void {
    this.add({ level: 'note', object, path, message });
  }

  error(object: string, path: string, message: string): void {
    this.add({ level: 'error', object, path, message });
  }

  private add(note: Note): void {
    const key = JSON.stringify(note);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push(note);
  }

  /** Notes each field of `value` that `known` does not list: convert does not carry it over. */
  unknownFields(object: string, path: string, value: Obj | undefined, known: readonly string[], source: string): void {
    for (const key of Object.keys(value ?? {}).filter((k) => !known.includes(k))) {
      this.note(object, at(path, key), `not a field of ${source} that convert knows: not carried over`);
    }
  }

  get errorCount(): number {
    return this.items.filter((n) => n.level === 'error').length;
  }
}

/** `a.b` + `c` → `a.b.c`, `[n]` for numbers (the policy's own path syntax). */
export function at(path: string, ...keys: (string | number)[]): string {
  return keys.reduce<string>((p, k) => childPath(p, k), path);
}

/** A `CRON_TZ=`/`TZ=` prefix (robfig/cron accepts it; the CronJob API wants `timeZone`) taken out of a schedule. */
export function splitCronTimeZone(schedule: string): { schedule: string; timeZone?: string } {
  const m = /^(?:CRON_TZ|TZ)=(\S+)\s+(.+)$/.exec(schedule.trim());
  return m ? { schedule: m[2], timeZone: m[1] } : { schedule };
}

/** The apiVersion and kind of an object a converter reads. */
export interface SourceKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/**
 * An engine's converter: the kinds of another operator's objects it reads, and how they become drafts
 * of this engine's policies (each is validated by `convert` afterwards).
 */
export interface EngineConverter {
  /** The kinds it reads, in the order `convert` names them (a kind read only alongside another, too). */
  readonly kinds: readonly SourceKind[];
  /** Its drafts from the input's objects of its kinds (`of(kind)`: those of one kind, in input order). */
  convert(of: (kind: string) => readonly Obj[], notes: Notes): readonly (Draft | undefined)[];
}
