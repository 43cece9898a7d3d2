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

/** The header line every embedded script starts with. */
export const SCRIPT_HEADER = '# backup-cronjobs';

/**
 * The code of a script file as embedded in manifests: comment-only and blank
 * lines dropped (the files themselves are the documentation). Safe because the
 * scripts use no heredocs, which this refuses.
 */
export function embeddedCode(file: string): string {
  const text = scriptFile(file);
  if (/<<-?\s*['"]?[A-Za-z_]/.test(text)) throw new Error(`lib/scripts/${file}: heredocs are not supported in embedded scripts`);
  return text.split('\n').filter((line) => !/^\s*(#.*)?$/.test(line)).join('\n');
}

/**
 * The `command` of a container that runs `entry` (which ends with `main "$@"`)
 * after common.sh and the given helper modules. `$0` is the entry's name; the
 * container's `args` become "$@".
 */
export function shellCommand(entry: string, modules: readonly string[] = []): string[] {
  const files = ['common.sh', ...modules, entry];
  const key = files.join(' + ');
  let text = composed.get(key);
  if (text === undefined) {
    const header = `${SCRIPT_HEADER}: ${key} (from lib/scripts, comments dropped)`;
    text = [header, ...files.map(embeddedCode)].join('\n') + '\n';
    composed.set(key, text);
  }
  return ['/bin/sh', '-c', text, entry.replace(/\.sh$/, '')];
}

const composed = new Map<string, string>();

/** Helper modules of a script that pushes metrics: `metrics.sh` joins them when the policy pushes any. */
export function scriptModules(metrics: boolean, modules: readonly string[] = []): string[] {
  return metrics ? [...modules, 'metrics.sh'] : [...modules];
}
