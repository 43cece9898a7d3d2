/**
 * Shell functions of the script files, packed onto fewer lines for the
 * manifests (the .sh files keep one command per line). Packing only removes
 * line breaks between commands: a break that ends a command becomes `; `, a
 * break where the shell expects more (after `then`, `do`, `else`, `{`, `|`,
 * `&&`, `||`, `;;`, `in`, a case pattern, a `\` continuation) becomes a space.
 * Breaks inside quotes and command substitutions stay. Lines are joined
 * while they fit in `width`.
 */

/** Reserved words after which a line break is only white space. */
const CONTINUING_WORDS = new Set(['then', 'do', 'else', 'elif', 'if', 'while', 'until', '{', '!', 'in']);
/** The reserved words the packer needs to recognise (at the start of a command only). */
const RESERVED = new Set([...CONTINUING_WORDS, 'for', 'fi', 'done', 'esac', '}']);
const OPENING = new Set(['if', 'for', 'while', 'until', '{']);
const CLOSING = new Set(['fi', 'done', '}']);

/** The end of one line as the packer sees it. */
interface LineEnd {
  /** The line without a trailing comment. */
  readonly code: string;
  /** The break after this line is inside a quoted string: it stays. */
  readonly quoted: boolean;
  /** How the next line may be joined to this one. */
  readonly join: '; ' | ' ';
  /** The line starts a case item (`pattern)`), `else` or `elif`: it begins its own line in a layout. */
  readonly startsItem: boolean;
  /** The line ends a case item (`;;`) or opens a body (`then`, `do`, `else`, `{`, `in`): what follows begins its own line. */
  readonly opensItem: boolean;
  /** Compound commands open before and after the line (if, case, loops, groups, subshells). */
  readonly depthBefore: number;
  readonly depthAfter: number;
  /** The line ends with a `\` continuation (dropped when joined). */
  readonly continued: boolean;
}

type Context = 'command' | 'subshell' | '$(' | 'case-word' | 'case-pattern' | 'case-body' | '"' | "'" | '${';

/** Scans shell lines, keeping the quoting and case state across them. */
class ShellScanner {
  private readonly stack: Context[] = ['command'];
  /** The last token of the current command context, and whether a reserved word may come next. */
  private last = '';
  private commandStart = true;
  private comment: number | undefined;
  private depth = 0;
  private first: string | undefined;

  private get top(): Context {
    return this.stack[this.stack.length - 1];
  }

  /** Scans one line and says how its end may be joined to the next line. */
  line(text: string): LineEnd {
    this.comment = undefined;
    const depthBefore = this.depth;
    const inPattern = this.top === 'case-pattern';
    this.first = undefined;
    for (let i = 0; i < text.length; ) i = this.step(text, i);
    const inString = this.top === '"' || this.top === "'" || this.top === '${';
    const code = inString || this.comment === undefined ? text : text.slice(0, this.comment).trimEnd();
    const continued = !inString && /(^|[^\\])\\$/.test(code);
    const join = continued || this.top === 'case-pattern' || this.top === 'case-word' || this.continuing() ? ' ' : '; ';
    const startsItem = inPattern || ['else', 'elif'].includes(this.first ?? '');
    const opensItem = ['then', 'do', 'else', '{', 'in', ';;'].includes(this.last);
    if (!inString) {
      this.commandStart = true;
      if (!continued) this.last = '\n';
    }
    // A break inside a command substitution stays too: its text is kept as written (`declare -f` shows it so).
    const quoted = inString || this.stack.includes('$(');
    return { code, quoted, join, continued, startsItem, opensItem, depthBefore, depthAfter: this.depth };
  }

  private continuing(): boolean {
    return ['|', '&&', '||', '&', '(', '$(', ';;', ';', ')pattern'].includes(this.last) || CONTINUING_WORDS.has(this.last);
  }

  private push(context: Context): void {
    this.stack.push(context);
  }

  private pop(): void {
    if (this.stack.length > 1) this.stack.pop();
  }

