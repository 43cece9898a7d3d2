import { spawn } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  ETCD_PKI_FILES,
  EtcdTlsHandle,
  PushgatewayHandle,
  RedisShard,
  S3Handle,
  SentinelHandle,
  awsCliPath,
  requireCommands,
  runCommand,
  runningServices,
  signV4,
  startEtcdFromDataDir,
  startEtcdFromSnapshot,
  startEtcdTls,
  startPushgateway,
  startRedis,
  startRedisShard,
  startS3,
  startSentinel,
  stopAll,
} from '../support/services';

/** true while the process exists and is not a zombie */
function processAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function waitUntil(what: string, fn: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function withPath<T>(p: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.PATH;
  process.env.PATH = p;
  try {
    return await fn();
  } finally {
    process.env.PATH = saved;
  }
}

const PASSWORD = 'redis-pw';
const SENTINEL_PASSWORD = 'sentinel-pw';

let shard: RedisShard;
let sentinel: SentinelHandle;
let etcd: EtcdTlsHandle;
let s3: S3Handle;
let pushgw: PushgatewayHandle;
let scratch: string;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'services-test-'));
  // start everything concurrently; the sentinel needs the shard
  const redisSide = (async () => {
    shard = await startRedisShard('main', { replicas: 1, password: PASSWORD });
    sentinel = await startSentinel({
      masters: [{ name: 'main', host: shard.master.host, port: shard.master.port, password: PASSWORD }],
      password: SENTINEL_PASSWORD,
    });
  })();
  [etcd, s3, pushgw] = await Promise.all([startEtcdTls(), startS3({ buckets: ['backups', 'other'] }), startPushgateway(), redisSide]);
});

