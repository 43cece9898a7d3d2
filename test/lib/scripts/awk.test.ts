// Packing awk programs onto one line, or onto lines of a width: the same program for awk (mawk's compiled code compared), and for the cases packing must get right.
import { execFileSync, spawnSync } from 'child_process';
import { relative } from 'path';
import { packAwk, packAwkLines, packAwkPrograms } from '../../../lib/scripts/awk';
import { requireCommands } from '../../support/services/commands';
import { shippedAwkPrograms } from './shipped';

const awk = () => requireCommands('mawk').mawk;
/** mawk's compiled program (`-W dump`), without the addresses that change from run to run. */
const compiled = (program: string) => execFileSync(awk(), ['-W', 'dump', program], { encoding: 'utf8' }).replace(/0x[0-9a-f]+/g, '0x');
const run = (program: string, input: string) => spawnSync(awk(), [program], { input, encoding: 'utf8' }).stdout;

describe('packAwk', () => {
  test.each([
    ['statements end with ";", blocks and else join with a space', 'BEGIN {\n  x = 1\n  if (x)\n    y = 2\n  else\n    y = 3\n  print y\n}', 'BEGIN { x = 1; if (x) y = 2; else y = 3; print y; }'],
    ['a closing brace inside an action is followed by a space, at the top by ";"', '{\n  if ($1) {\n    n++\n  }\n  m++\n}\nEND { print n, m }', '{ if ($1) { n++; } m++; }; END { print n, m }'],
    ['"} else" stays one statement', 'BEGIN {\n  if (0) {\n    y = 1\n  } else {\n    y = 2\n  }\n  print y\n}', 'BEGIN { if (0) { y = 1; } else { y = 2; } print y; }'],
    ['after ",", "&&" and "||" a break is white space', 'BEGIN {\n  printf "%s %s\\n",\n    "a",\n    "b"\n  if (1 &&\n    2) print "ok"\n}', 'BEGIN { printf "%s %s\\n", "a", "b"; if (1 && 2) print "ok"; }'],
    ['comments go; "#", braces and quotes inside strings and regexps stay', '/#{/ { print "# } \\" {" } # comment\n$0 ~ /[/]"/ { x = 1 / 2 }', '/#{/ { print "# } \\" {" }; $0 ~ /[/]"/ { x = 1 / 2 }'],
    ['a division is not a regexp', 'BEGIN {\n  a = 6; b = 3\n  print a / b / 1\n}', 'BEGIN { a = 6; b = 3; print a / b / 1; }'],
    ['a function keeps its parameters and body', 'function f(a,   b) {\n  b = a + 1\n  return b\n}\nBEGIN { print f(1) }', 'function f(a, b) { b = a + 1; return b; }; BEGIN { print f(1) }'],
    ['a "\\" continuation joins', 'BEGIN { x = 1 + \\\n  2; print x }', 'BEGIN { x = 1 + 2; print x }'],
  ])('%s', (_what, program, packed) => {
    expect(packAwk(program)).toBe(packed);
    expect(compiled(packed)).toBe(compiled(program));
    expect(run(packed, 'a 1\nb 0\n')).toBe(run(program, 'a 1\nb 0\n'));
  });

  test('an unterminated string or regexp is an error, not a guess', () => {
    expect(() => packAwk('{ print "a }')).toThrow(/unterminated awk string/);
    expect(() => packAwk('/abc { print }\n')).toThrow(/unterminated awk regular expression/);
  });
});

describe('packAwkLines', () => {
  const program = 'function f(a) {\n  return a + 1\n}\nBEGIN {\n  x = f(1)\n  y = 2\n  if (x &&\n    y) z = 3\n}\n/^#/ { next }\n{\n  n++\n}\nEND { print x, y, z, n }';

  test('each item starts a line; its source lines join while they fit; a lone closing brace always joins', () => {
    expect(packAwkLines(program, 1000, 0, '  ')).toEqual([
      'function f(a) { return a + 1; }',
      '  BEGIN { x = f(1); y = 2; if (x && y) z = 3; }',
      '  /^#/ { next }',
      '  { n++; }',
      '  END { print x, y, z, n }',
    ]);
    expect(packAwkLines(program, 20, 0, '')).toEqual([
      'function f(a) {',
      'return a + 1; }',
      'BEGIN { x = f(1)',
      'y = 2; if (x &&',
      'y) z = 3; }',
      '/^#/ { next }',
      '{ n++; }',
      'END { print x, y, z, n }',
    ]);
  });

  test('the first line counts the text before the program', () => {
    expect(packAwkLines('BEGIN {\n  x = 1\n  y = 2\n}', 20, 10, '')).toEqual(['BEGIN {', 'x = 1; y = 2; }']);
  });

  test.each([1, 40, 120])('width %i: the same compiled program and output', (width) => {
    const packed = packAwkLines(program, width, 0, '    ').join('\n');
    expect(compiled(packed)).toBe(compiled(program));
    expect(run(packed, '# c\na 1\nb 0\n')).toBe(run(program, '# c\na 1\nb 0\n'));
  });
});

describe('packAwkPrograms', () => {
  test('packs a program from its opening line on, keeps the rest of the closing line', () => {
    expect(packAwkPrograms(['  n=$(printf x | LC_ALL=C awk -F \'\\t\' \'', '    { n++ }', '    END { print n }\' "$f")', '  echo "$n"'], 120)).toEqual([
      '  n=$(printf x | LC_ALL=C awk -F \'\\t\' \'{ n++ }',
      '    END { print n }\' "$f")',
      '  echo "$n"',
    ]);
  });

  test('with a width: the program continues on lines indented two more than the opening one', () => {
    expect(packAwkPrograms(['  n=$(awk \'', '    BEGIN { n = 0 }', '    { n++ }', '    END { print n }\' "$f")'], 30)).toEqual([
      '  n=$(awk \'BEGIN { n = 0 }',
      '    { n++ }',
      '    END { print n }\' "$f")',
    ]);
  });

  test('leaves one-line programs, other quoted strings and commented quotes alone', () => {
    const lines = ["  awk 'END { print NR }' f", "  nl='", "'", '  echo "awk \'" # awk \''];
    expect(packAwkPrograms(lines, 120)).toEqual(lines);
  });
});

describe('every multi-line awk program of the shipped scripts', () => {
  const programs = shippedAwkPrograms();
  test('there are some', () => expect(programs.length).toBeGreaterThanOrEqual(6));
  test.each(programs.map((p) => [`${relative(process.cwd(), p.file)}:${p.line}`, p.program]))('%s packs into the same compiled program', (_where, program) => {
    const packed = packAwk(program);
    expect(packed).not.toContain('\n');
    expect(compiled(packed)).toBe(compiled(program));
  });
  test.each([40, 120])('packed to width %i: the same compiled program; a line over the width is one source line', (width) => {
    for (const { program } of programs) {
      const lines = packAwkLines(program, width, 0, '  ');
      expect(compiled(lines.join('\n'))).toBe(compiled(program));
      const whole = new Set(packAwkLines(program, 0, 0, '  ').map((l) => l.trim()));
      for (const line of lines.filter((l) => l.length > width)) expect(whole).toContain(line.trim());
    }
  });
});
