/**
 * `discover`: the shards of a running cluster as the `shards:` list of a
 * policy. It runs the cluster's own clients, as the CronJobs do: vtctldclient
 * for Vitess, redis-cli for a Redis Sentinel.
 */
import { execFileSync } from 'child_process';
import { stringify } from 'yaml';
import { CliIO, Command, EXIT, UsageError, parseCommand } from './command';

export const discoverCommand: Command = {
  name: 'discover',
  summary: 'the shards of a running Vitess keyspace or Redis Sentinel, as a shards: list',
  help: `Usage: backup-cronjobs discover --vtctld ADDR --keyspace KEYSPACE
       backup-cronjobs discover --sentinel HOST:PORT

Asks a running cluster for its shards and prints the YAML shards: list to
paste into a policy:

  --vtctld ADDR --keyspace K   the serving shards of Vitess keyspace K, for a
                               strategy of spec.vitess.schedules; runs
                               vtctldclient --server ADDR FindAllShardsInKeyspace K
                               (vtctldclient must be on PATH)
  --sentinel HOST:PORT         the masters a Redis Sentinel monitors, for
                               spec.redis.shards ([v6]:PORT for IPv6); runs
                               redis-cli -h HOST -p PORT SENTINEL MASTERS
                               (redis-cli must be on PATH; a Sentinel password
                               goes in the REDISCLI_AUTH environment variable)

Options:
  -h, --help   show this help

Exit status: 0 printed; 1 the cluster could not be asked (the client is not
on PATH, failed, or printed something else than expected); 2 usage error.
`,
  run: discover,
};

/** The client's answer could not be had or read: one line on stderr, exit 1. */
class DiscoverError extends Error {}

function discover(args: readonly string[], io: CliIO): number {
  const parsed = parseCommand(
    discoverCommand,
    args,
    io,
    { vtctld: { type: 'string' }, keyspace: { type: 'string' }, sentinel: { type: 'string' } },
    false,
  );
  if (!parsed) return EXIT.ok;
  const { vtctld, keyspace, sentinel } = parsed.values as { vtctld?: string; keyspace?: string; sentinel?: string };
  if ((vtctld === undefined) === (sentinel === undefined))
    throw new UsageError('give either --vtctld ADDR --keyspace KEYSPACE or --sentinel HOST:PORT', 'discover');
  try {
    if (vtctld !== undefined) {
      if (!keyspace)
        throw new UsageError(
          '--vtctld needs --keyspace KEYSPACE (FindAllShardsInKeyspace lists one keyspace)',
          'discover',
        );
      const shards = vitessShards(
        run('vtctldclient', ['--server', vtctld, '--action_timeout', '30s', 'FindAllShardsInKeyspace', keyspace]),
      );
      const left = shards.filter((s) => !s.serving).map((s) => s.name);
      io.stdout(
        [
          `# Vitess keyspace ${keyspace}: its serving shards (vtctld ${vtctld}), for a strategy with keyspace: ${keyspace}`,
          ...(left.length > 0 ? [`# not serving, left out: ${left.join(' ')}`] : []),
          shardsYaml(shards.filter((s) => s.serving).map((s) => s.name)),
        ].join('\n'),
      );
    } else {
      if (keyspace !== undefined) throw new UsageError('--keyspace goes with --vtctld, not --sentinel', 'discover');
      const { host, port } = hostPort(sentinel!);
      const masters = sentinelMasters(
        run('redis-cli', ['--no-auth-warning', '-e', '-h', host, '-p', port, 'SENTINEL', 'MASTERS']),
      );
      io.stdout(
        [`# Redis: the masters Sentinel ${sentinel} monitors, for spec.redis.shards`, shardsYaml(masters)].join('\n'),
      );
    }
    return EXIT.ok;
  } catch (e) {
    if (!(e instanceof DiscoverError)) throw e;
    io.stderr(`discover: ${e.message}\n`);
    return EXIT.invalid;
  }
}

/** `shards:` with the names in order, quoted where YAML needs it (`"-80"`). */
function shardsYaml(names: readonly string[]): string {
  return stringify({ shards: names }, { version: '1.1' });
}

/** Where a missing client comes from. */
const INSTALL: Readonly<Record<string, string>> = {
  vtctldclient: 'install it from a Vitess release (or copy /vt/bin/vtctldclient out of the vitess/lite image)',
  'redis-cli': 'install it (Debian/Ubuntu package redis-tools, Alpine redis, Homebrew redis)',
};

/** Runs a cluster client; its stdout, or a DiscoverError saying what went wrong. */
function run(tool: string, args: readonly string[]): string {
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
        `${tool} is not on PATH; discover runs it to ask the cluster: ${INSTALL[tool] ?? 'install it'}, or put its directory on PATH`,
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

/** `HOST:PORT` or `[v6]:PORT`. */
export function hostPort(address: string): { host: string; port: string } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):([0-9]{1,5})$/.exec(address);
  if (!m || Number(m[3]) < 1 || Number(m[3]) > 65535)
    throw new UsageError(
      `--sentinel: received ${JSON.stringify(address)}; expected HOST:PORT or [IPv6]:PORT`,
      'discover',
    );
  return { host: m[1] ?? m[2], port: m[3] };
}

export interface VitessShard {
  readonly name: string;
  /** `is_primary_serving`: the shard serves its key range (false for the source or target side of a reshard). */
  readonly serving: boolean;
}

/**
 * The shards of `vtctldclient FindAllShardsInKeyspace` output
 * (`{"shards": {"<name>": {"keyspace", "name", "shard": {..., "is_primary_serving"}}}}`),
 * sorted by name.
 */
export function vitessShards(json: string): VitessShard[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new DiscoverError(`vtctldclient printed no JSON: ${JSON.stringify(json.slice(0, 200))}`);
  }
  const shards = (parsed as { shards?: unknown }).shards;
  if (shards === null || typeof shards !== 'object' || Array.isArray(shards))
    throw new DiscoverError('vtctldclient printed no "shards" object');
  return Object.entries(shards as Record<string, { shard?: { is_primary_serving?: unknown } }>)
    .map(([name, value]) => {
      const serving = value?.shard?.is_primary_serving;
      if (typeof serving !== 'boolean')
        throw new DiscoverError(`vtctldclient printed shard ${name} without shard.is_primary_serving`);
      return { name, serving };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The master names of `redis-cli SENTINEL MASTERS` output: per master, its
 * fields and values one per line (redis-cli's output when not on a terminal),
 * each master's first field `name`. Sorted.
 */
export function sentinelMasters(output: string): string[] {
  const lines = output.replace(/\r/g, '').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length % 2 !== 0 || (lines.length > 0 && lines[0] !== 'name')) {
    throw new DiscoverError(`redis-cli printed no SENTINEL MASTERS reply: ${JSON.stringify(output.slice(0, 200))}`);
  }
  const names: string[] = [];
  for (let i = 0; i < lines.length; i += 2) if (lines[i] === 'name') names.push(lines[i + 1]);
  return names.sort();
}
