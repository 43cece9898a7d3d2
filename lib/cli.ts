/** `backup-cronjobs synth|validate|schema`: policy files in, manifests out. */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'fs';
import { join } from 'path';
import { PolicyError } from './policy/errors';
import { loadPolicies } from './model/load';
import { policySchema } from './registry';
import { ResolvedPolicy, resolvePolicy } from './model/resolve';
import { renderResolved } from './model/render';
import { findCollisions, formatCollision } from './model/collisions';
import { documentYaml } from './yaml';
import { RETENTION_CLI_FLAGS, RetentionRules, formatPlan, planFromListing, retentionRulesFromFlags, validateRetention } from './retention';
import { nextRuns, validateTimeZone } from './schedule';
import type { Manifest } from './kubernetes/objects';

const USAGE = `Usage:
  backup-cronjobs synth <policy files...> [--out DIR]   render manifests (stdout, or DIR/<policy>.k8s.yaml)
  backup-cronjobs validate <policy files...>            check policies, render nothing
  backup-cronjobs schema                                print the BackupPolicy JSON Schema
  backup-cronjobs plan <policy files...> [--count N] [--from ISO-TIME]
                                                        the next N runs (default 3) of every CronJob
  backup-cronjobs retention plan --listing FILE [--keep-last N] [--max-age 30d] [--max-total-size 50Gi]
      [--hourly N] [--daily N] [--weekly N] [--monthly N] [--yearly N] [--time-zone ZONE] [--now EPOCH]
                                                        print which backups the rules keep (and why) and
                                                        which they would delete; deletes nothing.
                                                        FILE lines: <epoch seconds><TAB><bytes><TAB><name>`;

export interface CliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const processIO: CliIO = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) };

/** Runs the CLI; returns the exit code. Writes nothing unless every input is valid. */
export function runCli(argv: readonly string[], io: CliIO = processIO): number {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'synth':
        return synth(rest, io);
      case 'validate':
        return validate(rest, io);
      case 'retention':
        return retention(rest, io);
      case 'plan':
        return plan(rest, io);
      case 'schema':
        io.stdout(`${JSON.stringify(policySchema, null, 2)}\n`);
        return 0;
      case '-h':
      case '--help':
      case 'help':
        io.stdout(`${USAGE}\n`);
        return 0;
      default:
        io.stderr(`${command ? `unknown command "${command}"` : 'no command given'}\n${USAGE}\n`);
        return 2;
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`${e.message}\n${USAGE}\n`);
      return 2;
    }
    throw e;
  }
}

class UsageError extends Error {}

function parseArgs(args: readonly string[], allowOut: boolean): { files: string[]; out?: string } {
  const files: string[] = [];
  let out: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (allowOut && (a === '--out' || a === '-o')) {
      out = args[++i];
      if (!out) throw new UsageError(`${a} needs a directory`);
    } else if (allowOut && a.startsWith('--out=')) {
      out = a.slice('--out='.length);
    } else if (a.startsWith('-')) {
      throw new UsageError(`unknown option "${a}"`);
    } else {
      files.push(a);
    }
  }
  if (files.length === 0) throw new UsageError('no policy files given');
  return { files, out };
}

interface Loaded {
  readonly file: string;
  readonly resolved: ResolvedPolicy[];
  readonly manifests: Manifest[][];
}

/** Loads, resolves and renders every file; collects every error (and every object two inputs both render) before failing. */
function loadAll(files: readonly string[], io: CliIO): Loaded[] | undefined {
  const loaded: Loaded[] = [];
  let failed = false;
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      io.stderr(`${file}: cannot read: ${(e as Error).message}\n`);
      failed = true;
      continue;
    }
    try {
      const resolved = loadPolicies(text, file).map((p) => resolvePolicy(p, file));
      loaded.push({ file, resolved, manifests: resolved.map(renderResolved) });
    } catch (e) {
      if (!(e instanceof PolicyError)) throw e;
      io.stderr(`${e.message}\n`);
      failed = true;
    }
  }
  if (failed) return undefined;
  const collisions = findCollisions(loaded.flatMap((l) => l.resolved.map((r, i) => ({ source: `${l.file} (policy ${r.name})`, objects: l.manifests[i] }))));
  for (const c of collisions) io.stderr(`${formatCollision(c)}\n`);
  return collisions.length > 0 ? undefined : loaded;
}

function synth(args: readonly string[], io: CliIO): number {
  const { files, out } = parseArgs(args, true);
  const loaded = loadAll(files, io);
  if (!loaded) return 1;
  const outputs = new Map<string, Manifest[]>();
  for (const { file, resolved, manifests } of loaded) {
    for (const [i, r] of resolved.entries()) {
      const key = `${r.name}.k8s.yaml`;
      if (outputs.has(key)) {
        io.stderr(`${file}: a second policy is named ${r.name}: each policy needs its own name (its output file is ${key})\n`);
        return 1;
      }
      outputs.set(key, manifests[i]);
    }
  }
  if (out === undefined) {
    writeDocuments([...outputs.values()].flat(), io.stdout);
    return 0;
  }
  if (existsSync(out) && !statSync(out).isDirectory()) {
    io.stderr(`--out ${out}: exists and is not a directory\n`);
    return 2;
  }
  mkdirSync(out, { recursive: true });
  for (const [key, objects] of outputs) {
    const fd = openSync(join(out, key), 'w');
    try {
      writeDocuments(objects, (text) => writeSync(fd, text));
    } finally {
      closeSync(fd);
    }
    io.stderr(`wrote ${join(out, key)}\n`);
  }
  return 0;
}

