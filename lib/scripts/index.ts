/** Container scripts: whole `.sh` files in this folder, joined in order and run by `sh -c`. */
import { readFileSync } from 'fs';
import { join } from 'path';

const cache = new Map<string, string>();

/** The text of one script file shipped in this folder. */
export function scriptFile(file: string): string {
  let text = cache.get(file);
  if (text === undefined) {
    text = readFileSync(join(__dirname, file), 'utf8');
    cache.set(file, text);
  }
  return text;
}

/**
 * The `command` of a container that runs `entry` (which ends with `main "$@"`)
 * after common.sh and the given helper modules. `$0` is the entry's name; the
 * container's `args` become "$@".
 */
export function shellCommand(entry: string, modules: readonly string[] = []): string[] {
  const text = ['common.sh', ...modules, entry].map(scriptFile).join('\n');
  return ['/bin/sh', '-c', text, entry.replace(/\.sh$/, '')];
}

/** Helper modules of a script that pushes metrics: `metrics.sh` joins them when the policy pushes any. */
export function scriptModules(metrics: boolean, modules: readonly string[] = []): string[] {
  return metrics ? [...modules, 'metrics.sh'] : [...modules];
}
