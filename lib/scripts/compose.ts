/** Parsing script modules into functions and top-level code, and keeping only what an entry reaches. */

/** One shell function of a module: its name, its code lines and the words its code uses. */
export interface ShellFunction {
  readonly name: string;
  /** Its lines as written, comment-only and blank lines dropped. */
  readonly lines: readonly string[];
  /** Where it is in the file: its first and last line (0-based, inclusive), comments included. */
  readonly start: number;
  readonly end: number;
  readonly words: ReadonlySet<string>;
}

export interface ScriptModule {
  readonly file: string;
  /** Where it lives, for messages (`lib/scripts/common.sh`). */
  readonly path: string;
  /** The file's text, byte for byte. */
  readonly text: string;
  /** Modules joined whenever this one is (`# needs:`). */
  readonly needs: readonly string[];
  /** Modules joined when their feature is enabled (`# optional:`). */
  readonly optional: readonly string[];
  /** Alternatives of which the features choose one (`# one-of:`), e.g. one per backup destination. */
  readonly oneOf: readonly string[];
  /** Code outside any function (kept whole), comments and blank lines dropped. */
  readonly topLevel: readonly string[];
  readonly functions: readonly ShellFunction[];
  /** Top-level lines and functions in file order. */
  readonly segments: readonly (string | ShellFunction)[];
}

const FUNCTION_START = /^([A-Za-z_][A-Za-z0-9_]*)\(\) \{(.*)$/;
const WORD = /[A-Za-z_][A-Za-z0-9_]*/g;
const COMMENT_OR_BLANK = /^\s*(#.*)?$/;

function words(lines: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const line of lines) for (const w of line.match(WORD) ?? []) out.add(w);
  return out;
}

function headerList(text: string, field: 'needs' | 'optional' | 'one-of'): string[] {
  const header = text.split('\n').filter((l) => l.startsWith('#'));
  const line = header.find((l) => l.startsWith(`# ${field}:`));
  return line
    ? line
        .slice(`# ${field}:`.length)
        .trim()
        .split(/\s+/)
        .filter((w) => w.length > 0)
    : [];
}

/**
 * Splits a module into top-level code and functions. Functions start with
 * `name() {` at column 0 and end with `}` alone at column 0, or are one line
 * (`name() { ...; }`). Heredocs are refused: dropping comment lines could
 * change their content. Lines are kept as written.
 */
export function parseModule(file: string, path: string, text: string): ScriptModule {
  if (/<<-?\s*['"]?[A-Za-z_]/.test(text)) throw new Error(`${path}: heredocs are not supported in embedded scripts`);
  const topLevel: string[] = [];
  const functions: ShellFunction[] = [];
  const segments: (string | ShellFunction)[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const start = FUNCTION_START.exec(line);
    if (!start) {
      if (!COMMENT_OR_BLANK.test(line)) {
        topLevel.push(line);
        segments.push(line);
      }
      continue;
    }
    const begin = i;
    const body = [line];
    if (!/\}\s*$/.test(start[2])) {
      for (i++; i < lines.length && lines[i] !== '}'; i++) if (!COMMENT_OR_BLANK.test(lines[i])) body.push(lines[i]);
      if (i >= lines.length) throw new Error(`${path}: function ${start[1]} has no closing "}" at the start of a line`);
      body.push('}');
    }
    const fn = { name: start[1], lines: body, start: begin, end: i, words: words(body) };
    functions.push(fn);
    segments.push(fn);
  }
  return {
    file,
    path,
    text,
    needs: headerList(text, 'needs'),
    optional: headerList(text, 'optional'),
    oneOf: headerList(text, 'one-of'),
    topLevel,
    functions,
    segments,
  };
}

/** What one module contributes to a composition. */
export interface ComposedPart {
  readonly file: string;
  readonly lines: readonly string[];
}

/**
 * The parts of `modules` (in order) that the composition needs: every module's
 * top-level code, and the functions reachable from it by name (a later
 * definition of a name replaces an earlier one). Names are matched as words,
 * so a function named in a variable (`trap on_exit EXIT`, `${x:-fn}`) counts.
 */
export function reachable(modules: readonly ScriptModule[]): ComposedPart[] {
  const definition = new Map<string, ShellFunction>();
  for (const m of modules) for (const f of m.functions) definition.set(f.name, f);
  const used = new Set<ShellFunction>();
  const pending: Iterable<string>[] = modules.map((m) => words(m.topLevel));
  while (pending.length > 0) {
    for (const w of pending.pop()!) {
      const f = definition.get(w);
      if (f && !used.has(f)) {
        used.add(f);
        pending.push(f.words);
      }
    }
  }
  return modules
    .map((m) => ({
      file: m.file,
      lines: m.segments.flatMap((seg) => (typeof seg === 'string' ? [seg] : used.has(seg) ? seg.lines : [])),
    }))
    .filter((p) => p.lines.length > 0);
}
