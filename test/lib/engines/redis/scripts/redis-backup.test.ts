// The rendered Redis backup pods run for real: redis-dump and s3-upload at the same time (as the
// kubelet starts them), with the manifest's command, args and env, sharing the scratch volume,
// against real redis-server/redis-sentinel, s3rver and prometheus-pushgateway on loopback.
// (Encryption, restore drills and Sentinel coverage: redis-trust.test.ts.)
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { gunzipSync } from 'zlib';
import { configMapsOf } from '../../../../support/run-container';
import { signalAtOnce } from '../../../../support/proc';
import {
  PushgatewayHandle,
  RedisHandle,
  RedisShard,
  S3Handle,
  SentinelHandle,
  awsCliPath,
  findCommand,
  freePort,
} from '../../../../support/services';
import {
  BUCKET,
  KEYS,
  REDIS_PASSWORD,
  backupsUnder,
  errorLines,
  expectFailure,
  expectNoDumpAtRest,
  expectOwnFailure,
  heldRun,
  keysOfObject,
  keysUnder,
  metadataOf,
  metric,
  render,
  renderAll,
  runBackupPod,
  secrets,
  standIn,
  startRedisServices,
  stopRedisServices,
  tempDir,
} from './fixtures';

jest.setTimeout(120000);

/** shard03: random 1 KiB values, 16 MiB in all: its gzip stream is larger than the aws CLI's 8 MiB multipart chunk. */
const BIG_KEYS = 16384;
const NAME = /^redis-backup_(shard0[12])_(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\.rdb\.gz$/;

let shard01: RedisShard;
let shard02: RedisShard;
let sentinel: SentinelHandle;
let s3: S3Handle;
let gateway: PushgatewayHandle;

async function syncFull(server: RedisHandle): Promise<number> {
  return Number(/sync_full:(\d+)/.exec(await server.cli(['INFO', 'stats']))?.[1]);
}

beforeAll(async () => {
  ({ shard01, shard02, sentinel, s3, gateway } = await startRedisServices({
    replicas: { shard01: 2, shard02: 1, shard03: 1 },
    bigKeys: BIG_KEYS,
  }));
});

afterAll(stopRedisServices);

test('two shards: one object each, named redis-backup_<shard>_<UTC start>.rdb.gz, exactly the RDB with all keys, dumped from a replica; the metrics of each pushed', async () => {
  const jobs = render();
  expect(Object.keys(jobs).sort()).toEqual(['shard01', 'shard02', 'shard03']);
  const servers = [shard01.master, ...shard01.replicas, shard02.master, ...shard02.replicas];
  const before = await Promise.all(servers.map(syncFull));
  const t0 = Math.floor(Date.now() / 1000);
  // as the kubelet runs them: uid 999, no capabilities, a read-only root filesystem
  const runs = await Promise.all([
    runBackupPod(jobs.shard01, { enforceSecurityContext: true }),
    runBackupPod(jobs.shard02, { enforceSecurityContext: true }),
  ]);
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
    // `aws s3api head-object`'s JSON: the fields read here
    const head = JSON.parse(await s3.aws(['s3api', 'head-object', '--bucket', BUCKET, '--key', key])) as {
      Metadata: Record<string, string>;
      ContentLength: number;
    };
    const replica = (shard === 'shard01' ? shard01 : shard02).replicas.reduce((a, b) => (a.port < b.port ? a : b));
    expect(head.Metadata).toEqual({
      'redis-shard': shard,
      'redis-role': 'replica',
      'redis-server': `127.0.0.1:${replica.port}`,
    });
    // the metadata object: what the restore drill compares with (the key count redis-check-rdb read)
    const rdbSize = gunzipSync(await s3.getObject(BUCKET, key)).length;
    expect(await metadataOf(key)).toEqual({
      name: key.slice('prod/redis/'.length),
      shard,
      time: m[2],
      server: `127.0.0.1:${replica.port}`,
      role: 'replica',
      rdbSize,
      keyCount: KEYS[shard],
      databases: { '0': KEYS[shard] },
      size: head.ContentLength,
      policy: 'redis',
    });
  }
  expect(keys.map((k) => NAME.exec(k.slice('prod/redis/'.length))![1]).sort()).toEqual(['shard01', 'shard02']);

  // The full syncs were served by the lowest-addressed replica of each shard, never by a master.
  const after = await Promise.all(servers.map(syncFull));
  const served = servers.map((_, i) => after[i] - before[i]);
  const low = (s: RedisShard) => s.replicas.reduce((a, b) => (a.port < b.port ? a : b));
  expect(served).toEqual(servers.map((s) => (s === low(shard01) || s === low(shard02) ? 1 : 0)));
  expect(runs[0].dump.stderr).toContain(`dumping read-only replica 127.0.0.1:${low(shard01).port}`);

  // Each run pushed its duration, size, success/failure counts and last-success time.
  const objects = await s3.listObjects(BUCKET, 'prod/redis/');
  for (const shard of ['shard01', 'shard02']) {
    const object = objects.find((o) => o.key.includes(`_${shard}_`))!;
    expect(await metric('redis_backup_success_total', shard)).toBe(1);
    expect(await metric('redis_backup_failure_total', shard)).toBe(0);
    expect(await metric('redis_backup_last_run_success', shard)).toBe(1);
    expect(await metric('redis_backup_size_bytes', shard)).toBe(object.size);
    expect(await metric('redis_backup_duration_seconds', shard)).toBeGreaterThanOrEqual(0);
    const last = (await metric('redis_backup_last_success_timestamp_seconds', shard))!;
    // within the runs (their start and end read around them), not a bound on how long they took
    expect(last).toBeGreaterThanOrEqual(t0);
    expect(last).toBeLessThanOrEqual(t1);
  }
  const text = await gateway.metrics();
  expect(text).toMatch(
    /redis_backup_success_total\{instance="",job="backup-cronjobs",namespace="default",policy="redis",shard="shard01",target="redis-shard01"\} 1/,
  );
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
  const successes = (await metric('redis_backup_success_total', 'shard01')) ?? 0;
  const fresh = (keys: string[]) => {
    const made = keys.filter((k) => k.startsWith('retention/redis-backup_shard01_') && !seeded.includes(k));
    expect(made).toHaveLength(1);
    return made[0];
  };
  const jobs = render(
    { s3: { bucket: BUCKET, path: 'retention', region: 'us-east-1' } },
    { retention: { keepLast: 2 } },
  );
  const run = await runBackupPod(jobs.shard01, { busybox: true });
  expect(run.dump.stderr).not.toMatch(/ (warn|error) /);
  expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
  expect(await keysOfObject(fresh(await backupsUnder('retention/')))).toBe(KEYS.shard01);
  expect(run.upload.stdout).toMatch(/keep\t.*shard01_2023-09-20T08:32:01Z/);
  const keys = await keysUnder('retention/');
  const made = fresh(keys.filter((k) => !k.endsWith('.json')));
  expect(keys.sort()).toEqual(
    [
      made,
      `${made}.json`,
      old('shard01', '2023-09-20T08:32:01Z'),
      ...seeded.filter((k) => !k.includes('shard01_2023-09-20T08:3')),
    ].sort(),
  );
  expect(await metric('redis_backup_success_total', 'shard01')).toBe(successes + 1); // counted on from the gateway's value
});

