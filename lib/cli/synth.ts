/** `synth`: policies in, manifests out (stdout, or one `<policy>.k8s.yaml` per policy in a directory). */
import { closeSync, existsSync, mkdirSync, openSync, readSync, readdirSync, rmSync, statSync, writeSync } from 'fs';
import { join } from 'path';
import { StringDecoder } from 'string_decoder';
import { parseDocument } from 'yaml';
import type { Manifest } from '../kubernetes/objects';
import { MANAGED_BY } from '../model/resolve';
import { CliIO, Command, EXIT, UsageError, choice, parseCommand, policyFiles } from './command';
import { loadInputs, reportCollisions } from './inputs';
import { OUTPUT_FORMATS, jsonList, writeYamlDocuments } from './output';

const OUTPUT_SUFFIX = '.k8s.yaml';

export const synthCommand: Command = {
  name: 'synth',
  summary: 'render manifests: YAML on stdout, or DIR/<policy>.k8s.yaml with --out DIR',
  help: `Usage: backup-cronjobs synth <policy file|->... [--out DIR] [-o yaml|json]

Renders every policy of every file into Kubernetes objects. Nothing is written
unless every input is valid.

Options:
  --out DIR              write DIR/<policy name>.k8s.yaml per policy (the files cdk8s
                         synth would write), and remove the *.k8s.yaml files an
                         earlier synth wrote there that no input renders any more
                         (files whose every object carries the label
                         app.kubernetes.io/managed-by: ${MANAGED_BY}); other files
                         are never touched
  -o, --output FORMAT    yaml (default): one document per object; json: one v1
                         List, as kubectl get -o json prints (stdout only)
  -h, --help             show this help

A policy file "-" reads standard input.
Exit status: 0 written; 1 an input is unreadable or invalid, or two inputs render
the same object; 2 usage error.
`,
  run: synth,
};

function synth(args: readonly string[], io: CliIO): number {
  const parsed = parseCommand(synthCommand, args, io, {
    out: { type: 'string' },
    output: { type: 'string', short: 'o' },
  });
  if (!parsed) return EXIT.ok;
  const files = policyFiles('synth', parsed.positionals);
  const out = parsed.values.out as string | undefined;
  const format = choice('synth', '-o, --output', parsed.values.output, OUTPUT_FORMATS);
  if (format === 'json' && out !== undefined)
    throw new UsageError(
      '-o json prints to stdout; --out writes YAML files (as cdk8s synth does): give one of them',
      'synth',
    );
  if (out !== undefined && existsSync(out) && !statSync(out).isDirectory())
    throw new UsageError(`--out ${out}: exists and is not a directory`, 'synth');
  const loaded = loadInputs(files, io);
  if (!loaded || !reportCollisions(loaded, io)) return EXIT.invalid;
  const outputs = new Map<string, readonly Manifest[]>();
  for (const { file, resolved, manifests } of loaded.files) {
    for (const [i, r] of resolved.entries()) {
      const key = `${r.name}${OUTPUT_SUFFIX}`;
      if (outputs.has(key)) {
        io.stderr(
          `${file}: a second policy is named ${r.name}: each policy needs its own name (its output file is ${key})\n`,
        );
        return EXIT.invalid;
      }
      outputs.set(key, manifests[i]);
    }
  }
  if (out === undefined) {
    const objects = [...outputs.values()].flat();
    if (format === 'json') io.stdout(jsonList(objects));
    else writeYamlDocuments(objects, io.stdout);
    return EXIT.ok;
  }
  mkdirSync(out, { recursive: true });
  // Which files an earlier synth left is decided before writing, over the files this run does not write:
  // no output of this run is ever read.
  const stale = writtenEarlier(out, outputs);
  for (const [key, objects] of outputs) {
    const fd = openSync(join(out, key), 'w');
    try {
      writeYamlDocuments(objects, (text) => writeSync(fd, text));
    } finally {
      closeSync(fd);
    }
    io.stderr(`wrote ${join(out, key)}\n`);
  }
  for (const name of stale) {
    rmSync(join(out, name));
    io.stderr(
      `removed ${join(out, name)} (an earlier synth wrote it; no input renders policy ${name.slice(0, -OUTPUT_SUFFIX.length)} now)\n`,
    );
  }
  return EXIT.ok;
}

/** The `*.k8s.yaml` files of `dir`, other than this run's outputs, that synth wrote: every document is an object labelled managed-by backup-cronjobs. */
function writtenEarlier(dir: string, outputs: ReadonlyMap<string, unknown>): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(OUTPUT_SUFFIX) && !outputs.has(e.name))
    .map((e) => e.name)
    .filter((name) => isOurs(join(dir, name)))
    .sort();
}

const READ_CHUNK = 64 * 1024;
/**
 * Reads `file` a chunk at a time and checks each document as soon as it is complete, stopping at the
 * first one that is not ours: a foreign file is read only up to its first foreign document; a file of
 * ours is read whole, as every one of its documents must be ours before it may be removed.
 */
function isOurs(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const decoder = new StringDecoder('utf8');
    const chunk = Buffer.allocUnsafe(READ_CHUNK);
    let pending = '';
    for (;;) {
      const n = readSync(fd, chunk, 0, READ_CHUNK, null);
      pending += n > 0 ? decoder.write(chunk.subarray(0, n)) : decoder.end();
      // complete documents: those followed by the start of another
      for (let next = nextDocumentStart(pending); next > 0; next = nextDocumentStart(pending)) {
        if (!isOurDocument(pending.slice(0, next))) return false;
        pending = pending.slice(next);
      }
      if (n === 0) return isOurDocument(pending);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Where the second document of `text` starts: its `---` line (at column 0 a document marker is never part of
 * a scalar, so the text splits there exactly); -1 while none is seen (yet).
 */
function nextDocumentStart(text: string): number {
  for (let i = text.indexOf('\n---'); i >= 0; i = text.indexOf('\n---', i + 1)) {
    const after = text[i + 4];
    if (after === undefined) return -1; // the next chunk may make it `----`
    if (after === '\n' || after === '\r' || after === ' ' || after === '\t') return i + 1;
  }
  return -1;
}

/** Our output never uses aliases: a document that does is not ours (and is not expanded). */
function isOurDocument(text: string): boolean {
  const d = parseDocument(text);
  if (d.errors.length > 0) return false;
  try {
    const o = d.toJS({ maxAliasCount: 0 }) as { metadata?: { labels?: Record<string, unknown> } } | null;
    return o?.metadata?.labels?.['app.kubernetes.io/managed-by'] === MANAGED_BY;
  } catch {
    return false;
  }
}
