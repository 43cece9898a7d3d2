// drill-steps.sh (with step.sh), the step plumbing of every engine's restore drill, run by /bin/sh as a container's
// first process (its own process group, as in a pod): failures and TERM handed on to the report step.
import { spawn } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

const SCRIPTS = join(__dirname, '..', '..', '..', 'lib', 'scripts');
const LIB = ['common.sh', 'step.sh', 'drill-steps.sh'].map((f) => readFileSync(join(SCRIPTS, f), 'utf8')).join('\n');

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'drill-steps-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const drillDir = () => join(root, 'drill');
const fact = (name: string) => readFileSync(join(drillDir(), name), 'utf8');
const errorLines = (stderr: string) => stderr.split('\n').filter((l) => / error /.test(l));

interface Step {
  readonly pid: number;
  readonly done: Promise<{ code: number | null; stderr: string }>;
}

/** A drill step: common.sh, drill-steps.sh, then `body`; an undo that logs its status and removes `written`. */
function step(body: string): Step {
  const script = [
    LIB,
    'undo() { info "undo with status $1"; if [ "$1" -ne 0 ]; then rm -f "$BACKUP_DRILL_DIR/written"; fi; }',
    'mkdir -p "$BACKUP_DRILL_DIR"',
    body,
  ].join('\n');
  const child = spawn('/bin/sh', ['-c', script, 'step'], {
    env: { PATH: process.env.PATH, BACKUP_DRILL_DIR: drillDir(), TMPDIR: root, BACKUP_JOB: 'drill' },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr })),
  );
  return { pid: child.pid!, done };
}

const stepTempDirs = () => readdirSync(root).filter((f) => f.startsWith('drill-step.'));

test('a good step: exit 0, no error recorded, the undo told 0, its temporary directory gone', async () => {
  const r = await step('drill_step fetch undo; drill_record name "b1"; : >"$TMPDIR/scratch-file"').done;
  expect(r.code).toBe(0);
  expect(errorLines(r.stderr)).toEqual([]);
  expect(r.stderr).toMatch(/ info undo with status 0\n$/);
  expect(fact('name')).toBe('b1\n');
  expect(existsSync(join(drillDir(), 'error'))).toBe(false);
  expect(stepTempDirs()).toEqual([]);
});

test("drill_start: a fresh drill directory (an earlier drill's error gone), its start recorded, then the fetch step", async () => {
  const before = Math.floor(Date.now() / 1000);
  const r = await step('printf "old failure\\n" >"$BACKUP_DRILL_DIR/error"; drill_start undo; info "fetching"').done;
  expect(r.code).toBe(0);
  expect(r.stderr).toContain('info fetching');
  expect(readdirSync(drillDir())).toEqual(['started']);
  expect(Number(fact('started'))).toBeGreaterThanOrEqual(before);
  expect(Number(fact('started'))).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
});

test('die: its one line is recorded for the report, the undo removes what the step wrote, the step exits 0; the next step is skipped', async () => {
  const r = await step(
    'drill_step fetch undo; : >"$BACKUP_DRILL_DIR/written"; die "no backup among here: nothing to drill"',
  ).done;
  expect(r.code).toBe(0);
  expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/ error no backup among here: nothing to drill$/)]);
  expect(r.stderr).toContain('info undo with status 1');
  expect(r.stderr).toContain('info the failure is left for the report step');
  expect(fact('error')).toBe('no backup among here: nothing to drill\n');
  expect(existsSync(join(drillDir(), 'written'))).toBe(false);

  const next = await step('drill_step restore undo; info "the restore ran"').done;
  expect(next.code).toBe(0);
  expect(next.stderr).toContain('info skipped: an earlier step of this drill failed');
  expect(next.stderr).not.toContain('the restore ran');
  expect(fact('error')).toBe('no backup among here: nothing to drill\n');
});

test('a non-zero exit without a line of its own: the step and its status are recorded', async () => {
  const r = await step('drill_step decrypt undo; exit 3').done;
  expect(r.code).toBe(0);
  expect(fact('error')).toBe('the decrypt step ended with exit status 3\n');
  expect(r.stderr).toContain('info undo with status 3');
});

test('a missing fact names itself and the step before', async () => {
  const r = await step('drill_step restore undo; drill_fact snapshot >/dev/null').done;
  expect(r.code).toBe(0);
  expect(fact('error')).toBe(`${drillDir()}/snapshot is missing: an earlier step of this drill did not finish\n`);
});

test('drill_newest: the newest by time, ties to the greater name, recorded as name and time; an empty listing fails naming where', async () => {
  const listing = ['100\t5\tb-old', '200\t7\tb-new-a', '200\t9\tb-new-b', ''].join('\n');
  const r = await step(
    `drill_step fetch undo; printf '${listing.replace(/\t/g, '\\t').replace(/\n/g, '\\n')}' >"$TMPDIR/l"; drill_newest "$TMPDIR/l" there; info "$DRILL_NAME $DRILL_TIME $DRILL_SIZE"`,
  ).done;
  expect(r.code).toBe(0);
  expect(r.stderr).toContain('info b-new-b 200 9');
  expect([fact('name'), fact('time')]).toEqual(['b-new-b\n', '200\n']);

  const empty = await step('drill_step fetch undo; : >"$TMPDIR/l"; drill_newest "$TMPDIR/l" "node x\'s snapshots"')
    .done;
  expect(empty.code).toBe(0);
  expect(fact('error')).toBe("no backup among node x's snapshots: nothing to drill\n");
});

test("TERM while a background command is waited for inside a redirection: the command is stopped, the line names the phase on the step's stderr, the undo runs", async () => {
  const s = step(
    [
      'drill_step restore undo',
      ': >"$BACKUP_DRILL_DIR/written"',
      'run() { "$@" & echo "$!" >"$BACKUP_DRILL_DIR/child"; wait "$!"; }',
      'step_phase "loading b1 into a stand-in"',
      'run sleep 1000 >"$TMPDIR/out" 2>"$TMPDIR/err"',
      'info "not reached"',
    ].join('\n'),
  );
  const deadline = Date.now() + 20000;
  while (!existsSync(join(drillDir(), 'child'))) {
    if (Date.now() > deadline) throw new Error('the step never started its background command');
    await new Promise((r) => setTimeout(r, 20));
  }
  const child = Number(fact('child'));
  process.kill(s.pid, 'SIGTERM');
  const r = await s.done;

  expect(r.code).toBe(0);
  const line = "stopped by SIGTERM (the Job's deadline, or the pod was deleted) while loading b1 into a stand-in";
  expect(errorLines(r.stderr)).toEqual([expect.stringMatching(new RegExp(`${line.replace(/[()]/g, '\\$&')}$`))]);
  expect(r.stderr).not.toContain('not reached');
  expect(r.stderr).toContain('info undo with status 1');
  expect(fact('error')).toBe(`${line}\n`);
  expect(() => process.kill(child, 0)).toThrow(/ESRCH/);
  expect(existsSync(join(drillDir(), 'written'))).toBe(false);
  expect(stepTempDirs()).toEqual([]);
});
