/** `backup-cronjobs discover --sentinel HOST:PORT`: the masters a Redis Sentinel monitors. */
import { DiscoverError, DiscoverUsageError } from '../discover';
import type { EngineDiscover } from '../discover';

/** `HOST:PORT` or `[v6]:PORT`. */
export function hostPort(address: string): { host: string; port: string } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):([0-9]{1,5})$/.exec(address);
  if (!m || Number(m[3]) < 1 || Number(m[3]) > 65535)
    throw new DiscoverUsageError(`--sentinel: received ${JSON.stringify(address)}; expected HOST:PORT or [IPv6]:PORT`);
  return { host: m[1] ?? m[2], port: m[3] };
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

export const redisDiscover: EngineDiscover = {
  flags: ['sentinel'],
  usage: '--sentinel HOST:PORT',
  what: 'Redis Sentinel',
  help: `  --sentinel HOST:PORT         the masters a Redis Sentinel monitors, for
                               spec.redis.shards ([v6]:PORT for IPv6); runs
                               redis-cli -h HOST -p PORT SENTINEL MASTERS
                               (redis-cli must be on PATH; a Sentinel password
                               goes in the REDISCLI_AUTH environment variable)`,
  install: { 'redis-cli': 'install it (Debian/Ubuntu package redis-tools, Alpine redis, Homebrew redis)' },
  discover: ({ sentinel }, run) => {
    const { host, port } = hostPort(sentinel!);
    const masters = sentinelMasters(
      run('redis-cli', ['--no-auth-warning', '-e', '-h', host, '-p', port, 'SENTINEL', 'MASTERS']),
    );
    return { comments: [`# Redis: the masters Sentinel ${sentinel} monitors, for spec.redis.shards`], shards: masters };
  },
};
