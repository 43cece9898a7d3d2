/**
 * Managed server processes: free ports, temp dirs, readiness, stop(), and the safety nets against
 * orphans (registry + `afterAll(stopAll)`, and a `sh` watchdog that kills what is left when the test
 * process dies).
 */
import { ChildProcess, spawn } from 'child_process';
import * as fsp from 'fs/promises';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { cleanEnv, requireCommands } from './commands';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

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
    return this.text()
      .split('\n')
      .slice(-lines - 1)
      .join('\n');
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

export async function waitReady<T>(
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

/** A temp dir under os.tmpdir() that the watchdog removes if the test process dies first. */
export async function makeTempDir(prefix: string): Promise<string> {
  const d = await fsp.mkdtemp(path.join(os.tmpdir(), `bcj-${prefix}-`));
  if (!/\s/.test(d)) watchdogSend(`d${d}`);
  return d;
}

/** Removes a dir of makeTempDir (and tells the watchdog). */
export async function removeTempDir(d: string): Promise<void> {
  await fsp.rm(d, { recursive: true, force: true }).catch(() => undefined);
  watchdogSend(`x${d}`);
}

export interface BaseHandle {
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
export async function launch<P>(spec: {
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
