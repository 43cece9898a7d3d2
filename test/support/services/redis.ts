/** Redis servers (masters, replicas, shards) and Redis Sentinel. */
import * as fsp from 'fs/promises';
import * as path from 'path';
import { cleanEnv, requireCommands, runOk } from './commands';
import { BaseHandle, freePort, launch, waitReady } from './processes';

export interface RedisOptions {
  password?: string;
  replicaOf?: { host: string; port: number };
  /** `masterauth` for a replica (the master's requirepass). */
  masterPassword?: string;
  /** Extra `--name value` pairs for redis-server, e.g. ['--maxmemory', '10mb']. */
  extraArgs?: string[];
  readyTimeoutMs?: number;
}

export interface RedisHandle extends BaseHandle {
  host: string;
  port: number;
  password?: string;
  /** redis-cli -h host -p port ARGS (password via REDISCLI_AUTH). Output with the final newline removed.
   *  Note: redis-cli exits 0 for error replies, so e.g. "NOAUTH ..." comes back as a normal string. */
  cli(args: string[]): Promise<string>;
}

function redisCliFor(host: string, port: number, password?: string): (args: string[]) => Promise<string> {
  const cliPath = requireCommands('redis-cli')['redis-cli'];
  return async (args: string[]) => {
    const out = await runOk(cliPath, ['-h', host, '-p', String(port), ...args], {
      env: cleanEnv({ REDISCLI_AUTH: password }),
      timeoutMs: 20000,
    });
    return out.replace(/\n$/, '');
  };
}

export async function startRedis(opts: RedisOptions = {}): Promise<RedisHandle> {
  const host = '127.0.0.1';
  requireCommands('redis-cli');
  const { params, base } = await launch({
    label: opts.replicaOf ? 'redis-replica' : 'redis',
    binary: 'redis-server',
    prepare: async () => ({ port: await freePort() }),
    argv: ({ port }, dir) => {
      const a = [
        '--port',
        String(port),
        '--bind',
        host,
        '--dir',
        dir,
        '--daemonize',
        'no',
        '--save',
        '',
        '--appendonly',
        'no',
        '--repl-diskless-sync-delay',
        '0',
      ];
      if (opts.password !== undefined) a.push('--requirepass', opts.password);
      if (opts.replicaOf) a.push('--replicaof', opts.replicaOf.host, String(opts.replicaOf.port));
      if (opts.masterPassword !== undefined) a.push('--masterauth', opts.masterPassword);
      if (opts.extraArgs) a.push(...opts.extraArgs);
      return a;
    },
    ready: async (proc, { port }) => {
      const cli = redisCliFor(host, port, opts.password);
      await waitReady(proc, 'PING -> PONG', opts.readyTimeoutMs ?? 10000, async () => (await cli(['PING'])) === 'PONG');
      if (opts.replicaOf) {
        await waitReady(proc, 'INFO replication: master_link_status:up', opts.readyTimeoutMs ?? 20000, async () =>
          /master_link_status:up/.test(await cli(['INFO', 'replication'])),
        );
      }
    },
  });
  return {
    ...base,
    host,
    port: params.port,
    password: opts.password,
    cli: redisCliFor(host, params.port, opts.password),
  };
}

export interface SentinelMaster {
  name: string;
  host: string;
  port: number;
  /** The master's requirepass (becomes `sentinel auth-pass`). */
  password?: string;
}

export interface SentinelOptions {
  masters: SentinelMaster[];
  /** requirepass of the sentinel itself. */
  password?: string;
  downAfterMs?: number;
  readyTimeoutMs?: number;
}

export interface SentinelReplicaInfo {
  name: string;
  ip: string;
  port: number;
  flags: string[];
  masterLinkStatus: string;
  /** every field as returned by SENTINEL replicas */
  fields: Record<string, string>;
}

export interface SentinelHandle extends BaseHandle {
  host: string;
  port: number;
  password?: string;
  cli(args: string[]): Promise<string>;
  /** SENTINEL replicas <name>, parsed. */
  replicas(name: string): Promise<SentinelReplicaInfo[]>;
  /** Waits until at least `count` replicas of `name` are known AND healthy (flags without s_down/o_down/
   *  disconnected, master-link-status ok). */
  waitForReplicas(name: string, count: number, timeoutMs?: number): Promise<SentinelReplicaInfo[]>;
  /** SENTINEL get-master-addr-by-name <name> */
  masterAddr(name: string): Promise<{ host: string; port: number }>;
}

function pairsToObject(v: unknown): Record<string, string> {
  if (Array.isArray(v)) {
    const o: Record<string, string> = {};
    for (let i = 0; i + 1 < v.length; i += 2) o[String(v[i])] = String(v[i + 1]);
    return o;
  }
  const o: Record<string, string> = {};
  for (const [k, val] of Object.entries((v ?? {}) as Record<string, unknown>)) o[k] = String(val);
  return o;
}

function confQuote(s: string): string {
  return '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
}

