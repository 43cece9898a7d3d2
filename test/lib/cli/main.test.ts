// The CLI's entry point (lib/cli/main.ts, which bin/backup-cronjobs.js runs): the same answers as runCli,
// loading only the command it runs; a file over the size limit is refused from its size on disk, before
// the parser or the engines are loaded.
import { spawnSync } from 'child_process';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { USAGE, runCli } from '../../../lib/cli';
import { COMMAND_MODULES } from '../../../lib/cli/commands';
import { main } from '../../../lib/cli/main';
import { MAX_INPUT_BYTES } from '../../../lib/model/yaml-input';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { CliRun, tempDir, writePolicy } from './fixtures';

const dir = tempDir('main');
const root = join(__dirname, '..', '..', '..');

function capture(cli: typeof runCli, args: readonly string[], stdin?: string): CliRun {
  let stdout = '';
  let stderr = '';
  const code = cli(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    ...(stdin === undefined ? {} : { stdin: () => stdin }),
  });
  return { code, stdout, stderr };
}

/** A file of `bytes` bytes (a policy head, then comment lines), over the limit when bytes > MAX_INPUT_BYTES. */
function fileOfSize(name: string, bytes: number): string {
  const head = 'apiVersion: backup-cronjobs.io/v1alpha1\nkind: BackupPolicy\n';
  const path = join(dir, name);
  writeFileSync(path, head + `${'#'.repeat(99)}\n`.repeat(Math.ceil(bytes / 100)).slice(0, bytes - head.length));
  return path;
}

test('every command of the usage is loaded by its name, and is that command', () => {
  const commands = USAGE.slice(USAGE.indexOf('Commands:'), USAGE.indexOf('Options:'));
  const names = [...commands.matchAll(/^ {2}(\S+) {2,}/gm)].map((m) => m[1]);
  expect(Object.keys(COMMAND_MODULES).sort()).toEqual([...names].sort());
  for (const name of names) expect(COMMAND_MODULES[name]().name).toBe(name);
});

test('main answers as runCli: help, version, usage errors, valid and invalid policies', () => {
  const valid = writePolicy(dir, 'valid.json', vitessPolicy());
  const invalid = writePolicy(dir, 'invalid.json', { ...vitessPolicy(), metadata: { name: 'Bad' } });
  const big = fileOfSize('big.yaml', MAX_INPUT_BYTES + 1);
  for (const args of [
    [],
    ['--help'],
    ['--version'],
    ['help', 'validate'],
    ['synt'],
    ['validate'],
    ['validate', '--bogus', valid],
    ['plan', '--count', 'x', valid],
    ['validate', valid],
    ['validate', invalid, big, join(dir, 'missing.yaml')],
    ['synth', valid],
    ['schema'],
  ])
    expect([args, capture(main, args)]).toEqual([args, capture(runCli, args)]);
});

test('a file over the size limit is refused from its size, with the loader message, the other files still checked', () => {
  const big = fileOfSize('over.yaml', MAX_INPUT_BYTES + 1);
  const atLimit = fileOfSize('at-limit.yaml', MAX_INPUT_BYTES);
  const invalid = writePolicy(dir, 'other.json', { ...vitessPolicy(), metadata: { name: 'Bad' } });
  const r = capture(main, ['validate', big, atLimit, invalid]);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n');
  expect(lines.slice(0, 2)).toEqual([
    `${big}: invalid BackupPolicy (1 problem)`,
    `  (file): the input is ${MAX_INPUT_BYTES + 1} bytes (1.5 MiB); at most 1572864 (1.5 MiB, etcd's request limit, which every Kubernetes object fits) are read: split the input into several files`,
  ]);
  // the file at the limit is read and checked (it is no policy: no spec), and so is the next file
  expect(r.stderr).toContain(`${atLimit}: invalid BackupPolicy`);
  expect(r.stderr).not.toMatch(/at-limit\.yaml: invalid BackupPolicy \(1 problem\)\n {2}\(file\)/);
  expect(r.stderr).toMatch(/other\.json:\d+:\d+: metadata\.name: received "Bad"/);
});

test('validate refuses a file over the size limit before it loads the parser, the loader or an engine', () => {
  const big = fileOfSize('unloaded.yaml', 20_000_000);
  const script = `
    require('ts-node').register({ transpileOnly: true, project: ${JSON.stringify(join(root, 'tsconfig.json'))} });
    const code = require(${JSON.stringify(join(root, 'lib', 'cli', 'main.ts'))}).main(['validate', ${JSON.stringify(big)}], { stdout: () => {}, stderr: () => {} });
    const loaded = Object.keys(require.cache).filter((f) => /node_modules\\/yaml\\/|lib\\/model\\/(load|render|resolve|validate)\\.|lib\\/registry\\./.test(f));
    console.log(JSON.stringify({ code, loaded }));`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toEqual({ code: 1, loaded: [] });
});

test('standard input over the size limit is refused with its size in bytes, as a file is', () => {
  const text = `# ${'é'.repeat(MAX_INPUT_BYTES / 2)}\n`;
  expect(capture(main, ['validate', '-'], text)).toEqual({
    code: 1,
    stdout: '',
    stderr: `<stdin>: invalid BackupPolicy (1 problem)\n  (file): the input is ${MAX_INPUT_BYTES + 3} bytes (1.5 MiB); at most 1572864 (1.5 MiB, etcd's request limit, which every Kubernetes object fits) are read: split the input into several files\n`,
  });
});
