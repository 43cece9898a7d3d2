/** Policy files in: read, validated, resolved and rendered, every problem printed before anything is written. */
import type { Manifest } from '../kubernetes/objects';
import { PolicyError } from '../policy/errors';
import { loadPolicies } from '../model/load';
import { ResolvedPolicy, resolvePolicy } from '../model/resolve';
import { renderResolved } from '../model/render';
import { Collision, findCollisions, formatCollision } from '../model/collisions';
import { CliIO, readInput } from './command';
import { convertHints } from './convert';

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
  for (const path of paths) {
    let input: { name: string; text: string };
    try {
      input = readInput(path, io);
    } catch (e) {
      io.stderr(`${path}: cannot read: ${(e as Error).message}\n`);
      failed = true;
      continue;
    }
    try {
      const resolved = loadPolicies(input.text, input.name).map((p) => resolvePolicy(p, input.name));
      files.push({ file: input.name, resolved, manifests: resolved.map(renderResolved) });
    } catch (e) {
      if (!(e instanceof PolicyError)) throw e;
      io.stderr(`${e.message}\n`);
      for (const hint of convertHints(input.name, input.text)) io.stderr(`${hint}\n`);
      failed = true;
    }
  }
  if (failed) return undefined;
  const collisions: Collision[] = findCollisions(
    files.flatMap((l) =>
      l.resolved.map((r, i) => ({ source: `${l.file} (policy ${r.name})`, objects: l.manifests[i] })),
    ),
  );
  return { files, collisions: collisions.map(formatCollision) };
}

/** Prints the collisions; true when there were none. */
export function reportCollisions(loaded: Loaded, io: CliIO): boolean {
  for (const c of loaded.collisions) io.stderr(`${c}\n`);
  return loaded.collisions.length === 0;
}