/** Streams one YAML document per object, separated like `toYaml` (and cdk8s) does. */
function writeDocuments(objects: readonly Manifest[], write: (text: string) => unknown): void {
  objects.forEach((o, i) => write(i === 0 ? documentYaml(o) : `---\n${documentYaml(o)}`));
}

/** `plan`: when every CronJob of the policies runs next, in its own time zone (UTC when unset). */
function plan(args: readonly string[], io: CliIO): number {
  let count = 3;
  let from = new Date();
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--count') {
      const v = args[++i];
      if (!v || !/^[1-9][0-9]{0,2}$/.test(v)) throw new UsageError(`--count takes a whole number from 1 to 999, got ${JSON.stringify(v ?? '')}`);
      count = Number(v);
    } else if (a === '--from') {
      const v = args[++i];
      from = new Date(v ?? '');
      if (!v || Number.isNaN(from.getTime())) throw new UsageError(`--from takes an ISO time such as 2026-12-01T00:00:00Z, got ${JSON.stringify(v ?? '')}`);
    } else if (a.startsWith('-')) {
      throw new UsageError(`unknown option "${a}"`);
    } else {
      files.push(a);
    }
  }
  if (files.length === 0) throw new UsageError('no policy files given');
  const loaded = loadAll(files, io);
  if (!loaded) return 1;
  const lines: string[] = [];
  for (const r of loaded.flatMap((l) => l.resolved)) {
    for (const t of r.targets) {
      const { resolved, timeZone } = t.schedule;
      const runs = t.settings.suspend ? 'suspended' : nextRuns(resolved, timeZone, from, count).map((d) => d.toISOString().replace('.000Z', 'Z')).join('  ');
      lines.push(`${r.namespace}/${t.name}\t${resolved}${timeZone ? ` (${timeZone})` : ''}\t${runs}`);
    }
  }
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

/** `retention plan`: the dry-run plan for a listing, exactly as the containers print it. */
function retention(args: readonly string[], io: CliIO): number {
  const [sub, ...rest] = args;
  if (sub !== 'plan') throw new UsageError(sub ? `unknown retention command "${sub}"` : 'retention needs a command: plan');
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(rest[i]);
    if (!m) throw new UsageError(`unexpected argument "${rest[i]}"`);
    const value = m[2] ?? rest[++i];
    if (value === undefined) throw new UsageError(`--${m[1]} needs a value`);
    flags[m[1]] = value;
  }
  const { listing, 'time-zone': timeZone = 'UTC', now, ...ruleFlags } = flags;
  if (!listing) throw new UsageError('--listing FILE is required');
  const problems: string[] = [];
  let rules: RetentionRules = {};
  try {
    rules = retentionRulesFromFlags(ruleFlags);
    const flagOf = Object.fromEntries(Object.entries(RETENTION_CLI_FLAGS).map(([flag, rule]) => [`rules.${rule}`, `--${flag}`]));
    problems.push(...validateRetention(rules, 'rules').map((p) => p.replace(/^rules\.[a-zA-Z]+/, (m) => flagOf[m] ?? m)));
  } catch (e) {
    problems.push((e as Error).message);
  }
  const zoneProblem = validateTimeZone(timeZone);
  if (zoneProblem) problems.push(`--time-zone: received ${JSON.stringify(timeZone)}; ${zoneProblem}`);
  if (now !== undefined && !/^[0-9]+$/.test(now)) problems.push(`--now: received ${JSON.stringify(now)}; must be epoch seconds`);
  let text = '';
  try {
    text = readFileSync(listing, 'utf8');
  } catch (e) {
    problems.push(`${listing}: cannot read: ${(e as Error).message}`);
  }
  if (problems.length > 0) {
    io.stderr(`${problems.join('\n')}\n`);
    return 1;
  }
  try {
    const plan = planFromListing(text, rules, { now: now !== undefined ? Number(now) : Math.floor(Date.now() / 1000), timeZone });
    const printed = formatPlan(plan);
    io.stdout(printed.endsWith('\n') ? printed : `${printed}\n`);
    return 0;
  } catch (e) {
    io.stderr(`${listing}: ${(e as Error).message}\n`);
    return 1;
  }
}

function validate(args: readonly string[], io: CliIO): number {
  const { files } = parseArgs(args, false);
  const loaded = loadAll(files, io);
  if (!loaded) return 1;
  for (const { file, manifests } of loaded) {
    const count = manifests.reduce((n, m) => n + m.length, 0);
    io.stdout(`${file}: valid (${count} object${count === 1 ? '' : 's'})\n`);
  }
  return 0;
}
