// The rendered Redis backup pods run for real: redis-dump and s3-upload at the same time (as the
// kubelet starts them), with the manifest's command, args and env, sharing the scratch volume,
// against real redis-server/redis-sentinel, s3rver and prometheus-pushgateway on loopback.
import { createHash, randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { gunzipSync, gzipSync } from 'zlib';
import { renderPolicy } from '../../../../../lib';
import type { Manifest, RedisSpec } from '../../../../../lib';
import { RunContainerOptions, RunContainerResult, configMapsOf, resolvePodSpec, runPod } from '../../../../support/run-container';
import {
  PushgatewayHandle,
  RedisHandle,
  RedisShard,
  S3Handle,
  SentinelHandle,
  awsCliPath,
  findCommand,
  freePort,
  requireCommands,
  runCommand,
  startPushgateway,
  startRedisShard,
  startS3,
  startSentinel,
  stopAll,
} from '../../../../support/services';
import { podOf, redisPolicy } from '../fixtures';

jest.setTimeout(120000);

const REDIS_PASSWORD = 'redis-pw-Zq7';
const SENTINEL_PASSWORD = 'sentinel-pw-K2x';
const BUCKET = 'backups';
const KEYS = { shard01: 150, shard02: 80 } as const;
/** shard03: random 1 KiB values, 16 MiB in all: its gzip stream is larger than the aws CLI's 8 MiB multipart chunk. */
const BIG_KEYS = 16384;
const NAME = /^redis-backup_(shard0[12])_(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\.rdb\.gz$/;

let shard01: RedisShard;
let shard02: RedisShard;
let shard03: RedisShard;
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
    shards: ['shard01', 'shard02', 'shard03'],
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

const BUSYBOX_APPLETS = ['sh', 'awk', 'sort', 'head', 'tail', 'wc', 'tr', 'sed', 'grep', 'timeout', 'date', 'mkdir', 'rm', 'mv', 'cat', 'gzip',
  'printf', 'echo', 'test', '[', 'dd', 'mkfifo', 'tee'];

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}

/** A dir of busybox applet links, first on PATH: the toolset of the alpine redis image. */
function busyboxBin(): string {
  const bin = tempDir('bcj-busybox-');
  const busybox = requireCommands('busybox').busybox;
  for (const a of BUSYBOX_APPLETS) fs.symlinkSync(busybox, path.join(bin, a));
  return bin;
}

/** An executable stand-in in a fresh dir, for pathPrepend. */
function standIn(name: string, lines: string[]): string {
  const bin = tempDir('bcj-standin-');
  fs.writeFileSync(path.join(bin, name), ['#!/bin/sh', ...lines, ''].join('\n'), { mode: 0o755 });
  return bin;
}

/**
 * The backup pod as the kubelet runs it (both containers at once, one scratch volume). `busybox`:
 * redis-dump's `/bin/sh` and tools are busybox's (same script, env and args).
 */
async function runBackupPod(
  cronJob: Manifest,
  opts: { secrets?: ReturnType<typeof secrets>; dump?: RunContainerOptions; upload?: RunContainerOptions; busybox?: boolean; configMaps?: RunContainerOptions['configMaps'] } = {},
): Promise<PodRun> {
  const spec = resolvePodSpec(JSON.parse(JSON.stringify(cronJob)));
  expect(spec.initContainers).toBeUndefined();
  const dump = { ...opts.dump };
  if (opts.busybox) {
    const bin = busyboxBin();
    const container = spec.containers.find((c: { name: string }) => c.name === 'redis-dump');
    expect(container.command[0]).toBe('/bin/sh');
    container.command[0] = path.join(bin, 'sh');
    dump.pathPrepend = [bin, ...(dump.pathPrepend ?? [])];
  }
  const { results } = await runPod(spec, {
    secrets: opts.secrets ?? secrets(),
    configMaps: opts.configMaps,
    timeoutMs: 90000,
    containers: { 'redis-dump': dump, 's3-upload': { ...opts.upload } },
  });
  const run = { dump: results['redis-dump'], upload: results['s3-upload'], scratch: results['s3-upload'].mounts['/scratch'] };
  scratchDirs.push(run.scratch);
  // REDIS_TEST_LOG=<file>: append every run's log there, to read what the containers say.
  if (process.env.REDIS_TEST_LOG) {
    fs.appendFileSync(process.env.REDIS_TEST_LOG, `=== ${cronJob.metadata.name}\n${run.dump.stderr}${run.upload.stdout}${run.upload.stderr}`);
  }
  expect(run.dump.timedOut).toBe(false);
  expect(run.upload.timedOut).toBe(false);
  return run;
}

/** Log lines of level error ("<time> <job> error <message>"). */
const errorLines = (r: RunContainerResult) => r.stderr.split('\n').filter((l) => /^\S+ \S+ error /.test(l));

/**
 * No dump at rest: every file left in the scratch volume is short. `cleanedUp`: both containers
 * ended by themselves and removed their own files: what is left is the stream pipe and the status files.
 */
function expectNoDumpAtRest(scratch: string, cleanedUp = true): void {
  const left: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const name of fs.readdirSync(dir)) {
      const full = path.join(dir, name);
      const st = fs.lstatSync(full);
      const at = rel ? `${rel}/${name}` : name;
      if (st.isDirectory()) {
        walk(full, at);
        continue;
      }
      left.push(`${at}${st.isFIFO() ? ' (pipe)' : ''}`);
      if (st.isFile()) expect(st.size).toBeLessThan(1024);
    }
  };
  walk(scratch, '');
  if (!cleanedUp) return;
  const allowed = ['stream (pipe)', 'dump.exit', 'upload.exit', 'result/ok', 'result/error', 'result/rdb_bytes', 'result/keys', 'result/uncovered',
    'stream.age (pipe)', 'encrypt.exit', 'result/encrypt-ok', 'result/encrypt-error', 'result/age_fingerprints'];
  expect(left.filter((f) => !allowed.includes(f))).toEqual([]);
}