  private step(text: string, i: number): number {
    const c = text[i];
    const top = this.top;
    if (top === "'") {
      if (c === "'") this.pop();
      return i + 1;
    }
    if (top === '"' || top === '${') {
      if (c === '\\') return i + 2;
      if (top === '"' && c === '"') {
        this.pop();
        return i + 1;
      }
      if (top === '${' && c === '}') {
        this.pop();
        return i + 1;
      }
      if (top === '${' && (c === '"' || c === "'")) {
        this.push(c);
        return i + 1;
      }
      return this.dollar(text, i) ?? i + 1;
    }
    if (c === ' ' || c === '\t') return i + 1;
    if (c === '#' && (i === 0 || /[\s;&|()]/.test(text[i - 1]))) {
      this.comment = i;
      return text.length;
    }
    if (c === '\\') return this.word(i + 2, text.slice(i, i + 2));
    if (c === "'" || c === '"') {
      this.push(c);
      return this.word(i + 1, c);
    }
    if (c === '$') return this.dollar(text, i) ?? this.word(i + 1, '$');
    if (top === 'case-pattern' && c === ')') {
      this.stack[this.stack.length - 1] = 'case-body';
      this.token(')pattern', true);
      return i + 1;
    }
    if (text.startsWith(';;', i)) {
      if (top === 'case-body') this.stack[this.stack.length - 1] = 'case-pattern';
      this.token(';;', true);
      return i + 2;
    }
    const op = /^(&&|\|\||[;&|()<>])/.exec(text.slice(i));
    if (op) {
      if (op[0] === '(') {
        this.push('subshell');
        this.depth++;
      }
      if (op[0] === ')' && top === 'subshell') this.depth--;
      if (op[0] === ')' && (top === 'subshell' || top === '$(')) this.pop();
      // After `)` a `{` is reserved too: `name() {`.
      this.token(op[0], op[0] !== '<' && op[0] !== '>');
      return i + op[0].length;
    }
    const word = /^[^\s;&|()<>'"\\$]+/.exec(text.slice(i))![0];
    return this.word(i + word.length, word);
  }

  /** `$(`, `$((` and `${` open a context; returns the next index, or undefined for a plain `$`. */
  private dollar(text: string, i: number): number | undefined {
    if (text.startsWith('$(', i)) {
      this.push('$(');
      this.token('$(', true);
      return i + 2;
    }
    if (text.startsWith('${', i)) {
      this.push('${');
      return i + 2;
    }
    return undefined;
  }

  /** A word (or the start of one); reserved words count only at the start of a command. */
  private word(next: number, word: string): number {
    const top = this.top;
    if (top === 'case-word') {
      if (word === 'in') {
        this.stack[this.stack.length - 1] = 'case-pattern';
        this.token('in', true);
      } else this.token(word, false);
      return next;
    }
    if (top === 'case-pattern') {
      if (word === 'esac') {
        this.pop();
        this.depth--;
        this.token('esac', false);
      } else this.token(word, false);
      return next;
    }
    const reserved = this.commandStart && RESERVED.has(word);
    if (reserved && word === 'esac' && top === 'case-body') {
      this.pop();
      this.depth--;
    }
    if (reserved && OPENING.has(word)) this.depth++;
    if (reserved && CLOSING.has(word)) this.depth--;
    if (this.commandStart && word === 'case') {
      this.depth++;
      this.push('case-word');
      this.token('case', false);
      return next;
    }
    this.token(reserved ? word : `word:${word}`, reserved && CONTINUING_WORDS.has(word));
    return next;
  }

  private token(token: string, commandStart: boolean): void {
    this.first ??= token;
    this.last = token;
    this.commandStart = commandStart;
  }
}

/** A line as scanned, or a compound command spanning lines (its first line, the lines inside, its last line). */
type Node = { readonly line: string; readonly end: LineEnd } | { readonly open: Node; readonly body: Node[]; readonly close: Node };

const firstEnd = (n: Node): LineEnd => ('line' in n ? n.end : firstEnd(n.open));

const isLine = (n: Node): n is { readonly line: string; readonly end: LineEnd } => 'line' in n;

/** The lines (from `i`) up to the end of the compound open before them, as nodes. */
function tree(lines: readonly { line: string; end: LineEnd }[], i: number, until: number): { nodes: Node[]; next: number } {
  const nodes: Node[] = [];
  while (i < lines.length && lines[i].end.depthAfter >= until) {
    const l = lines[i];
    if (l.end.depthAfter > l.end.depthBefore && i + 1 < lines.length) {
      const inner = tree(lines, i + 1, l.end.depthAfter);
      const close = lines[inner.next] ?? lines[lines.length - 1];
      nodes.push({ open: l, body: inner.nodes, close });
      i = Math.min(inner.next, lines.length - 1) + 1;
    } else {
      nodes.push(l);
      i++;
    }
  }
  return { nodes, next: i };
}

/** `next` appended to `text` (which ends as `end` says), or undefined when a line break must stay. */
function joinTo(text: string, end: LineEnd, next: string): string | undefined {
  if (end.quoted) return undefined;
  const base = end.continued ? text.replace(/\s*\\$/, '') : text;
  const sep = end.join === '; ' && next.trim().startsWith(';;') ? ' ' : end.join;
  return `${base}${sep}${next.trim()}`;
}

const lastEnd = (n: Node): LineEnd => (isLine(n) ? n.end : lastEnd(n.close));

/** A node on one line, or undefined when it has a break that must stay. */
function flat(n: Node): string | undefined {
  if (isLine(n)) return n.line;
  let text = flat(n.open);
  let end = lastEnd(n.open);
  for (const part of [...n.body, n.close]) {
    const piece = flat(part);
    if (text === undefined || piece === undefined) return undefined;
    text = joinTo(text, end, piece);
    end = lastEnd(part);
  }
  return text;
}

/**
 * Lays out nodes: a compound on one line when it fits in `width`, else its
 * first line, its body laid out the same way, its last line; consecutive
 * commands that fit share a line.
 */
function layout(nodes: readonly Node[], width: number, out: string[]): void {
  let current: { text: string; end: LineEnd } | undefined;
  const flush = () => {
    if (current) out.push(current.text);
    current = undefined;
  };
  for (const n of nodes) {
    const one = flat(n);
    if (one === undefined || one.trim().length + (one.length - one.trimStart().length) > width) {
      flush();
      if (isLine(n)) out.push(n.line);
      else {
        layout([n.open], width, out);
        layout(n.body, width, out);
        layout([n.close], width, out);
      }
      continue;
    }
    const separate = !current || current.end.opensItem || firstEnd(n).startsItem;
    const joined = separate ? undefined : joinTo(current!.text, current!.end, one);
    if (joined !== undefined && joined.length <= width) current = { text: joined, end: lastEnd(n) };
    else {
      flush();
      current = { text: one, end: lastEnd(n) };
    }
  }
  flush();
}

/**
 * The lines of one shell function, packed: a compound command (the function
 * itself included) on one line when it fits in `width` characters, and
 * consecutive commands sharing lines while they fit. Breaks inside quotes and
 * command substitutions stay.
 */
export function packShellLines(lines: readonly string[], width: number): string[] {
  const scanner = new ShellScanner();
  const scanned = lines.map((raw) => {
    const end = scanner.line(raw);
    return { line: end.quoted || end.code === raw ? raw : end.code, end };
  });
  const out: string[] = [];
  layout(tree(scanned, 0, 0).nodes, width, out);
  return out;
}
