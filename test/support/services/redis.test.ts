// Redis shards (master + replica) and Redis Sentinel on loopback.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { RedisShard, SentinelHandle, runCommand, startRedisShard, startSentinel, stopAll } from '.';

const PASSWORD = 'redis-pw';
const SENTINEL_PASSWORD = 'sentinel-pw';

let shard: RedisShard;
let sentinel: SentinelHandle;
let scratch: string;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'services-redis-test-'));
  shard = await startRedisShard('main', { replicas: 1, password: PASSWORD });
  sentinel = await startSentinel({
    masters: [{ name: 'main', host: shard.master.host, port: shard.master.port, password: PASSWORD }],
    password: SENTINEL_PASSWORD,
  });
});

afterAll(async () => {
  await stopAll();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('redis + sentinel', () => {
  test('SET/GET through the master, the replica is synced, auth is enforced', async () => {
    const { master, replicas } = shard;
    expect(replicas).toHaveLength(1);
    expect(await master.cli(['SET', 'greeting', 'hello'])).toBe('OK');
    expect(await master.cli(['WAIT', '1', '5000'])).toBe('1');
    expect(await replicas[0].cli(['GET', 'greeting'])).toBe('hello');
    expect(await replicas[0].cli(['INFO', 'replication'])).toMatch(/role:slave[\s\S]*master_link_status:up/);
    expect(await master.cli(['CONFIG', 'GET', 'repl-diskless-sync-delay'])).toBe('repl-diskless-sync-delay\n0');
    expect(await master.cli(['CONFIG', 'GET', 'save'])).toBe('save\n');
    // without the password
    const r = await runCommand('redis-cli', ['-h', master.host, '-p', String(master.port), 'GET', 'greeting']);
    expect(r.stdout.toString()).toMatch(/NOAUTH/);
  });

  test('a dump from the replica works with REDISCLI_AUTH (what the backup script does)', async () => {
    const rdb = path.join(scratch, 'dump.rdb');
    const r = await runCommand('redis-cli', ['-h', '127.0.0.1', '-p', String(shard.replicas[0].port), '--rdb', rdb], {
      env: { PATH: process.env.PATH, REDISCLI_AUTH: PASSWORD },
      timeoutMs: 15000,
    });
    expect(r.code).toBe(0);
    expect(fs.readFileSync(rdb).subarray(0, 5).toString()).toBe('REDIS');
  });

  test('sentinel knows the master and the replica, and requires its password', async () => {
    expect(await sentinel.masterAddr('main')).toEqual({ host: '127.0.0.1', port: shard.master.port });
    const reps = await sentinel.replicas('main');
    expect(reps.map((x) => x.port)).toEqual([shard.replicas[0].port]);
    expect(reps[0].flags).toContain('slave');
    expect(reps[0].masterLinkStatus).toBe('ok');
    expect(await sentinel.cli(['SENTINEL', 'get-master-addr-by-name', 'main'])).toBe(`127.0.0.1\n${shard.master.port}`);
    const noAuth = await runCommand('redis-cli', ['-p', String(sentinel.port), 'SENTINEL', 'masters']);
    expect(noAuth.stdout.toString()).toMatch(/NOAUTH/);
    await expect(sentinel.waitForReplicas('main', 2, 500)).rejects.toThrow(/not ready after 500 ms/);
  });
});