async function keysOfObject(key: string): Promise<number> {
  const rdb = gunzipSync(await s3.getObject(BUCKET, key));
  expect(rdb.subarray(0, 5).toString()).toBe('REDIS');
  const file = path.join(tempDir('bcj-rdb-'), 'dump.rdb');
  fs.writeFileSync(file, rdb);
  const r = await runCommand('redis-check-rdb', [file]);
  const out = r.stdout.toString() + r.stderr;
  expect(r.code).toBe(0);
  expect(out).toContain('RDB looks OK');
  // The object is exactly the RDB: redis-check-rdb stops at the checksum, so compare the size too.
  const checked = /\[offset (\d+)\] \\o\/ RDB looks OK/.exec(out);
  expect(Number(checked?.[1])).toBe(rdb.length);
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

/** The backups under a prefix, without their metadata objects (`<name>.json`). */
async function backupsUnder(prefix: string): Promise<string[]> {
  return (await keysUnder(prefix)).filter((k) => !k.endsWith('.json'));
}

/** The metadata object of a backup: `<name without .age>.json`. */
async function metadataOf(key: string): Promise<Record<string, unknown>> {
  return JSON.parse((await s3.getObject(BUCKET, `${key.replace(/\.age$/, '')}.json`)).toString());
}

async function fill(shard: RedisShard, n: number): Promise<void> {
  const args: string[] = [];
  for (let i = 0; i < n - 2; i++) args.push(`${shard.name}:key:${i}`, `value-${i}-${'x'.repeat(i % 50)}`);
  await shard.master.cli(['MSET', ...args]);
  await shard.master.cli(['HSET', `${shard.name}:hash`, 'a', '1', 'b', '2']);
  await shard.master.cli(['RPUSH', `${shard.name}:list`, 'x', 'y', 'z']);
  expect(await shard.master.cli(['WAIT', String(shard.replicas.length), '5000'])).toBe(String(shard.replicas.length));
}

async function fillRandom(shard: RedisShard, n: number): Promise<void> {
  for (let i = 0; i < n; i += 512) {
    const args: string[] = [];
    for (let j = i; j < Math.min(n, i + 512); j++) args.push(`${shard.name}:key:${j}`, randomBytes(768).toString('base64'));
    await shard.master.cli(['MSET', ...args]);
  }
  expect(await shard.master.cli(['WAIT', String(shard.replicas.length), '20000'])).toBe(String(shard.replicas.length));
}

/** Resolves once `file` exists; rejects after `ms` (a stand-in that never got there). */
async function waitForFile(file: string, ms = 60000): Promise<void> {
  const end = Date.now() + ms;
  while (!fs.existsSync(file)) {
    if (Date.now() > end) throw new Error(`${file} did not appear within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  requireCommands('redis-server', 'redis-sentinel', 'redis-cli', 'redis-check-rdb', 'prometheus-pushgateway', 'curl', 'gzip', 'sh', 'head', 'dd', 'busybox');
  [shard01, shard02, shard03, s3, gateway] = await Promise.all([
    startRedisShard('shard01', { replicas: 2, password: REDIS_PASSWORD }),
    startRedisShard('shard02', { replicas: 1, password: REDIS_PASSWORD }),
    startRedisShard('shard03', { replicas: 1, password: REDIS_PASSWORD }),
    startS3({ buckets: [BUCKET] }),
    startPushgateway(),
  ]);
  await Promise.all([fill(shard01, KEYS.shard01), fill(shard02, KEYS.shard02), fillRandom(shard03, BIG_KEYS)]);
  sentinel = await startSentinel({
    password: SENTINEL_PASSWORD,
    masters: [shard01, shard02, shard03].map((s) => ({ name: s.name, host: s.master.host, port: s.master.port, password: REDIS_PASSWORD })),
  });
});

afterAll(async () => {
  for (const d of scratchDirs) fs.rmSync(d, { recursive: true, force: true });
  await stopAll();
});

test('two shards: one object each, named redis-backup_<shard>_<UTC start>.rdb.gz, exactly the RDB with all keys, dumped from a replica', async () => {
  const jobs = render();
  expect(Object.keys(jobs).sort()).toEqual(['shard01', 'shard02', 'shard03']);
  const servers = [shard01.master, ...shard01.replicas, shard02.master, ...shard02.replicas];
  const before = await Promise.all(servers.map(syncFull));
  const t0 = Math.floor(Date.now() / 1000);
  const runs = await Promise.all([runBackupPod(jobs.shard01), runBackupPod(jobs.shard02)]);
  const t1 = Math.ceil(Date.now() / 1000);
  for (const run of runs) {
    expect(run.dump.stderr).not.toMatch(/ (warn|error) /);
    expect(run.upload.stderr).not.toMatch(/ error /);
    expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
    expectNoDumpAtRest(run.scratch);
  }

  const keys = await backupsUnder('prod/redis/');
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
    expect(head.Metadata).toEqual({ 'redis-shard': shard, 'redis-role': 'replica', 'redis-server': `127.0.0.1:${replica.port}` });
    // the metadata object: what the restore drill compares with (the key count redis-check-rdb read)
    const rdbSize = gunzipSync(await s3.getObject(BUCKET, key)).length;
    expect(await metadataOf(key)).toEqual({
      name: key.slice('prod/redis/'.length), shard, time: m[2], server: `127.0.0.1:${replica.port}`, role: 'replica',
      rdbSize, keyCount: KEYS[shard], size: head.ContentLength, policy: 'redis',
    });
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

test('retention keeps the newest N objects of this shard and touches nothing else (dump side on busybox tools)', async () => {
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
  const run = await runBackupPod(jobs.shard01, { busybox: true });
  expect(run.dump.stderr).not.toMatch(/ (warn|error) /);
  expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
  expect(await keysOfObject(fresh(await backupsUnder('retention/')))).toBe(KEYS.shard01);
  expect(run.upload.stdout).toMatch(/keep\t.*shard01_2023-09-20T08:32:01Z/);
  const keys = await keysUnder('retention/');
  const made = fresh(keys.filter((k) => !k.endsWith('.json')));
  expect(keys.sort()).toEqual(
    [made, `${made}.json`, old('shard01', '2023-09-20T08:32:01Z'), ...seeded.filter((k) => !k.includes('shard01_2023-09-20T08:3'))].sort(),
  );
  expect(await metric('redis_backup_success_total', 'shard01')).toBe(2); // counted on from the gateway's value
});

test('a stream larger than one multipart chunk: the stored object is exactly the RDB (busybox and this machine\'s tools)', async () => {
  const jobs = render({ s3: { bucket: BUCKET, path: 'big', region: 'us-east-1' } }, {}, 'redis-big');
  for (const busybox of [true, false]) {
    const run = await runBackupPod(jobs.shard03, { busybox });
    expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
    expect(run.upload.stderr).not.toMatch(/ (warn|error) /);
    const [key] = await backupsUnder('big/');
    expect(await keysOfObject(key)).toBe(BIG_KEYS);
    const size = (await s3.listObjects(BUCKET, key))[0].size;
    expect(size).toBeGreaterThan(8 * 1024 * 1024);
    expect(run.upload.stderr).toContain(`verified s3://${BUCKET}/${key}: ${size} bytes stored`);
    await s3.deleteObject(BUCKET, key);
  }
});

test('the RDB sent with its length (repl-diskless-sync no on the replica), and verifyRdb: false: each object is exactly the RDB', async () => {
  // With diskless sync (the default since 7.0) `redis-cli --rdb -` passes on a 40-byte end mark that
  // the dump side strips; a server saving to disk first sends the length instead, and no mark.
  const replicas = shard01.replicas;
  await Promise.all(replicas.map((r) => r.cli(['CONFIG', 'SET', 'repl-diskless-sync', 'no'])));
  try {
    const run = await runBackupPod(render({ s3: { bucket: BUCKET, path: 'disksync', region: 'us-east-1' } }).shard01);
    expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
    const [key] = await backupsUnder('disksync/');
    expect(await keysOfObject(key)).toBe(KEYS.shard01);
  } finally {
    await Promise.all(replicas.map((r) => r.cli(['CONFIG', 'SET', 'repl-diskless-sync', 'yes'])));
  }
  const unchecked = await runBackupPod(render({ verifyRdb: false, s3: { bucket: BUCKET, path: 'unchecked', region: 'us-east-1' } }).shard02);
  expect([unchecked.dump.code, unchecked.upload.code]).toEqual([0, 0]);
  expect(unchecked.dump.stderr).not.toContain('redis-check-rdb');
  const [key] = await backupsUnder('unchecked/');
  expect(await keysOfObject(key)).toBe(KEYS.shard02);
});

test('configMap mode: both steps source their modules from the policy\'s ConfigMap; backup, retention and metrics as inline', async () => {
  const spec = { retention: { keepLast: 1 }, scripts: { mode: 'configMap' } };
  const objects = renderAll({ shards: ['shard01'], s3: { bucket: BUCKET, path: 'sourced', region: 'us-east-1' } }, spec, 'sourced');
  const cronJob = objects.find((o) => o.kind === 'CronJob')!;
  const configMaps = configMapsOf(objects);
  expect(Object.keys(configMaps)).toEqual([expect.stringMatching(/^sourced-scripts-[0-9a-f]{10}$/)]);
  const older = 'sourced/redis-backup_shard01_2023-09-20T08:30:01Z.rdb.gz';
  await s3.putObject(BUCKET, older, 'old');
  const run = await runBackupPod(cronJob, { configMaps });
  expect(run.dump.stderr).not.toMatch(/ error /);
  expect(run.upload.stderr).not.toMatch(/ error /);
  expect(run.upload.code).toBe(0);
  expect(run.upload.argv[2].split('\n')[1]).toMatch(/^\. \S+\/common\.sh; /);
  const keys = await backupsUnder('sourced/');
  expect(keys).toHaveLength(1);
  expect(keys[0]).not.toBe(older); // keepLast: 1 pruned the older object
  expect(await keysOfObject(keys[0])).toBe(KEYS.shard01);
  expect(await metric('redis_backup_success_total', 'shard01', 'sourced')).toBe(1);
});

describe('failures: non-zero exit, one error line, no object, a failure counted', () => {
  const failures: Record<string, number> = {};

  // Runs of one shard never overlap (concurrencyPolicy Forbid), so neither do these: the
  // failure counter is read back from the gateway and pushed + 1.
  async function expectFailure(run: PodRun, message: RegExp, prefix: string, shard: string, policy = 'redis', cleanedUp = true): Promise<void> {
    expect(run.upload.code).toBe(1);
    const errors = errorLines(run.upload);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(new RegExp(`backup of shard ${shard} failed: `));
    expect(errors[0]).toMatch(message);
    expect(await keysUnder(prefix)).toEqual([]);
    expectNoDumpAtRest(run.scratch, cleanedUp);
    const group = `${policy}/${shard}`;
    failures[group] = (failures[group] ?? 0) + 1;
    expect(await metric('redis_backup_failure_total', shard, policy)).toBe(failures[group]);
    expect(await metric('redis_backup_last_run_success', shard, policy)).toBe(0);
  }

  /** The dump side failed on its own: exit 1 and one error line, the same reason the upload side reports. */
  function expectDumpFailure(run: PodRun, message: RegExp): void {
    expect(run.dump.code).toBe(1);
    const errors = errorLines(run.dump);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
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
    const [ok, failed] = await Promise.all([runBackupPod(okJobs.shard01), runBackupPod(bad.shard02)]);
    expect([ok.dump.code, ok.upload.code]).toEqual([0, 0]);
    expect(ok.dump.stderr).toMatch(new RegExp(`warn Sentinel 127.0.0.1:${closed}: .*Connection refused`));
    expect(ok.upload.stderr).toMatch(/ warn metrics not pushed: cannot read the current counters from http:\/\/127\.0\.0\.1:\d+\/metrics: .*/);
    expect(await backupsUnder('sentinels/')).toHaveLength(1);
    const why = /no Sentinel answered for shard shard02 \(127\.0\.0\.1:\d+: .*Connection refused\); no backup taken/;
    expectDumpFailure(failed, why);
    await expectFailure(failed, why, 'nosentinel/', 'shard02');
  });

  test('a container that fails as it starts (a setting missing) ends the other at once, even one that starts later', async () => {
    const jobs = render({ s3: { bucket: BUCKET, path: 'startfail', region: 'us-east-1' } }, {}, 'redis-start');
    // redis-dump starting only once s3-upload has ended: a stand-in for mkfifo (the dump side's first
    // step) that waits for s3-upload's marker beside the pipe, then is the real mkfifo.
    const late = standIn('mkfifo', [
      'for a; do :; done',
      'while [ ! -e "$(dirname "$a")/upload.exit" ]; do sleep 0.05; done',
      `exec ${findCommand('mkfifo')} "$@"`,
    ]);
    const [noBucket, noSentinels] = await Promise.all([
      runBackupPod(jobs.shard01, { upload: { env: { S3_BUCKET: '' } }, dump: { pathPrepend: [late] } }),
      runBackupPod(jobs.shard02, { dump: { env: { REDIS_SENTINEL_ADDRESSES: '' } } }),
    ]);
    expect(noBucket.upload.code).toBe(1);
    expect(errorLines(noBucket.upload)).toEqual([expect.stringMatching(/ error environment variable S3_BUCKET is required but empty$/)]);
    expectDumpFailure(noBucket, /the upload container \(s3-upload\) ended before the dump started \(see its log\); no backup taken$/);
    expect(noBucket.dump.stderr).not.toContain('Sentinel'); // it did not dump for nothing
    const why = /environment variable REDIS_SENTINEL_ADDRESSES is required but empty$/;
    expectDumpFailure(noSentinels, why);
    await expectFailure(noSentinels, why, 'startfail/', 'shard02', 'redis-start');
  });

  test('a wrong Redis or Sentinel password says so (WRONGPASS), a dump redis-check-rdb cannot read fails clearly; no password on a command line', async () => {
    const jobs = render({ s3: { bucket: BUCKET, path: 'badpass', region: 'us-east-1' } });
    // A redis-check-rdb older than the server's RDB format (e.g. a 7.2 image against Redis 7.4). Its
    // lines are those of redis-check-rdb.c (rdbCheckInfo, rdbCheckError, rdbShowGenericInfo) for
    // "Can't handle RDB format version"; it reads its input first, like the real one.
    const bin = standIn('redis-check-rdb', [
      'head -c 9 "$1" >/dev/null',
      'printf "[offset 0] Checking RDB file %s\\n--- RDB ERROR DETECTED ---\\n" "$1"',
      'printf "[offset 9] Can\'t handle RDB format version 12\\n[additional info] While doing: start\\n[info] 0 keys read\\n"',
      'exit 1',
    ]);
    const rdbJobs = render({ s3: { bucket: BUCKET, path: 'badrdb', region: 'us-east-1' } }, {}, 'redis-rdb');
    const [wrongRedis, wrongSentinel, badRdb] = await Promise.all([
      runBackupPod(jobs.shard01, { secrets: secrets({ 'redis-auth': { password: 'wrong' } }) }),
      runBackupPod(jobs.shard02, { secrets: secrets({ 'sentinel-auth': { password: 'wrong' } }) }),
      runBackupPod(rdbJobs.shard01, { dump: { pathPrepend: [bin] } }),
    ]);
    const rdbWhy = /redis-check-rdb rejected the dump from 127\.0\.0\.1:\d+: \[offset 9\] Can't handle RDB format version 12 \(the image's redis-check-rdb is older than the server: .*verifyRdb: false\); no backup taken$/;
    expectDumpFailure(badRdb, rdbWhy);
    await expectFailure(badRdb, rdbWhy, 'badrdb/', 'shard01', 'redis-rdb');
    const redisWhy = /Redis 127\.0\.0\.1:\d+ \(replica of shard shard01\) refused the credentials: AUTH failed: WRONGPASS invalid username-password pair or user is disabled\.; check the Redis password and user/;
    expectDumpFailure(wrongRedis, redisWhy);
    await expectFailure(wrongRedis, redisWhy, 'badpass/', 'shard01');
    expect(errorLines(wrongRedis.upload)[0]).not.toMatch(/no healthy read-only replica/);
    const sentinelWhy = /the Sentinels refused the credentials for shard shard02 \(127\.0\.0\.1:\d+: AUTH failed: WRONGPASS invalid username-password pair or user is disabled\.\): check the Sentinel password/;
    expectDumpFailure(wrongSentinel, sentinelWhy);
    await expectFailure(wrongSentinel, sentinelWhy, 'badpass/', 'shard02');
    for (const r of [wrongRedis.dump, wrongSentinel.dump]) {
      expect(r.argv.join(' ')).not.toContain('wrong');
      expect(r.argv.join(' ')).not.toContain(REDIS_PASSWORD);
    }
  });

  test('a corrupted dump that the real redis-check-rdb rejects at its checksum: the upload never completes, nothing under the final name', async () => {
    // The real redis-cli, its stdout with one byte changed on the way: the first character of the
    // redis-ver aux value (offset 21: "REDIS00xx", 0xFA, length 9, "redis-ver", length), so the
    // file parses to the end and only its CRC64 gives it away -- after the whole stream was uploaded.
    const real = findCommand('redis-cli')!;
    const bin = standIn('redis-cli', [
      'case " $* " in',
      `  *" --rdb - "*) ;;`,
      `  *) exec ${real} "$@" ;;`,
      'esac',
      `{ ${real} "$@"; echo $? >"$0.status"; } | { head -c 21; dd bs=1 count=1 of=/dev/null 2>/dev/null; printf 8; cat; }`,
      'exit "$(cat "$0.status")"',
    ]);
    const jobs = render({ s3: { bucket: BUCKET, path: 'corrupt', region: 'us-east-1' } }, {}, 'redis-corrupt');
    const run = await runBackupPod(jobs.shard03, { dump: { pathPrepend: [bin] } });
    const why = /redis-check-rdb rejected the dump from 127\.0\.0\.1:\d+: \[offset \d+\] RDB CRC error; no backup taken$/;
    expectDumpFailure(run, why);
    await expectFailure(run, why, 'corrupt/', 'shard03', 'redis-corrupt');
    // The upload was stopped before its end; its parts (the stream is longer than one multipart
    // chunk) are to be aborted, which s3rver does not implement.
    expect(run.upload.stderr).toMatch(/ warn could not list the unfinished multipart uploads of s3:\/\/backups\/corrupt\/.*NotImplemented/);
  });

  test('S3 down, a missing bucket, or a stored size that does not match: no object under the final name', async () => {
    const closed = await freePort();
    const down = render({ s3: { bucket: BUCKET, path: 's3down', region: 'us-east-1', endpoint: `http://127.0.0.1:${closed}` } });
    const noBucket = render({ s3: { bucket: 'no-such-bucket', path: 'nobucket', region: 'us-east-1' } });
    // An S3 that reports another size than was sent (`--query ContentLength --output text` prints
    // the number alone): the object is deleted again.
    const bin = standIn('aws', [
      'for a in "$@"; do [ "$a" = head-object ] && { echo 7; exit 0; }; done',
      `exec ${awsCliPath()} "$@"`,
    ]);
    // Another policy, so another metrics group: runs of one group never overlap.
    const badSize = render({ s3: { bucket: BUCKET, path: 'badsize', region: 'us-east-1' } }, {}, 'redis-size');
    const [downRun, noBucketRun, badSizeRun] = await Promise.all([
      runBackupPod(down.shard01),
      runBackupPod(noBucket.shard02),
      runBackupPod(badSize.shard01, { upload: { pathPrepend: [bin] } }),
    ]);
    await expectFailure(downRun, /upload to s3:\/\/backups\/s3down\/redis-backup_shard01_\S+ failed: Could not connect to the endpoint URL: .*; deleting that key to be sure failed too \(Could not connect/, 's3down/', 'shard01');
    await expectFailure(noBucketRun, /upload to s3:\/\/no-such-bucket\/nobucket\/redis-backup_shard02_\S+ failed: An error occurred \(NoSuchBucket\) when calling the PutObject operation/, 'nobucket/', 'shard02');
    await expectFailure(badSizeRun, /s3:\/\/backups\/badsize\/redis-backup_shard01_\S+ holds 7 bytes, the upload sent \d+; no object left under that name$/, 'badsize/', 'shard01', 'redis-size');
    for (const run of [downRun, noBucketRun, badSizeRun]) expect(run.dump.code).toBe(0); // the dump itself was good
  });

  /**
   * A stand-in for aws: the real CLI, held at one point until `release` appears in STANDIN_DIR.
   * STANDIN_HOLD=upload: an `s3 cp -` upload gets the first MiB of its input, then `upload-started`
   * appears and the rest waits. STANDIN_HOLD=verify: `s3api head-object` writes `verifying` and
   * waits. It prints nothing of its own. A TERM is noted in `aws-got-term`, then ends the real CLI
   * and the stand-in.
   */
  function heldAws(): { bin: string; dir: string } {
    const dir = tempDir('bcj-held-');
    const bin = standIn('aws', [
      'hold() { while [ ! -e "$STANDIN_DIR/release" ]; do sleep 0.05; done; }',
      'case "$STANDIN_HOLD: $* " in',
      '  *"verify: "*" s3api head-object "*) : >"$STANDIN_DIR/verifying"; hold; exec ' + awsCliPath() + ' "$@" ;;',
      '  *"upload: "*" s3 cp "*" - s3://"*) ;;',
      '  *) exec ' + awsCliPath() + ' "$@" ;;',
      'esac',
      'trap \'echo TERM >"$STANDIN_DIR/aws-got-term"; kill "$real" 2>/dev/null; exit 143\' TERM',
      '{ head -c 1048576; : >"$STANDIN_DIR/upload-started"; hold; cat; } | ' + awsCliPath() + ' "$@" &',
      'real=$!',
      'wait "$real"',
    ]);
    return { bin, dir };
  }

  /** Runs shard03's pod with the held aws; `during` acts once the condition file appears, then releases the hold. */
  async function heldRun(
    policy: string,
    prefix: string,
    condition: 'upload-started' | 'verifying',
    during: (pids: { dump: number; upload: number }) => void,
  ): Promise<{ run: PodRun; held: { dir: string } }> {
    const held = heldAws();
    const pids = { dump: 0, upload: 0 };
    const jobs = render({ s3: { bucket: BUCKET, path: prefix, region: 'us-east-1' } }, {}, policy);
    const running = runBackupPod(jobs.shard03, {
      dump: { onSpawn: (pid) => (pids.dump = pid) },
      upload: {
        pathPrepend: [held.bin],
        env: { STANDIN_DIR: held.dir, STANDIN_HOLD: condition === 'verifying' ? 'verify' : 'upload' },
        onSpawn: (pid) => (pids.upload = pid),
      },
    });
    await waitForFile(path.join(held.dir, condition));
    during(pids);
    fs.writeFileSync(path.join(held.dir, 'release'), '');
    return { run: await running, held };
  }

  test('the deadline (TERM to both containers) in the middle of the upload: both stop at once, exit 1, nothing stored, the failure pushed', async () => {
    const { run, held } = await heldRun('redis-term', 'term', 'upload-started', (pids) => {
      process.kill(pids.upload, 'SIGTERM');
      process.kill(pids.dump, 'SIGTERM');
    });
    expect(fs.existsSync(path.join(held.dir, 'aws-got-term'))).toBe(true); // the upload was stopped, not let finish
    expectDumpFailure(run, /stopped by SIGTERM \(the Job's deadline, or the pod was deleted\); no backup taken$/);
    await expectFailure(run, /stopped by SIGTERM \(the Job's deadline, or the pod was deleted\); no object stored under s3:\/\/backups\/term\/redis-backup_shard03_/, 'term/', 'shard03', 'redis-term');
  });

  test('TERM while the stored size is being checked: the object already under the final name is deleted', async () => {
    const { run } = await heldRun('redis-term-verify', 'termverify', 'verifying', (pids) => {
      process.kill(pids.upload, 'SIGTERM');
    });
    expect(run.dump.code).toBe(0);
    await expectFailure(run, /stopped by SIGTERM \(the Job's deadline, or the pod was deleted\) before s3:\/\/backups\/termverify\/\S+ was verified; no object left under that name$/, 'termverify/', 'shard03', 'redis-term-verify');
  });

  test('the upload container dies in the middle of the stream: the dump side fails at once, nothing stored', async () => {
    const { run } = await heldRun('redis-upload-killed', 'uploadkilled', 'upload-started', (pids) => {
      process.kill(-pids.upload, 'SIGKILL'); // the container's processes, as when it is OOM-killed
    });
    expect(run.upload.signal).toBe('SIGKILL');
    expectDumpFailure(run, /the upload container \(s3-upload\) stopped reading the stream \(see its log\); no backup taken$/);
    expect(await keysUnder('uploadkilled/')).toEqual([]);
  });

  test('the dump container dies in the middle of the stream: the upload never completes, the failure is pushed', async () => {
    const { run, held } = await heldRun('redis-dump-killed', 'dumpkilled', 'upload-started', (pids) => {
      process.kill(-pids.dump, 'SIGKILL');
    });
    expect(run.dump.signal).toBe('SIGKILL');
    expect(fs.existsSync(path.join(held.dir, 'aws-got-term'))).toBe(true);
    // The killed side could not remove its own files: only their size is checked.
    await expectFailure(run, /the dump container \(redis-dump\) ended without a result \(killed\? see its log\); no backup taken$/, 'dumpkilled/', 'shard03', 'redis-dump-killed', false);
  });

  test('a replica that is down is skipped for the next one; with none left, no master unless allowed', async () => {
    const [low, high] = [...shard01.replicas].sort((a, b) => a.port - b.port);
    await low.stop();
    const jobs = render({ s3: { bucket: BUCKET, path: 'failover', region: 'us-east-1' } });
    const next = await runBackupPod(jobs.shard01);
    expect([next.dump.code, next.upload.code]).toEqual([0, 0]);
    expect(next.dump.stderr).toContain(`dumping read-only replica 127.0.0.1:${high.port}`);
    const [key] = await backupsUnder('failover/');
    expect(await keysOfObject(key)).toBe(KEYS.shard01);

    await shard02.replicas[0].stop();
    const none = await runBackupPod(render({ s3: { bucket: BUCKET, path: 'nomaster', region: 'us-east-1' } }).shard02);
    const why = /shard shard02 has no healthy read-only replica \(.*\) and allowMasterFallback is false; no backup taken/;
    expectDumpFailure(none, why);
    await expectFailure(none, why, 'nomaster/', 'shard02');

    const masterSync = await syncFull(shard02.master);
    const fallback = await runBackupPod(render({ allowMasterFallback: true, s3: { bucket: BUCKET, path: 'master', region: 'us-east-1' } }).shard02);
    expect([fallback.dump.code, fallback.upload.code]).toEqual([0, 0]);
    expect(fallback.dump.stderr).toContain(`dumping the master 127.0.0.1:${shard02.master.port}`);
    expect(await syncFull(shard02.master)).toBe(masterSync + 1);
    const [masterKey] = await backupsUnder('master/');
    expect(await keysOfObject(masterKey)).toBe(KEYS.shard02);
  });
});

describe('coverage, encryption and restore drills', () => {
  let identity: string;
  let recipient: string;
  let wrongIdentity: string;
  const ageSecrets = (key: string) => secrets({ 'age-identity': { 'identity.txt': key } });

  beforeAll(async () => {
    requireCommands('age', 'age-keygen');
    const keygen = async () => {
      const file = path.join(tempDir('bcj-age-'), 'key.txt');
      const r = await runCommand('age-keygen', ['-o', file]);
      expect(r.code).toBe(0);
      return fs.readFileSync(file, 'utf8');
    };
    identity = await keygen();
    wrongIdentity = await keygen();
    recipient = /^# public key: (age1\S+)$/m.exec(identity)![1];
  });

  const encryption = (image = 'alpine-age:3.20') => ({ encryption: { age: { recipients: [recipient], identitySecret: { name: 'age-identity', key: 'identity.txt' }, image } } });

  /** The drill CronJob of a shard. */
  function drillOf(objects: Manifest[], shard: string): Manifest {
    return objects.find((o) => o.kind === 'CronJob' && o.metadata.labels?.['app.kubernetes.io/component'] === 'restore-drill'
      && o.metadata.labels['backup-cronjobs.io/shard'] === shard)!;
  }

  async function runDrill(cronJob: Manifest, opts: { secrets?: ReturnType<typeof secrets>; restore?: RunContainerOptions } = {}) {
    const { results } = await runPod(resolvePodSpec(JSON.parse(JSON.stringify(cronJob))), {
      secrets: opts.secrets ?? ageSecrets(identity),
      timeoutMs: 90000,
      containers: { restore: { ...opts.restore } },
    });
    const report = results.report;
    if (process.env.REDIS_TEST_LOG) {
      fs.appendFileSync(process.env.REDIS_TEST_LOG, `=== ${cronJob.metadata.name}\n${Object.values(results).map((r) => r.stderr).join('')}`);
    }
    for (const r of Object.values(results)) scratchDirs.push(r.mounts['/scratch']);
    return { results, report };
  }

  test('Sentinel monitors a master the policy does not list: the run logs its name and pushes uncovered_shards 1', async () => {
    const objects = renderAll({ shards: ['shard01', 'shard02'], s3: { bucket: BUCKET, path: 'coverage', region: 'us-east-1' } }, {}, 'coverage');
    const cronJob = objects.find((o) => o.kind === 'CronJob' && o.metadata.labels?.['backup-cronjobs.io/shard'] === 'shard01')!;
    const run = await runBackupPod(cronJob);
    expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
    expect(run.dump.stderr).toMatch(new RegExp(`warn Sentinel 127\\.0\\.0\\.1:${sentinel.port} monitors 1 master\\(s\\) that no CronJob of policy coverage backs up: shard03$`, 'm'));
    expect(await metric('redis_backup_uncovered_shards', 'shard01', 'coverage')).toBe(1);
    // every master covered: 0
    const all = renderAll({ s3: { bucket: BUCKET, path: 'coverage', region: 'us-east-1' } }, {}, 'coverage');
    // (shard01: an earlier test leaves shard02 without a replica, and one of shard01's two down)
    const full = await runBackupPod(all.find((o) => o.kind === 'CronJob' && o.metadata.labels?.['backup-cronjobs.io/shard'] === 'shard01')!);
    expect(full.dump.stderr).not.toMatch(/ monitors \d+ master/);
    expect(await metric('redis_backup_uncovered_shards', 'shard01', 'coverage')).toBe(0);
    // a Sentinel that refuses SENTINEL MASTERS (a stand-in for redis-cli): a warning, the backup goes on
    const real = findCommand('redis-cli')!;
    const bin = standIn('redis-cli', [
      // the error reply redis-cli prints with -e for a renamed or ACL-denied command (redis-cli.c, cliFormatReplyRaw: "ERR ...")
      'case " $* " in *" SENTINEL MASTERS "*) echo "ERR unknown subcommand \'MASTERS\'" >&2; exit 1 ;; esac',
      `exec ${real} "$@"`,
    ]);
    const denied = await runBackupPod(cronJob, { dump: { pathPrepend: [bin] } });
    expect([denied.dump.code, denied.upload.code]).toEqual([0, 0]);
    expect(denied.dump.stderr).toMatch(/ warn shard coverage not checked: SENTINEL MASTERS on 127\.0\.0\.1:\d+ failed: ERR unknown subcommand 'MASTERS'$/m);
  });

  test('encrypted: <name>.rdb.gz.age decrypts with the identity to an RDB that loads; the metadata records the fingerprint; a wrong identity fails', async () => {
    const objects = renderAll({ shards: ['shard01'], s3: { bucket: BUCKET, path: 'encrypted', region: 'us-east-1' } }, encryption(), 'encrypted');
    const cronJob = objects.find((o) => o.kind === 'CronJob')!;
    const { results } = await runPod(resolvePodSpec(JSON.parse(JSON.stringify(cronJob))), { secrets: secrets(), timeoutMs: 90000 });
    for (const r of Object.values(results)) scratchDirs.push(r.mounts['/scratch']);
    expect(Object.values(results).map((r) => r.code)).toEqual([0, 0, 0]);
    expectNoDumpAtRest(results['s3-upload'].mounts['/scratch']);
    const [key] = await backupsUnder('encrypted/');
    expect(key).toMatch(/^encrypted\/redis-backup_shard01_\S+Z\.rdb\.gz\.age$/);
    const sealed = await s3.getObject(BUCKET, key);
    expect(sealed.subarray(0, 21).toString()).toBe('age-encryption.org/v1');
    const dir = tempDir('bcj-dec-');
    fs.writeFileSync(path.join(dir, 'key.txt'), identity);
    fs.writeFileSync(path.join(dir, 'wrong.txt'), wrongIdentity);
    fs.writeFileSync(path.join(dir, 'backup.rdb.gz.age'), sealed);
    const dec = await runCommand('age', ['-d', '-i', path.join(dir, 'key.txt'), '-o', path.join(dir, 'backup.rdb.gz'), path.join(dir, 'backup.rdb.gz.age')]);
    expect(dec.code).toBe(0);
    const rdb = gunzipSync(fs.readFileSync(path.join(dir, 'backup.rdb.gz')));
    fs.writeFileSync(path.join(dir, 'dump.rdb'), rdb);
    const check = await runCommand('redis-check-rdb', [path.join(dir, 'dump.rdb')]);
    expect(check.code).toBe(0);
    expect(check.stdout.toString()).toContain(`${KEYS.shard01} keys read`);
    const meta = await metadataOf(key);
    const fingerprint = `sha256:${createHash('sha256').update(recipient).digest('hex').slice(0, 16)}`;
    expect(meta).toMatchObject({ keyCount: KEYS.shard01, rdbSize: rdb.length, size: sealed.length, encryption: { tool: 'age', recipients: [fingerprint] } });
    const wrong = await runCommand('age', ['-d', '-i', path.join(dir, 'wrong.txt'), path.join(dir, 'backup.rdb.gz.age')]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('no identity matched any of the recipients');
  });

  test('restore drills: an encrypted backup drills green with its key count; the metrics are pushed', async () => {
    const objects = renderAll({ shards: ['shard01'], s3: { bucket: BUCKET, path: 'encrypted', region: 'us-east-1' } },
      { ...encryption(), drill: { schedule: '0 4 * * *', maxBackupAge: '1h' } }, 'encrypted');
    const drill = drillOf(objects, 'shard01');
    expect(podOf(drill).initContainers.map((c: { name: string }) => c.name)).toEqual(['fetch', 'decrypt', 'restore']);
    const { results, report } = await runDrill(drill);
    expect(Object.values(results).map((r) => r.code)).toEqual([0, 0, 0, 0]);
    expect(report.stderr).toMatch(new RegExp(`info restore drill succeeded: encrypted/redis-backup_shard01_\\S+\\.rdb\\.gz\\.age restored, ${KEYS.shard01} keys loaded into a temporary redis-server`));
    expect(await metric('redis_backup_restore_drill_success', 'shard01', 'encrypted')).toBe(1);
    expect(await metric('redis_backup_restore_drill_backup_age_seconds', 'shard01', 'encrypted')).toBeGreaterThanOrEqual(0);
  });

  describe('a failed drill: one error line, success 0 pushed', () => {
    async function expectDrillFailure(cronJob: Manifest, why: RegExp, policy: string, opts: Parameters<typeof runDrill>[1] = {}): Promise<void> {
      const { results, report } = await runDrill(cronJob, opts);
      expect(report.code).toBe(1);
      const errors = errorLines(report);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/ error restore drill failed after \d+s/);
      expect(errors[0]).toMatch(why);
      for (const [name, r] of Object.entries(results)) if (name !== 'report') expect(r.code).toBe(0);
      expect(await metric('redis_backup_restore_drill_success', 'shard01', policy)).toBe(0);
    }

    const plain = (prefix: string, policy: string, drill: Record<string, unknown> = {}) => drillOf(renderAll(
      { shards: ['shard01'], s3: { bucket: BUCKET, path: prefix, region: 'us-east-1' } }, { drill: { schedule: '0 4 * * *', ...drill } }, policy,
    ), 'shard01');

    test('a wrong identity', async () => {
      const objects = renderAll({ shards: ['shard01'], s3: { bucket: BUCKET, path: 'encrypted', region: 'us-east-1' } },
        { ...encryption(), drill: { schedule: '0 4 * * *' } }, 'drill-wrong-key');
      await expectDrillFailure(drillOf(objects, 'shard01'), /: cannot decrypt \S+: age: error: no identity matched any of the recipients/, 'drill-wrong-key', { secrets: ageSecrets(wrongIdentity) });
    });

    test('a key count that does not match the metadata, a corrupt file, a backup too old', async () => {
      // a good clear backup, then its metadata changed to another count
      await runBackupPod(render({ s3: { bucket: BUCKET, path: 'mismatch', region: 'us-east-1' } }, {}, 'drill-mismatch').shard01);
      const [key] = await backupsUnder('mismatch/');
      const meta = await metadataOf(key);
      await s3.putObject(BUCKET, `${key}.json`, JSON.stringify({ ...meta, keyCount: KEYS.shard01 + 1 }));
      await expectDrillFailure(plain('mismatch', 'drill-mismatch'), new RegExp(`key count mismatch: \\S+ loaded ${KEYS.shard01} keys, the backup recorded ${KEYS.shard01 + 1}$`), 'drill-mismatch');

      // a corrupt object: one byte of the RDB changed (the gzip stays valid), its size unchanged
      const rdb = Buffer.from(gunzipSync(await s3.getObject(BUCKET, key)));
      rdb[21] ^= 0x01;
      const corrupt = key.replace('mismatch/', 'corrupt-drill/');
      await s3.putObject(BUCKET, corrupt, gzipSync(rdb));
      await s3.putObject(BUCKET, `${corrupt}.json`, JSON.stringify(meta));
      await expectDrillFailure(plain('corrupt-drill', 'drill-corrupt'), /redis-check-rdb rejected \S+: \[offset \d+\] RDB CRC error$/, 'drill-corrupt');

      // a backup older than maxBackupAge
      const old = 'old-drill/redis-backup_shard01_2023-09-20T08:30:01Z.rdb.gz';
      await s3.putObject(BUCKET, old, await s3.getObject(BUCKET, key));
      await s3.putObject(BUCKET, `${old}.json`, JSON.stringify(meta));
      await expectDrillFailure(plain('old-drill', 'drill-old', { maxBackupAge: '1d' }), /the newest backup old-drill\/redis-backup_shard01_2023-09-20T08:30:01Z\.rdb\.gz is \d+s old; spec\.drill\.maxBackupAge allows 86400s$/, 'drill-old');
    });
  });
});