test("a stream larger than one multipart chunk: the stored object is exactly the RDB (busybox and this machine's tools)", async () => {
  const jobs = render({ s3: { bucket: BUCKET, path: 'big', region: 'us-east-1' } }, {}, 'redis-big');
  // The upload side counts the stream with dd where dd reports the bytes it copied (GNU), else with tee
  // into wc -c: this machine's busybox dd prints only the records, so the first run takes that path.
  const busyboxDd = tempDir('bcj-busybox-dd-');
  fs.symlinkSync(findCommand('busybox')!, path.join(busyboxDd, 'dd'));
  expect(
    spawnSync(path.join(busyboxDd, 'dd'), ['if=/dev/null', 'of=/dev/null'], { encoding: 'utf8' }).stderr,
  ).not.toMatch(/bytes/);
  expect(
    spawnSync(findCommand('dd')!, ['if=/dev/null', 'of=/dev/null'], { encoding: 'utf8', env: { LC_ALL: 'C' } }).stderr,
  ).toMatch(/^0 bytes/m);
  for (const busybox of [true, false]) {
    const run = await runBackupPod(jobs.shard03, { busybox, upload: busybox ? { pathPrepend: [busyboxDd] } : {} });
    expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
    expect(run.upload.stderr).not.toMatch(/ (warn|error) /);
    const [key] = await backupsUnder('big/');
    expect(await keysOfObject(key)).toBe(BIG_KEYS);
    const size = (await s3.listObjects(BUCKET, key))[0].size;
    expect(size).toBeGreaterThan(8 * 1024 * 1024);
    expect(run.upload.stderr).toContain(`stored s3://${BUCKET}/${key}: ${size} bytes`);
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
  const unchecked = await runBackupPod(
    render({ verifyRdb: false, s3: { bucket: BUCKET, path: 'unchecked', region: 'us-east-1' } }).shard02,
  );
  expect([unchecked.dump.code, unchecked.upload.code]).toEqual([0, 0]);
  expect(unchecked.dump.stderr).not.toContain('redis-check-rdb');
  const [key] = await backupsUnder('unchecked/');
  expect(await keysOfObject(key)).toBe(KEYS.shard02);
});

test("the default (configMap mode): both steps source the rendered ConfigMap's files; backup, retention and metrics", async () => {
  const spec = { retention: { keepLast: 1 } };
  const objects = renderAll(
    { shards: ['shard01'], s3: { bucket: BUCKET, path: 'sourced', region: 'us-east-1' } },
    spec,
    'sourced',
  );
  const cronJob = objects.find((o) => o.kind === 'CronJob')!;
  const configMaps = configMapsOf(objects);
  expect(Object.keys(configMaps)).toEqual([expect.stringMatching(/^sourced-scripts-[0-9a-f]{10}$/)]);
  const older = 'sourced/redis-backup_shard01_2023-09-20T08:30:01Z.rdb.gz';
  await s3.putObject(BUCKET, older, 'old');
  const run = await runBackupPod(cronJob, { configMaps });
  expect(run.dump.stderr).not.toMatch(/ error /);
  // the older object has no metadata (aws's 404): it records no count, so there is nothing to compare with
  expect(errorLines(run.upload)).toEqual([]);
  expect(run.upload.code).toBe(0);
  expect(run.upload.argv[2].split('\n')[1]).toMatch(/^\. \S+\/common\.sh; /);
  const keys = await backupsUnder('sourced/');
  expect(keys).toHaveLength(1);
  expect(keys[0]).not.toBe(older); // keepLast: 1 pruned the older object
  expect(await keysOfObject(keys[0])).toBe(KEYS.shard01);
  expect(await metric('redis_backup_success_total', 'shard01', 'sourced')).toBe(1);
});

test('inline mode (the opt-in): both steps carry every function in their commands, no ConfigMap; backup, retention and metrics', async () => {
  const spec = { retention: { keepLast: 1 }, scripts: { mode: 'inline' } };
  const objects = renderAll(
    { shards: ['shard01'], s3: { bucket: BUCKET, path: 'inline', region: 'us-east-1' } },
    spec,
    'inline',
  );
  expect(objects.map((o) => o.kind)).not.toContain('ConfigMap');
  const older = 'inline/redis-backup_shard01_2023-09-20T08:30:01Z.rdb.gz';
  await s3.putObject(BUCKET, older, 'old');
  const run = await runBackupPod(objects.find((o) => o.kind === 'CronJob')!);
  expect(run.dump.stderr).not.toMatch(/ error /);
  // the older object has no metadata (aws's 404): it records no count, so there is nothing to compare with
  expect(errorLines(run.upload)).toEqual([]);
  expect(run.upload.code).toBe(0);
  expect(run.upload.argv[2].split('\n')[1]).toBe('# common.sh');
  const keys = await backupsUnder('inline/');
  expect(keys).toHaveLength(1);
  expect(keys[0]).not.toBe(older);
  expect(await keysOfObject(keys[0])).toBe(KEYS.shard01);
  expect(await metric('redis_backup_success_total', 'shard01', 'inline')).toBe(1);
});

describe('failures: non-zero exit, one error line, no object, a failure counted', () => {
  test('Sentinels are tried in turn; none answering fails clearly; a Pushgateway down is only a warning', async () => {
    const closed = await freePort();
    const s3Dest = { bucket: BUCKET, path: 'sentinels', region: 'us-east-1' };
    // ... and a Pushgateway that is down costs a warning, not the backup.
    const okJobs = render(
      {
        s3: s3Dest,
        sentinel: {
          addresses: [`127.0.0.1:${closed}`, `127.0.0.1:${sentinel.port}`],
          passwordSecret: { name: 'sentinel-auth', key: 'password' },
        },
      },
      { metrics: { pushgatewayUrl: `http://127.0.0.1:${closed}` } },
    );
    const bad = render(
      { s3: { ...s3Dest, path: 'nosentinel' }, sentinel: { addresses: [`127.0.0.1:${closed}`] } },
      {},
      'redis-nosentinel',
    );
    const [ok, failed] = await Promise.all([runBackupPod(okJobs.shard01), runBackupPod(bad.shard02)]);
    expect([ok.dump.code, ok.upload.code]).toEqual([0, 0]);
    expect(ok.dump.stderr).toMatch(new RegExp(`warn Sentinel 127.0.0.1:${closed}: .*Connection refused`));
    expect(ok.upload.stderr).toMatch(
      / warn metrics not pushed: cannot read the current counters from http:\/\/127\.0\.0\.1:\d+\/metrics: .*/,
    );
    expect(await backupsUnder('sentinels/')).toHaveLength(1);
    const why = /no Sentinel answered for shard shard02 \(127\.0\.0\.1:\d+: .*Connection refused\); no backup taken/;
    expectOwnFailure(failed.dump, why);
    await expectFailure(failed, why, 'nosentinel/', 'shard02', 'redis-nosentinel');
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
    expect(errorLines(noBucket.upload)).toEqual([
      expect.stringMatching(/ error environment variable S3_BUCKET is required but empty$/),
    ]);
    expectOwnFailure(
      noBucket.dump,
      /the upload container \(s3-upload\) ended before the dump started \(see its log\); no backup taken$/,
    );
    expect(noBucket.dump.stderr).not.toContain('Sentinel'); // it did not dump for nothing
    const why = /environment variable REDIS_SENTINEL_ADDRESSES is required but empty$/;
    expectOwnFailure(noSentinels.dump, why);
    await expectFailure(noSentinels, why, 'startfail/', 'shard02', 'redis-start');
  });

  test('a wrong Redis or Sentinel password says so (WRONGPASS), a dump redis-check-rdb cannot read fails clearly; no password on a command line', async () => {
    const jobs = render({ s3: { bucket: BUCKET, path: 'badpass', region: 'us-east-1' } }, {}, 'redis-badpass');
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
    const rdbWhy =
      /redis-check-rdb rejected the dump from 127\.0\.0\.1:\d+: \[offset 9\] Can't handle RDB format version 12 \(the image's redis-check-rdb is older than the server: .*verifyRdb: false\); no backup taken$/;
    expectOwnFailure(badRdb.dump, rdbWhy);
    await expectFailure(badRdb, rdbWhy, 'badrdb/', 'shard01', 'redis-rdb');
    const redisWhy =
      /Redis 127\.0\.0\.1:\d+ \(replica of shard shard01\) refused the credentials: AUTH failed: WRONGPASS invalid username-password pair or user is disabled\.; check the Redis password and user/;
    expectOwnFailure(wrongRedis.dump, redisWhy);
    await expectFailure(wrongRedis, redisWhy, 'badpass/', 'shard01', 'redis-badpass');
    expect(errorLines(wrongRedis.upload)[0]).not.toMatch(/no healthy read-only replica/);
    const sentinelWhy =
      /the Sentinels refused the credentials for shard shard02 \(127\.0\.0\.1:\d+: AUTH failed: WRONGPASS invalid username-password pair or user is disabled\.\): check the Sentinel password/;
    expectOwnFailure(wrongSentinel.dump, sentinelWhy);
    await expectFailure(wrongSentinel, sentinelWhy, 'badpass/', 'shard02', 'redis-badpass');
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
    const why =
      /redis-check-rdb rejected the dump from 127\.0\.0\.1:\d+: \[offset \d+\] RDB CRC error; no backup taken$/;
    expectOwnFailure(run.dump, why);
    await expectFailure(run, why, 'corrupt/', 'shard03', 'redis-corrupt');
    // The upload was stopped before its end; its parts (the stream is longer than one multipart
    // chunk) are to be aborted, which s3rver does not implement.
    expect(run.upload.stderr).toMatch(
      / warn could not list the unfinished multipart uploads of s3:\/\/backups\/corrupt\/.*NotImplemented/,
    );
  });

  test('S3 down, a missing bucket, or the metadata not stored: no object under the final name', async () => {
    const closed = await freePort();
    const down = render(
      { s3: { bucket: BUCKET, path: 's3down', region: 'us-east-1', endpoint: `http://127.0.0.1:${closed}` } },
      {},
      'redis-s3down',
    );
    const noBucket = render(
      { s3: { bucket: 'no-such-bucket', path: 'nobucket', region: 'us-east-1' } },
      {},
      'redis-s3down',
    );
    // The metadata object refused once the backup is complete (the real CLI, its destination moved to a
    // bucket that does not exist): the backup is deleted again.
    const bin = standIn('aws', [
      'last=; for a in "$@"; do last=$a; done',
      'case $last in s3://*.json) ;; *) exec ' + awsCliPath() + ' "$@" ;; esac',
      'n=$#; i=0; for a in "$@"; do i=$((i + 1)); if [ "$i" -eq "$n" ]; then set -- "$@" "s3://no-such-bucket/${a#s3://*/}"; else set -- "$@" "$a"; fi; done; shift "$n"',
      `exec ${awsCliPath()} "$@"`,
    ]);
    // Another policy, so another metrics group: runs of one group never overlap.
    const badSize = render({ s3: { bucket: BUCKET, path: 'badsize', region: 'us-east-1' } }, {}, 'redis-size');
    const [downRun, noBucketRun, badSizeRun] = await Promise.all([
      runBackupPod(down.shard01),
      runBackupPod(noBucket.shard02),
      runBackupPod(badSize.shard01, { upload: { pathPrepend: [bin] } }),
    ]);
    await expectFailure(
      downRun,
      /upload to s3:\/\/backups\/s3down\/redis-backup_shard01_\S+ failed: Could not connect to the endpoint URL: .*; deleting that key to be sure failed too \(Could not connect/,
      's3down/',
      'shard01',
      'redis-s3down',
    );
    await expectFailure(
      noBucketRun,
      /upload to s3:\/\/no-such-bucket\/nobucket\/redis-backup_shard02_\S+ failed: An error occurred \(NoSuchBucket\) when calling the PutObject operation/,
      'nobucket/',
      'shard02',
      'redis-s3down',
    );
    await expectFailure(
      badSizeRun,
      /cannot store the metadata s3:\/\/backups\/badsize\/redis-backup_shard01_\S+\.json: An error occurred \(NoSuchBucket\) when calling the PutObject operation: .*; no object left under that name$/,
      'badsize/',
      'shard01',
      'redis-size',
    );
    for (const run of [downRun, noBucketRun, badSizeRun]) expect(run.dump.code).toBe(0); // the dump itself was good
  });

  test('the deadline (TERM to both containers) in the middle of the upload: both stop at once, exit 1, nothing stored, the failure pushed', async () => {
    const { run, held } = await heldRun({
      policy: 'redis-term',
      prefix: 'term',
      condition: 'upload-started',
      during: (pids) => {
        signalAtOnce([pids.upload, pids.dump], 'SIGTERM');
      },
    });
    expect(fs.existsSync(path.join(held.dir, 'aws-got-term'))).toBe(true); // the upload was stopped, not let finish
    expectOwnFailure(run.dump, /stopped by SIGTERM \(the Job's deadline, or the pod was deleted\); no backup taken$/);
    await expectFailure(
      run,
      /stopped by SIGTERM \(the Job's deadline, or the pod was deleted\); no object stored under s3:\/\/backups\/term\/redis-backup_shard03_/,
      'term/',
      'shard03',
      'redis-term',
    );
  });

  test('TERM while the metadata is being stored: the object already under the final name is deleted', async () => {
    const { run } = await heldRun({
      policy: 'redis-term-verify',
      prefix: 'termverify',
      condition: 'storing-metadata',
      during: (pids) => {
        process.kill(pids.upload, 'SIGTERM');
      },
    });
    expect(run.dump.code).toBe(0);
    await expectFailure(
      run,
      /stopped by SIGTERM \(the Job's deadline, or the pod was deleted\) before s3:\/\/backups\/termverify\/\S+ was verified; no object left under that name$/,
      'termverify/',
      'shard03',
      'redis-term-verify',
    );
  });

  test('the upload container dies in the middle of the stream: the dump side fails at once, nothing stored', async () => {
    const { run } = await heldRun({
      policy: 'redis-upload-killed',
      prefix: 'uploadkilled',
      condition: 'upload-started',
      during: (pids) => {
        process.kill(-pids.upload, 'SIGKILL'); // the container's processes, as when it is OOM-killed
      },
    });
    expect(run.upload.signal).toBe('SIGKILL');
    expectOwnFailure(
      run.dump,
      /the upload container \(s3-upload\) stopped reading the stream \(see its log\); no backup taken$/,
    );
    expect(await keysUnder('uploadkilled/')).toEqual([]);
  });

  test('the dump container dies in the middle of the stream: the upload never completes, the failure is pushed', async () => {
    const { run, held } = await heldRun({
      policy: 'redis-dump-killed',
      prefix: 'dumpkilled',
      condition: 'upload-started',
      during: (pids) => {
        process.kill(-pids.dump, 'SIGKILL');
      },
    });
    expect(run.dump.signal).toBe('SIGKILL');
    expect(fs.existsSync(path.join(held.dir, 'aws-got-term'))).toBe(true);
    // The killed side could not remove its own files: only their size is checked.
    await expectFailure(
      run,
      /the dump container \(redis-dump\) ended without a result \(killed\? see its log\); no backup taken$/,
      'dumpkilled/',
      'shard03',
      'redis-dump-killed',
      false,
    );
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
    const none = await runBackupPod(
      render({ s3: { bucket: BUCKET, path: 'nomaster', region: 'us-east-1' } }, {}, 'redis-nomaster').shard02,
    );
    const why =
      /shard shard02 has no healthy read-only replica \(.*\) and allowMasterFallback is false; no backup taken/;
    expectOwnFailure(none.dump, why);
    await expectFailure(none, why, 'nomaster/', 'shard02', 'redis-nomaster');

    const masterSync = await syncFull(shard02.master);
    const fallback = await runBackupPod(
      render({ allowMasterFallback: true, s3: { bucket: BUCKET, path: 'master', region: 'us-east-1' } }).shard02,
    );
    expect([fallback.dump.code, fallback.upload.code]).toEqual([0, 0]);
    expect(fallback.dump.stderr).toContain(`dumping the master 127.0.0.1:${shard02.master.port}`);
    expect(await syncFull(shard02.master)).toBe(masterSync + 1);
    const [masterKey] = await backupsUnder('master/');
    expect(await keysOfObject(masterKey)).toBe(KEYS.shard02);
  });
});