export async function startSentinel(opts: SentinelOptions): Promise<SentinelHandle> {
  const host = '127.0.0.1';
  requireCommands('redis-cli');
  const downAfter = opts.downAfterMs ?? 5000;
  const { params, base, proc } = await launch({
    label: 'sentinel',
    binary: 'redis-sentinel',
    prepare: async (dir) => {
      const port = await freePort();
      const lines = [
        `port ${port}`,
        `bind ${host}`,
        'daemonize no',
        `dir ${confQuote(dir)}`,
        'logfile ""',
        'sentinel resolve-hostnames yes',
      ];
      if (opts.password !== undefined) lines.push(`requirepass ${confQuote(opts.password)}`);
      for (const m of opts.masters) {
        lines.push(`sentinel monitor ${m.name} ${m.host} ${m.port} 1`);
        lines.push(`sentinel down-after-milliseconds ${m.name} ${downAfter}`);
        if (m.password !== undefined) lines.push(`sentinel auth-pass ${m.name} ${confQuote(m.password)}`);
      }
      const conf = path.join(dir, 'sentinel.conf');
      await fsp.writeFile(conf, lines.join('\n') + '\n');
      return { port, conf };
    },
    argv: ({ conf }) => [conf],
    ready: async (p, { port }) => {
      const cli = redisCliFor(host, port, opts.password);
      await waitReady(p, 'PING -> PONG', opts.readyTimeoutMs ?? 10000, async () => (await cli(['PING'])) === 'PONG');
    },
  });
  const port = params.port;
  const cli = redisCliFor(host, port, opts.password);
  const replicas = async (name: string): Promise<SentinelReplicaInfo[]> => {
    const out = await cli(['-2', '--json', 'SENTINEL', 'replicas', name]);
    const parsed: unknown = JSON.parse(out || '[]');
    if (!Array.isArray(parsed)) throw new Error(`SENTINEL replicas ${name}: ${out}`);
    return parsed.map((r) => {
      const f = pairsToObject(r);
      return {
        name: f.name ?? '',
        ip: f.ip ?? '',
        port: Number(f.port),
        flags: (f.flags ?? '').split(','),
        masterLinkStatus: f['master-link-status'] ?? '',
        fields: f,
      };
    });
  };
  const healthy = (r: SentinelReplicaInfo): boolean =>
    r.flags.includes('slave') &&
    !r.flags.some((f) => f === 's_down' || f === 'o_down' || f === 'disconnected') &&
    r.masterLinkStatus === 'ok';
  const waitForReplicas = async (name: string, count: number, timeoutMs = opts.readyTimeoutMs ?? 20000) =>
    waitReady(proc, `SENTINEL replicas ${name}: ${count} healthy`, timeoutMs, async () => {
      const rs = await replicas(name);
      return rs.filter(healthy).length >= count ? rs : undefined;
    });
  const masterAddr = async (name: string) => {
    const out = await cli(['SENTINEL', 'get-master-addr-by-name', name]);
    const [h, p] = out.split('\n');
    if (!h || !p) throw new Error(`SENTINEL get-master-addr-by-name ${name}: ${JSON.stringify(out)}`);
    return { host: h, port: Number(p) };
  };
  const handle: SentinelHandle = {
    ...base,
    host,
    port,
    password: opts.password,
    cli,
    replicas,
    waitForReplicas,
    masterAddr,
  };
  try {
    for (const m of opts.masters) {
      // the master must be known and reachable, then all its currently connected replicas must be known
      await waitReady(proc, `SENTINEL master ${m.name} reachable`, opts.readyTimeoutMs ?? 15000, async () => {
        const f = pairsToObject(JSON.parse(await cli(['-2', '--json', 'SENTINEL', 'master', m.name])));
        const flags = (f.flags ?? '').split(',');
        return flags.includes('master') && !flags.includes('disconnected') && !flags.includes('s_down');
      });
      const info = await redisCliFor(m.host, m.port, m.password)(['INFO', 'replication']);
      const n = Number(/connected_slaves:(\d+)/.exec(info)?.[1] ?? 0);
      if (n > 0) await waitForReplicas(m.name, n);
    }
  } catch (e) {
    await handle.stop();
    throw e;
  }
  return handle;
}

export interface RedisShard {
  name: string;
  master: RedisHandle;
  replicas: RedisHandle[];
  password?: string;
  stop(): Promise<void>;
}

/** A master plus N replicas (default 1), all with the same password (requirepass + masterauth). */
export async function startRedisShard(
  name: string,
  opts: { replicas?: number; password?: string } = {},
): Promise<RedisShard> {
  const master = await startRedis({ password: opts.password });
  let replicas: RedisHandle[] = [];
  try {
    const started = await Promise.allSettled(
      Array.from({ length: opts.replicas ?? 1 }, () =>
        startRedis({
          password: opts.password,
          masterPassword: opts.password,
          replicaOf: { host: master.host, port: master.port },
        }),
      ),
    );
    replicas = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (e) {
    await Promise.all([...replicas.map((r) => r.stop()), master.stop()]);
    throw e;
  }
  return {
    name,
    master,
    replicas,
    password: opts.password,
    stop: async () => {
      await Promise.all(replicas.map((r) => r.stop()));
      await master.stop();
    },
  };
}
