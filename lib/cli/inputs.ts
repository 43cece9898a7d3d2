/** Policy files in: read, validated, resolved and rendered, every problem printed before anything is written. */
import type { Manifest } from '../kubernetes/objects';
import { statSync } from 'fs';
import { PolicyError } from '../policy/errors';
import { byteSizeProblem, inputSizeProblem } from '../model/input-size';
import type { ResolvedPolicy } from '../model/resolve';
import type { Collision } from '../model/collisions';
import { CliIO, readInput } from './command';

export interface LoadedFile {
  /** The file as given (`<stdin>` for `-`). */
  readonly file: string;
  readonly resolved: readonly ResolvedPolicy[];
  /** The objects of each policy, in the order of `resolved`. */
  readonly manifests: readonly (readonly Manifest[])[];
}

export interface Loaded {
  readonly files: readonly LoadedFile[];
  /** Objects two inputs both render (each a problem: the commands that write refuse them). */
  readonly collisions: readonly string[];
}

/** Loads every file; prints each unreadable or invalid one and returns undefined when there is any. */
export function loadInputs(paths: readonly string[], io: CliIO): Loaded | undefined {
  const files: LoadedFile[] = [];
  let failed = false;
  /** A file over the size limit: its problem, as the loader words it; neither parsed nor loaded. */
  const refuse = (name: string, problem: string) => {
    io.stderr(`${new PolicyError([{ path: '(file)', segments: [], message: problem }], name).message}\n`);
    failed = true;
  };
  for (const path of paths) {
    const tooLarge = sizeProblem(path);
    if (tooLarge !== undefined) {
      refuse(path, tooLarge);
      continue;
    }
    let input: { name: string; text: string };
    try {
      input = readInput(path, io);
    } catch (e) {
      io.stderr(`${path}: cannot read: ${(e as Error).message}\n`);
      failed = true;
      continue;
    }
    // standard input (or a pipe) is measured once read, still before the parser is loaded
    const textTooLarge = inputSizeProblem(input.text);
    if (textTooLarge !== undefined) {
      refuse(input.name, textTooLarge);
      continue;
    }
    const { convertHints, readPolicies, renderShared, resolvePolicy } = model();
    const read = readPolicies(input.text, input.name);
    try {
      if (read.error) throw read.error;
      const resolved = read.policies.map((p) => resolvePolicy(p, input.name));
      files.push({ file: input.name, resolved, manifests: resolved.map(renderShared) });
    } catch (e) {
      if (!(e instanceof PolicyError)) throw e;
      io.stderr(`${e.message}\n`);
      for (const hint of convertHints(input.name, read.documents)) io.stderr(`${hint}\n`);
      failed = true;
    }
  }
  if (failed) return undefined;
  const { findCollisions, formatCollision } = model();
  const collisions: Collision[] = findCollisions(
    files.flatMap((l) =>
      l.resolved.map((r, i) => ({ source: `${l.file} (policy ${r.name})`, objects: l.manifests[i] })),
    ),
  );
  return { files, collisions: collisions.map(formatCollision) };
}

/**
 * The problem with the size of file `path` (not standard input, which the loader measures), from its size
 * on disk: a file over the limit is neither read nor parsed. Undefined when it is within the limit or is no
 * regular file (a pipe's size is read as it is parsed), or cannot be examined (reading it says why).
 */
function sizeProblem(path: string): string | undefined {
  if (path === '-') return undefined;
  try {
    const stat = statSync(path);
    return stat.isFile() ? byteSizeProblem(stat.size) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The loader, the renderer and the collision check, loaded at the first file that is read: the CLI refuses
 * a file over the size limit without them (loading them and the `yaml` parser takes a few hundred ms).
 */
function model() {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded when a file is read, not before (above) */
  const { readPolicies } = require('../model/load') as typeof import('../model/load');
  const { resolvePolicy } = require('../model/resolve') as typeof import('../model/resolve');
  const { renderShared } = require('../model/render') as typeof import('../model/render');
  const { findCollisions, formatCollision } = require('../model/collisions') as typeof import('../model/collisions');
  const { convertHints } = require('./convert') as typeof import('./convert');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { readPolicies, resolvePolicy, renderShared, findCollisions, formatCollision, convertHints };
}

/** Prints the collisions; true when there were none. */
export function reportCollisions(loaded: Loaded, io: CliIO): boolean {
  for (const c of loaded.collisions) io.stderr(`${c}\n`);
  return loaded.collisions.length === 0;
}
