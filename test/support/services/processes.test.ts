// Managed server processes: start-up failures, stop(), and the watchdog against orphans.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runningServices, startRedis, stopAll } from '.';

/** true while the process exists and is not a zombie */
function processAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls until `fn` holds; gives up (failing) after `giveUpAfterMs`, a bound on the wait, not a speed requirement. */
async function waitUntil(what: string, fn: () => boolean, giveUpAfterMs: number): Promise<void> {
  const end = Date.now() + giveUpAfterMs;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`gave up after ${giveUpAfterMs} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let scratch: string;

beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'services-processes-test-'));
});

afterAll(async () => {
  await stopAll();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('managed processes', () => {
  test('a server that dies at start-up fails with its log tail', async () => {
    await expect(startRedis({ extraArgs: ['--no-such-directive', 'x'] })).rejects.toThrow(
      /exited before it was ready[\s\S]*log tail[\s\S]*no-such-directive/,
    );
  });

  test('stop() kills the server, removes its dir, and is idempotent', async () => {
    const before = runningServices();
    const r = await startRedis();
    expect(runningServices()).toBe(before + 1);
    expect(processAlive(r.pid)).toBe(true);
    expect(fs.existsSync(r.tmpDir)).toBe(true);
    expect(await r.cli(['PING'])).toBe('PONG');
    await r.stop();
    expect(processAlive(r.pid)).toBe(false);
    expect(fs.existsSync(r.tmpDir)).toBe(false);
    expect(runningServices()).toBe(before);
    await r.stop();
  });
});

describe('orphan protection', () => {
  test('servers of a test process that is SIGKILLed are killed and their dirs removed', async () => {
    const child = path.join(scratch, 'child.ts');
    fs.writeFileSync(
      child,
      `import { startPushgateway } from ${JSON.stringify(__dirname)};\n` +
        `startPushgateway().then((h) => { process.stdout.write(JSON.stringify({ pid: h.pid, dir: h.tmpDir }) + '\\n', () => process.kill(process.pid, 'SIGKILL')); });\n`,
    );
    const proc = spawn(process.execPath, ['-r', require.resolve('ts-node/register/transpile-only'), child], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: path.resolve(__dirname, '../../..'),
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (b: Buffer) => (out += b.toString()));
    proc.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const signal = await new Promise<string | null>((resolve) => proc.on('close', (_c, s) => resolve(s)));
    expect({ signal, err }).toEqual({ signal: 'SIGKILL', err: '' });
    const { pid, dir } = JSON.parse(out) as { pid: number; dir: string };
    // The watchdog sends TERM, then KILL after 3 s; the generous bound only keeps a broken watchdog from hanging the test.
    await waitUntil(`orphaned pushgateway ${pid} gone`, () => !processAlive(pid), 30_000);
    await waitUntil(`orphaned dir ${dir} removed`, () => !fs.existsSync(dir), 30_000);
  });
});
