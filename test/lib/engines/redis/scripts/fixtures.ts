// What the run tests of the Redis backup pods share: the loopback services (three shards behind one
// Sentinel, s3rver, a Pushgateway), the policy rendered against them, the pod run as the kubelet runs
// it, stand-ins, and the checks of a run's outcome. Each test file starts its own services.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { gunzipSync } from 'zlib';
import { randomBytes } from 'crypto';
import { renderPolicy } from '../../../../../lib';
import type { Manifest, RedisSpec } from '../../../../../lib';
import { RunContainerOptions, RunContainerResult, resolvePodSpec, runPod } from '../../../../support/run-container';
import {
  PushgatewayHandle,
  RedisShard,
  S3Handle,
  SentinelHandle,
  awsCliPath,
  requireCommands,
  runCommand,
  startPushgateway,
  startRedisShard,
  startS3,
  startSentinel,
  stopAll,
} from '../../../../support/services';
import { redisPolicy } from '../fixtures';

export const REDIS_PASSWORD = 'redis-pw-Zq7';
export const SENTINEL_PASSWORD = 'sentinel-pw-K2x';
export const BUCKET = 'backups';
/** Keys of shard01 and shard02 (small values); shard03 holds random 1 KiB values (startRedisServices). */
export const KEYS = { shard01: 150, shard02: 80 } as const;

export interface RedisServices {
  shard01: RedisShard;
  shard02: RedisShard;
  shard03: RedisShard;
  sentinel: SentinelHandle;
  s3: S3Handle;
  gateway: PushgatewayHandle;
}

let running: RedisServices | undefined;
const scratchDirs: string[] = [];

function services(): RedisServices {
  if (!running) throw new Error('startRedisServices() has not run (call it in beforeAll)');
  return running;
}

/**
 * Three shards (master + `replicas` each) with the same password, filled (KEYS; shard03: `bigKeys`
 * random 1 KiB values), one Sentinel monitoring all three, s3rver with BUCKET, a Pushgateway.
 */
export async function startRedisServices(opts: {
  replicas: Record<keyof RedisServices & `shard${string}`, number>;
  bigKeys: number;
}): Promise<RedisServices> {
  requireCommands(
    'redis-server',
    'redis-sentinel',
    'redis-cli',
    'redis-check-rdb',
    'prometheus-pushgateway',
    'curl',
    'gzip',
    'sh',
    'head',
    'dd',
    'busybox',
  );
  const [shard01, shard02, shard03, s3, gateway] = await Promise.all([
    startRedisShard('shard01', { replicas: opts.replicas.shard01, password: REDIS_PASSWORD }),
    startRedisShard('shard02', { replicas: opts.replicas.shard02, password: REDIS_PASSWORD }),
    startRedisShard('shard03', { replicas: opts.replicas.shard03, password: REDIS_PASSWORD }),
    startS3({ buckets: [BUCKET] }),
    startPushgateway(),
  ]);
  await Promise.all([fill(shard01, KEYS.shard01), fill(shard02, KEYS.shard02), fillRandom(shard03, opts.bigKeys)]);
  const sentinel = await startSentinel({
    password: SENTINEL_PASSWORD,
    masters: [shard01, shard02, shard03].map((s) => ({
      name: s.name,
      host: s.master.host,
      port: s.master.port,
      password: REDIS_PASSWORD,
    })),
  });
  running = { shard01, shard02, shard03, sentinel, s3, gateway };
  return running;
}

/** Stops every service and removes the temp dirs of the runs. */
export async function stopRedisServices(): Promise<void> {
  for (const d of scratchDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  running = undefined;
  await stopAll();
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
    for (let j = i; j < Math.min(n, i + 512); j++)
      args.push(`${shard.name}:key:${j}`, randomBytes(768).toString('base64'));
    await shard.master.cli(['MSET', ...args]);
  }
  expect(await shard.master.cli(['WAIT', String(shard.replicas.length), '20000'])).toBe(String(shard.replicas.length));
}

