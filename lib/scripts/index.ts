/**
 * Container scripts: whole `.sh` files, shared ones in this folder and each
 * engine's own in `lib/engines/<engine>/scripts/`. A script names the modules
 * it needs in its header, and the embedder composes an entry script with
 * exactly the shell functions it can reach:
 *
 *   # needs: s3.sh              joined always (with what they need in turn)
 *   # optional: metrics.sh      joined when the renderer enables that feature
 *   # one-of: retention-*.sh    the one the features choose (`*`: any script's name)
 *
 * common.sh comes first in every composition; a function defined again by a
 * later module (a hook such as `push_metrics`) replaces the earlier one.
 */
import { existsSync, readFileSync, readdirSync } from 'fs';
import { join } from 'path';
import { ScriptModule, parseModule, reachable } from './compose';

const LIB = join(__dirname, '..');
const SHARED_DIR = 'scripts';

/** Features an entry may enable: an optional or one-of module joins when its name (without `.sh`) is true. */
export type ScriptFeatures = Readonly<Record<string, boolean>>;

/**
 * A container command that runs a composed script. The workload builder
 * renders it: the entry's `main` sourcing its modules from the policy's
 * ConfigMap (the default), or the whole composition in the command (inline).
 */
export interface ScriptCommand {
  readonly entry: string;
  readonly features?: ScriptFeatures;
  /** The shell that runs it (a kubelet reference such as `$(TOOLS)/sh` is allowed). @default /bin/sh */
  readonly shell?: string;
}

/** The command of a container that runs `entry` (which ends with `main "$@"`); the container's `args` become "$@". */
export function shellCommand(entry: string, features: ScriptFeatures = {}): ScriptCommand {
  return { entry, features };
}

export function isScriptCommand(command: unknown): command is ScriptCommand {
  return (
    typeof command === 'object' &&
    command !== null &&
    !Array.isArray(command) &&
    typeof (command as ScriptCommand).entry === 'string'
  );
}
let locations: Map<string, string> | undefined;

/** Every script file by name, shared first, then `engines/<engine>/scripts/`. Names are unique. */
function scriptLocations(): Map<string, string> {
  if (locations) return locations;
  const found = new Map<string, string>();
  const engines = join(LIB, 'engines');
  const dirs = [
    SHARED_DIR,
    ...readdirSync(engines)
      .sort()
      .map((e) => join('engines', e, 'scripts')),
  ];
  for (const dir of dirs) {
    if (!existsSync(join(LIB, dir))) continue;
    for (const file of readdirSync(join(LIB, dir))
      .filter((f) => f.endsWith('.sh'))
      .sort()) {
      const other = found.get(file);
      if (other) throw new Error(`script name ${file} is used twice: lib/${other} and lib/${dir}/${file}`);
      found.set(file, join(dir, file));
    }
  }
  locations = found;
  return found;
}

const modules = new Map<string, ScriptModule>();

/** One parsed script file by name. */
export function scriptModule(file: string): ScriptModule {
  let module = modules.get(file);
  if (!module) {
    const where = scriptLocations().get(file);
    if (!where) throw new Error(`no script named ${file} in lib/${SHARED_DIR} or lib/engines/*/scripts`);
    module = parseModule(file, `lib/${where}`, readFileSync(join(LIB, where), 'utf8'));
    modules.set(file, module);
  }
  return module;
}

export const stem = (file: string) => file.replace(/\.sh$/, '');

/**
 * A module's `# one-of:` alternatives; a `*` in a name stands for any text, so
 * `retention-*.sh` is every retention destination, an engine's own among them.
 */
export function scriptAlternatives(module: ScriptModule): string[] {
  return module.oneOf.flatMap((name) => {
    if (!name.includes('*')) return [name];
    const pattern = new RegExp(`^${name.replace(/\./g, '\\.').replace(/\*/g, '.*')}$`); // a script's name: [A-Za-z0-9._-]
    return [...scriptLocations().keys()].filter((file) => pattern.test(file)).sort();
  });
}

/**
 * The modules of a composition, in order: common.sh, then every needed,
 * enabled or chosen module after its own needs, the entry last.
 */
export function scriptModules(entry: string, features: ScriptFeatures = {}): ScriptModule[] {
  const order: ScriptModule[] = [];
  const visiting = new Set<string>();
  const visit = (file: string): void => {
    if (order.some((m) => m.file === file)) return;
    if (visiting.has(file)) throw new Error(`scripts need each other in a cycle through ${file}`);
    visiting.add(file);
    const module = scriptModule(file);
    for (const need of module.needs) visit(need);
    for (const opt of module.optional) if (features[stem(opt)]) visit(opt);
    const choices = scriptAlternatives(module);
    const chosen = choices.filter((alt) => features[stem(alt)]);
    if (chosen.length > 1)
      throw new Error(
        `${entry}: ${module.file} takes one of ${choices.join(', ')}; the features choose ${chosen.join(' and ')}`,
      );
    for (const alt of chosen) visit(alt);
    order.push(module);
    visiting.delete(file);
  };
  visit('common.sh');
  visit(entry);
  return order;
}

/**
 * Fails when the composition reaches a function that only an alternative not
 * chosen would define (e.g. `retention_list` without a destination module).
 */
function checkChoices(entry: string, order: readonly ScriptModule[], lines: readonly string[]): void {
  const defined = new Set(order.flatMap((m) => m.functions.map((f) => f.name)));
  const used = new Set(lines.join('\n').match(/[A-Za-z_][A-Za-z0-9_]*/g));
  for (const m of order) {
    const choices = scriptAlternatives(m);
    for (const alt of choices) {
      const missing = scriptModule(alt)
        .functions.map((f) => f.name)
        .find((name) => used.has(name) && !defined.has(name));
      if (missing) {
        throw new Error(
          `${entry} calls ${missing}, which one of ${choices.join(', ')} defines: enable one of the features ${choices.map(stem).join(', ')} (the workload builder enables retention-<kind> from the container's BACKUP_DEST_KIND)`,
        );
      }
    }
  }
}

/** The header line every embedded script starts with. */
export const SCRIPT_HEADER = '# backup-cronjobs';

const composed = new Map<string, string>();

/**
 * The text of `entry` as embedded in a manifest: a header, then per module a
 * marker line (`# <file>`) and the lines it contributes (its
 * top-level code and the functions the entry can reach), each line as
 * written, comment-only and blank lines dropped.
 */
export function scriptText(entry: string, features: ScriptFeatures = {}): string {
  const order = scriptModules(entry, features);
  const key = order.map((m) => m.file).join(' ');
  let text = composed.get(key);
  if (text === undefined) {
    const parts = reachable(order);
    checkChoices(
      entry,
      order,
      parts.flatMap((p) => p.lines),
    );
    const lines = [
      `${SCRIPT_HEADER}: ${entry} with the functions it reaches (lib/scripts, lib/engines/*/scripts; comments dropped)`,
    ];
    for (const part of parts) lines.push(`# ${part.file}`, ...part.lines);
    text = `${lines.join('\n')}\n`;
    composed.set(key, text);
  }
  return text;
}

/** The inline command of a script: `sh -c <whole composition> <entry name>`. */
export function inlineCommand(command: ScriptCommand): string[] {
  return [command.shell ?? '/bin/sh', '-c', scriptText(command.entry, command.features), stem(command.entry)];
}
