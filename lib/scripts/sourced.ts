/**
 * Scripts whose modules are files mounted into the container (the policy's
 * ConfigMap) instead of being embedded: the container's command keeps the
 * entry's own code (`main` and its top-level lines) and sources the rest.
 */
import type { ScriptModule } from './compose';
import { SCRIPT_HEADER, ScriptFeatures, scriptModules, scriptText } from './index';

/** One file of the policy's script ConfigMap. */
export interface ScriptFile {
  readonly file: string;
  readonly text: string;
}

const isOwnCode = (segment: ScriptModule['segments'][number]) => typeof segment === 'string' || segment.name === 'main';

function lines(module: ScriptModule, own: boolean): string[] {
  return module.segments.filter((s) => isOwnCode(s) === own).flatMap((s) => (typeof s === 'string' ? [s] : s.lines));
}

/**
 * The files `entry` sources, in order: each module whole (every function, so
 * that one file serves every container of the policy), and the entry's own
 * functions besides `main`. Comments dropped, lines packed as inline.
 */
export function sourcedFiles(entry: string, features: ScriptFeatures = {}): ScriptFile[] {
  scriptText(entry, features); // refuses a composition that misses a chosen module, as inline
  return scriptModules(entry, features).flatMap((m) => {
    const body = m.file === entry ? lines(m, false) : m.segments.flatMap((s) => (typeof s === 'string' ? [s] : s.lines));
    if (body.length === 0) return [];
    return [{ file: m.file, text: [`${SCRIPT_HEADER}: ${m.path}${m.file === entry ? ' without main' : ''} (comments dropped, lines packed)`, ...body, ''].join('\n') }];
  });
}

/** The text `sh -c` runs: a header, one line sourcing the files from `dir`, then the entry's own code. */
export function sourcingText(entry: string, features: ScriptFeatures, dir: string): string {
  const files = sourcedFiles(entry, features);
  const own = lines(scriptModules(entry, features).find((m) => m.file === entry)!, true);
  return [
    `${SCRIPT_HEADER}: ${entry}; its functions and modules from ${dir} (the policy's script ConfigMap)`,
    files.map((f) => `. ${dir}/${f.file}`).join('; '),
    ...own,
    '',
  ].join('\n');
}
