/** `backup-cronjobs <command>`: the command table, the top-level help and --version. */
import { existsSync, readFileSync } from 'fs';
import { dirname, join } from 'path';
import { closest } from '../messages';
import { CliIO, Command, EXIT, UsageError, processIO } from './command';
import { COMMAND_MODULES } from './commands';

export type { CliIO } from './command';

/** Every command, in the order the usage lists them. */
const COMMANDS: readonly Command[] = Object.values(COMMAND_MODULES).map((load) => load());

export const USAGE = `Usage: backup-cronjobs <command> [options]

A declarative backup policy (kind: BackupPolicy) in, Kubernetes CronJobs out.

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

Options:
  -h, --help   this help; "backup-cronjobs <command> --help" for a command's
  --version    print the version

A policy file "-" reads standard input.
Exit status: 0 success; 1 invalid input (an unreadable or invalid policy, two
inputs rendering the same object); 2 usage error.
`;

/** Runs the CLI; returns the exit code. Writes nothing unless every input is valid. */
export function runCli(argv: readonly string[], io: CliIO = processIO): number {
  const [name, ...rest] = argv;
  try {
    if (name === '-h' || name === '--help') {
      io.stdout(USAGE);
      return EXIT.ok;
    }
    if (name === '--version') {
      io.stdout(`${packageVersion()}\n`);
      return EXIT.ok;
    }
    if (name === 'help') return help(rest, io);
    const command = COMMANDS.find((c) => c.name === name);
    if (!command) throw new UsageError(name === undefined ? 'no command given' : unknown(name));
    return command.run(rest, io);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    const command = e.command ?? (COMMANDS.some((c) => c.name === name) ? name : undefined);
    const hint = command
      ? `Run "backup-cronjobs ${command} --help" for usage.\n`
      : name === undefined
        ? USAGE
        : 'Run "backup-cronjobs --help" for the commands.\n';
    io.stderr(`${e.message}\n${hint}`);
    return EXIT.usage;
  }
}

/** `help [command]` */
function help(args: readonly string[], io: CliIO): number {
  const [name] = args;
  if (name === undefined) {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new UsageError(unknown(name));
  io.stdout(command.help);
  return EXIT.ok;
}

function unknown(name: string): string {
  const guess = closest(
    name,
    COMMANDS.map((c) => c.name),
  );
  return `unknown command "${name}"${guess ? ` (did you mean "${guess}"?)` : ''}`;
}

/** The version in the package.json above this file (the source tree or the installed package). */
export function packageVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'backup-cronjobs' && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) throw new Error('backup-cronjobs: no package.json above the CLI');
  }
}
