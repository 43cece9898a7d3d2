#!/usr/bin/env node
'use strict';
// Redis backup runs: the rendered backup pod (redis-dump and s3-upload at once, the scripts exactly as
// embedded in the manifest, run by the tests' harness) against the bare pipeline
//   redis-cli --rdb - | gzip -N | aws s3 cp - s3://...
// on the same data, the same replica and the same S3 server, in one run of this script. Real services on
// loopback (test/support/services): redis master + replica + sentinel with passwords, s3rver, Pushgateway
// (the job pushes its metrics; no retention rules, the bare pipeline has none either).
//
// Per data size: fill the shard with `redis-cli --pipe` (SET of 1,000-character random base64 values, which
// gzip -1 compresses to about 77 %), then JOB and BARE alternately, BENCH_RUNS times each. Printed: the RDB
// and compressed sizes, the median wall time of each, their ratio, seconds per GB of RDB, the peak scratch
// use of the job (an upper bound: every file that appears in the scratch volume is held open from its
// first inotify event on and its largest size is added up, so a file deleted right after it grew still
// counts; named pipes hold no data), and the cost the temporary-key design would add (server-side
// copy-object of a stored object of that size to another key + delete-object of the first, same CLI).
// The machine is shared: besides the medians, the fastest run of each and the CPU time of each (user +
// system of the job's two containers or of the bare pipeline, with all their children, from GNU time
// wrapped around the unchanged command) are printed, which load from elsewhere disturbs far less. The
// services' own CPU (redis-server's fork, s3rver) is not in it: it is the same for both.
// This is a benchmark, not a test: it asserts nothing beyond the runs succeeding.
//
// Options (environment): BENCH_SIZES  RDB sizes in MB, default 50,200,1000
//                        BENCH_RUNS   runs of each per size, default 3
//                        BENCH_LEVEL  gzip level of both, default 1
const { spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

require('ts-node').register({ transpileOnly: true, compilerOptions: { module: 'commonjs' } });
const { renderPolicy } = require('../../lib');
const { cleanupContainerRuns, resolvePodSpec, runPod } = require('../../test/support/run-container');
const svc = require('../../test/support/services');

const SIZES = (process.env.BENCH_SIZES || '50,200,1000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS || 3);
const LEVEL = Number(process.env.BENCH_LEVEL || 1);
const PASSWORD = 'bench-redis-pw';
const SENTINEL_PASSWORD = 'bench-sentinel-pw';
const BUCKET = 'bench';
const VALUE_CHARS = 1000;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const TIME = '/usr/bin/time'; // GNU time (Debian package `time`)

/** Prefixes a command with GNU time writing "<user s> <system s>" to `file`. */
const timed = (file, argv) => [TIME, '-f', '%U %S', '-o', file, ...argv];
const cpuOf = (file) => fs.readFileSync(file, 'utf8').trim().split('\n').pop().split(' ').map(Number).reduce((a, b) => a + b, 0);
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const mb = (bytes) => (bytes / 1e6).toFixed(1);

/** SET commands in the Redis protocol, through `redis-cli --pipe`, until the dataset holds about `bytes`. */
async function fill(master, bytes) {
  const keys = Math.round(bytes / (VALUE_CHARS + 40));
  await master.cli(['FLUSHALL']);
  const pipe = spawn('redis-cli', ['-h', master.host, '-p', String(master.port), '--pipe'], {
    env: svc.cleanEnv({ REDISCLI_AUTH: PASSWORD }),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  pipe.stdout.on('data', (b) => (out += b));
  const closed = new Promise((resolve) => pipe.on('close', resolve));
  for (let i = 0; i < keys; i += 1000) {
    const random = crypto.randomBytes(Math.min(1000, keys - i) * (VALUE_CHARS * 3 / 4)).toString('base64');
    const parts = [];
    for (let j = 0; j < Math.min(1000, keys - i); j++) {
      const key = `key:${i + j}`;
      const value = random.slice(j * VALUE_CHARS, (j + 1) * VALUE_CHARS);
      parts.push(`*3\r\n$3\r\nSET\r\n$${key.length}\r\n${key}\r\n$${value.length}\r\n${value}\r\n`);
    }
    if (!pipe.stdin.write(parts.join(''))) await new Promise((resolve) => pipe.stdin.once('drain', resolve));
  }
  pipe.stdin.end();
  const code = await closed;
  if (code !== 0 || !/errors: 0,/.test(out)) throw new Error(`redis-cli --pipe: exit ${code}\n${out}`);
  const acked = await master.cli(['WAIT', '1', '600000']);
  if (acked !== '1') throw new Error(`the replica did not catch up (WAIT: ${acked})`);
}

/**
 * Largest scratch use while `run` runs: every file (not a named pipe) that appears under `dir` is opened
 * at its first event and kept open, so its size can be read (fstat) even after it is deleted; the result
 * is the sum of each file's largest size seen, an upper bound of the peak.
 */
async function trackScratch(dir, run) {
  const files = new Map(); // path -> { fd, max }
  const look = (file) => {
    if (files.has(file)) return;
    let st;
    try {
      st = fs.lstatSync(file);
    } catch {
      return; // gone already: it was never written to (a write would have come with its own event first)
    }
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(file)) look(path.join(file, name));
      return;
    }
    if (!st.isFile()) return; // named pipes: no data at rest
    try {
      const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
      files.set(file, { fd, max: st.size });
    } catch {
      /* deleted in between */
    }
  };
  const sample = () => {
    for (const f of files.values()) f.max = Math.max(f.max, fs.fstatSync(f.fd).size);
  };
  const watcher = fs.watch(dir, { recursive: true }, (_event, name) => {
    if (name) look(path.join(dir, name.toString()));
    sample();
  });
  const timer = setInterval(sample, 5);
  try {
    const result = await run();
    look(dir);
    sample();
    return { result, peak: [...files.values()].reduce((sum, f) => sum + f.max, 0), files: files.size };
  } finally {
    clearInterval(timer);
    watcher.close();
    for (const f of files.values()) fs.closeSync(f.fd);
  }
}

async function main() {
  svc.requireCommands('redis-server', 'redis-sentinel', 'redis-cli', 'redis-check-rdb', 'prometheus-pushgateway', 'gzip', 'curl', TIME);
  const aws = svc.awsCliPath();
  console.error(`load average before start: ${load()} (${os.cpus().length} cores)`);
  const [shard, s3, gateway] = await Promise.all([
    svc.startRedisShard('shard01', { replicas: 1, password: PASSWORD }),
    svc.startS3({ buckets: [BUCKET] }),
    svc.startPushgateway(),
  ]);
  const sentinel = await svc.startSentinel({
    password: SENTINEL_PASSWORD,
    masters: [{ name: shard.name, host: shard.master.host, port: shard.master.port, password: PASSWORD }],
  });
  const replica = shard.replicas[0];
  const [cronJob] = renderPolicy({
    apiVersion: 'backup-cronjobs.io/v1alpha1',
    kind: 'BackupPolicy',
    metadata: { name: 'bench', namespace: 'bench' },
    spec: {
      metrics: { pushgatewayUrl: gateway.url },
      redis: {
        sentinel: { addresses: [`127.0.0.1:${sentinel.port}`], passwordSecret: { name: 'sentinel-auth', key: 'password' } },
        passwordSecret: { name: 'redis-auth', key: 'password' },
        shards: ['shard01'],
        compression: { level: LEVEL },
        s3: { bucket: BUCKET, path: 'job', region: 'us-east-1', endpoint: s3.endpoint, credentialsSecret: { name: 'aws-credentials' } },
      },
    },
  }).filter((o) => o.kind === 'CronJob');
  const secrets = {
    'redis-auth': { password: PASSWORD },
    'sentinel-auth': { password: SENTINEL_PASSWORD },
    'aws-credentials': { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey },
  };
  const awsEnv = svc.cleanEnv({ ...s3.awsEnv(), REDISCLI_AUTH: PASSWORD });

  const awsTimed = async (args) => {
    const t = process.hrtime.bigint();
    const r = await svc.runCommand(aws, ['--endpoint-url', s3.endpoint, ...args], { env: svc.cleanEnv({ ...s3.awsEnv(), HOME: os.tmpdir() }) });
    if (r.code !== 0) throw new Error(`aws ${args.join(' ')}: ${r.stderr}`);
    return Number(process.hrtime.bigint() - t) / 1e9;
  };
  const emptyBucket = async () => {
    for (const o of await s3.listObjects(BUCKET)) await s3.deleteObject(BUCKET, o.key);
  };

  async function job() {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-bench-scratch-'));
    try {
      const spec = resolvePodSpec(JSON.parse(JSON.stringify(cronJob)));
      const cpuFiles = spec.containers.map((c) => {
        const file = path.join(cpuDir, `${path.basename(scratch)}-${c.name}.cpu`);
        c.command = timed(file, c.command);
        return file;
      });
      const t = process.hrtime.bigint();
      const tracked = await trackScratch(scratch, () => runPod(spec, { secrets, timeoutMs: 3600000, volumeDirs: { scratch } }));
      const seconds = Number(process.hrtime.bigint() - t) / 1e9;
      const { results } = tracked.result;
      const dump = results['redis-dump'];
      const upload = results['s3-upload'];
      if (dump.code !== 0 || upload.code !== 0) throw new Error(`job failed:\n${dump.stderr}\n${upload.stderr}`);
      const rdb = Number(/streamed: (\d+) bytes/.exec(dump.stderr)[1]);
      const [object] = await s3.listObjects(BUCKET, 'job/');
      await emptyBucket();
      cleanupContainerRuns();
      const cpu = cpuFiles.reduce((sum, file) => sum + cpuOf(file), 0);
      cpuFiles.forEach((file) => fs.rmSync(file));
      return { seconds, cpu, rdb, gz: object.size, peak: tracked.peak, files: tracked.files };
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }

  async function bare() {
    const pipeline = `redis-cli -h ${replica.host} -p ${replica.port} --rdb - 2>/dev/null | gzip -${LEVEL} | ${aws} --endpoint-url ${s3.endpoint} s3 cp - s3://${BUCKET}/bare/dump.rdb.gz`;
    const cpuFile = path.join(cpuDir, 'bare.cpu');
    const [cmd, ...args] = timed(cpuFile, ['sh', '-c', pipeline]);
    const t = process.hrtime.bigint();
    const r = await svc.runCommand(cmd, args, { env: awsEnv });
    const seconds = Number(process.hrtime.bigint() - t) / 1e9;
    if (r.code !== 0) throw new Error(`bare pipeline failed: ${r.stderr}`);
    const cpu = cpuOf(cpuFile);
    fs.rmSync(cpuFile);
    const [object] = await s3.listObjects(BUCKET, 'bare/');
    // What the temporary-key design would add: promote by server-side copy, then delete the temporary
    // key. (Timed on this object: s3rver cannot copy a key with ':' in it, like the job's.)
    const promote = (await awsTimed(['s3api', 'copy-object', '--bucket', BUCKET, '--key', 'promoted', '--copy-source', `${BUCKET}/${object.key}`]))
      + (await awsTimed(['s3api', 'delete-object', '--bucket', BUCKET, '--key', object.key]));
    await emptyBucket();
    return { seconds, cpu, gz: object.size, promote };
  }

  // GNU time's output files: not under /tmp, which the harness maps to the pod's tmp volume in commands.
  const cpuDir = fs.mkdtempSync('/var/tmp/bcj-bench-cpu-');
  const rows = [];
  try {
    for (const size of SIZES) {
      const t = Date.now();
      await fill(shard.master, size * 1e6);
      console.error(`${size} MB: filled in ${((Date.now() - t) / 1000).toFixed(1)} s; load average ${load()}`);
      const jobs = [];
      const bares = [];
      for (let i = 0; i < RUNS; i++) {
        jobs.push(await job());
        bares.push(await bare());
        console.error(`  run ${i + 1}: job ${jobs[i].seconds.toFixed(2)} s (CPU ${jobs[i].cpu.toFixed(2)} s), ` +
          `bare ${bares[i].seconds.toFixed(2)} s (CPU ${bares[i].cpu.toFixed(2)} s), ` +
          `peak scratch ${jobs[i].peak} B in ${jobs[i].files} files, promote ${bares[i].promote.toFixed(2)} s; load average ${load()}`);
      }
      const rdb = jobs[0].rdb;
      const jobS = median(jobs.map((r) => r.seconds));
      const bareS = median(bares.map((r) => r.seconds));
      const min = (rs) => Math.min(...rs.map((r) => r.seconds));
      const jobCpu = median(jobs.map((r) => r.cpu));
      const bareCpu = median(bares.map((r) => r.cpu));
      rows.push({
        size: `${size} MB`,
        rdb: mb(rdb),
        gz: mb(jobs[0].gz),
        job: `${jobS.toFixed(2)} / ${min(jobs).toFixed(2)}`,
        bare: `${bareS.toFixed(2)} / ${min(bares).toFixed(2)}`,
        ratio: `${(jobS / bareS).toFixed(3)} / ${(min(jobs) / min(bares)).toFixed(3)}`,
        cpu: `${jobCpu.toFixed(2)} / ${bareCpu.toFixed(2)} (${(jobCpu / bareCpu).toFixed(3)})`,
        peak: Math.max(...jobs.map((r) => r.peak)),
        jobPerGB: (jobS / (rdb / 1e9)).toFixed(1),
        barePerGB: (bareS / (rdb / 1e9)).toFixed(1),
        promote: median(bares.map((r) => r.promote)).toFixed(2),
        bareGz: mb(bares[0].gz),
        rdbBytes: rdb,
        jobSeconds: jobS,
        bareSeconds: bareS,
      });
    }
  } finally {
    await svc.stopAll();
    fs.rmSync(cpuDir, { recursive: true, force: true });
  }
  console.error(`load average at the end: ${load()}`);
  const header = ['size', 'RDB MB', 'gz MB', 'job s median / min', 'bare s median / min', 'ratio median / min', 'CPU s job / bare (ratio)',
    'peak scratch B', 'job s/GB', 'bare s/GB', 'promote s', 'bare gz MB'];
  const keys = ['size', 'rdb', 'gz', 'job', 'bare', 'ratio', 'cpu', 'peak', 'jobPerGB', 'barePerGB', 'promote', 'bareGz'];
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${keys.map((k) => r[k]).join(' | ')} |`);
  // What each further GB costs, between consecutive sizes: flat when the time grows linearly.
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]];
    const gb = (b.rdbBytes - a.rdbBytes) / 1e9;
    console.log(`marginal ${a.size} → ${b.size}: job ${((b.jobSeconds - a.jobSeconds) / gb).toFixed(1)} s/GB, bare ${((b.bareSeconds - a.bareSeconds) / gb).toFixed(1)} s/GB`);
  }
  console.log(`\n${RUNS} runs each, gzip -${LEVEL}, ${os.cpus().length} cores; "promote s": copy-object + delete-object of an object of that size (what uploading to a temporary key would add); the bare object holds the 40-byte end mark that redis-cli --rdb - passes on.`);
}

main().catch(async (e) => {
  console.error(e);
  await svc.stopAll();
  process.exit(1);
});
