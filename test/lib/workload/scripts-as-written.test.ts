// The policy's script ConfigMap holds the scripts as they are written: for every example policy, each
// module entry is its source file byte for byte, and each entry file, with the `main` of the container
// commands put back at its place and its `main "$@"` line, is its source file byte for byte.
import { readFileSync, readdirSync } from 'fs';
import { join } from 'path';
import { Manifest, loadPolicies, renderPolicy } from '../../../lib';
import { SCRIPT_HEADER } from '../../../lib/scripts';
import { SHIPPED_FILES } from '../scripts/shipped';
import { containersOf } from '../../support/kube';

const ROOT = join(__dirname, '..', '..', '..');
const EXAMPLES = join(ROOT, 'examples', 'policies');
const MAIN_CALL = 'main "$@"';

/** Source text of every shipped script by file name, read from disk. */
const sources = new Map(SHIPPED_FILES.map((f) => [f.split('/').pop()!, readFileSync(f, 'utf8')]));

const commands = (objects: readonly Manifest[]): string[] =>
  objects
    .filter((o) => o.kind === 'CronJob' || o.kind === 'Job')
    .flatMap((o) => containersOf(o))
    .flatMap((c) => (c.command ?? []).filter((s) => s.startsWith(SCRIPT_HEADER)));

/** The entry a sourcing command runs (its sourcing line's last file) and the main it holds. */
function commandMain(command: string): { entry: string; main: string[] } {
  const lines = command.replace(/\n$/, '').split('\n');
  expect(lines.pop()).toBe(MAIN_CALL);
  return {
    entry: lines[1]
      .split('; ')
      .pop()!
      .replace(/^\. \/scripts\//, ''),
    main: lines.slice(2),
  };
}

/** An entry's ConfigMap text with `main` put back where the source file has it, and the call line at its line. */
export function rebuilt(stored: string, main: readonly string[], source: string): string {
  const src = source.split('\n');
  const lines = stored.split('\n');
  lines.splice(src.indexOf('main() {'), 0, ...main);
  lines.splice(src.indexOf(MAIN_CALL), 0, MAIN_CALL);
  return lines.join('\n');
}

const examples = readdirSync(EXAMPLES)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort()
  .flatMap((file) => loadPolicies(readFileSync(join(EXAMPLES, file), 'utf8'), file).map((p) => [file, p] as const));

test('the examples exist and each renders a script ConfigMap by default', () => {
  expect(examples.length).toBeGreaterThanOrEqual(6);
});

describe.each(examples)('%s', (_file, policy) => {
  const objects = renderPolicy(policy);
  const configMap = objects.find(
    (o) => o.kind === 'ConfigMap' && /-scripts-[0-9a-f]{10}$/.test(o.metadata.name),
  ) as Manifest & { data: Record<string, string> };
  const mains = commands(objects).map(commandMain);

  test('every ConfigMap entry is a shipped script file; every command sources only those', () => {
    expect(configMap).toBeDefined();
    for (const key of Object.keys(configMap.data)) expect(sources.has(key)).toBe(true);
    expect(mains.length).toBeGreaterThan(0);
    for (const command of commands(objects)) {
      for (const source of command.split('\n')[1].split('; '))
        expect(Object.keys(configMap.data)).toContain(source.replace(/^\. \/scripts\//, ''));
    }
  });

  test('modules byte for byte; entries byte for byte once the command\'s main and the main "$@" line are put back', () => {
    for (const [key, stored] of Object.entries(configMap.data)) {
      const source = sources.get(key)!;
      const isEntry = source.split('\n').includes(MAIN_CALL);
      if (!isEntry) {
        expect({ key, stored }).toEqual({ key, stored: source });
        continue;
      }
      const runs = mains.filter((m) => m.entry === key);
      expect({ key, runs: runs.length > 0 }).toEqual({ key, runs: true });
      for (const { main } of runs) expect({ key, text: rebuilt(stored, main, source) }).toEqual({ key, text: source });
    }
  });
});

test('the comparison sees one byte: a changed byte in a module or in main fails it', () => {
  const source = sources.get('prune.sh')!;
  const src = source.split('\n');
  const start = src.indexOf('main() {');
  const end = src.indexOf('}', start);
  const main = src.slice(start, end + 1);
  const stored = src.filter((_, i) => (i < start || i > end) && src[i] !== MAIN_CALL).join('\n');
  expect(rebuilt(stored, main, source)).toBe(source);
  expect(rebuilt(stored.replace('#', '%'), main, source)).not.toBe(source);
  expect(rebuilt(stored, [...main.slice(0, -1), '} '], source)).not.toBe(source);
  expect(rebuilt(`${stored}\n`, main, source)).not.toBe(source);
});
