/** The shipped script files, and their multi-line awk programs and shell functions as written. */
import { readFileSync, readdirSync } from 'fs';
import { join } from 'path';

const LIB = join(__dirname, '..', '..', '..', 'lib');
const shFiles = (dir: string) => readdirSync(join(LIB, dir)).filter((f) => f.endsWith('.sh')).map((f) => join(LIB, dir, f));

/** Every .sh file of lib/scripts and lib/engines/<engine>/scripts. */
export const SHIPPED_FILES: readonly string[] = [
  ...shFiles('scripts'),
  ...readdirSync(join(LIB, 'engines')).flatMap((e) => {
    try {
      return shFiles(join('engines', e, 'scripts'));
    } catch {
      return [];
    }
  }),
];

const COMMENT_OR_BLANK = /^\s*(#.*)?$/;

/** Each multi-line function of the shipped files: its name and lines, comment lines dropped (as the embedder reads them). */
export function shippedFunctions(): { file: string; name: string; lines: string[] }[] {
  return SHIPPED_FILES.flatMap((file) => {
    const lines = readFileSync(file, 'utf8').split('\n');
    const out: { file: string; name: string; lines: string[] }[] = [];
    lines.forEach((line, i) => {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)\(\) \{(.*)$/.exec(line);
      if (!m || /\}\s*$/.test(m[2])) return;
      const body = [line];
      for (let j = i + 1; lines[j] !== '}'; j++) if (!COMMENT_OR_BLANK.test(lines[j])) body.push(lines[j]);
      out.push({ file, name: m[1], lines: [...body, '}'] });
    });
    return out;
  });
}

/** Each multi-line awk program of the shipped files (the text between its quotes). */
export function shippedAwkPrograms(): { file: string; line: number; program: string }[] {
  return SHIPPED_FILES.flatMap((file) => {
    const lines = readFileSync(file, 'utf8').split('\n');
    const out: { file: string; line: number; program: string }[] = [];
    lines.forEach((line, i) => {
      if (!/awk( -F ?\S+)? '$/.test(line)) return;
      const body: string[] = [];
      let j = i + 1;
      for (; !lines[j].includes("'"); j++) body.push(lines[j]);
      body.push(lines[j].slice(0, lines[j].indexOf("'")));
      out.push({ file, line: i + 1, program: body.join('\n') });
    });
    return out;
  });
}