afterAll(async () => {
  await stopAll();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('requireCommands / missing binaries', () => {
  test('all service binaries of the integration tests are installed', () => {
    const found = requireCommands('redis-server', 'redis-sentinel', 'redis-cli', 'etcd', 'etcdctl', 'prometheus-pushgateway', 'openssl', 'curl');
    expect(Object.keys(found)).toHaveLength(8);
    for (const p of Object.values(found)) expect(path.isAbsolute(p)).toBe(true);
    expect(fs.existsSync(awsCliPath())).toBe(true);
  });

  test('a missing command fails with the Debian package to install', async () => {
    expect(() => requireCommands('sh', 'no-such-command-xyz')).toThrow(/no-such-command-xyz/);
    await withPath('/nonexistent', async () => {
      expect(() => requireCommands('etcdctl', 'redis-cli')).toThrow(/apt-get install -y --no-install-recommends etcd-client redis-tools/);
      await expect(startPushgateway()).rejects.toThrow(/prometheus-pushgateway/);
      await expect(startRedis()).rejects.toThrow(/redis-tools|redis-server/);
    });
  });

  test('a server that dies at start-up fails with its log tail', async () => {
    await expect(startRedis({ extraArgs: ['--no-such-directive', 'x'] })).rejects.toThrow(
      /exited before it was ready[\s\S]*log tail[\s\S]*no-such-directive/,
    );
  });
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

  test('stop() kills the server, removes its dir, and is idempotent', async () => {
    const before = runningServices();
    const r = await startRedis();
    expect(runningServices()).toBe(before + 1);
    expect(processAlive(r.pid)).toBe(true);
    expect(fs.existsSync(r.tmpDir)).toBe(true);
    expect(await r.cli(['PING'])).toBe('PONG');
    await r.stop();
    expect(processAlive(r.pid)).toBe(false);
    expect(fs.existsSync(r.tmpDir)).toBe(false);
    expect(runningServices()).toBe(before);
    await r.stop();
  });
});

describe('etcd with mTLS', () => {
  test('pki dir is laid out like kubeadm /etc/kubernetes/pki/etcd and verifies', async () => {
    for (const f of ETCD_PKI_FILES) expect(fs.existsSync(path.join(etcd.pkiDir, f))).toBe(true);
    expect(fs.statSync(path.join(etcd.pkiDir, 'healthcheck-client.key')).mode & 0o777).toBe(0o600);
    const text = (await runCommand('openssl', ['x509', '-in', path.join(etcd.pkiDir, 'server.crt'), '-noout', '-text'])).stdout.toString();
    expect(text).toMatch(/IP Address:127\.0\.0\.1/);
    expect(text).toMatch(/DNS:localhost/);
    expect(text).toMatch(/TLS Web Server Authentication, TLS Web Client Authentication/);
    const v = await runCommand('openssl', [
      'verify', '-CAfile', path.join(etcd.pkiDir, 'ca.crt'),
      path.join(etcd.pkiDir, 'server.crt'), path.join(etcd.pkiDir, 'healthcheck-client.crt'),
    ]);
    expect(v.stdout.toString()).toMatch(/server\.crt: OK[\s\S]*healthcheck-client\.crt: OK/);
  });

  test('etcdctl put/get over mTLS; without the client cert it fails', async () => {
    expect(etcd.endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect((await etcd.etcdctl(['put', '/registry/test', 'v1'])).trim()).toBe('OK');
    expect((await etcd.etcdctl(['get', '/registry/test', '--print-value-only'])).trim()).toBe('v1');
    const noCert = await etcd.etcdctlRaw(['--command-timeout=1s', 'get', '/registry/test'], { clientCert: false });
    expect(noCert.code).not.toBe(0);
    expect(noCert.stdout.toString()).not.toContain('v1');
    const plainHttp = await runCommand('etcdctl', [`--endpoints=${etcd.endpoint.replace('https', 'http')}`, '--dial-timeout=1s', '--command-timeout=1s', 'get', '/registry/test']);
    expect(plainHttp.code).not.toBe(0);
  });

  test('a snapshot restores into a new etcd that serves the keys', async () => {
    await etcd.etcdctl(['put', 'snap-key', 'snap-value']);
    const snap = path.join(scratch, 'etcd.snap');
    await etcd.etcdctl(['snapshot', 'save', snap]);

    const restored = await startEtcdFromSnapshot(snap);
    try {
      expect(restored.endpoint).toMatch(/^http:\/\//);
      expect((await restored.etcdctl(['get', 'snap-key', '--print-value-only'])).trim()).toBe('snap-value');
    } finally {
      await restored.stop();
    }
    expect(fs.existsSync(restored.tmpDir)).toBe(false);

    // a data dir restored by the caller with etcdctl's defaults
    const dataDir = path.join(scratch, 'restored');
    const r = await runCommand('etcdctl', ['snapshot', 'restore', snap, `--data-dir=${dataDir}`]);
    expect(r.code).toBe(0);
    const fromDir = await startEtcdFromDataDir(dataDir);
    try {
      expect((await fromDir.etcdctl(['get', '/registry/test', '--print-value-only'])).trim()).toBe('v1');
    } finally {
      await fromDir.stop();
    }
    expect(fs.existsSync(path.join(dataDir, 'member'))).toBe(true); // caller's dir is left alone
  });
});

describe('s3rver', () => {
  test('put/list/get roundtrip through the harness (binary-safe)', async () => {
    const body = crypto.randomBytes(100_000);
    await s3.putObject('backups', 'redis/main/2024-01-01T00:00:00Z.rdb.gz', body);
    await s3.putObject('backups', 'etcd/x y+z.db', 'small');
    await s3.putObject('other', 'redis/elsewhere', 'no');
    const all = await s3.listObjects('backups');
    expect(all.map((o) => [o.key, o.size])).toEqual([
      ['etcd/x y+z.db', 5],
      ['redis/main/2024-01-01T00:00:00Z.rdb.gz', 100_000],
    ]);
    expect((await s3.listObjects('backups', 'redis/')).map((o) => o.key)).toEqual(['redis/main/2024-01-01T00:00:00Z.rdb.gz']);
    expect(Buffer.compare(await s3.getObject('backups', 'redis/main/2024-01-01T00:00:00Z.rdb.gz'), body)).toBe(0);
    expect((await s3.getObject('backups', 'etcd/x y+z.db')).toString()).toBe('small');
    await expect(s3.getObject('backups', 'missing')).rejects.toThrow(/HTTP 404/);
  });

  test('the aws CLI works against it with awsEnv() (no AWS_CA_BUNDLE), and sees the same objects', async () => {
    expect(s3.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s3.awsEnv()).not.toHaveProperty('AWS_CA_BUNDLE');
    await s3.aws(['s3', 'cp', '-', 's3://backups/cli/from-stdin.txt'], 'via cli\n');
    expect(await s3.listObjects('backups', 'cli/')).toEqual([expect.objectContaining({ key: 'cli/from-stdin.txt', size: 8 })]);
    const listed = JSON.parse(await s3.aws(['s3api', 'list-objects-v2', '--bucket', 'backups', '--prefix', 'etcd/']));
    expect(listed.Contents.map((c: { Key: string }) => c.Key)).toEqual(['etcd/x y+z.db']);
  });

  test('setLastModified backdates an object; deleteObject removes it', async () => {
    await s3.putObject('backups', 'old/one', '1');
    const when = new Date('2020-02-03T04:05:06Z');
    await s3.setLastModified('backups', 'old/one', when);
    const [o] = await s3.listObjects('backups', 'old/');
    expect(o.lastModified.toISOString()).toBe('2020-02-03T04:05:06.000Z');
    await s3.deleteObject('backups', 'old/one');
    expect(await s3.listObjects('backups', 'old/')).toEqual([]);
  });

  test('signV4 matches the AWS documentation example (GET Object)', () => {
    const { authorization } = signV4({
      method: 'GET',
      host: 'examplebucket.s3.amazonaws.com',
      path: '/test.txt',
      headers: { Range: 'bytes=0-9' },
      payloadHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      amzDate: '20130524T000000Z',
      region: 'us-east-1',
      service: 's3',
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    });
    expect(authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });
});

describe('pushgateway', () => {
  test('a push with curl shows up in metrics()', async () => {
    expect(pushgw.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const r = await runCommand(
      'curl',
      ['-sS', '--fail-with-body', '--data-binary', '@-', `${pushgw.url}/metrics/job/redis_backup/instance/redis-main`],
      { input: '# TYPE backup_last_success_timestamp_seconds gauge\nbackup_last_success_timestamp_seconds 42\n' },
    );
    expect(r.code).toBe(0);
    expect(await pushgw.metrics()).toMatch(
      /^backup_last_success_timestamp_seconds\{instance="redis-main",job="redis_backup"\} 42$/m,
    );
  });
});

describe('orphan protection', () => {
  test('servers of a test process that is SIGKILLed are killed and their dirs removed', async () => {
    const child = path.join(scratch, 'child.ts');
    fs.writeFileSync(
      child,
      `import { startPushgateway } from ${JSON.stringify(path.resolve(__dirname, '../support/services'))};\n` +
        `startPushgateway().then((h) => { process.stdout.write(JSON.stringify({ pid: h.pid, dir: h.tmpDir }) + '\\n', () => process.kill(process.pid, 'SIGKILL')); });\n`,
    );
    const proc = spawn(process.execPath, ['-r', require.resolve('ts-node/register/transpile-only'), child], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: path.resolve(__dirname, '../..'),
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (b: Buffer) => (out += b.toString()));
    proc.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const signal = await new Promise<string | null>((resolve) => proc.on('close', (_c, s) => resolve(s)));
    expect({ signal, err }).toEqual({ signal: 'SIGKILL', err: '' });
    const { pid, dir } = JSON.parse(out) as { pid: number; dir: string };
    await waitUntil(`orphaned pushgateway ${pid} gone`, () => !processAlive(pid), 8000);
    await waitUntil(`orphaned dir ${dir} removed`, () => !fs.existsSync(dir), 8000);
  });
});
