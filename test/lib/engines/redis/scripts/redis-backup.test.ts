// The rendered Redis backup pods run for real: redis-dump (init) then s3-upload, with the
// manifest's command, args and env, against real redis-server/redis-sentinel, s3rver and
// prometheus-pushgateway on loopback.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { gunzipSync } from 'zlib';
import { renderPolicy } from '../../../../../lib';
import type { Manifest, RedisSpec } from '../../../../../lib';
import { RunContainerOptions, RunContainerResult, configMapsOf, resolvePodSpec, runContainer } from '../../../../support/run-container';
import {
  PushgatewayHandle,
  RedisHandle,
  RedisShard,
  S3Handle,
  SentinelHandle,
  freePort,
  requireCommands,
  runCommand,
  startPushgateway,
  startRedisShard,
  startS3,
  startSentinel,
  stopAll,
} from '../../../../support/services';
import { redisPolicy } from '../fixtures';

jest.setTimeout(120000);

const REDIS_PASSWORD = 'redis-pw-Zq7';
const SENTINEL_PASSWORD = 'sentinel-pw-K2x';
const BUCKET = 'backups';
const KEYS = { shard01: 150, shard02: 80 } as const;
const NAME = /^redis-backup_(shard0[12])_(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\.rdb\.gz$/;

let shard01: RedisShard;
let shard02: RedisShard;
let sentinel: SentinelHandle;
let s3: S3Handle;
let gateway: PushgatewayHandle;
const scratchDirs: string[] = [];

const secrets = (over: Record<string, Record<string, string>> = {}) => ({
  'redis-auth': { password: REDIS_PASSWORD },
  'sentinel-auth': { password: SENTINEL_PASSWORD },
  'aws-credentials': { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
  ...over,
});

/** Renders the policy against the loopback services; returns every object. */
function renderAll(redis: Partial<RedisSpec> = {}, spec: Record<string, unknown> = {}, policy = 'redis'): Manifest[] {
  return renderPolicy(redisPolicy({
    sentinel: { addresses: [`127.0.0.1:${sentinel.port}`], passwordSecret: { name: 'sentinel-auth', key: 'password' } },
    ...redis,
    s3: { bucket: BUCKET, path: 'prod/redis', region: 'us-east-1', endpoint: s3.endpoint, credentialsSecret: { name: 'aws-credentials' }, ...redis.s3 },
  }, { metrics: { pushgatewayUrl: gateway.url }, ...spec }, policy));
}

/** Renders the policy against the loopback services; returns the CronJob of each shard. */
function render(redis: Partial<RedisSpec> = {}, spec: Record<string, unknown> = {}, policy = 'redis'): Record<string, Manifest> {
  const out: Record<string, Manifest> = {};
  for (const o of renderAll(redis, spec, policy)) {
    if (o.kind === 'CronJob' && o.metadata.labels?.['app.kubernetes.io/component'] === 'backup') {
      out[o.metadata.labels['backup-cronjobs.io/shard']] = o;
    }
  }
  return out;
}

interface PodRun {
  dump: RunContainerResult;
  upload: RunContainerResult;
  scratch: string;
}

const BUSYBOX_APPLETS = ['sh', 'awk', 'sort', 'head', 'tail', 'wc', 'tr', 'sed', 'grep', 'timeout', 'date', 'mkdir', 'rm', 'mv', 'cat', 'gzip', 'printf', 'echo', 'test', '['];

/** A dir of busybox applet links, first on PATH: the toolset of the alpine redis image. */
function busyboxBin(): string {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-busybox-'));
  scratchDirs.push(bin);
  const busybox = requireCommands('busybox').busybox;
  for (const a of BUSYBOX_APPLETS) fs.symlinkSync(busybox, path.join(bin, a));
  return bin;
}

/**
 * The pod's containers in order, sharing its volumes, as the kubelet runs them. `busybox`: the
 * dump step's `/bin/sh` and tools are busybox's (same script, env and args).
 */
async function runPod(
  cronJob: Manifest,
  opts: { secrets?: ReturnType<typeof secrets>; pathPrepend?: string[]; dumpPathPrepend?: string[]; busybox?: boolean; configMaps?: RunContainerOptions['configMaps'] } = {},
): Promise<PodRun> {
  const job = JSON.parse(JSON.stringify(cronJob));
  const spec = resolvePodSpec(job);
  const bin = opts.busybox ? busyboxBin() : undefined;
  if (bin) {
    expect(spec.initContainers[0].command[0]).toBe('/bin/sh');
    spec.initContainers[0].command[0] = path.join(bin, 'sh');
  }
  const volumeDirs: Record<string, string> = {};
  const common = { secrets: opts.secrets ?? secrets(), configMaps: opts.configMaps, volumeDirs };
  const dump = await runContainer(spec, 'redis-dump', { ...common, timeoutMs: 30000, pathPrepend: bin ? [bin] : opts.dumpPathPrepend });
  // restartPolicy Never: a failed init container fails the pod before the main container.
  if (dump.code !== 0) throw new Error(`redis-dump exited ${dump.code}\n${dump.stderr}`);
  const upload = await runContainer(spec, 's3-upload', { ...common, timeoutMs: 60000, pathPrepend: opts.pathPrepend });
  const scratch = upload.mounts['/scratch'];
  scratchDirs.push(scratch);
  // REDIS_TEST_LOG=<file>: append every run's log there, to read what the containers say.
  if (process.env.REDIS_TEST_LOG) fs.appendFileSync(process.env.REDIS_TEST_LOG, `=== ${cronJob.metadata.name}\n${dump.stderr}${upload.stdout}${upload.stderr}`);
  return { dump, upload, scratch };
}

const errorLines = (r: RunContainerResult) => r.stderr.split('\n').filter((l) => / error /.test(l));

async function keysOfObject(key: string): Promise<number> {
  const rdb = gunzipSync(await s3.getObject(BUCKET, key));
  expect(rdb.subarray(0, 5).toString()).toBe('REDIS');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-rdb-')), 'dump.rdb');
  fs.writeFileSync(file, rdb);
  const r = await runCommand('redis-check-rdb', [file]);
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  const out = r.stdout.toString() + r.stderr;
  expect(r.code).toBe(0);
  expect(out).toContain('RDB looks OK');
  return Number(/(\d+) keys read/.exec(out)?.[1]);
}

async function syncFull(server: RedisHandle): Promise<number> {
  return Number(/sync_full:(\d+)/.exec(await server.cli(['INFO', 'stats']))?.[1]);
}

/** A metric's value for one shard's group, from the gateway's /metrics. */
async function metric(name: string, shard: string, policy = 'redis'): Promise<number | undefined> {
  const text = await gateway.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`shard="${shard}"`) && l.includes(`policy="${policy}"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function keysUnder(prefix: string): Promise<string[]> {
  return (await s3.listObjects(BUCKET, prefix)).map((o) => o.key);
}

async function fill(shard: RedisShard, n: number): Promise<void> {
  const args: string[] = [];
  for (let i = 0; i < n - 2; i++) args.push(`${shard.name}:key:${i}`, `value-${i}-${'x'.repeat(i % 50)}`);
  await shard.master.cli(['MSET', ...args]);
  await shard.master.cli(['HSET', `${shard.name}:hash`, 'a', '1', 'b', '2']);
  await shard.master.cli(['RPUSH', `${shard.name}:list`, 'x', 'y', 'z']);
  expect(await shard.master.cli(['WAIT', String(shard.replicas.length), '5000'])).toBe(String(shard.replicas.length));
}

beforeAll(async () => {
  requireCommands('redis-server', 'redis-sentinel', 'redis-cli', 'redis-check-rdb', 'prometheus-pushgateway', 'curl', 'gzip', 'sh', 'busybox');
  [shard01, shard02, s3, gateway] = await Promise.all([
    startRedisShard('shard01', { replicas: 2, password: REDIS_PASSWORD }),
    startRedisShard('shard02', { replicas: 1, password: REDIS_PASSWORD }),
    startS3({ buckets: [BUCKET] }),
    startPushgateway(),
  ]);
  await Promise.all([fill(shard01, KEYS.shard01), fill(shard02, KEYS.shard02)]);
  sentinel = await startSentinel({
    password: SENTINEL_PASSWORD,
    masters: [shard01, shard02].map((s) => ({ name: s.name, host: s.master.host, port: s.master.port, password: REDIS_PASSWORD })),
  });
});

afterAll(async () => {
  for (const d of scratchDirs) fs.rmSync(d, { recursive: true, force: true });
  await stopAll();
});

test('two shards: one object each, named redis-backup_<shard>_<UTC start>.rdb.gz, a valid RDB with all keys, dumped from a replica', async () => {
  const jobs = render();
  expect(Object.keys(jobs).sort()).toEqual(['shard01', 'shard02']);
  const servers = [shard01.master, ...shard01.replicas, shard02.master, ...shard02.replicas];
  const before = await Promise.all(servers.map(syncFull));
  const t0 = Math.floor(Date.now() / 1000);
  const runs = await Promise.all([runPod(jobs.shard01), runPod(jobs.shard02)]);
  const t1 = Math.ceil(Date.now() / 1000);
  for (const run of runs) {
    expect(run.upload.stderr).not.toMatch(/ error /);
    expect(run.upload.code).toBe(0);
    expect(fs.readdirSync(run.scratch)).toEqual([]); // scratch files removed
  }

  const keys = await keysUnder('prod/redis/');
  expect(keys).toHaveLength(2);
  for (const key of keys) {
    const m = NAME.exec(key.slice('prod/redis/'.length))!;
    expect(m).not.toBeNull();
    const t = Date.parse(m[2]) / 1000;
    expect(t).toBeGreaterThanOrEqual(t0);
    expect(t).toBeLessThanOrEqual(t1);
    const shard = m[1] as keyof typeof KEYS;
    expect(await keysOfObject(key)).toBe(KEYS[shard]);
    const head = JSON.parse(await s3.aws(['s3api', 'head-object', '--bucket', BUCKET, '--key', key]));
    const replica = (shard === 'shard01' ? shard01 : shard02).replicas.reduce((a, b) => (a.port < b.port ? a : b));
    expect(head.Metadata).toMatchObject({ 'redis-shard': shard, 'redis-role': 'replica', 'redis-server': `127.0.0.1:${replica.port}` });
  }
  expect(keys.map((k) => NAME.exec(k.slice('prod/redis/'.length))![1]).sort()).toEqual(['shard01', 'shard02']);

  // The full syncs were served by the lowest-addressed replica of each shard, never by a master.
  const after = await Promise.all(servers.map(syncFull));
  const served = servers.map((s, i) => after[i] - before[i]);
  const low = (s: RedisShard) => s.replicas.reduce((a, b) => (a.port < b.port ? a : b));
  expect(served).toEqual(servers.map((s) => (s === low(shard01) || s === low(shard02) ? 1 : 0)));
  expect(runs[0].dump.stderr).toContain(`dumping read-only replica 127.0.0.1:${low(shard01).port}`);
});

test('each run pushes duration, size, success/failure counts and the last-success time per shard', async () => {
  const objects = await s3.listObjects(BUCKET, 'prod/redis/');
  for (const shard of ['shard01', 'shard02']) {
    const object = objects.find((o) => o.key.includes(`_${shard}_`))!;
    expect(await metric('redis_backup_success_total', shard)).toBe(1);
    expect(await metric('redis_backup_failure_total', shard)).toBe(0);
    expect(await metric('redis_backup_last_run_success', shard)).toBe(1);
    expect(await metric('redis_backup_size_bytes', shard)).toBe(object.size);
    expect(await metric('redis_backup_duration_seconds', shard)).toBeGreaterThanOrEqual(0);
    const last = (await metric('redis_backup_last_success_timestamp_seconds', shard))!;
    expect(Math.abs(last - Date.now() / 1000)).toBeLessThan(120);
  }
  const text = await gateway.metrics();
  expect(text).toMatch(/redis_backup_success_total\{instance="",job="backup-cronjobs",namespace="default",policy="redis",shard="shard01",target="redis-shard01"\} 1/);
});

test('retention keeps the newest N objects of this shard and touches nothing else (dump step on busybox tools)', async () => {
  const old = (shard: string, ts: string) => `retention/redis-backup_${shard}_${ts}.rdb.gz`;
  const seeded = [
    old('shard01', '2023-09-20T08:30:01Z'),
    old('shard01', '2023-09-20T08:31:01Z'),
    old('shard01', '2023-09-20T08:32:01Z'),
    old('shard02', '2023-09-20T08:30:01Z'),
    old('shard02', '2023-09-20T08:31:01Z'),
    'retention/redis-backup_shard01_2023-09-20T08:29:01Z.rdb.gz.partial',
    'retention/notes.txt',
  ];
  for (const key of seeded) await s3.putObject(BUCKET, key, 'old');
  const fresh = (keys: string[]) => {
    const made = keys.filter((k) => k.startsWith('retention/redis-backup_shard01_') && !seeded.includes(k));
    expect(made).toHaveLength(1);
    return made[0];
  };
  const jobs = render({ s3: { bucket: BUCKET, path: 'retention', region: 'us-east-1' } }, { retention: { keepLast: 2 } });
  const run = await runPod(jobs.shard01, { busybox: true });
  expect(run.dump.stderr).not.toMatch(/ (warn|error) /);
  expect(run.upload.code).toBe(0);
  expect(await keysOfObject(fresh(await keysUnder('retention/')))).toBe(KEYS.shard01);
  expect(run.upload.stdout).toMatch(/keep\t.*shard01_2023-09-20T08:32:01Z/);
  const keys = await keysUnder('retention/');
  expect(keys.sort()).toEqual(
    [fresh(keys), old('shard01', '2023-09-20T08:32:01Z'), ...seeded.filter((k) => !k.includes('shard01_2023-09-20T08:3'))].sort(),
  );
  expect(await metric('redis_backup_success_total', 'shard01')).toBe(2); // counted on from the gateway's value
});

test('configMap mode: both steps source their modules from the policy\'s ConfigMap; backup, retention and metrics as inline', async () => {
  const spec = { retention: { keepLast: 1 }, scripts: { mode: 'configMap' } };
  const objects = renderAll({ shards: ['shard01'], s3: { bucket: BUCKET, path: 'sourced', region: 'us-east-1' } }, spec, 'sourced');
  const cronJob = objects.find((o) => o.kind === 'CronJob')!;
  const configMaps = configMapsOf(objects);
  expect(Object.keys(configMaps)).toEqual([expect.stringMatching(/^sourced-scripts-[0-9a-f]{10}$/)]);
  const older = 'sourced/redis-backup_shard01_2023-09-20T08:30:01Z.rdb.gz';
  await s3.putObject(BUCKET, older, 'old');
  const run = await runPod(cronJob, { configMaps });
  expect(run.dump.stderr).not.toMatch(/ error /);
  expect(run.upload.stderr).not.toMatch(/ error /);
  expect(run.upload.code).toBe(0);
  expect(run.upload.argv[2].split('\n')[1]).toMatch(/^\. \S+\/common\.sh; /);
  const keys = await keysUnder('sourced/');
  expect(keys).toHaveLength(1);
  expect(keys[0]).not.toBe(older); // keepLast: 1 pruned the older object
  expect(await keysOfObject(keys[0])).toBe(KEYS.shard01);
  expect(await metric('redis_backup_success_total', 'shard01', 'sourced')).toBe(1);
});

describe('failures: non-zero exit, one error line, no object, a failure counted', () => {
  const failures: Record<string, number> = {};

  // Runs of one shard never overlap (concurrencyPolicy Forbid), so neither do these: the
  // failure counter is read back from the gateway and pushed + 1.
  async function expectFailure(run: PodRun, message: RegExp, prefix: string, shard: 'shard01' | 'shard02', policy = 'redis'): Promise<void> {
    expect(run.upload.code).toBe(1);
    const errors = errorLines(run.upload);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(new RegExp(`backup of shard ${shard} failed: `));
    expect(errors[0]).toMatch(message);
    expect(await keysUnder(prefix)).toEqual([]);
    expect(fs.readdirSync(run.scratch)).toEqual([]);
    const group = `${policy}/${shard}`;
    failures[group] = (failures[group] ?? 0) + 1;
    expect(await metric('redis_backup_failure_total', shard, policy)).toBe(failures[group]);
    expect(await metric('redis_backup_last_run_success', shard, policy)).toBe(0);
  }

  test('Sentinels are tried in turn; none answering fails clearly; a Pushgateway down is only a warning', async () => {
    const closed = await freePort();
    const s3Dest = { bucket: BUCKET, path: 'sentinels', region: 'us-east-1' };
    // ... and a Pushgateway that is down costs a warning, not the backup.
    const okJobs = render(
      { s3: s3Dest, sentinel: { addresses: [`127.0.0.1:${closed}`, `127.0.0.1:${sentinel.port}`], passwordSecret: { name: 'sentinel-auth', key: 'password' } } },
      { metrics: { pushgatewayUrl: `http://127.0.0.1:${closed}` } },
    );
    const bad = render({ s3: { ...s3Dest, path: 'nosentinel' }, sentinel: { addresses: [`127.0.0.1:${closed}`] } });
    const [ok, failed] = await Promise.all([runPod(okJobs.shard01), runPod(bad.shard02)]);
    expect(ok.upload.code).toBe(0);
    expect(ok.dump.stderr).toMatch(new RegExp(`warn Sentinel 127.0.0.1:${closed}: .*Connection refused`));
    expect(ok.upload.stderr).toMatch(/ warn metrics not pushed: cannot read the current counters from http:\/\/127\.0\.0\.1:\d+\/metrics: .*/);
    expect(await keysUnder('sentinels/')).toHaveLength(1);
    await expectFailure(failed, /no Sentinel answered for shard shard02 \(127\.0\.0\.1:\d+: .*Connection refused\); no backup taken/, 'nosentinel/', 'shard02');
  });

  test('a wrong Redis or Sentinel password, or a dump redis-check-rdb rejects, fails clearly; no password on a command line', async () => {
    const jobs = render({ s3: { bucket: BUCKET, path: 'badpass', region: 'us-east-1' } });
    // A redis-check-rdb older than the server's RDB format (e.g. a 7.2 image against Redis 7.4).
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-fakecheck-'));
    scratchDirs.push(bin);
    fs.writeFileSync(path.join(bin, 'redis-check-rdb'), [
      '#!/bin/sh',
      'printf "[offset 0] Checking RDB file %s\\n--- RDB ERROR DETECTED ---\\n" "$1"',
      'printf "[offset 9] Can\'t handle RDB format version 12\\n[additional info] While doing: start\\n[info] 0 keys read\\n"',
      'exit 1',
    ].join('\n'), { mode: 0o755 });
    const rdbJobs = render({ s3: { bucket: BUCKET, path: 'badrdb', region: 'us-east-1' } }, {}, 'redis-rdb');
    const [wrongRedis, wrongSentinel, badRdb] = await Promise.all([
      runPod(jobs.shard01, { secrets: secrets({ 'redis-auth': { password: 'wrong' } }) }),
      runPod(jobs.shard02, { secrets: secrets({ 'sentinel-auth': { password: 'wrong' } }) }),
      runPod(rdbJobs.shard01, { dumpPathPrepend: [bin] }),
    ]);
    await expectFailure(badRdb, /redis-check-rdb rejected the dump from 127\.0\.0\.1:\d+ \(\d+ bytes\): \[offset 9\] Can't handle RDB format version 12 \(the image's redis-check-rdb is older than the server: .*verifyRdb: false\); no backup taken$/, 'badrdb/', 'shard01', 'redis-rdb');
    await expectFailure(wrongRedis, /no healthy read-only replica \(.*INFO replication failed: .*(WRONGPASS|NOAUTH).*allowMasterFallback is false/, 'badpass/', 'shard01');
    await expectFailure(wrongSentinel, /no Sentinel answered for shard shard02 \(.*(WRONGPASS|NOAUTH)/, 'badpass/', 'shard02');
    for (const r of [wrongRedis.dump, wrongSentinel.dump]) {
      expect(r.argv.join(' ')).not.toContain('wrong');
      expect(r.argv.join(' ')).not.toContain(REDIS_PASSWORD);
    }
  });

  test('S3 down, a missing bucket, or a stored size that does not match: no object under the final name', async () => {
    const closed = await freePort();
    const down = render({ s3: { bucket: BUCKET, path: 's3down', region: 'us-east-1', endpoint: `http://127.0.0.1:${closed}` } });
    const noBucket = render({ s3: { bucket: 'no-such-bucket', path: 'nobucket', region: 'us-east-1' } });
    // An S3 that reports another size than was sent: the object is deleted again.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-fakeaws-'));
    scratchDirs.push(bin);
    fs.writeFileSync(path.join(bin, 'aws'), [
      '#!/bin/sh',
      'for a in "$@"; do [ "$a" = head-object ] && { echo 7; exit 0; }; done',
      'exec /usr/bin/aws "$@"',
    ].join('\n'), { mode: 0o755 });
    // Another policy, so another metrics group: runs of one group never overlap.
    const badSize = render({ s3: { bucket: BUCKET, path: 'badsize', region: 'us-east-1' } }, {}, 'redis-size');
    const [downRun, noBucketRun, badSizeRun] = await Promise.all([
      runPod(down.shard01),
      runPod(noBucket.shard02),
      runPod(badSize.shard01, { pathPrepend: [bin] }),
    ]);
    await expectFailure(downRun, /upload to s3:\/\/backups\/s3down\/redis-backup_shard01_\S+ failed: Could not connect to the endpoint URL: .*; deleting that key to be sure failed too \(Could not connect/, 's3down/', 'shard01');
    await expectFailure(noBucketRun, /upload to s3:\/\/no-such-bucket\/nobucket\/redis-backup_shard02_\S+ failed: An error occurred \(NoSuchBucket\) when calling the PutObject operation/, 'nobucket/', 'shard02');
    await expectFailure(badSizeRun, /s3:\/\/backups\/badsize\/redis-backup_shard01_\S+ holds 7 bytes, the local dump \d+; no object left under that name$/, 'badsize/', 'shard01', 'redis-size');
  });

  test('a replica that is down is skipped for the next one; with none left, no master unless allowed', async () => {
    const [low, high] = [...shard01.replicas].sort((a, b) => a.port - b.port);
    await low.stop();
    const jobs = render({ s3: { bucket: BUCKET, path: 'failover', region: 'us-east-1' } });
    const next = await runPod(jobs.shard01);
    expect(next.upload.code).toBe(0);
    expect(next.dump.stderr).toContain(`dumping read-only replica 127.0.0.1:${high.port}`);
    const [key] = await keysUnder('failover/');
    expect(await keysOfObject(key)).toBe(KEYS.shard01);

    await shard02.replicas[0].stop();
    const none = await runPod(render({ s3: { bucket: BUCKET, path: 'nomaster', region: 'us-east-1' } }).shard02);
    await expectFailure(none, /shard shard02 has no healthy read-only replica \(.*\) and allowMasterFallback is false; no backup taken/, 'nomaster/', 'shard02');

    const masterSync = await syncFull(shard02.master);
    const fallback = await runPod(render({ allowMasterFallback: true, s3: { bucket: BUCKET, path: 'master', region: 'us-east-1' } }).shard02);
    expect(fallback.upload.code).toBe(0);
    expect(fallback.dump.stderr).toContain(`dumping the master 127.0.0.1:${shard02.master.port}`);
    expect(await syncFull(shard02.master)).toBe(masterSync + 1);
    const [masterKey] = await keysUnder('master/');
    expect(await keysOfObject(masterKey)).toBe(KEYS.shard02);
  });
});
