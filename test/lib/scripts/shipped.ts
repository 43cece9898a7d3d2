/** The shipped script files. */
import { readdirSync } from 'fs';
import { join } from 'path';

const LIB = join(__dirname, '..', '..', '..', 'lib');
const shFiles = (dir: string) =>
  readdirSync(join(LIB, dir))
    .filter((f) => f.endsWith('.sh'))
    .map((f) => join(LIB, dir, f));

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
