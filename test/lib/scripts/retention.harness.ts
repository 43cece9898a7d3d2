/**
 * Runs the real container scripts (common.sh + retention.sh [+ an entry])
 * under /bin/sh (dash here) or busybox sh, for the retention tests.
 */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { scriptModule, scriptText } from '../../../lib/scripts';
import { requireCommands } from '../../support/services/commands';

export const ROOT = path.resolve(__dirname, '../../..');
export const SCRIPTS = path.join(ROOT, 'lib/scripts');

/** A script file as written, shared (lib/scripts) or an engine's own (lib/engines/<engine>/scripts). */
export function readScript(name: string): string {
  return scriptModule(name).text;
}

/** Backup destinations, each with its retention module (`retention-<kind>.sh`; vitess's is the engine's own). */
export type DestinationKind = 'dir' | 's3' | 'vitess';

/** common.sh + retention.sh with a destination module + the given entry text (whole files joined). */
export function joinScript(entry: string, kind: DestinationKind = 'dir'): string {
  return [
    readScript('common.sh'),
    readScript('s3.sh'),
    readScript('retention.sh'),
    readScript(`retention-${kind}.sh`),
    entry,
  ].join('\n');
}

export function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `bc-${label}-`));
}

export function writeScript(dir: string, name: string, entry: string, kind: DestinationKind = 'dir'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, joinScript(entry, kind));
  return file;
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A minimal environment: nothing inherited except PATH/HOME/TMPDIR (so no stray RETENTION_* or AWS_*). */
export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    TMPDIR: os.tmpdir(),
    LANG: 'C.UTF-8',
    ...extra,
  };
}

export function runSh(
  script: string,
  opts: { env?: Record<string, string>; input?: string; shell?: string[]; args?: string[]; timeoutMs?: number } = {},
): RunResult {
  const shell = opts.shell ?? ['/bin/sh'];
  const r = spawnSync(shell[0], [...shell.slice(1), script, ...(opts.args ?? [])], {
    env: opts.env ?? baseEnv(),
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 60000,
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Like runSh but without blocking the event loop (tests that talk to servers
 * over keep-alive HTTP connections while the script runs must use this).
 */
export function runShAsync(
  script: string,
  opts: { env?: Record<string, string>; shell?: string[]; args?: string[]; input?: string } = {},
): Promise<RunResult> {
  const shell = opts.shell ?? ['/bin/sh'];
  return new Promise((resolve, reject) => {
    const child = spawn(shell[0], [...shell.slice(1), script, ...(opts.args ?? [])], {
      env: opts.env ?? baseEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end(opts.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** One retention_plan invocation of a batch. */
export interface PlanCase {
  env: Record<string, string>;
  listing: string;
}

const BATCH_ENTRY = `
# Test driver: runs retention_plan once per case directory, each in a
# subshell with that case's environment, so that die only ends the case.
main() {
  for _case in "$@"; do
    _rc=0
    (
      set -a
      . "$_case/env"
      set +a
      retention_plan <"$_case/listing" >"$_case/out" 2>"$_case/err"
    ) || _rc=$?
    echo "$_rc" >"$_case/rc"
  done
}
main "$@"
`;

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs retention_plan for many cases with few shell start-ups: the cases are
 * split over `parallel` concurrent shells. Returns the results in order.
 */
export async function runPlanBatch(
  cases: PlanCase[],
  opts: { shell?: string[]; pathEnv?: string; parallel?: number } = {},
): Promise<RunResult[]> {
  const dir = tempDir('plan-batch');
  try {
    const script = writeScript(dir, 'driver.sh', BATCH_ENTRY);
    const dirs = cases.map((c, i) => {
      const d = path.join(dir, `c${i}`);
      fs.mkdirSync(d);
      fs.writeFileSync(
        path.join(d, 'env'),
        Object.entries(c.env)
          .map(([k, v]) => `${k}=${shellQuote(v)}\n`)
          .join(''),
      );
      fs.writeFileSync(path.join(d, 'listing'), c.listing);
      return d;
    });
    const parallel = Math.max(1, Math.min(opts.parallel ?? 2, dirs.length));
    const chunks: string[][] = Array.from({ length: parallel }, () => []);
    dirs.forEach((d, i) => chunks[i % parallel].push(d));
    const env = baseEnv(opts.pathEnv ? { PATH: opts.pathEnv } : {});
    const runs = await Promise.all(chunks.map((chunk) => runShAsync(script, { env, shell: opts.shell, args: chunk })));
    for (const r of runs) {
      if (r.status !== 0) throw new Error(`batch driver failed (${r.status}): ${r.stderr}`);
    }
    return dirs.map((d) => ({
      status: Number(fs.readFileSync(path.join(d, 'rc'), 'utf8').trim()),
      stdout: fs.readFileSync(path.join(d, 'out'), 'utf8'),
      stderr: fs.readFileSync(path.join(d, 'err'), 'utf8'),
    }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The busybox binary; throws naming the Debian package `busybox` when it is missing. */
export function busyboxBinary(): string {
  return requireCommands('busybox').busybox;
}

/** A directory of busybox applet links (PATH for "alpine-like" runs); throws when busybox is missing. */
export function busyboxPath(): string {
  const bb = busyboxBinary();
  const dir = tempDir('busybox');
  for (const applet of [
    'sh',
    'awk',
    'sort',
    'date',
    'mktemp',
    'rm',
    'wc',
    'stat',
    'cat',
    'printf',
    'echo',
    'test',
    '[',
  ]) {
    fs.symlinkSync(bb, path.join(dir, applet));
  }
  return dir;
}

/** Writes the prune CronJob's script for a destination exactly as the renderer embeds it. */
export function writePruneScript(dir: string, kind: DestinationKind): string {
  const file = path.join(dir, 'prune.sh');
  fs.writeFileSync(file, scriptText('prune.sh', { [`retention-${kind}`]: true }));
  return file;
}

/** A directory of executable stand-in commands (put it first on PATH). */
export function standIns(dir: string, scripts: Record<string, string>): string {
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  for (const [name, text] of Object.entries(scripts)) {
    fs.writeFileSync(path.join(bin, name), text, { mode: 0o755 });
  }
  return bin;
}

/** The error lines ("<time> <job> error <message>") a script logged. */
export function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => /^\S+ \S+ error /.test(l));
}
