/**
 * Scripts whose files are mounted into the container (the policy's
 * ConfigMap) instead of being embedded. The ConfigMap holds every file as
 * written: a module byte for byte, an entry without its `main() { ... }`
 * definition and its `main "$@"` line. The container's command sources the
 * files in order, then holds the entry's `main` as written and calls it.
 */
import type { ScriptModule, ShellFunction } from './compose';
import { SCRIPT_HEADER, ScriptFeatures, scriptModule, scriptModules, scriptText } from './index';

/** One file of the policy's script ConfigMap. */
export interface ScriptFile {
  readonly file: string;
  readonly text: string;
}

/** The line that calls an entry's main, alone at column 0. */
export const MAIN_CALL = 'main "$@"';

/** An entry's `main` and the line of its `main "$@"` call (0-based lines of its file). */
export interface EntryMain {
  readonly main: ShellFunction;
  readonly call: number;
}

const entryMains = new WeakMap<ScriptModule, EntryMain>();

/** Where `main` and its call are in an entry file; an entry without exactly one of each is refused. */
export function entryMain(module: ScriptModule): EntryMain {
  let found = entryMains.get(module);
  if (!found) {
    found = findEntryMain(module);
    entryMains.set(module, found);
  }
  return found;
}

function findEntryMain(module: ScriptModule): EntryMain {
  const mains = module.functions.filter((f) => f.name === 'main');
  const lines = module.text.split('\n');
  const calls = lines.flatMap((l, i) => (l === MAIN_CALL ? [i] : []));
  if (mains.length !== 1 || calls.length !== 1) {
    throw new Error(
      `${module.path}: an entry defines main() once and calls ${MAIN_CALL} once at the start of a line; found ${mains.length} and ${calls.length}`,
    );
  }
  return { main: mains[0], call: calls[0] };
}

/** The text of an entry file as the ConfigMap holds it: its bytes without main's definition and its call line. */
export function entryWithoutMain(module: ScriptModule): string {
  const { main, call } = entryMain(module);
  return module.text
    .split('\n')
    .filter((_, i) => i !== call && (i < main.start || i > main.end))
    .join('\n');
}

/** The lines of an entry's `main` as written, comments included. */
export function mainLines(module: ScriptModule): string[] {
  const { main } = entryMain(module);
  return module.text.split('\n').slice(main.start, main.end + 1);
}

/** A script file as the ConfigMap holds it: a module as written, an entry without main. */
export function scriptFileText(file: string, isEntry: boolean): string {
  const module = scriptModule(file);
  return isEntry ? entryWithoutMain(module) : module.text;
}

/**
 * The files `entry` sources, in order: each module as written (every
 * function, so that one file serves every container of the policy), the
 * entry without main. Refuses, as inline does, a composition that misses a
 * chosen module.
 */
export function sourcedFiles(entry: string, features: ScriptFeatures = {}): readonly ScriptFile[] {
  const key = compositionKey(entry, features);
  let files = sourced.get(key);
  if (!files) {
    scriptText(entry, features);
    files = Object.freeze(
      scriptModules(entry, features).map((m) =>
        Object.freeze({ file: m.file, text: scriptFileText(m.file, m.file === entry) }),
      ),
    );
    sourced.set(key, files);
  }
  return files;
}

/** The package's script files never change while it runs: each composition is worked out once (every shard's CronJob asks again). */
const sourced = new Map<string, readonly ScriptFile[]>();
const sourcing = new Map<string, string>();

/** What a composition depends on: the entry and the features that are on (a feature set false is the same as one not set). */
function compositionKey(entry: string, features: ScriptFeatures): string {
  return `${entry} ${Object.keys(features)
    .filter((k) => features[k])
    .sort()
    .join(' ')}`;
}

/**
 * The text `sh -c` runs: a header line, one line sourcing the files from
 * `dir` (which runs their top-level code, in the order inline runs it), then
 * the entry's `main` as written and its call.
 */
export function sourcingText(entry: string, features: ScriptFeatures, dir: string): string {
  const key = `${compositionKey(entry, features)}\n${dir}`;
  let text = sourcing.get(key);
  if (text === undefined) {
    text = composeSourcingText(entry, features, dir);
    sourcing.set(key, text);
  }
  return text;
}

function composeSourcingText(entry: string, features: ScriptFeatures, dir: string): string {
  const files = sourcedFiles(entry, features);
  return [
    `${SCRIPT_HEADER}: main of ${entry}; every other line of it and of its modules from ${dir} (the policy's script ConfigMap)`,
    files.map((f) => `. ${dir}/${f.file}`).join('; '),
    ...mainLines(scriptModule(entry)),
    MAIN_CALL,
    '',
  ].join('\n');
}
