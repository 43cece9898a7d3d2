#!/usr/bin/env node
'use strict';
// Redis backup runs: the rendered backup pod (redis-dump and s3-upload at once, the scripts exactly as
// embedded in the manifest, run by the tests' harness) against the bare pipeline
//   redis-cli --rdb - | gzip -N | aws s3 cp - s3://...
// on the same data, the same replica and the same S3 server, in one run of this script. Real services on
// loopback (test/support/services): redis master + replica + sentinel with passwords, s3rver, Pushgateway
// (the job pushes its metrics; no retention rules, the bare pipeline has none either).
//
// Per data shape (value size and dataset size): fill the shard with `redis-cli --pipe` (SET of random
// base64 values of that many characters, which gzip -1 compresses to about 77 %), then JOB and BARE
// alternately, BENCH_RUNS times each. Small values (100 B - 1 KB: caches, counters, sessions) cost
// redis-check-rdb and the RDB encoding per key; large ones (100 KB) are bytes only. Printed: the RDB and
// compressed sizes, the median wall time of each, their ratio, seconds per GB of RDB, the peak scratch
// use of the job (an upper bound: every file that appears in the scratch volume is held open from its
// first inotify event on and its largest size is added up, so a file deleted right after it grew still
// counts; named pipes hold no data), and the cost the temporary-key design would add (server-side
// copy-object of a stored object of that size to another key + delete-object of the first, same CLI).
// The machine is shared: besides the medians, the fastest run of each and the CPU time of each (user +
// system of the job's two containers or of the bare pipeline, with all their children, from GNU time
// wrapped around the unchanged command) are printed, which load from elsewhere disturbs far less. The
// services' own CPU (redis-server's fork, s3rver) is not in it: it is the same for both.
// Where the CPU goes: in one more run of each per shape, every command the job and the bare pipeline run
// by name (redis-cli, gzip, aws, redis-check-rdb, tee, head, cat, wc, dd, curl ...) goes through a wrapper
// that runs it under GNU time, so that run's CPU splits per command (and per container: the rest is the
// containers' shells). The wrappers cost a shell and a GNU time start per command (the job runs about 50
// commands, the bare pipeline 3), so the headline figures come from the unwrapped runs only.
// Every figure is printed with the machine's `uptime` (load averages) at that moment.
// This is a benchmark, not a test: it asserts nothing beyond the runs succeeding.
//
// Options (environment): BENCH_SHAPES  value characters:dataset MB, default 100:250,1000:210,100000:205
//                                      (RDBs of 204-205 MB: the RDB encodes values more tightly than
//                                      the dataset size counted here, most for small values)
//                        BENCH_RUNS    runs of each per shape (unwrapped), default 3
//                        BENCH_SPLIT   0: no wrapped run for the per-command split, default 1
//                        BENCH_PROMOTE 1: time copy-object + delete-object after each bare run, default 0
//                        BENCH_LEVEL   gzip level of both, default 1
const { execFileSync, spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

require('ts-node').register({ transpileOnly: true, compilerOptions: { module: 'commonjs' } });
const { renderPolicy } = require('../../lib');
const { cleanupContainerRuns, resolvePodSpec, runPod } = require('../../test/support/run-container');
const svc = require('../../test/support/services');

const SHAPES = (process.env.BENCH_SHAPES || '100:250,1000:210,100000:205').split(',').map((shape) => {
  const [valueChars, mb] = shape.split(':').map(Number);
  return { valueChars, mb };
});
const RUNS = Number(process.env.BENCH_RUNS || 3);
const SPLIT = process.env.BENCH_SPLIT !== '0';
const PROMOTE = process.env.BENCH_PROMOTE === '1';
const LEVEL = Number(process.env.BENCH_LEVEL || 1);
const PASSWORD = 'bench-redis-pw';
const SENTINEL_PASSWORD = 'bench-sentinel-pw';
const BUCKET = 'bench';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const TIME = '/usr/bin/time'; // GNU time (Debian package `time`)

/** Prefixes a command with GNU time writing "<user s> <system s>" to `file`. */
const timed = (file, argv) => [TIME, '-f', '%U %S', '-o', file, ...argv];
const cpuOf = (file) =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .pop()
    .split(' ')
    .map(Number)
    .reduce((a, b) => a + b, 0);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
const mb = (bytes) => (bytes / 1e6).toFixed(1);
const cpuList = (by) =>
  Object.entries(by)
    .sort((a, b) => b[1] - a[1])
    .map(([name, s]) => `${name} ${s.toFixed(2)}`)
    .join(', ');

/** SET commands in the Redis protocol, through `redis-cli --pipe`, until the dataset holds about `bytes` in values of `valueChars`. */
async function fill(master, bytes, valueChars) {
  const keys = Math.round(bytes / (valueChars + 40));
  const batch = Math.max(1, Math.min(1000, Math.floor(1e6 / valueChars)));
  await master.cli(['FLUSHALL', 'ASYNC']); // a synchronous FLUSHALL of millions of keys outlasts the CLI's timeout on a loaded machine
  const pipe = spawn('redis-cli', ['-h', master.host, '-p', String(master.port), '--pipe', '--pipe-timeout', '0'], {
    env: svc.cleanEnv({ REDISCLI_AUTH: PASSWORD }),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  pipe.stdout.on('data', (b) => (out += b));
  const closed = new Promise((resolve) => pipe.on('close', resolve));
  for (let i = 0; i < keys; i += batch) {
    const n = Math.min(batch, keys - i);
    const random = crypto.randomBytes(Math.ceil((n * valueChars * 3) / 4)).toString('base64');
    const parts = [];
    for (let j = 0; j < n; j++) {
      const key = `key:${i + j}`;
      const value = random.slice(j * valueChars, (j + 1) * valueChars);
      parts.push(`*3\r\n$3\r\nSET\r\n$${key.length}\r\n${key}\r\n$${value.length}\r\n${value}\r\n`);
    }
    if (!pipe.stdin.write(parts.join(''))) await new Promise((resolve) => pipe.stdin.once('drain', resolve));
  }
  pipe.stdin.end();
  const code = await closed;
  if (code !== 0 || !/errors: 0,/.test(out)) throw new Error(`redis-cli --pipe: exit ${code}\n${out}`);
  const acked = await master.cli(['WAIT', '1', '600000']);
  if (acked !== '1') throw new Error(`the replica did not catch up (WAIT: ${acked})`);
  return keys;
}

/** The commands whose CPU is split out: each gets a wrapper that runs the real one under GNU time. */
const WRAPPED = [
  'redis-cli',
  'redis-check-rdb',
  'gzip',
  'aws',
  'tee',
  'head',
  'cat',
  'wc',
  'dd',
  'curl',
  'sed',
  'awk',
  'grep',
  'date',
  'mkfifo',
  'timeout',
];
function cpuWrappers(dir, log) {
  for (const name of WRAPPED) {
    const real = name === 'aws' ? svc.awsCliPath() : svc.requireCommands(name)[name];
    fs.writeFileSync(path.join(dir, name), `#!/bin/sh\nexec ${TIME} -a -o ${log} -f '${name} %U %S' ${real} "$@"\n`, {
      mode: 0o755,
    });
  }
}
/** CPU seconds per wrapped command from the wrappers' log (emptied after reading). */
function cpuByCommand(log) {
  const by = {};
  if (!fs.existsSync(log)) return by;
  for (const line of fs.readFileSync(log, 'utf8').split('\n')) {
    const m = /^(\S+) ([\d.]+) ([\d.]+)$/.exec(line);
    if (m) by[m[1]] = (by[m[1]] || 0) + Number(m[2]) + Number(m[3]);
  }
  fs.writeFileSync(log, '');
  return by;
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
  svc.requireCommands(
    'redis-server',
    'redis-sentinel',
    'redis-cli',
    'redis-check-rdb',
    'prometheus-pushgateway',
    'gzip',
    'curl',
    TIME,
  );
  const aws = svc.awsCliPath();
  console.error(`before start: ${uptime()} (${os.cpus().length} cores)`);
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
        sentinel: {
          addresses: [`127.0.0.1:${sentinel.port}`],
          passwordSecret: { name: 'sentinel-auth', key: 'password' },
        },
        passwordSecret: { name: 'redis-auth', key: 'password' },
        shards: ['shard01'],
        compression: { level: LEVEL },
        s3: {
          bucket: BUCKET,
          path: 'job',
          region: 'us-east-1',
          endpoint: s3.endpoint,
          credentialsSecret: { name: 'aws-credentials' },
        },
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
    const r = await svc.runCommand(aws, ['--endpoint-url', s3.endpoint, ...args], {
      env: svc.cleanEnv({ ...s3.awsEnv(), HOME: os.tmpdir() }),
    });
    if (r.code !== 0) throw new Error(`aws ${args.join(' ')}: ${r.stderr}`);
    return Number(process.hrtime.bigint() - t) / 1e9;
  };
  const emptyBucket = async () => {
    for (const o of await s3.listObjects(BUCKET)) await s3.deleteObject(BUCKET, o.key);
  };

  async function job(wrapped) {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-bench-scratch-'));
    try {
      const spec = resolvePodSpec(JSON.parse(JSON.stringify(cronJob)));
      const cpuFiles = spec.containers.map((c) => {
        const file = path.join(cpuDir, `${path.basename(scratch)}-${c.name}.cpu`);
        c.command = timed(file, c.command);
        return file;
      });
      const t = process.hrtime.bigint();
      const tracked = await trackScratch(scratch, () =>
        runPod(spec, { secrets, timeoutMs: 3600000, volumeDirs: { scratch }, pathPrepend: wrapped ? [wrapDir] : [] }),
      );
      const seconds = Number(process.hrtime.bigint() - t) / 1e9;
      const { results } = tracked.result;
      const dump = results['redis-dump'];
      const upload = results['s3-upload'];
      if (dump.code !== 0 || upload.code !== 0) throw new Error(`job failed:\n${dump.stderr}\n${upload.stderr}`);
      const rdb = Number(/streamed: (\d+) bytes/.exec(dump.stderr)[1]);
      const [object] = await s3.listObjects(BUCKET, 'job/');
      await emptyBucket();
      cleanupContainerRuns();
      const containers = Object.fromEntries(spec.containers.map((c, i) => [c.name, cpuOf(cpuFiles[i])]));
      const cpu = Object.values(containers).reduce((sum, c) => sum + c, 0);
      cpuFiles.forEach((file) => fs.rmSync(file));
      const commands = cpuByCommand(cpuLog);
      if (wrapped) commands['shells (rest)'] = cpu - Object.values(commands).reduce((sum, c) => sum + c, 0);
      return { seconds, cpu, rdb, gz: object.size, peak: tracked.peak, files: tracked.files, containers, commands };
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }

  async function bare(wrapped) {
    const w = (name) => (wrapped ? path.join(wrapDir, name) : name === 'aws' ? aws : name);
    const pipeline = `${w('redis-cli')} -h ${replica.host} -p ${replica.port} --rdb - 2>/dev/null | ${w('gzip')} -${LEVEL} | ${w('aws')} --endpoint-url ${s3.endpoint} s3 cp - s3://${BUCKET}/bare/dump.rdb.gz`;
    const cpuFile = path.join(cpuDir, 'bare.cpu');
    const [cmd, ...args] = timed(cpuFile, ['sh', '-c', pipeline]);
    const t = process.hrtime.bigint();
    const r = await svc.runCommand(cmd, args, { env: awsEnv });
    const seconds = Number(process.hrtime.bigint() - t) / 1e9;
    if (r.code !== 0) throw new Error(`bare pipeline failed: ${r.stderr}`);
    const cpu = cpuOf(cpuFile);
    fs.rmSync(cpuFile);
    const commands = cpuByCommand(cpuLog);
    const [object] = await s3.listObjects(BUCKET, 'bare/');
    // What the temporary-key design would add: promote by server-side copy, then delete the temporary
    // key. (Timed on this object: s3rver cannot copy a key with ':' in it, like the job's.)
    const promote =
      PROMOTE &&
      (await awsTimed([
        's3api',
        'copy-object',
        '--bucket',
        BUCKET,
        '--key',
        'promoted',
        '--copy-source',
        `${BUCKET}/${object.key}`,
      ])) + (await awsTimed(['s3api', 'delete-object', '--bucket', BUCKET, '--key', object.key]));
    await emptyBucket();
    return { seconds, cpu, gz: object.size, promote, commands };
  }

  // GNU time's output files: not under /tmp, which the harness maps to the pod's tmp volume in commands.
  const cpuDir = fs.mkdtempSync('/var/tmp/bcj-bench-cpu-');
  const wrapDir = fs.mkdtempSync('/var/tmp/bcj-bench-wrap-');
  const cpuLog = path.join(cpuDir, 'commands.cpu');
  cpuWrappers(wrapDir, cpuLog);
  const rows = [];
  const breakdown = [];
  try {
    for (const { valueChars, mb: size } of SHAPES) {
      const t = Date.now();
      const keys = await fill(shard.master, size * 1e6, valueChars);
      console.error(
        `${size} MB of ${valueChars}-character values (${keys} keys): filled in ${((Date.now() - t) / 1000).toFixed(1)} s; ${uptime()}`,
      );
      const jobs = [];
      const bares = [];
      for (let i = 0; i < RUNS; i++) {
        jobs.push(await job(false));
        bares.push(await bare(false));
        console.error(
          `  run ${i + 1}: job ${jobs[i].seconds.toFixed(2)} s (CPU ${jobs[i].cpu.toFixed(2)} s), ` +
            `bare ${bares[i].seconds.toFixed(2)} s (CPU ${bares[i].cpu.toFixed(2)} s), ` +
            `peak scratch ${jobs[i].peak} B in ${jobs[i].files} files${PROMOTE ? `, promote ${bares[i].promote.toFixed(2)} s` : ''}; ${uptime()}`,
        );
        console.error(`    job CPU by container: ${cpuList(jobs[i].containers)}`);
      }
      const split = SPLIT ? { job: await job(true), bare: await bare(true) } : undefined;
      if (split) {
        console.error(
          `  wrapped run (per-command split): job ${split.job.seconds.toFixed(2)} s (CPU ${split.job.cpu.toFixed(2)} s), bare ${split.bare.seconds.toFixed(2)} s (CPU ${split.bare.cpu.toFixed(2)} s); ${uptime()}`,
        );
        console.error(
          `    job CPU by container: ${cpuList(split.job.containers)}; by command: ${cpuList(split.job.commands)}; bare CPU by command: ${cpuList(split.bare.commands)}`,
        );
      }
      const rdb = jobs[0].rdb;
      const jobS = median(jobs.map((r) => r.seconds));
      const bareS = median(bares.map((r) => r.seconds));
      const min = (rs) => Math.min(...rs.map((r) => r.seconds));
      const jobCpu = median(jobs.map((r) => r.cpu));
      const bareCpu = median(bares.map((r) => r.cpu));
      if (split)
        breakdown.push({
          shape: `${size} MB, ${valueChars} B values`,
          containers: split.job.containers,
          job: split.job.commands,
          bare: split.bare.commands,
          load: load(),
        });
      rows.push({
        size: `${size} MB, ${valueChars} B values (${keys} keys)`,
        rdb: mb(rdb),
        gz: mb(jobs[0].gz),
        job: `${jobS.toFixed(2)} / ${min(jobs).toFixed(2)}`,
        bare: `${bareS.toFixed(2)} / ${min(bares).toFixed(2)}`,
        ratio: `${(jobS / bareS).toFixed(3)} / ${(min(jobs) / min(bares)).toFixed(3)}`,
        cpu: `${jobCpu.toFixed(2)} / ${bareCpu.toFixed(2)} (${(jobCpu / bareCpu).toFixed(3)})`,
        peak: Math.max(...jobs.map((r) => r.peak)),
        jobPerGB: (jobS / (rdb / 1e9)).toFixed(1),
        barePerGB: (bareS / (rdb / 1e9)).toFixed(1),
        promote: PROMOTE ? median(bares.map((r) => r.promote)).toFixed(2) : '-',
        load: load(),
        bareGz: mb(bares[0].gz),
        rdbBytes: rdb,
        jobSeconds: jobS,
        bareSeconds: bareS,
      });
    }
  } finally {
    await svc.stopAll();
    fs.rmSync(cpuDir, { recursive: true, force: true });
    fs.rmSync(wrapDir, { recursive: true, force: true });
  }
  console.error(`at the end: ${uptime()}`);
  const header = [
    'size',
    'RDB MB',
    'gz MB',
    'job s median / min',
    'bare s median / min',
    'ratio median / min',
    'CPU s job / bare (ratio)',
    'peak scratch B',
    'job s/GB',
    'bare s/GB',
    'promote s',
    'bare gz MB',
    'load after (1, 5, 15 min)',
  ];
  const keys = [
    'size',
    'rdb',
    'gz',
    'job',
    'bare',
    'ratio',
    'cpu',
    'peak',
    'jobPerGB',
    'barePerGB',
    'promote',
    'bareGz',
    'load',
  ];
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${keys.map((k) => r[k]).join(' | ')} |`);
  console.log(
    '\n| data | job CPU by container (wrapped run, s) | job CPU by command (wrapped run, s) | bare CPU by command (wrapped run, s) | load after (1, 5, 15 min) |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  for (const b of breakdown)
    console.log(`| ${b.shape} | ${cpuList(b.containers)} | ${cpuList(b.job)} | ${cpuList(b.bare)} | ${b.load} |`);
  console.log(
    `\n${RUNS} unwrapped runs each${SPLIT ? ' and one wrapped run for the split' : ''}, gzip -${LEVEL}, ${os.cpus().length} cores; "promote s": copy-object + delete-object of an object of that size (what uploading to a temporary key would add); the bare object holds the 40-byte end mark that redis-cli --rdb - passes on.`,
  );
}

main().catch(async (e) => {
  console.error(e);
  await svc.stopAll();
  process.exit(1);
});
