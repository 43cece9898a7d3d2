/**
 * Test harness: real servers on 127.0.0.1 for the backup scripts' integration tests.
 *
 * Every starter
 *  - picks free ports (bind port 0, read it, release it; retried when the server then fails with
 *    "address already in use"),
 *  - runs the server as a FOREGROUND child process of the test process (never --daemonize),
 *  - keeps all its data in a fresh temp dir under os.tmpdir(), removed by stop(),
 *  - waits until the server really answers, or throws an Error that includes the server's log tail,
 *  - throws an Error naming the Debian package to install when a binary is missing (tests must FAIL,
 *    never skip, when a service is missing),
 *  - returns a handle whose stop() sends SIGTERM, then SIGKILL after 3 s, and waits for the exit.
 *
 * Safety nets against orphan processes:
 *  - every running handle is in a registry; stopAll() stops them all. Importing this module from a jest
 *    test file registers `afterAll(stopAll)` automatically (call stopAll yourself too if you like);
 *  - every server PID is also handed to a tiny `sh` watchdog whose stdin is a pipe from this process:
 *    if the test process dies without cleaning up (crash, SIGKILL of a jest worker), the watchdog
 *    reads EOF and kills the servers that were still registered (TERM, then KILL after 3 s).
 */
import { ChildProcess, spawn } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as http from 'http';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

// ---------------------------------------------------------------------------------------------
// commands and Debian packages

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
  busybox: 'busybox',
  promtool: 'prometheus',
  shellcheck: 'shellcheck',
  jq: 'jq',
  rclone: 'rclone',
  s3cmd: 's3cmd',
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

// ---------------------------------------------------------------------------------------------
// small process helpers

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

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// ports

const handedOut = new Set<number>();

/** A TCP port on 127.0.0.1 that was free a moment ago (never the same one twice in this process). */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.unref();
      srv.on('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('freePort: could not find an unused port');
}

// ---------------------------------------------------------------------------------------------
// watchdog + registry

const WATCHDOG_SCRIPT = `
pids=""
dirs=""
while IFS= read -r line; do
  case "$line" in
    +*) pids="$pids \${line#+}" ;;
    -*) p="\${line#-}"; n=""; for x in $pids; do [ "$x" = "$p" ] || n="$n $x"; done; pids="$n" ;;
    d/*) dirs="$dirs \${line#d}" ;;
    x/*) p="\${line#x}"; n=""; for x in $dirs; do [ "$x" = "$p" ] || n="$n $x"; done; dirs="$n" ;;
  esac
done
if [ -n "$(echo $pids)" ]; then
  kill -TERM $pids 2>/dev/null
  i=0
  while [ $i -lt 30 ]; do
    alive=""
    for p in $pids; do
      case "$(cat /proc/$p/stat 2>/dev/null)" in
        "" | *") Z "* | *") X "*) ;;
        *) alive="$alive $p" ;;
      esac
    done
    [ -n "$alive" ] || break
    sleep 0.1
    i=$((i + 1))
  done
  [ -z "$alive" ] || kill -KILL $alive 2>/dev/null
fi
for d in $dirs; do
  case "$d" in /*/bcj-*) rm -rf "$d" ;; esac
done
exit 0
`;

let watchdog: ChildProcess | undefined;

function watchdogSend(line: string): void {
  if (!watchdog || watchdog.exitCode !== null || !watchdog.stdin || watchdog.stdin.destroyed) {
    if (line.startsWith('-') || line.startsWith('x')) return;
    watchdog = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: cleanEnv(),
    });
    watchdog.on('error', () => undefined);
    watchdog.stdin!.on('error', () => undefined);
    watchdog.unref();
    (watchdog.stdin as unknown as net.Socket).unref?.();
  }
  watchdog.stdin!.write(line + '\n');
}

function closeWatchdog(): void {
  if (watchdog?.stdin && !watchdog.stdin.destroyed) watchdog.stdin.end();
  watchdog = undefined;
}

interface Stoppable {
  stop(): Promise<void>;
}
const registry = new Set<Stoppable>();

/** Stops every service started through this module that is still running. */
export async function stopAll(): Promise<void> {
  const all = [...registry];
  await Promise.all(all.map((h) => h.stop().catch(() => undefined)));
  if (registry.size === 0) closeWatchdog();
}

/** Number of services still registered as running (for tests of the harness). */
export function runningServices(): number {
  return registry.size;
}

// jest safety net: module instances are per test file, so this runs once per file that imports us.
declare const afterAll: ((fn: () => Promise<void>, timeout?: number) => void) | undefined;
try {
  if (typeof afterAll === 'function') afterAll(() => stopAll(), 30000);
} catch {
  /* imported from inside a test: the caller must call stopAll() */
}

// ---------------------------------------------------------------------------------------------
// managed server process

