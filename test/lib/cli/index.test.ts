// The command table: help for every command and subcommand, --version, unknown
// commands, and the installed entry point reading a real standard input.
import { spawnSync } from 'child_process';
import { readFileSync } from 'fs';
import { join } from 'path';
import { USAGE } from '../../../lib/cli';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { run } from './fixtures';

const root = join(__dirname, '..', '..', '..');
const COMMANDS = ['synth', 'validate', 'plan', 'restore', 'schema', 'retention'];

test('--version prints the version of package.json', () => {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  expect(run(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
});

test('--help, -h and help print the command list to stdout, exit 0', () => {
  for (const args of [['--help'], ['-h'], ['help']]) expect(run(args)).toEqual({ code: 0, stdout: USAGE, stderr: '' });
  for (const name of COMMANDS) expect(USAGE).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
});

test.each(COMMANDS)(
  '%s: --help, -h and help <command> print its help to stdout, exit 0, even after other arguments',
  (name) => {
    const help = run([name, '--help']);
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toMatch(new RegExp(`^Usage: backup-cronjobs ${name}\\b`));
    expect(run([name, '-h'])).toEqual(help);
    expect(run(['help', name])).toEqual(help);
    expect(run([name, 'x.yaml', '--bogus', '-h'])).toEqual(help);
  },
);

test('retention plan has its own help', () => {
  const r = run(['retention', 'plan', '--help']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^Usage: backup-cronjobs retention plan --listing FILE\|-/);
  expect(run(['retention', 'plan', '-h'])).toEqual(r);
});

test('no command, an unknown command: exit 2 on stderr, with a did-you-mean', () => {
  expect(run([])).toEqual({ code: 2, stdout: '', stderr: `no command given\n${USAGE}` });
  expect(run(['synt'])).toEqual({
    code: 2,
    stdout: '',
    stderr: 'unknown command "synt" (did you mean "synth"?)\nRun "backup-cronjobs --help" for the commands.\n',
  });
  expect(run(['help', 'frobnicate']).code).toBe(2);
});

test('the bin script runs the CLI: a policy from a real standard input, the exit status of the command', () => {
  const bin = join(root, 'bin', 'backup-cronjobs.js');
  const invalid = { ...vitessPolicy(), metadata: { name: 'Bad' } };
  const r = spawnSync(process.execPath, [bin, 'validate', '-'], { input: JSON.stringify(invalid), encoding: 'utf8' });
  expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 1, stdout: '' });
  expect(r.stderr).toMatch(/^<stdin>: invalid BackupPolicy \(1 problem\)\n.*metadata\.name: received "Bad"/);
});
