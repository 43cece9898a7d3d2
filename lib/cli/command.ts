/** What every command shares: its I/O, its help, option parsing (`node:util` parseArgs) and usage errors. */
import { readFileSync } from 'fs';
import { parseArgs } from 'util';
import { closest } from '../messages';

export interface CliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** All of standard input, for a `-` argument. @default - read file descriptor 0 */
  readonly stdin?: () => string;
}

export const processIO: CliIO = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  stdin: () => readFileSync(0, 'utf8'),
};

/** A command: its name, a line for the command list, its help, and how it runs (returns the exit code). */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly help: string;
  run(args: readonly string[], io: CliIO): number;
}

/** Exit codes (docs/frontends/cli.md). */
export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

/** A command line that does not fit the command: printed with a pointer to its help, exit 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
}

export interface Parsed {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/**
 * Parses a command's arguments strictly. Returns undefined after printing the
 * command's help when `-h`/`--help` is among the options (exit 0).
 */
export function parseCommand(
  command: Command,
  args: readonly string[],
  io: CliIO,
  options: Readonly<Record<string, OptionSpec>>,
  allowPositionals = true,
): Parsed | undefined {
  const end = args.indexOf('--');
  if ((end < 0 ? args : args.slice(0, end)).some((a) => a === '-h' || a === '--help')) {
    io.stdout(command.help);
    return undefined;
  }
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { ...options },
      allowPositionals,
      strict: true,
    });
    return { values, positionals };
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (!code?.startsWith('ERR_PARSE_ARGS_')) throw e;
    throw new UsageError(parseProblem(e as Error, code, Object.keys(options)), command.name);
  }
}

/** One line for a parseArgs error, naming the option as given. */
function parseProblem(e: Error, code: string, known: readonly string[]): string {
  const quoted = /'([^']+)'/.exec(e.message)?.[1]?.replace(/ <value>$/, '') ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const guess = closest(quoted.replace(/^-+/, ''), known);
    return `unknown option "${quoted}"${guess ? ` (did you mean --${guess}?)` : ''}`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `unexpected argument "${quoted}"`;
  if (/does not take an argument/.test(e.message)) return `${quoted} takes no value`;
  if (/ambiguous/.test(e.message))
    return `${quoted} needs a value (a value that starts with "-" is written ${quoted.split(', ').pop()}=VALUE)`;
  return `${quoted} needs a value`;
}

/** A string option's value among `allowed` (the first is the default). */
export function choice<T extends string>(
  command: string,
  flag: string,
  value: string | boolean | undefined,
  allowed: readonly T[],
): T {
  if (value === undefined) return allowed[0];
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag}: received ${JSON.stringify(value)}; allowed: ${allowed.join(', ')}`, command);
}

/** Policy file arguments: at least one; `-` (standard input) at most once. */
export function policyFiles(command: string, positionals: readonly string[]): readonly string[] {
  if (positionals.length === 0)
    throw new UsageError('no policy file given (a file name, or - for standard input)', command);
  if (positionals.filter((p) => p === '-').length > 1)
    throw new UsageError('"-" (standard input) can be given only once', command);
  return positionals;
}

/** What messages call standard input. */
const STDIN_NAME = '<stdin>';

/** The text of a file argument (`-`: standard input) and the name messages give it. */
export function readInput(path: string, io: CliIO): { readonly name: string; readonly text: string } {
  if (path === '-') return { name: STDIN_NAME, text: (io.stdin ?? processIO.stdin!)() };
  return { name: path, text: readFileSync(path, 'utf8') };
}