class LogBuffer {
  private chunks: string[] = [];
  private size = 0;
  constructor(private readonly max = 256 * 1024) {}
  push(s: string): void {
    this.chunks.push(s);
    this.size += s.length;
    while (this.size > this.max && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
  }
  text(): string {
    return this.chunks.join('');
  }
  tail(lines = 40): string {
    return this.text().split('\n').slice(-lines - 1).join('\n');
  }
}

class ManagedProcess {
  readonly child: ChildProcess;
  readonly log = new LogBuffer();
  readonly exited: Promise<void>;
  exitDesc: string | undefined;

  constructor(
    readonly label: string,
    cmd: string,
    args: string[],
    opts: { env: NodeJS.ProcessEnv; cwd: string },
  ) {
    this.child = spawn(cmd, args, { env: opts.env, cwd: opts.cwd, detached: false, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (b: Buffer) => this.log.push(b.toString('utf8')));
    this.child.stderr!.on('data', (b: Buffer) => this.log.push(b.toString('utf8')));
    this.exited = new Promise((resolve) => {
      this.child.on('error', (e) => {
        this.exitDesc = `spawn error: ${e.message}`;
        this.log.push(`[harness] spawn error: ${e.message}\n`);
        resolve();
      });
      this.child.on('exit', (code, signal) => {
        this.exitDesc = `exit code ${code} signal ${signal}`;
        if (this.child.pid) watchdogSend(`-${this.child.pid}`);
        resolve();
      });
    });
    if (this.child.pid) watchdogSend(`+${this.child.pid}`);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.exitDesc === undefined;
  }

  async kill(graceMs = 3000): Promise<void> {
    if (!this.running) return this.exited;
    this.child.kill('SIGTERM');
    const t = setTimeout(() => {
      if (this.running) this.child.kill('SIGKILL');
    }, graceMs);
    await this.exited;
    clearTimeout(t);
  }
}

class NotReadyError extends Error {
  constructor(
    message: string,
    readonly addressInUse: boolean,
  ) {
    super(message);
  }
}

const ADDR_IN_USE = /address already in use|EADDRINUSE/i;

async function waitReady<T>(
  proc: ManagedProcess,
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined | null | false>,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr = '';
  for (;;) {
    if (!proc.running) {
      const log = proc.log.text();
      throw new NotReadyError(
        `${proc.label} exited before it was ready (${what}): ${proc.exitDesc}\n--- log tail ---\n${proc.log.tail()}`,
        ADDR_IN_USE.test(log),
      );
    }
    try {
      const r = await check();
      if (r) return r;
      lastErr = `not yet (${String(r)})`;
    } catch (e) {
      lastErr = (e as Error).message;
    }
    if (Date.now() > deadline) {
      throw new NotReadyError(
        `${proc.label} not ready after ${timeoutMs} ms (${what}); last check: ${lastErr.slice(0, 2000)}\n--- log tail ---\n${proc.log.tail()}`,
        ADDR_IN_USE.test(proc.log.text()),
      );
    }
    await sleep(intervalMs);
  }
}

async function makeTempDir(prefix: string): Promise<string> {
  const d = await fsp.mkdtemp(path.join(os.tmpdir(), `bcj-${prefix}-`));
  if (!/\s/.test(d)) watchdogSend(`d${d}`);
  return d;
}

async function removeTempDir(d: string): Promise<void> {
  await fsp.rm(d, { recursive: true, force: true }).catch(() => undefined);
  watchdogSend(`x${d}`);
}

interface BaseHandle {
  /** PID of the server process. */
  pid: number;
  /** The temp dir holding everything of this server (removed by stop()). */
  tmpDir: string;
  /** Everything the server wrote to stdout/stderr so far (last 256 KiB). */
  logs(): string;
  /** SIGTERM, SIGKILL after 3 s, wait for the exit, remove the temp dir. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a server: temp dir, ports, spawn, readiness; retries up to 3 times with new ports when the
 * server fails because a port was taken in the meantime.
 */
async function launch<P>(spec: {
  label: string;
  binary: string;
  prepare: (tmpDir: string) => Promise<P>;
  argv: (p: P, tmpDir: string) => string[];
  env?: (tmpDir: string) => NodeJS.ProcessEnv;
  ready: (proc: ManagedProcess, p: P) => Promise<void>;
}): Promise<{ proc: ManagedProcess; params: P; base: BaseHandle }> {
  const resolved = spec.binary === process.execPath ? spec.binary : requireCommands(spec.binary)[spec.binary];
  let lastErr: Error | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const tmpDir = await makeTempDir(spec.label);
    let proc: ManagedProcess | undefined;
    try {
      const params = await spec.prepare(tmpDir);
      const env = spec.env ? spec.env(tmpDir) : cleanEnv({ HOME: tmpDir });
      proc = new ManagedProcess(spec.label, resolved, spec.argv(params, tmpDir), { env, cwd: tmpDir });
      const p = proc;
      let stopping: Promise<void> | undefined;
      const base: BaseHandle = {
        pid: p.pid,
        tmpDir,
        logs: () => p.log.text(),
        stop: () => {
          if (!stopping) {
            stopping = (async () => {
              try {
                await p.kill();
              } finally {
                registry.delete(base);
                await removeTempDir(tmpDir);
              }
            })();
          }
          return stopping;
        },
      };
      registry.add(base);
      try {
        await spec.ready(p, params);
      } catch (e) {
        await base.stop();
        throw e;
      }
      return { proc: p, params, base };
    } catch (e) {
      lastErr = e as Error;
      if (!proc) await removeTempDir(tmpDir);
      if (!(e instanceof NotReadyError && e.addressInUse)) throw e;
    }
  }
  throw lastErr!;
}

// ---------------------------------------------------------------------------------------------
// Redis

export interface RedisOptions {
  password?: string;
  replicaOf?: { host: string; port: number };
  /** `masterauth` for a replica (the master's requirepass). */
  masterPassword?: string;
  /** Extra `--name value` pairs for redis-server, e.g. ['--maxmemory', '10mb']. */
  extraArgs?: string[];
  readyTimeoutMs?: number;
}

export interface RedisHandle extends BaseHandle {
  host: string;
  port: number;
  password?: string;
  /** redis-cli -h host -p port ARGS (password via REDISCLI_AUTH). Output with the final newline removed.
   *  Note: redis-cli exits 0 for error replies, so e.g. "NOAUTH ..." comes back as a normal string. */
  cli(args: string[]): Promise<string>;
}

function redisCliFor(host: string, port: number, password?: string): (args: string[]) => Promise<string> {
  const cliPath = requireCommands('redis-cli')['redis-cli'];
  return async (args: string[]) => {
    const out = await runOk(cliPath, ['-h', host, '-p', String(port), ...args], {
      env: cleanEnv({ REDISCLI_AUTH: password }),
      timeoutMs: 20000,
    });
    return out.replace(/\n$/, '');
  };
}

export async function startRedis(opts: RedisOptions = {}): Promise<RedisHandle> {
  const host = '127.0.0.1';
  requireCommands('redis-cli');
  const { params, base } = await launch({
    label: opts.replicaOf ? 'redis-replica' : 'redis',
    binary: 'redis-server',
    prepare: async () => ({ port: await freePort() }),
    argv: ({ port }, dir) => {
      const a = [
        '--port', String(port),
        '--bind', host,
        '--dir', dir,
        '--daemonize', 'no',
        '--save', '',
        '--appendonly', 'no',
        '--repl-diskless-sync-delay', '0',
      ];
      if (opts.password !== undefined) a.push('--requirepass', opts.password);
      if (opts.replicaOf) a.push('--replicaof', opts.replicaOf.host, String(opts.replicaOf.port));
      if (opts.masterPassword !== undefined) a.push('--masterauth', opts.masterPassword);
      if (opts.extraArgs) a.push(...opts.extraArgs);
      return a;
    },
    ready: async (proc, { port }) => {
      const cli = redisCliFor(host, port, opts.password);
      await waitReady(proc, 'PING -> PONG', opts.readyTimeoutMs ?? 10000, async () => (await cli(['PING'])) === 'PONG');
      if (opts.replicaOf) {
        await waitReady(proc, 'INFO replication: master_link_status:up', opts.readyTimeoutMs ?? 20000, async () =>
          /master_link_status:up/.test(await cli(['INFO', 'replication'])),
        );
      }
    },
  });
  return { ...base, host, port: params.port, password: opts.password, cli: redisCliFor(host, params.port, opts.password) };
}

// ---------------------------------------------------------------------------------------------
// Redis Sentinel

export interface SentinelMaster {
  name: string;
  host: string;
  port: number;
  /** The master's requirepass (becomes `sentinel auth-pass`). */
  password?: string;
}

export interface SentinelOptions {
  masters: SentinelMaster[];
  /** requirepass of the sentinel itself. */
  password?: string;
  downAfterMs?: number;
  readyTimeoutMs?: number;
}

export interface SentinelReplicaInfo {
  name: string;
  ip: string;
  port: number;
  flags: string[];
  masterLinkStatus: string;
  /** every field as returned by SENTINEL replicas */
  fields: Record<string, string>;
}

export interface SentinelHandle extends BaseHandle {
  host: string;
  port: number;
  password?: string;
  cli(args: string[]): Promise<string>;
  /** SENTINEL replicas <name>, parsed. */
  replicas(name: string): Promise<SentinelReplicaInfo[]>;
  /** Waits until at least `count` replicas of `name` are known AND healthy (flags without s_down/o_down/
   *  disconnected, master-link-status ok). */
  waitForReplicas(name: string, count: number, timeoutMs?: number): Promise<SentinelReplicaInfo[]>;
  /** SENTINEL get-master-addr-by-name <name> */
  masterAddr(name: string): Promise<{ host: string; port: number }>;
}

function pairsToObject(v: unknown): Record<string, string> {
  if (Array.isArray(v)) {
    const o: Record<string, string> = {};
    for (let i = 0; i + 1 < v.length; i += 2) o[String(v[i])] = String(v[i + 1]);
    return o;
  }
  const o: Record<string, string> = {};
  for (const [k, val] of Object.entries((v ?? {}) as Record<string, unknown>)) o[k] = String(val);
  return o;
}

function confQuote(s: string): string {
  return '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
}

export async function startSentinel(opts: SentinelOptions): Promise<SentinelHandle> {
  const host = '127.0.0.1';
  requireCommands('redis-cli');
  const downAfter = opts.downAfterMs ?? 5000;
  const { params, base, proc } = await launch({
    label: 'sentinel',
    binary: 'redis-sentinel',
    prepare: async (dir) => {
      const port = await freePort();
      const lines = [
        `port ${port}`,
        `bind ${host}`,
        'daemonize no',
        `dir ${confQuote(dir)}`,
        'logfile ""',
        'sentinel resolve-hostnames yes',
      ];
      if (opts.password !== undefined) lines.push(`requirepass ${confQuote(opts.password)}`);
      for (const m of opts.masters) {
        lines.push(`sentinel monitor ${m.name} ${m.host} ${m.port} 1`);
        lines.push(`sentinel down-after-milliseconds ${m.name} ${downAfter}`);
        if (m.password !== undefined) lines.push(`sentinel auth-pass ${m.name} ${confQuote(m.password)}`);
      }
      const conf = path.join(dir, 'sentinel.conf');
      await fsp.writeFile(conf, lines.join('\n') + '\n');
      return { port, conf };
    },
    argv: ({ conf }) => [conf],
    ready: async (p, { port }) => {
      const cli = redisCliFor(host, port, opts.password);
      await waitReady(p, 'PING -> PONG', opts.readyTimeoutMs ?? 10000, async () => (await cli(['PING'])) === 'PONG');
    },
  });
  const port = params.port;
  const cli = redisCliFor(host, port, opts.password);
  const replicas = async (name: string): Promise<SentinelReplicaInfo[]> => {
    const out = await cli(['-2', '--json', 'SENTINEL', 'replicas', name]);
    const parsed: unknown = JSON.parse(out || '[]');
    if (!Array.isArray(parsed)) throw new Error(`SENTINEL replicas ${name}: ${out}`);
    return parsed.map((r) => {
      const f = pairsToObject(r);
      return {
        name: f.name ?? '',
        ip: f.ip ?? '',
        port: Number(f.port),
        flags: (f.flags ?? '').split(','),
        masterLinkStatus: f['master-link-status'] ?? '',
        fields: f,
      };
    });
  };
  const healthy = (r: SentinelReplicaInfo): boolean =>
    r.flags.includes('slave') &&
    !r.flags.some((f) => f === 's_down' || f === 'o_down' || f === 'disconnected') &&
    r.masterLinkStatus === 'ok';
  const waitForReplicas = async (name: string, count: number, timeoutMs = opts.readyTimeoutMs ?? 20000) =>
    waitReady(proc, `SENTINEL replicas ${name}: ${count} healthy`, timeoutMs, async () => {
      const rs = await replicas(name);
      return rs.filter(healthy).length >= count ? rs : undefined;
    });
  const masterAddr = async (name: string) => {
    const out = await cli(['SENTINEL', 'get-master-addr-by-name', name]);
    const [h, p] = out.split('\n');
    if (!h || !p) throw new Error(`SENTINEL get-master-addr-by-name ${name}: ${JSON.stringify(out)}`);
    return { host: h, port: Number(p) };
  };
  const handle: SentinelHandle = { ...base, host, port, password: opts.password, cli, replicas, waitForReplicas, masterAddr };
  try {
    for (const m of opts.masters) {
      // the master must be known and reachable, then all its currently connected replicas must be known
      await waitReady(proc, `SENTINEL master ${m.name} reachable`, opts.readyTimeoutMs ?? 15000, async () => {
        const f = pairsToObject(JSON.parse(await cli(['-2', '--json', 'SENTINEL', 'master', m.name])));
        const flags = (f.flags ?? '').split(',');
        return flags.includes('master') && !flags.includes('disconnected') && !flags.includes('s_down');
      });
      const info = await redisCliFor(m.host, m.port, m.password)(['INFO', 'replication']);
      const n = Number(/connected_slaves:(\d+)/.exec(info)?.[1] ?? 0);
      if (n > 0) await waitForReplicas(m.name, n);
    }
  } catch (e) {
    await handle.stop();
    throw e;
  }
  return handle;
}

export interface RedisShard {
  name: string;
  master: RedisHandle;
  replicas: RedisHandle[];
  password?: string;
  stop(): Promise<void>;
}

/** A master plus N replicas (default 1), all with the same password (requirepass + masterauth). */
export async function startRedisShard(name: string, opts: { replicas?: number; password?: string } = {}): Promise<RedisShard> {
  const master = await startRedis({ password: opts.password });
  let replicas: RedisHandle[] = [];
  try {
    const started = await Promise.allSettled(
      Array.from({ length: opts.replicas ?? 1 }, () =>
        startRedis({
          password: opts.password,
          masterPassword: opts.password,
          replicaOf: { host: master.host, port: master.port },
        }),
      ),
    );
    replicas = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (e) {
    await Promise.all([...replicas.map((r) => r.stop()), master.stop()]);
    throw e;
  }
  return {
    name,
    master,
    replicas,
    password: opts.password,
    stop: async () => {
      await Promise.all(replicas.map((r) => r.stop()));
      await master.stop();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// etcd

export interface EtcdOptions {
  /** https client URL + mTLS (client-cert-auth). Default false. */
  tls?: boolean;
  /** Start on an existing data dir (e.g. from `etcdctl snapshot restore`). Not removed by stop(). */
  dataDir?: string;
  /** Restore this snapshot file (etcdctl snapshot restore) into a data dir in tmpDir and start on it. */
  snapshot?: string;
  /** Member name; must match the name used by `snapshot restore` (etcdctl's default: "default"). */
  name?: string;
  readyTimeoutMs?: number;
}

export interface EtcdHandle extends BaseHandle {
  endpoint: string;
  dataDir: string;
  tls: boolean;
  /** kubeadm-like pki dir (only with tls). */
  pkiDir?: string;
  /**
   * etcdctl --endpoints=E [--cacert/--cert/--key] --dial-timeout=2s --command-timeout=5s ARGS.
   * Rejects on a non-zero exit.
   */
  etcdctl(args: string[]): Promise<string>;
  /** Same, never rejects for an exit code; `{clientCert: false}` leaves out --cert/--key, `{caCert: false}` --cacert
   *  (to prove mTLS is enforced). */
  etcdctlRaw(args: string[], o?: { clientCert?: boolean; caCert?: boolean }): Promise<CommandResult>;
}

export interface EtcdTlsHandle extends EtcdHandle {
  pkiDir: string;
}

/** Files in the kubeadm-like pki dir (/etc/kubernetes/pki/etcd layout). */
export const ETCD_PKI_FILES = ['ca.crt', 'ca.key', 'server.crt', 'server.key', 'healthcheck-client.crt', 'healthcheck-client.key'] as const;

/**
 * Generates a CA, a server cert (SAN IP:127.0.0.1, DNS:localhost; serverAuth+clientAuth) and a
 * healthcheck-client cert (clientAuth) with openssl, kubeadm file names. Returns pkiDir.
 */
export async function generateEtcdPki(pkiDir: string): Promise<string> {
  const openssl = requireCommands('openssl').openssl;
  await fsp.mkdir(pkiDir, { recursive: true });
  const f = (n: string) => path.join(pkiDir, n);
  const env = cleanEnv({ OPENSSL_CONF: '/dev/null', RANDFILE: path.join(pkiDir, '.rnd') });
  const o = (args: string[]) => runOk(openssl, args, { env, cwd: pkiDir });
  const serial = () => '0x' + crypto.randomBytes(8).toString('hex');
  await o([
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '30',
    '-keyout', f('ca.key'), '-out', f('ca.crt'), '-subj', '/CN=etcd-ca',
    '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
  ]);
  const leaf = async (base: string, subj: string, ext: string[]) => {
    await o(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f(`${base}.key`), '-out', f(`${base}.csr`), '-subj', subj]);
    await fsp.writeFile(f(`${base}.ext`), ext.join('\n') + '\n');
    await o([
      'x509', '-req', '-sha256', '-days', '30', '-in', f(`${base}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'),
      '-set_serial', serial(), '-extfile', f(`${base}.ext`), '-out', f(`${base}.crt`),
    ]);
    await fsp.rm(f(`${base}.csr`), { force: true });
    await fsp.rm(f(`${base}.ext`), { force: true });
  };
  await leaf('server', '/CN=localhost', [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=serverAuth,clientAuth',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ]);
  await leaf('healthcheck-client', '/O=system:masters/CN=kube-etcd-healthcheck-client', [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=clientAuth',
  ]);
  for (const k of ['ca.key', 'server.key', 'healthcheck-client.key']) await fsp.chmod(f(k), 0o600);
  await fsp.rm(f('.rnd'), { force: true });
  return pkiDir;
}

export async function startEtcd(opts: EtcdOptions & { tls: true }): Promise<EtcdTlsHandle>;
export async function startEtcd(opts?: EtcdOptions): Promise<EtcdHandle>;
export async function startEtcd(opts: EtcdOptions = {}): Promise<EtcdHandle> {
  const etcdctlPath = requireCommands('etcdctl').etcdctl;
  const tls = !!opts.tls;
  const name = opts.name ?? 'default';
  const mkEtcdctl = (endpoint: string, pkiDir: string | undefined) => {
    const raw = (args: string[], o: { clientCert?: boolean; caCert?: boolean } = {}) => {
      const a = [`--endpoints=${endpoint}`, '--dial-timeout=2s', '--command-timeout=5s'];
      if (pkiDir && o.caCert !== false) a.push(`--cacert=${path.join(pkiDir, 'ca.crt')}`);
      if (pkiDir && o.clientCert !== false) {
        a.push(`--cert=${path.join(pkiDir, 'healthcheck-client.crt')}`, `--key=${path.join(pkiDir, 'healthcheck-client.key')}`);
      }
      return runCommand(etcdctlPath, [...a, ...args], { env: cleanEnv({ ETCDCTL_API: '3' }), timeoutMs: 30000 });
    };
    const ok = async (args: string[]) => {
      const r = await raw(args);
      if (r.code !== 0) {
        throw new Error(`etcdctl ${args.join(' ')} exited with ${r.code ?? r.signal}\n${r.stdout.toString()}\n${r.stderr}`);
      }
      return r.stdout.toString('utf8');
    };
    return { raw, ok };
  };
  const { params, base } = await launch({
    label: tls ? 'etcd-tls' : 'etcd',
    binary: 'etcd',
    prepare: async (dir) => {
      const clientPort = await freePort();
      const peerPort = await freePort();
      const pkiDir = tls ? await generateEtcdPki(path.join(dir, 'pki')) : undefined;
      const dataDir = opts.dataDir ?? path.join(dir, 'data');
      if (opts.snapshot) {
        if (opts.dataDir) throw new Error('startEtcd: give either dataDir or snapshot, not both');
        const peer = `http://127.0.0.1:${peerPort}`;
        await runOk(
          etcdctlPath,
          [
            'snapshot', 'restore', opts.snapshot,
            `--data-dir=${dataDir}`,
            `--name=${name}`,
            `--initial-cluster=${name}=${peer}`,
            `--initial-advertise-peer-urls=${peer}`,
          ],
          { env: cleanEnv({ ETCDCTL_API: '3', HOME: dir }), cwd: dir, timeoutMs: 30000 },
        );
      }
      return { clientPort, peerPort, pkiDir, dataDir, endpoint: `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}` };
    },
    argv: ({ peerPort, pkiDir, dataDir, endpoint }) => {
      const peer = `http://127.0.0.1:${peerPort}`;
      const a = [
        `--name=${name}`,
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${endpoint}`,
        `--advertise-client-urls=${endpoint}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=${name}=${peer}`,
        '--initial-cluster-state=new',
        '--logger=zap',
        '--log-outputs=stderr',
      ];
      if (pkiDir) {
        a.push(
          `--cert-file=${path.join(pkiDir, 'server.crt')}`,
          `--key-file=${path.join(pkiDir, 'server.key')}`,
          '--client-cert-auth',
          `--trusted-ca-file=${path.join(pkiDir, 'ca.crt')}`,
        );
      }
      return a;
    },
    env: (dir) => cleanEnv({ HOME: dir }), // no ETCD_* from the test process
    ready: async (proc, { endpoint, pkiDir }) => {
      const { raw } = mkEtcdctl(endpoint, pkiDir);
      await waitReady(proc, 'etcdctl endpoint health', opts.readyTimeoutMs ?? 15000, async () => {
        const r = await raw(['endpoint', 'health']);
        if (r.code === 0) return true;
        throw new Error(r.stderr.trim() || r.stdout.toString().trim());
      }, 150);
    },
  });
  const { raw, ok } = mkEtcdctl(params.endpoint, params.pkiDir);
  return {
    ...base,
    endpoint: params.endpoint,
    dataDir: params.dataDir,
    tls,
    pkiDir: params.pkiDir,
    etcdctl: ok,
    etcdctlRaw: raw,
  };
}

/** etcd with an https client URL and mTLS; certs in a kubeadm-like pki dir. */
export function startEtcdTls(opts: Omit<EtcdOptions, 'tls'> = {}): Promise<EtcdTlsHandle> {
  return startEtcd({ ...opts, tls: true });
}

/** Plain-http etcd on an existing data dir (e.g. restored from a snapshot). The dir is not removed by stop(). */
export function startEtcdFromDataDir(dataDir: string, opts: Omit<EtcdOptions, 'dataDir'> = {}): Promise<EtcdHandle> {
  return startEtcd({ ...opts, dataDir });
}

/**
 * `etcdctl snapshot restore FILE` into a fresh data dir inside the handle's tmpDir (member name "default",
 * peer URL matching the new server), then a plain-http etcd on it. Everything is removed by stop().
 */
export function startEtcdFromSnapshot(snapshotFile: string, opts: Omit<EtcdOptions, 'snapshot' | 'dataDir'> = {}): Promise<EtcdHandle> {
  return startEtcd({ ...opts, snapshot: snapshotFile });
}

// ---------------------------------------------------------------------------------------------
// S3 (s3rver)

export interface S3Object {
  key: string;
  size: number;
  lastModified: Date;
  etag: string;
}

export interface S3Handle extends BaseHandle {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** s3rver's data dir (bucket/key._S3rver_object files). */
  dataDir: string;
  /** Env for an AWS client talking to this server (credentials, region, empty config files, no CA bundle). */
  awsEnv(): Record<string, string>;
  /** Runs the aws CLI (awsCliPath()) with awsEnv() and --endpoint-url; rejects on non-zero exit. */
  aws(args: string[], input?: string | Buffer): Promise<string>;
  listObjects(bucket: string, prefix?: string): Promise<S3Object[]>;
  getObject(bucket: string, key: string): Promise<Buffer>;
  putObject(bucket: string, key: string, body: string | Buffer): Promise<void>;
  deleteObject(bucket: string, key: string): Promise<void>;
  createBucket(bucket: string): Promise<void>;
  /** Backdates an object (s3rver reports the object file's mtime as LastModified). */
  setLastModified(bucket: string, key: string, when: Date): Promise<void>;
}

export function s3rverScript(): string {
  let pkgJson: string;
  try {
    pkgJson = require.resolve('s3rver/package.json');
  } catch {
    throw new Error('s3rver is not installed: run `npm install` (s3rver is a devDependency of this package)');
  }
  return path.join(path.dirname(pkgJson), 'bin', 's3rver.js');
}

const rfc3986 = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

const sha256hex = (b: string | Buffer): string => crypto.createHash('sha256').update(b).digest('hex');
const hmac = (k: string | Buffer, s: string): Buffer => crypto.createHmac('sha256', k).update(s).digest();

/**
 * AWS Signature V4 for a request (header-based). Exported for a test against AWS's documented example.
 * `path` is the already-encoded canonical URI; `query` values are raw.
 */
export function signV4(req: {
  method: string;
  host: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  payloadHash: string;
  amzDate: string; // YYYYMMDDTHHMMSSZ
  region: string;
  service: string;
  accessKeyId: string;
  secretAccessKey: string;
}): { authorization: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {
    ...(req.headers ?? {}),
    host: req.host,
    'x-amz-content-sha256': req.payloadHash,
    'x-amz-date': req.amzDate,
  };
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v.trim().replace(/\s+/g, ' ')]));
  const names = Object.keys(lower).sort();
  const canonicalQuery = Object.entries(req.query ?? {})
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [
    req.method,
    req.path,
    canonicalQuery,
    names.map((n) => `${n}:${lower[n]}\n`).join(''),
    names.join(';'),
    req.payloadHash,
  ].join('\n');
  const date = req.amzDate.slice(0, 8);
  const scope = `${date}/${req.region}/${req.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', req.amzDate, scope, sha256hex(canonicalRequest)].join('\n');
  const kSigning = hmac(hmac(hmac(hmac('AWS4' + req.secretAccessKey, date), req.region), req.service), 'aws4_request');
  const signature = crypto.createHmac('sha256', kSigning).update(stringToSign).digest('hex');
  const authorization = `AWS4-HMAC-SHA256 Credential=${req.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
  return { authorization, headers: { ...headers, authorization } };
}

function xmlDecode(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(parseInt(d, 10)))
    .replace(/&amp;/g, '&');
}
const xmlTag = (xml: string, tag: string): string | undefined => {
  const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml);
  return m ? xmlDecode(m[1]) : undefined;
};

export async function startS3(opts: { buckets?: string[]; readyTimeoutMs?: number } = {}): Promise<S3Handle> {
  const script = s3rverScript();
  const accessKeyId = 'S3RVER';
  const secretAccessKey = 'S3RVER';
  const region = 'us-east-1';
  for (const b of opts.buckets ?? []) {
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(b)) throw new Error(`startS3: invalid bucket name ${JSON.stringify(b)}`);
  }
  const { params, base, proc } = await launch({
    label: 's3rver',
    binary: process.execPath,
    prepare: async (dir) => ({ port: await freePort(), dataDir: path.join(dir, 'data') }),
    argv: ({ port, dataDir }) => [
      // s3rver's ListObjectsV2 continuation tokens use DES, which Node 20's OpenSSL 3 only has in the legacy provider
      '--openssl-legacy-provider',
      script,
      '-d', dataDir,
      '-a', '127.0.0.1',
      '-p', String(port),
      ...(opts.buckets ?? []).flatMap((b) => ['--configure-bucket', b]),
    ],
    env: (dir) => cleanEnv({ HOME: dir }),
    ready: async (p, { port }) => {
      await waitReady(p, `HTTP GET http://127.0.0.1:${port}/`, opts.readyTimeoutMs ?? 15000, async () => {
        const status = await new Promise<number>((resolve, reject) => {
          const r = http.get({ host: '127.0.0.1', port, path: '/', timeout: 2000 }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          r.on('timeout', () => r.destroy(new Error('timeout')));
          r.on('error', reject);
        });
        return status > 0;
      });
    },
  });
  const { port, dataDir } = params;
  const endpoint = `http://127.0.0.1:${port}`;

  const request = (
    method: string,
    bucket: string,
    key: string | undefined,
    query: Record<string, string> = {},
    body: Buffer = Buffer.alloc(0),
  ): Promise<{ status: number; body: Buffer }> => {
    const uriPath = '/' + rfc3986(bucket) + (key !== undefined ? '/' + key.split('/').map(rfc3986).join('/') : '');
    const qs = Object.entries(query)
      .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
      .join('&');
    const amzDate = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    const { headers } = signV4({
      method,
      host: `127.0.0.1:${port}`,
      path: uriPath,
      query,
      payloadHash: sha256hex(body),
      amzDate,
      region,
      service: 's3',
      accessKeyId,
      secretAccessKey,
    });
    return new Promise((resolve, reject) => {
      const r = http.request(
        {
          host: '127.0.0.1',
          port,
          method,
          path: uriPath + (qs ? '?' + qs : ''),
          headers: { ...headers, 'content-length': String(body.length) },
          timeout: 30000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      r.on('timeout', () => r.destroy(new Error(`S3 ${method} ${uriPath}: timeout`)));
      r.on('error', reject);
      r.end(body);
    });
  };
  const check = (what: string, r: { status: number; body: Buffer }, ok: number[] = [200]) => {
    if (!ok.includes(r.status)) {
      throw new Error(`S3 ${what}: HTTP ${r.status} ${r.body.toString('utf8').slice(0, 1000)}\n--- s3rver log tail ---\n${proc.log.tail(10)}`);
    }
    return r;
  };

  const listObjects = async (bucket: string, prefix?: string): Promise<S3Object[]> => {
    const result: S3Object[] = [];
    let token: string | undefined;
    for (;;) {
      const q: Record<string, string> = { 'list-type': '2' };
      if (prefix) q.prefix = prefix;
      if (token) q['continuation-token'] = token;
      const xml = check(`ListObjectsV2 ${bucket}`, await request('GET', bucket, undefined, q)).body.toString('utf8');
      for (const m of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
        result.push({
          key: xmlTag(m[1], 'Key') ?? '',
          size: Number(xmlTag(m[1], 'Size') ?? NaN),
          lastModified: new Date(xmlTag(m[1], 'LastModified') ?? NaN),
          etag: (xmlTag(m[1], 'ETag') ?? '').replace(/"/g, ''),
        });
      }
      if (xmlTag(xml, 'IsTruncated') !== 'true') break;
      token = xmlTag(xml, 'NextContinuationToken');
      if (!token) break;
    }
    return result.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  };

  const tmpFiles = path.join(base.tmpDir, 'aws');
  await fsp.mkdir(tmpFiles, { recursive: true });
  const awsEnv = (): Record<string, string> => {
    const cfg = path.join(tmpFiles, 'config');
    const cred = path.join(tmpFiles, 'credentials');
    for (const f of [cfg, cred]) if (!fs.existsSync(f)) fs.writeFileSync(f, '');
    return {
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_DEFAULT_REGION: region,
      AWS_REGION: region,
      AWS_CONFIG_FILE: cfg,
      AWS_SHARED_CREDENTIALS_FILE: cred,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_PAGER: '',
    };
  };

  return {
    ...base,
    endpoint,
    accessKeyId,
    secretAccessKey,
    region,
    dataDir,
    awsEnv,
    aws: (args, input) =>
      runOk(awsCliPath(), ['--endpoint-url', endpoint, ...args], {
        env: cleanEnv({ ...awsEnv(), HOME: tmpFiles }), // cleanEnv never carries AWS_CA_BUNDLE
        input,
        timeoutMs: 60000,
      }),
    listObjects,
    getObject: async (bucket, key) => check(`GetObject ${bucket}/${key}`, await request('GET', bucket, key)).body,
    putObject: async (bucket, key, body) => {
      check(`PutObject ${bucket}/${key}`, await request('PUT', bucket, key, {}, Buffer.isBuffer(body) ? body : Buffer.from(body)));
    },
    deleteObject: async (bucket, key) => {
      check(`DeleteObject ${bucket}/${key}`, await request('DELETE', bucket, key), [200, 204]);
    },
    createBucket: async (bucket) => {
      check(`CreateBucket ${bucket}`, await request('PUT', bucket, undefined));
    },
    setLastModified: async (bucket, key, when) => {
      const parts = key.split('/');
      const last = parts.pop()!;
      const file = path.join(dataDir, bucket, ...parts, `${last}._S3rver_object`);
      await fsp.utimes(file, when, when);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Pushgateway

export interface PushgatewayHandle extends BaseHandle {
  url: string;
  /** GET /metrics (text exposition format). */
  metrics(): Promise<string>;
}

function httpGetText(url: string, timeoutMs = 5000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = http.get(url, { timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('timeout', () => r.destroy(new Error(`GET ${url}: timeout`)));
    r.on('error', reject);
  });
}

export async function startPushgateway(opts: { readyTimeoutMs?: number } = {}): Promise<PushgatewayHandle> {
  const { params, base } = await launch({
    label: 'pushgateway',
    binary: 'prometheus-pushgateway',
    prepare: async () => ({ port: await freePort() }),
    argv: ({ port }, dir) => [
      `--web.listen-address=127.0.0.1:${port}`,
      `--persistence.file=${path.join(dir, 'metrics.store')}`,
    ],
    ready: async (p, { port }) => {
      await waitReady(p, 'GET /-/ready', opts.readyTimeoutMs ?? 10000, async () => {
        return (await httpGetText(`http://127.0.0.1:${port}/-/ready`, 2000)).status === 200;
      });
    },
  });
  const url = `http://127.0.0.1:${params.port}`;
  return {
    ...base,
    url,
    metrics: async () => {
      const r = await httpGetText(`${url}/metrics`);
      if (r.status !== 200) throw new Error(`GET ${url}/metrics: HTTP ${r.status}`);
      return r.body;
    },
  };
}