export const secrets = (over: Record<string, Record<string, string>> = {}) => ({
  'redis-auth': { password: REDIS_PASSWORD },
  'sentinel-auth': { password: SENTINEL_PASSWORD },
  'aws-credentials': { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
  ...over,
});

/** Renders the policy against the loopback services; returns every object. */
export function renderAll(
  redis: Partial<RedisSpec> = {},
  spec: Record<string, unknown> = {},
  policy = 'redis',
): Manifest[] {
  const { sentinel, s3, gateway } = services();
  return renderPolicy(
    redisPolicy(
      {
        sentinel: {
          addresses: [`127.0.0.1:${sentinel.port}`],
          passwordSecret: { name: 'sentinel-auth', key: 'password' },
        },
        shards: ['shard01', 'shard02', 'shard03'],
        ...redis,
        s3: {
          bucket: BUCKET,
          path: 'prod/redis',
          region: 'us-east-1',
          endpoint: s3.endpoint,
          credentialsSecret: { name: 'aws-credentials' },
          ...redis.s3,
        },
      },
      { metrics: { pushgatewayUrl: gateway.url }, ...spec },
      policy,
    ),
  );
}

/** Renders the policy against the loopback services; returns the backup CronJob of each shard. */
export function render(
  redis: Partial<RedisSpec> = {},
  spec: Record<string, unknown> = {},
  policy = 'redis',
): Record<string, Manifest> {
  const out: Record<string, Manifest> = {};
  for (const o of renderAll(redis, spec, policy)) {
    if (o.kind === 'CronJob' && o.metadata.labels?.['app.kubernetes.io/component'] === 'backup') {
      out[o.metadata.labels['backup-cronjobs.io/shard']] = o;
    }
  }
  return out;
}

export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}

/** Keeps a dir a run left (e.g. a pod's scratch volume) until stopRedisServices. */
export function removeLater(dir: string): void {
  scratchDirs.push(dir);
}

const BUSYBOX_APPLETS = [
  'sh',
  'awk',
  'sort',
  'head',
  'tail',
  'wc',
  'tr',
  'sed',
  'grep',
  'timeout',
  'date',
  'mkdir',
  'rm',
  'mv',
  'cat',
  'gzip',
  'printf',
  'echo',
  'test',
  '[',
  'dd',
  'mkfifo',
  'tee',
];

/** A dir of busybox applet links, first on PATH: the toolset of the alpine redis image. */
function busyboxBin(): string {
  const bin = tempDir('bcj-busybox-');
  const busybox = requireCommands('busybox').busybox;
  for (const a of BUSYBOX_APPLETS) fs.symlinkSync(busybox, path.join(bin, a));
  return bin;
}

/** An executable stand-in in a fresh dir, for pathPrepend. */
export function standIn(name: string, lines: string[]): string {
  const bin = tempDir('bcj-standin-');
  fs.writeFileSync(path.join(bin, name), ['#!/bin/sh', ...lines, ''].join('\n'), { mode: 0o755 });
  return bin;
}

export interface PodRun {
  dump: RunContainerResult;
  /** age-encrypt's, with spec.encryption. */
  encrypt?: RunContainerResult;
  upload: RunContainerResult;
  scratch: string;
}

/**
 * The backup pod as the kubelet runs it (every container at once, one scratch volume). `busybox`:
 * redis-dump's `/bin/sh` and tools are busybox's (same script, env and args).
 */
