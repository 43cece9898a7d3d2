// Packing shell functions onto fewer lines: the same commands for the shell (bash's own listing of each
// function compared, dash's syntax check), and the layout a reader gets.
import { execFileSync } from 'child_process';
import { relative } from 'path';
import { packAwkPrograms } from '../../../lib/scripts/awk';
import { packShellLines } from '../../../lib/scripts/shell';
import { requireCommands } from '../../support/services/commands';
import { shippedFunctions } from './shipped';

/** bash's listing of function `name` (`declare -f`): its parse, independent of how the source was laid out. */
function parsed(lines: readonly string[], name: string): string {
  return execFileSync(requireCommands('bash').bash, ['-c', `${lines.join('\n')}\ndeclare -f ${name}`], { encoding: 'utf8' });
}

const dashAccepts = (lines: readonly string[]) => execFileSync(requireCommands('dash').dash, ['-n', '-c', lines.join('\n')], { encoding: 'utf8' }) === '';

describe('packShellLines', () => {
  const f = [
    'f() {',
    '  a=1',
    '  if [ "$a" = 1 ]; then',
    '    echo one',
    '  else',
    '    echo other',
    '  fi',
    '  case $a in',
    '    1)',
    '      echo "a;b"',
    '      ;;',
    '    *) echo no ;;',
    '  esac',
    '  printf \'%s\\n\' x |',
    '    tr x y',
    '  for i in 1 \\',
    '    2; do',
    '    echo "$i"',
    '  done',
    '}',
  ];

  test('a function that fits the width is one line', () => {
    const packed = packShellLines(f, 1000);
    expect(packed).toEqual([
      'f() { a=1; if [ "$a" = 1 ]; then echo one; else echo other; fi; case $a in 1) echo "a;b" ;; *) echo no ;; esac; printf \'%s\\n\' x | tr x y; for i in 1 2; do echo "$i"; done; }',
    ]);
    expect(parsed(packed, 'f')).toBe(parsed(f, 'f'));
  });

  test('narrower: each compound on one line when it fits, else laid out as written; commands share lines', () => {
    const packed = packShellLines(f, 60);
    expect(packed).toEqual([
      'f() {',
      '  a=1; if [ "$a" = 1 ]; then echo one; else echo other; fi',
      '  case $a in 1) echo "a;b" ;; *) echo no ;; esac',
      '  printf \'%s\\n\' x | tr x y; for i in 1 2; do echo "$i"; done',
      '}',
    ]);
    expect(parsed(packed, 'f')).toBe(parsed(f, 'f'));
  });

  test('very narrow: case items and else begin their own lines', () => {
    const packed = packShellLines(f, 20);
    expect(packed).toContain('  else');
    expect(packed).toContain('    *) echo no ;;');
    expect(parsed(packed, 'f')).toBe(parsed(f, 'f'));
  });

  test('breaks inside quotes and command substitutions stay; comments go', () => {
    const g = ['g() {', "  nl='", "'", '  x=$(', '    echo a', '    echo b', '  ) # two lines', '  echo "$x$nl"', '}'];
    const packed = packShellLines(g, 1000);
    expect(packed).toEqual(['g() {', "  nl='", "'; x=$(", '    echo a', '    echo b', '  ); echo "$x$nl"', '}']);
    expect(parsed(packed, 'g')).toBe(parsed(g, 'g'));
  });
});

describe('every function of the shipped scripts', () => {
  const functions = shippedFunctions();
  test('there are many', () => expect(functions.length).toBeGreaterThanOrEqual(60));
  test.each([40, 80, 120, 100000])('packed to width %i: bash parses each function exactly as written; dash accepts it', (width) => {
    for (const fn of functions) {
      const written = packAwkPrograms(fn.lines, width);
      const packed = packShellLines(written, width);
      expect({ fn: `${relative(process.cwd(), fn.file)} ${fn.name}`, parsed: parsed(packed, fn.name) }).toEqual({ fn: `${relative(process.cwd(), fn.file)} ${fn.name}`, parsed: parsed(written, fn.name) });
      expect(dashAccepts(packed)).toBe(true);
    }
  });
});
