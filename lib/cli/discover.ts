/**
 * `discover`: the shards of a running cluster as the `shards:` list of a
 * policy. It runs the cluster's own clients, as the CronJobs do; each engine
 * that can be asked says how (its `discover`, through the registry).
 */
import { execFileSync } from 'child_process';
import { stringify } from 'yaml';
import { DiscoverError, DiscoverUsageError } from '../engines/discover';
import type { EngineDiscover } from '../engines/discover';
import { DISCOVERERS } from '../registry';
import { CliIO, Command, EXIT, UsageError, parseCommand } from './command';

// Where test/lib/cli/discover.test.ts imports the engines' parsers from (an exception the architecture test lists).
export { vitessShards } from '../engines/vitess/discover';
export type { VitessShard } from '../engines/vitess/discover';
export { hostPort, sentinelMasters } from '../engines/redis/discover';

export const discoverCommand: Command = {
  name: 'discover',
  summary: `the shards of a running ${DISCOVERERS.map((d) => d.what).join(' or ')}, as a shards: list`,
  help: `Usage: ${DISCOVERERS.map((d) => `backup-cronjobs discover ${d.usage}`).join('\n       ')}

Asks a running cluster for its shards and prints the YAML shards: list to
paste into a policy:

${DISCOVERERS.map((d) => d.help).join('\n')}

Options:
  -h, --help   show this help

Exit status: 0 printed; 1 the cluster could not be asked (the client is not
on PATH, failed, or printed something else than expected); 2 usage error.
`,
  run: discover,
};

function discover(args: readonly string[], io: CliIO): number {
  const parsed = parseCommand(
    discoverCommand,
    args,
    io,
    Object.fromEntries(DISCOVERERS.flatMap((d) => d.flags.map((flag) => [flag, { type: 'string' as const }]))),
    false,
  );
  if (!parsed) return EXIT.ok;
  const values = parsed.values as Record<string, string | undefined>;
  const chosen = DISCOVERERS.filter((d) => values[d.flags[0]] !== undefined);
  if (chosen.length !== 1)
    throw new UsageError(`give either ${DISCOVERERS.map((d) => d.usage).join(' or ')}`, 'discover');
  const [engine] = chosen;
  for (const other of DISCOVERERS.filter((d) => d !== engine))
    for (const flag of other.flags.slice(1).filter((f) => values[f] !== undefined))
      throw new UsageError(`--${flag} goes with --${other.flags[0]}, not --${engine.flags[0]}`, 'discover');
  try {
    const { comments, shards } = engine.discover(values, (tool, toolArgs) => run(engine, tool, toolArgs));
    io.stdout([...comments, shardsYaml(shards)].join('\n'));
    return EXIT.ok;
  } catch (e) {
    if (e instanceof DiscoverUsageError) throw new UsageError(e.message, 'discover');
    if (!(e instanceof DiscoverError)) throw e;
    io.stderr(`discover: ${e.message}\n`);
    return EXIT.invalid;
  }
}

/** `shards:` with the names in order, quoted where YAML needs it (`"-80"`). */
function shardsYaml(names: readonly string[]): string {
  return stringify({ shards: names }, { version: '1.1' });
}

/** Runs a cluster client; its stdout, or a DiscoverError saying what went wrong. */
function run(engine: EngineDiscover, tool: string, args: readonly string[]): string {
  try {
    // env as this process sees it (PATH, REDISCLI_AUTH), also where a test runner sandboxes process.env
    return execFileSync(tool, args, {
      env: process.env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { status?: number | null; stderr?: string };
    if (err.code === 'ENOENT')
      throw new DiscoverError(
        `${tool} is not on PATH; discover runs it to ask the cluster: ${engine.install[tool] ?? 'install it'}, or put its directory on PATH`,
      );
    const last = (err.stderr ?? '')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .pop();
    throw new DiscoverError(
      `${tool} ${args.join(' ')} failed: ${last === undefined ? `exit status ${err.status}` : logMessage(last)}`,
    );
  }
}

/**
 * The message of a client's last log line: vtctldclient 24 and newer log JSON records by default
 * (`{"time", "level", "source", "msg"}`, Vitess go/vt/log/flags.go), of which the msg; any other line
 * (glog's `E<date> <pid> main.go:56] <msg>` before 24, redis-cli's) as it is.
 */
function logMessage(line: string): string {
  if (!line.startsWith('{')) return line;
  try {
    const record: unknown = JSON.parse(line);
    const msg = (record as { msg?: unknown } | null)?.msg;
    return typeof msg === 'string' ? msg : line;
  } catch {
    return line;
  }
}