export async function runBackupPod(
  cronJob: Manifest,
  opts: {
    secrets?: ReturnType<typeof secrets>;
    dump?: RunContainerOptions;
    encrypt?: RunContainerOptions;
    upload?: RunContainerOptions;
    busybox?: boolean;
    configMaps?: RunContainerOptions['configMaps'];
    /** As the kubelet runs them: the pod's uid, no capabilities, read-only root filesystem (run-container.ts). */
    enforceSecurityContext?: boolean;
  } = {},
): Promise<PodRun> {
  const spec = resolvePodSpec(JSON.parse(JSON.stringify(cronJob)));
  expect(spec.initContainers).toBeUndefined();
  const dump = { ...opts.dump };
  if (opts.busybox) {
    const bin = busyboxBin();
    const command = spec.containers.find((c) => c.name === 'redis-dump')?.command;
    if (!command) throw new Error('the pod has no redis-dump command');
    expect(command[0]).toBe('/bin/sh');
    command[0] = path.join(bin, 'sh');
    dump.pathPrepend = [bin, ...(dump.pathPrepend ?? [])];
  }
  const { results } = await runPod(spec, {
    secrets: opts.secrets ?? secrets(),
    configMaps: opts.configMaps,
    timeoutMs: 90000,
    enforceSecurityContext: opts.enforceSecurityContext,
    containers: { 'redis-dump': dump, 'age-encrypt': { ...opts.encrypt }, 's3-upload': { ...opts.upload } },
  });
  const run = {
    dump: results['redis-dump'],
    encrypt: results['age-encrypt'],
    upload: results['s3-upload'],
    scratch: results['s3-upload'].mounts['/scratch'],
  };
  scratchDirs.push(run.scratch);
  // REDIS_TEST_LOG=<file>: append every run's log there, to read what the containers say.
  if (process.env.REDIS_TEST_LOG) {
    const logs = Object.values(results)
      .map((r) => `${r.stdout}${r.stderr}`)
      .join('');
    fs.appendFileSync(process.env.REDIS_TEST_LOG, `=== ${cronJob.metadata.name}\n${logs}`);
  }
  for (const r of Object.values(results)) expect(r.timedOut).toBe(false);
  return run;
}

/** Log lines of level error ("<time> <job> error <message>"). */
export const errorLines = (r: RunContainerResult) => r.stderr.split('\n').filter((l) => /^\S+ \S+ error /.test(l));

/**
 * No dump at rest: every file left in the scratch volume is short. `cleanedUp`: the containers
 * ended by themselves and removed their own files: what is left is the stream pipes and the status files.
 */
export function expectNoDumpAtRest(scratch: string, cleanedUp = true): void {
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
  const allowed = [
    'stream (pipe)',
    'dump.exit',
    'upload.exit',
    'result/ok',
    'result/error',
    'result/rdb_bytes',
    'result/keys',
    'result/databases',
    'result/uncovered',
    'stream.age (pipe)',
    'encrypt.exit',
    'result/encrypt-ok',
    'result/encrypt-error',
    'result/age_fingerprints',
  ];
  expect(left.filter((f) => !allowed.includes(f))).toEqual([]);
}

