/**
 * Multi-line awk programs of the script files, packed onto one line for the
 * manifests (the .sh files keep them readable). Packing only replaces line
 * breaks: by a space where awk treats a newline as white space (after `{`,
 * `,`, `&&`, `||`, `;`, `do`, `else`, an `if`/`for`/`while` condition, a `}`
 * inside an action), by `;` where it ends a statement or an item. Comments
 * are dropped; strings and regular expressions are copied as they are.
 */

const OPTIONAL_NEWLINE_AFTER = new Set(['{', ',', ';', '&&', '||', 'do', 'else']);
const CONTROL = new Set(['if', 'for', 'while']);
/** A token after which `/` is a division, not the start of a regular expression. */
const OPERAND_END = /[A-Za-z0-9_$)\]]$/;

/**
 * One awk program (the text between the quotes) on one line: the source
 * text with each line break (and the indentation and comments around it)
 * replaced by a space or `; `, everything else kept as written.
 */
export function packAwk(program: string): string {
  let out = '';
  let last = '';
  let newline = false;
  let space = false;
  let depth = 0;
  const parens: boolean[] = [];
  /** A newline after the last token is white space (true) or ends a statement or item. */
  let optionalNewline = true;
  const emit = (text: string, token: string) => {
    if (newline && out !== '') out += optionalNewline ? ' ' : '; ';
    else if (space && out !== '') out += ' ';
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
      if (token === '{') depth++;
      if (token === '}') depth--;
      emit(token, token);
      // Inside an action a closing brace ends its statement; at the top it ends an item.
      optionalNewline = OPTIONAL_NEWLINE_AFTER.has(token) || control || (token === '}' && depth > 0);
    }
  }
  return out;
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
 * multi-line awk program packed onto its opening line:
 *   x=$(awk '        ->  x=$(awk 'BEGIN { n = 0 } { n++ } END { print n }' "$f")
 *     BEGIN { ... }
 *     ...' "$f")
 */
export function packAwkPrograms(lines: readonly string[]): string[] {
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
    out.push(`${line}${packAwk(body.join('\n'))}${lines[j].slice(close)}`);
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
