// `backup-cronjobs discover`: the shards: list of a running cluster. --vtctld runs the vtctldclient
// stand-in (the real FindAllShardsInKeyspace output), --sentinel a real redis-sentinel through redis-cli.
import { copyFileSync, chmodSync, mkdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { parse } from 'yaml';
import { renderPolicy } from '../../../lib';
import { sentinelMasters, vitessShards } from '../../../lib/cli/discover';
import { startRedis, startSentinel } from '../../support/services';
import { redisPolicy } from '../engines/redis/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { run, tempDir } from './fixtures';

const dir = tempDir('discover');

/** Runs the CLI with these environment variables set (and restored after). */
function runWithEnv(env: Record<string, string | undefined>, args: readonly string[]) {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  try {
    for (const [k, v] of Object.entries(env))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    return run(args);
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

test('--help (exit 0) says which client each form runs and that it must be on PATH', () => {
  const r = run(['discover', '--help']);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('vtctldclient --server ADDR FindAllShardsInKeyspace K');
  expect(r.stdout).toContain('(vtctldclient must be on PATH)');
  expect(r.stdout).toContain('redis-cli -h HOST -p PORT SENTINEL MASTERS');
  expect(r.stdout).toContain('(redis-cli must be on PATH');
  expect(run(['help', 'discover']).stdout).toBe(r.stdout);
  expect(run(['--help']).stdout).toMatch(/^ {2}discover {3}/m);
});

test.each([
  [[], /give either --vtctld ADDR --keyspace KEYSPACE or --sentinel HOST:PORT/],
  [['--vtctld', 'vtctld:15999', '--sentinel', '127.0.0.1:26379'], /give either/],
  [['--vtctld', 'vtctld:15999'], /--vtctld needs --keyspace KEYSPACE/],
  [['--sentinel', '127.0.0.1:26379', '--keyspace', 'commerce'], /--keyspace goes with --vtctld, not --sentinel/],
  [['--sentinel', 'sentinel'], /--sentinel: received "sentinel"; expected HOST:PORT or \[IPv6\]:PORT/],
  [['--sentinel', '127.0.0.1:70000'], /--sentinel: received "127\.0\.0\.1:70000"/],
  [['--keyspaces', 'commerce'], /unknown option "--keyspaces" \(did you mean --keyspace\?\)/],
  [['--vtctld', 'vtctld:15999', '--keyspace', 'commerce', 'extra'], /unexpected argument "extra"/],
])('usage error %j: exit 2, the problem and a pointer to --help', (args, problem) => {
  const r = run(['discover', ...args]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(problem);
  expect(r.stderr).toContain('Run "backup-cronjobs discover --help" for usage.');
});

describe('--vtctld: the serving shards of a keyspace', () => {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  copyFileSync(
    join(__dirname, '..', 'engines', 'vitess', 'fixtures', 'vtctldclient-stub.sh'),
    join(bin, 'vtctldclient'),
  );
  chmodSync(join(bin, 'vtctldclient'), 0o755);
  const calls = join(dir, 'calls');
  const discover = (env: Record<string, string>) =>
    runWithEnv({ PATH: `${bin}:${process.env.PATH}`, STUB_CALLS: calls, ...env }, [
      'discover',
      '--vtctld',
      'main-vtctld:15999',
      '--keyspace',
      'customer',
    ]);

  test('after a reshard of 80- into 80-c0 and c0- (80- not serving yet removed): the list names the serving shards, and pasted into a policy it renders their CronJobs', () => {
    const r = discover({ STUB_SHARDS: '-80 80-:not-serving 80-c0 c0-' });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(readFileSync(calls, 'utf8').trimEnd().split('\n').pop()).toBe(
      '--server main-vtctld:15999 --action_timeout 30s FindAllShardsInKeyspace customer',
    );
    expect(r.stdout).toMatch(
      /^# Vitess keyspace customer: its serving shards \(vtctld main-vtctld:15999\), for a strategy with keyspace: customer\n# not serving, left out: 80-\nshards:\n/,
    );
    const { shards } = parse(r.stdout) as { shards: string[] };
    expect(shards).toEqual(['-80', '80-c0', 'c0-']);
    const policy = vitessPolicy({
      schedules: [{ name: 'daily', schedule: '0 2 * * *', strategies: [{ keyspace: 'customer', shards }] }],
    });
    expect(renderPolicy(policy).map((o) => o.metadata.name)).toEqual([
      expect.stringMatching(/^example-scripts-[0-9a-f]{10}$/),
      'example-daily-customer-x-80',
      'example-daily-customer-80-c0',
      'example-daily-customer-c0-x',
    ]);
  });

  test('an unsharded keyspace: shards: ["-"] (quoted, or YAML would read a sequence)', () => {
    const r = discover({ STUB_SHARDS: '-' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nshards:\n {2}- "-"\n$/);
    expect(parse(r.stdout)).toEqual({ shards: ['-'] });
  });

  test("vtctld unreachable: exit 1, vtctldclient's error on stderr, nothing on stdout", () => {
    const r = discover({ STUB_UNREACHABLE: 'yes' });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^discover: vtctldclient --server main-vtctld:15999 --action_timeout 30s FindAllShardsInKeyspace customer failed: rpc error: code = DeadlineExceeded desc = latest balancer error: connection error: .*connection refused"\n$/,
    );
  });

  test('vtctldclient not on PATH: exit 1, saying so and where to get it', () => {
    const r = runWithEnv({ PATH: join(dir, 'empty') }, [
      'discover',
      '--vtctld',
      'main-vtctld:15999',
      '--keyspace',
      'customer',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^discover: vtctldclient is not on PATH; discover runs it to ask the cluster: install it from a Vitess release/,
    );
  });
});

describe('--sentinel: the masters a real Sentinel monitors', () => {
  test("two shards behind a password-protected Sentinel: the list (sorted) validates as a Redis policy's shards; without REDISCLI_AUTH, exit 1 with the NOAUTH reply", async () => {
    const shard02 = await startRedis();
    const shard01 = await startRedis();
    const sentinel = await startSentinel({
      password: 's3cret',
      masters: [
        { name: 'shard02', host: shard02.host, port: shard02.port },
        { name: 'shard01', host: shard01.host, port: shard01.port },
      ],
    });
    try {
      const address = `${sentinel.host}:${sentinel.port}`;
      const r = runWithEnv({ REDISCLI_AUTH: 's3cret' }, ['discover', '--sentinel', address]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(
        `# Redis: the masters Sentinel ${address} monitors, for spec.redis.shards\nshards:\n  - shard01\n  - shard02\n`,
      );
      const { shards } = parse(r.stdout) as { shards: string[] };
      expect(
        renderPolicy(redisPolicy({ shards }))
          .filter((o) => o.kind === 'CronJob')
          .map((o) => o.metadata.name),
      ).toEqual(['redis-shard01', 'redis-shard02']);

      const denied = runWithEnv({ REDISCLI_AUTH: undefined }, ['discover', '--sentinel', address]);
      expect(denied.code).toBe(1);
      expect(denied.stdout).toBe('');
      expect(denied.stderr).toMatch(
        /^discover: redis-cli --no-auth-warning -e -h 127\.0\.0\.1 -p \d+ SENTINEL MASTERS failed: NOAUTH Authentication required\.\n$/,
      );
    } finally {
      await sentinel.stop();
      await shard01.stop();
      await shard02.stop();
    }
  });

  test("nothing listens there: exit 1 with redis-cli's connection error", () => {
    const r = run(['discover', '--sentinel', '127.0.0.1:1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/failed: Could not connect to Redis at 127\.0\.0\.1:1: Connection refused\n$/);
  });
});

describe("reading the clients' answers", () => {
  test('FindAllShardsInKeyspace: anything else than its JSON is an error naming what is missing', () => {
    expect(() => vitessShards('E0914 01:23:16.047192 1 main.go:56] boom')).toThrow(/vtctldclient printed no JSON/);
    expect(() => vitessShards('{"backups": []}')).toThrow(/no "shards" object/);
    expect(() => vitessShards('{"shards": {"-80": {"name": "-80"}}}')).toThrow(
      /shard -80 without shard\.is_primary_serving/,
    );
    expect(vitessShards('{"shards": {}}')).toEqual([]);
  });

  test('SENTINEL MASTERS: fields and values one per line, each master starting with "name"', () => {
    expect(sentinelMasters('name\nb\nflags\nmaster\nname\na\nflags\nmaster,s_down\n')).toEqual(['a', 'b']);
    expect(sentinelMasters('')).toEqual([]);
    expect(() => sentinelMasters('ERR unknown command\n')).toThrow(/redis-cli printed no SENTINEL MASTERS reply/);
    expect(() => sentinelMasters('flags\nmaster\n')).toThrow(/no SENTINEL MASTERS reply/);
  });
});