/** A metric's value for one shard's group, from the gateway's /metrics. */
export async function metric(name: string, shard: string, policy = 'redis'): Promise<number | undefined> {
  const text = await services().gateway.metrics();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && l.includes(`shard="${shard}"`) && l.includes(`policy="${policy}"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

export async function keysUnder(prefix: string): Promise<string[]> {
  return (await services().s3.listObjects(BUCKET, prefix)).map((o) => o.key);
}

/** The backups under a prefix, without their metadata objects (`<name>.json`). */
export async function backupsUnder(prefix: string): Promise<string[]> {
  return (await keysUnder(prefix)).filter((k) => !k.endsWith('.json'));
}

/** The metadata object of a backup: `<name without .age>.json`. */
export async function metadataOf(key: string): Promise<Record<string, unknown>> {
  return JSON.parse((await services().s3.getObject(BUCKET, `${key.replace(/\.age$/, '')}.json`)).toString()) as Record<
    string,
    unknown
  >;
}

/** The number of keys redis-check-rdb reads in a stored (clear) backup, which must be exactly one RDB. */
export async function keysOfObject(key: string): Promise<number> {
  const rdb = gunzipSync(await services().s3.getObject(BUCKET, key));
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

/**
 * A failed run as s3-upload reports it: exit 1, one error line naming the shard and the reason, nothing
 * under `prefix`, no dump at rest, and the failure pushed. Each failing run has a metrics group
 * (policy, shard) of its own, so its failure count is 1 whatever ran before.
 */
export async function expectFailure(
  run: PodRun,
  message: RegExp,
  prefix: string,
  shard: string,
  policy: string,
  cleanedUp = true,
): Promise<void> {
  expect(run.upload.code).toBe(1);
  const errors = errorLines(run.upload);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(new RegExp(`backup of shard ${shard} failed: `));
  expect(errors[0]).toMatch(message);
  expect(await keysUnder(prefix)).toEqual([]);
  expectNoDumpAtRest(run.scratch, cleanedUp);
  expect(await metric('redis_backup_failure_total', shard, policy)).toBe(1);
  expect(await metric('redis_backup_last_run_success', shard, policy)).toBe(0);
}

/** One container failed on its own: exit 1 and one error line with the reason. */
export function expectOwnFailure(result: RunContainerResult | undefined, message: RegExp): void {
  expect(result?.code).toBe(1);
  const errors = errorLines(result!);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(message);
}

/** Resolves once `file` exists; rejects after `ms` (a stand-in that never got there). */
async function waitForFile(file: string, ms = 60000): Promise<void> {
  const end = Date.now() + ms;
  while (!fs.existsSync(file)) {
    if (Date.now() > end) throw new Error(`${file} did not appear within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A stand-in for aws: the real CLI, held at one point until `release` appears in STANDIN_DIR.
 * STANDIN_HOLD=upload: the backup's `s3 cp -` upload gets the first MiB of its input, then
 * `upload-started` appears and the rest waits. STANDIN_HOLD=metadata: the metadata's `s3 cp -` upload
 * (`<name>.json`, whose input ends once the backup is complete) reads its input, writes
 * `storing-metadata` and waits. It prints nothing of its own. A TERM is noted in `aws-got-term`, then ends the real CLI
 * and the stand-in.
 */
function heldAws(): { bin: string; dir: string } {
  const dir = tempDir('bcj-held-');
  const bin = standIn('aws', [
    'hold() { while [ ! -e "$STANDIN_DIR/release" ]; do sleep 0.05; done; }',
    'case "$STANDIN_HOLD: $* " in',
    '  *"metadata: "*" s3 cp "*" - s3://"*".json "*) cat >"$STANDIN_DIR/metadata.json"; : >"$STANDIN_DIR/storing-metadata"; hold; exec ' +
      awsCliPath() +
      ' "$@" <"$STANDIN_DIR/metadata.json" ;;',
    '  *" s3 cp "*" - s3://"*".json "*) exec ' + awsCliPath() + ' "$@" ;;',
    '  *"upload: "*" s3 cp "*" - s3://"*) ;;',
    '  *) exec ' + awsCliPath() + ' "$@" ;;',
    'esac',
    'trap \'echo TERM >"$STANDIN_DIR/aws-got-term"; kill "$real" 2>/dev/null; exit 143\' TERM',
    // an asynchronous list reads /dev/null unless its input is redirected (POSIX, job control off): the stream, by fd 3
    'exec 3<&0',
    '{ head -c 1048576; : >"$STANDIN_DIR/upload-started"; hold; cat; } <&3 | ' + awsCliPath() + ' "$@" &',
    'real=$!',
    'wait "$real"',
  ]);
  return { bin, dir };
}

export interface HeldPids {
  dump: number;
  encrypt: number;
  upload: number;
}

/**
 * Runs shard03's backup pod with the held aws; `during` acts once the condition file appears.
 * `release`: the hold is released after `during` (else never: the pod must end by itself).
 */
export async function heldRun(opts: {
  policy: string;
  prefix: string;
  condition: 'upload-started' | 'storing-metadata';
  spec?: Record<string, unknown>;
  release?: boolean;
  during: (pids: HeldPids) => void;
}): Promise<{ run: PodRun; held: { dir: string } }> {
  const held = heldAws();
  const pids: HeldPids = { dump: 0, encrypt: 0, upload: 0 };
  const jobs = render({ s3: { bucket: BUCKET, path: opts.prefix, region: 'us-east-1' } }, opts.spec, opts.policy);
  const running = runBackupPod(jobs.shard03, {
    dump: { onSpawn: (pid) => (pids.dump = pid) },
    encrypt: { onSpawn: (pid) => (pids.encrypt = pid) },
    upload: {
      pathPrepend: [held.bin],
      env: { STANDIN_DIR: held.dir, STANDIN_HOLD: opts.condition === 'storing-metadata' ? 'metadata' : 'upload' },
      onSpawn: (pid) => (pids.upload = pid),
    },
  });
  await waitForFile(path.join(held.dir, opts.condition));
  opts.during(pids);
  if (opts.release !== false) fs.writeFileSync(path.join(held.dir, 'release'), '');
  return { run: await running, held };
}
