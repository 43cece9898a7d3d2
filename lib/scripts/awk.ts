/**
 * Multi-line awk programs of the script files, packed onto lines of up to a
 * width for the manifests (the .sh files keep them as written). Packing only
 * joins the source's lines: with a space where awk treats a newline as white
 * space (after `{`, `,`, `&&`, `||`, `;`, `do`, `else`, an `if`/`for`/`while`
 * condition, a `}` inside an action), with `; ` where it ends a statement or
 * an item. Comments are dropped; strings and regular expressions are copied as
 * they are.
 */

const OPTIONAL_NEWLINE_AFTER = new Set(['{', ',', ';', '&&', '||', 'do', 'else']);
const CONTROL = new Set(['if', 'for', 'while']);
/** A token after which `/` is a division, not the start of a regular expression. */
const OPERAND_END = /[A-Za-z0-9_$)\]]$/;

/** A source line of an awk program, compacted, and what joins it to the line before. */
interface AwkLine {
  readonly text: string;
  readonly joiner: ' ' | '; ';
  /** It starts a pattern-action item or a function (packed lines break there). */
  readonly item: boolean;
}

/**
 * One awk program (the text between the quotes) on one line: the source
 * text with each line break (and the indentation and comments around it)
 * replaced by a space or `; `, everything else kept as written.
 */
export function packAwk(program: string): string {
  return awkLines(program).map((l, i) => (i === 0 ? l.text : l.joiner + l.text)).join('');
}

/**
 * One awk program on lines of at most `width` characters (a longer source
 * line stays whole): each item (pattern-action or function) starts a line,
 * and its source lines are joined as packAwk joins them while they fit (a
 * closing brace alone always joins). `first` is the length of the text
 * before the program on its first line; later lines start with `indent`.
 */
export function packAwkLines(program: string, width: number, first: number, indent: string): string[] {
  const out: string[] = [];
  let current = '';
  let used = first;
  for (const [i, line] of awkLines(program).entries()) {
    if (i === 0) {
      current = line.text;
    } else if (line.text === '}' || (!line.item && used + current.length + line.joiner.length + line.text.length <= width)) {
      current += line.joiner + line.text;
    } else {
      out.push(current);
      current = line.text;
      used = indent.length;
    }
  }
  out.push(current);
  return out.map((l, i) => (i === 0 ? l : indent + l));
}

function awkLines(program: string): AwkLine[] {
  const lines: AwkLine[] = [];
  let out = '';
  let joiner: AwkLine['joiner'] = ' ';
  let item = true;
  let last = '';
  let newline = false;
  let space = false;
  let depth = 0;
  const parens: boolean[] = [];
  /** A newline after the last token is white space (true) or ends a statement or item. */
  let optionalNewline = true;
  const emit = (text: string, token: string) => {
    if (newline && out !== '') {
      lines.push({ text: out, joiner, item });
      joiner = optionalNewline ? ' ' : '; ';
      item = depth === 0 && !optionalNewline;
      out = '';
    } else if (space && out !== '') out += ' ';
    newline = space = false;
    out += text;
    last = token;
  };
  let i = 0;
  while (i < program.length) {
    const c = program[i];
    if (c === '\\' && program[i + 1] === '\n') {
      space = true;
      i += 2;
    } else if (c === '\n') {
      newline = true;
      i++;
    } else if (c === ' ' || c === '\t') {
      space = true;
      i++;
    } else if (c === '#') {
      while (i < program.length && program[i] !== '\n') i++;
    } else if (c === '"' || (c === '/' && !OPERAND_END.test(last))) {
      const end = c === '"' ? stringEnd(program, i) : regexEnd(program, i);
      emit(program.slice(i, end), '"');
      optionalNewline = false;
      i = end;
    } else {
      const token = /^([A-Za-z_][A-Za-z0-9_]*|[0-9.]+|&&|\|\||.)/.exec(program.slice(i))![0];
      i += token.length;
      if (token === '(') parens.push(CONTROL.has(last));
      const control = token === ')' && parens.pop() === true;
      emit(token, token);
      if (token === '{') depth++;
      if (token === '}') depth--;
      // Inside an action a closing brace ends its statement; at the top it ends an item.
      optionalNewline = OPTIONAL_NEWLINE_AFTER.has(token) || control || (token === '}' && depth > 0);
    }
  }
  if (out !== '') lines.push({ text: out, joiner, item });
  return lines;
}

function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  if (i >= text.length) throw new Error(`unterminated awk string: ${text.slice(start, start + 40)}`);
  return i + 1;
}

function regexEnd(text: string, start: number): number {
  let i = start + 1;
  let bracket = false;
  while (i < text.length && (bracket || text[i] !== '/')) {
    if (text[i] === '\n') throw new Error(`unterminated awk regular expression: ${text.slice(start, i)}`);
    if (text[i] === '\\') i++;
    else if (text[i] === '[') bracket = true;
    else if (text[i] === ']' && bracket) bracket = false;
    i++;
  }
  if (i >= text.length) throw new Error(`unterminated awk regular expression: ${text.slice(start, start + 40)}`);
  return i + 1;
}

/** A line that opens a multi-line awk program: `... awk [options] '` with the program on the next lines. */
const AWK_OPENING = /(^|[\s|;&(])awk((\s+-[A-Za-z]\S*|\s+'[^'\n]*'|\s+[A-Za-z_][A-Za-z0-9_]*=\S*)*)\s+'$/;

/**
 * The lines of one shell function (or any run of shell lines) with each
 * multi-line awk program packed, from its opening line on, onto lines of up to
 * `width` characters (later lines indented two more than the opening one):
 *   x=$(awk '        ->  x=$(awk 'BEGIN { n = 0 } { n++ } END { print n }' "$f")
 *     BEGIN { ... }
 *     ...' "$f")
 */
export function packAwkPrograms(lines: readonly string[], width: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!AWK_OPENING.test(line) || !opensSingleQuote(line)) {
      out.push(line);
      continue;
    }
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].includes("'")) body.push(lines[j++]);
    if (j >= lines.length) throw new Error(`awk program without its closing quote after: ${line.trim()}`);
    const close = lines[j].indexOf("'");
    body.push(lines[j].slice(0, close));
    const packed = packAwkLines(body.join('\n'), width, line.length, `${/^\s*/.exec(line)![0]}  `);
    packed[0] = line + packed[0];
    packed[packed.length - 1] += lines[j].slice(close);
    out.push(...packed);
    i = j;
  }
  return out;
}

/** True when the line ends inside a single-quoted string it opened (shell quoting). */
function opensSingleQuote(line: string): boolean {
  let single = false;
  let double = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (single) {
      if (c === "'") single = false;
    } else if (c === '\\') {
      i++;
    } else if (c === '"') {
      double = !double;
    } else if (c === "'" && !double) {
      single = true;
    } else if (c === '#' && !double && (i === 0 || /\s/.test(line[i - 1]))) {
      return false;
    }
  }
  return single;
}
