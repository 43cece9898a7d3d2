/**
 * The CLI's entry point (bin/backup-cronjobs.js): `runCli` of ./index, loading only the command it runs.
 * ./index loads every command (its usage lists them all, with what each engine adds), and with them the
 * parser, every engine's schema and the renderer: a few hundred ms before the first line of input is read.
 * Here `validate` loads them only for a file it reads, so a file over the size limit is refused in a few
 * milliseconds; the other commands load what they import. Help, --version and unknown commands go to
 * ./index. The same exit codes and output as `runCli` (test/lib/cli/main.test.ts).
 */
import { CliIO, EXIT, UsageError, processIO } from './command';
import { COMMAND_MODULES } from './commands';

/* eslint-disable @typescript-eslint/no-require-imports -- ./index is loaded only when it answers (above) */
/** `runCli` of ./index: runs the command named by `argv[0]`; returns the exit code. */
export function main(argv: readonly string[], io: CliIO = processIO): number {
  const [name, ...rest] = argv;
  if (name === undefined || !Object.hasOwn(COMMAND_MODULES, name))
    return (require('./index') as typeof import('./index')).runCli(argv, io);
  try {
    return COMMAND_MODULES[name]().run(rest, io);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`${e.message}\nRun "backup-cronjobs ${e.command ?? name} --help" for usage.\n`);
    return EXIT.usage;
  }
}
/* eslint-enable @typescript-eslint/no-require-imports */
