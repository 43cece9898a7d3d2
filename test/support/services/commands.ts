/**
 * Commands the integration tests need: where they are, which Debian package provides them, and how to
 * run one to completion with a clean environment.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** Which Debian (bookworm) package provides which command. */
export const DEBIAN_PACKAGES: Readonly<Record<string, string>> = {
  'redis-server': 'redis-server',
  'redis-sentinel': 'redis-sentinel',
  'redis-cli': 'redis-tools',
  'redis-check-rdb': 'redis-tools',
  etcd: 'etcd-server',
  etcdctl: 'etcd-client',
  'prometheus-pushgateway': 'prometheus-pushgateway',
  aws: 'awscli',
  openssl: 'openssl',
  curl: 'curl',
  gzip: 'gzip',
  sh: 'dash',
  dash: 'dash',
  bash: 'bash',
  mawk: 'mawk',
  busybox: 'busybox',
  promtool: 'prometheus',
  prometheus: 'prometheus',
  shellcheck: 'shellcheck',
  jq: 'jq',
  rclone: 'rclone',
  s3cmd: 's3cmd',
  chromium: 'chromium',
};

/** Absolute path of `name` found on this process's PATH (or `name` itself if it is a path), or undefined. */
export function findCommand(name: string): string | undefined {
  const isExec = (p: string): boolean => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (name.includes('/')) return isExec(name) ? path.resolve(name) : undefined;
  const dirs = (process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin').split(':');
  for (const d of dirs) {
    if (!d) continue;
    const p = path.join(d, name);
    if (isExec(p)) return p;
  }
  return undefined;
}

function missingMessage(names: string[]): string {
  const pkgs = [...new Set(names.map((n) => DEBIAN_PACKAGES[n] ?? `<package providing ${n}>`))];
  return (
    `Missing command(s) needed by the integration tests: ${names.join(', ')}. ` +
    `Install the Debian package(s): apt-get install -y --no-install-recommends ${pkgs.join(' ')} ` +
    `(${names.map((n) => `${n} -> ${DEBIAN_PACKAGES[n] ?? '?'}`).join(', ')})`
  );
}

/**
 * Throws a clear Error listing the missing commands and the Debian packages that provide them.
 * Returns the absolute paths of the commands.
 */
export function requireCommands(...names: string[]): Record<string, string> {
  const found: Record<string, string> = {};
  const missing: string[] = [];
  for (const n of names) {
    const p = findCommand(n);
    if (p) found[n] = p;
    else missing.push(n);
  }
  if (missing.length) throw new Error(missingMessage(missing));
  return found;
}

/**
 * The aws CLI to use: Debian's v2 at /usr/bin/aws when it exists, else `aws` on PATH (the image has a
 * pyenv-shimmed v1). Throws (naming the awscli package) when neither exists.
 */
export function awsCliPath(): string {
  if (findCommand('/usr/bin/aws')) return '/usr/bin/aws';
  return requireCommands('aws').aws;
}

// environment and one-shot commands

const BASE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** A minimal, predictable environment (no AWS_*, ETCD*, REDIS* from the test process). */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH || BASE_PATH,
    HOME: os.tmpdir(),
    LANG: 'C',
    TMPDIR: os.tmpdir(),
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs a command to completion (no shell). Never rejects for a non-zero exit; see runOk. */
export function runCommand(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string | Buffer; timeoutMs?: number } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      env: opts.env ?? cleanEnv(),
      cwd: opts.cwd,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    child.stderr!.on('data', (b: Buffer) => err.push(b));
    let timer: NodeJS.Timeout | undefined;
    if (opts.timeoutMs) {
      timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    }
    child.on('error', (e) => {
      if (timer) clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') });
    });
    if (opts.input !== undefined) {
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(opts.input);
    }
  });
}

/** Like runCommand but rejects (with stdout+stderr in the message) unless the exit code is 0. */
export async function runOk(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string | Buffer; timeoutMs?: number } = {},
): Promise<string> {
  const r = await runCommand(cmd, args, opts);
  if (r.code !== 0) {
    throw new Error(
      `${cmd} ${args.join(' ')} exited with ${r.code ?? r.signal}\n--- stdout ---\n${r.stdout.toString('utf8')}\n--- stderr ---\n${r.stderr}`,
    );
  }
  return r.stdout.toString('utf8');
}
