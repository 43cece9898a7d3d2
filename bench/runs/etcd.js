#!/usr/bin/env node
'use strict';
// npm run bench:runs -- [--shapes 1000:200,20000:200,1000000:200] [--runs 3] [--probes] [--bare-first]
// The etcd backup job beside the bare tools, in one run, on the same data, for each data shape in turn:
//  - a fresh real etcd with mutual TLS (test/support/services) per shape, filled with random values of one
//    size (VALUE:MB in --shapes: value bytes, database MB; MB = 10^6 bytes) up to that database size, by
//    transactions through etcd's JSON gateway (/v3/kv/txn, up to 128 puts and 1.2 MB each). Kubernetes
//    objects are 1-20 KB: a cluster's database holds many small values; the 1 MB shape is the other end;
//  - job:  the rendered CronJob's containers in order, as the tests run them (test/etcd/fixtures runPod
//          over test/support/run-container: the manifest's command and env, volumes mapped to temp dirs),
//          default policy (hostPath destination, restore check on); the etcd steps run the busybox that
//          the tools step copies, finalize runs with busybox's applets only (the default finalize image);
//          every etcdctl the job runs goes through a wrapper that logs its start and end, so the snapshot
//          step splits into its etcdctl commands and the shell around them;
//  - bare: the same checks by hand, nothing else: `etcdctl snapshot save`, `etcdctl snapshot status -w
//          json`, `etcdctl snapshot restore` into a scratch directory;
//  - job and bare alternate (bare first with --bare-first), RUNS times each; the table gives medians of wall time and of CPU time (user +
//    system of every process of the job, or of the bare commands: this process's reaped children, from
//    /proc/self/stat; the etcd server's own work is not in it, the same for both). Beside bare, the work
//    the job does on top of it is timed on its own: `etcdctl endpoint status` (the precheck) and removing
//    the restored directory.
// What runs inside the containers is measured. A real cluster adds each container's start (job: 3, bare: 1).
// --probes also times the candidate ways to check the snapshot once per shape (busybox against etcdctl).
// Benchmark, not a test: nothing is asserted.
require('ts-node').register({ transpileOnly: true, compilerOptions: { module: 'commonjs' } });
const { execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { renderPolicy } = require('../../lib');
const { cleanupContainerRuns } = require('../../test/support/run-container');
const { cleanEnv, requireCommands, runCommand, startEtcdTls, stopAll } = require('../../test/support/services');
const { etcdPolicy, runPod } = require('../../test/lib/engines/etcd/fixtures');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
const SHAPES = option('shapes', '1000:200,20000:200,1000000:200')
  .split(',')
  .map((shape) => {
    const [valueBytes, mb] = shape.split(':').map(Number);
    return { valueBytes, mb };
  });
const RUNS = Number(option('runs', '3'));
const PROBES = process.argv.includes('--probes');
const BARE_FIRST = process.argv.includes('--bare-first');
const PUT_CONCURRENCY = 4;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const seconds = (ms) => (ms / 1000).toFixed(2);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const tempDir = (what) => fs.mkdtempSync(path.join(os.tmpdir(), `bcj-bench-etcd-${what}-`));
const elapsedMs = (since) => Number(process.hrtime.bigint() - since) / 1e6;
const ETCDCTL = () => requireCommands('etcdctl').etcdctl;
const ETCDCTL_ENV = (home) => cleanEnv({ ETCDCTL_API: '3', HOME: home });
/** etcdctl's flags for the member: its endpoint and the kubeadm-named client certificate. */
const clientFlags = (etcd) => [
  `--endpoints=${etcd.endpoint}`,
  `--cacert=${path.join(etcd.pkiDir, 'ca.crt')}`,
  `--cert=${path.join(etcd.pkiDir, 'healthcheck-client.crt')}`,
  `--key=${path.join(etcd.pkiDir, 'healthcheck-client.key')}`,
];

/** A request to etcd's JSON gateway (grpc-gateway: /v3/..., bytes as base64) with the client certificate. */
function gateway(etcd, route, body) {
  const https = require('https');
  const pki = (f) => fs.readFileSync(path.join(etcd.pkiDir, f));
  const url = new URL(route, etcd.endpoint);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: 'POST',
        ca: pki('ca.crt'),
        cert: pki('healthcheck-client.crt'),
        key: pki('healthcheck-client.key'),
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode !== 200) reject(new Error(`${route}: HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
          else resolve(JSON.parse(text));
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function dbSize(etcd) {
  return Number((await gateway(etcd, '/v3/maintenance/status', {})).dbSize);
}

/** Puts random values of `valueBytes` in transactions, PUT_CONCURRENCY at a time, until the database reaches `bytes`; the number of keys. */
async function fillTo(etcd, bytes, valueBytes) {
  const perTxn = Math.max(1, Math.min(128, Math.floor(1.2e6 / valueBytes)));
  let keys = 0;
  for (let size = await dbSize(etcd); size < bytes; size = await dbSize(etcd)) {
    const txns = Math.ceil(Math.max(bytes - size, 0) / (valueBytes * 1.1) / perTxn);
    let next = 0;
    const worker = async () => {
      while (next < txns) {
        next++;
        const success = [];
        for (let i = 0; i < perTxn; i++) {
          const key = Buffer.from(`/registry/bench/${String(keys++).padStart(8, '0')}`).toString('base64');
          success.push({ requestPut: { key, value: crypto.randomBytes(valueBytes).toString('base64') } });
        }
        await gateway(etcd, '/v3/kv/txn', { success });
      }
    };
    await Promise.all(Array.from({ length: PUT_CONCURRENCY }, worker));
  }
  return { size: await dbSize(etcd), keys };
}

/** CPU seconds (user + system) of this process's children that have ended and been waited for. */
function childrenCpu() {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  // after "pid (comm) ": state is field 3; cutime and cstime are fields 16 and 17
  return (Number(fields[16 - 3]) + Number(fields[17 - 3])) / CLOCK_TICKS;
}
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** A bin directory whose etcdctl logs "<first two args> <start> <end>" (seconds) to ETCDCTL_TIMES, then runs the real one. */
function etcdctlWrapper() {
  const dir = tempDir('wrap');
  const real = ETCDCTL();
  const date = requireCommands('date').date; // GNU date (%N); the job's PATH has busybox's first
  fs.writeFileSync(
    path.join(dir, 'etcdctl'),
    `#!/bin/sh
s=$(${date} +%s.%N)
${real} "$@"
rc=$?
printf '%s %s %s %s\\n' "$1" "$2" "$s" "$(${date} +%s.%N)" >>"$ETCDCTL_TIMES"
exit $rc
`,
    { mode: 0o755 },
  );
  return dir;
}

/**
 * etcdctl's run times from the wrapper's log, summed per command ("snapshot save", "endpoint status", "get"...),
 * and how long at least one ran (`busyMs`: the restore check runs beside status and the key count).
 */
function etcdctlTimes(file) {
  const times = {};
  const spans = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const [a, b, start, end] = line.split(' ');
    const name = `etcdctl ${a === 'snapshot' || a === 'endpoint' ? `${a} ${b}` : a}`;
    times[name] = (times[name] || 0) + (Number(end) - Number(start)) * 1000;
    spans.push([Number(start) * 1000, Number(end) * 1000]);
  }
  let busyMs = 0;
  let reached = -Infinity;
  for (const [start, end] of spans.sort((x, y) => x[0] - y[0])) {
    if (end > reached) busyMs += end - Math.max(start, reached);
    reached = Math.max(reached, end);
  }
  return { times, busyMs };
}

/** A directory of busybox applet links: the default finalize image (busybox) has nothing else. */
function busyboxImage() {
  const dir = tempDir('busybox');
  const busybox = requireCommands('busybox').busybox;
  for (const applet of execFileSync(busybox, ['--list'], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
    fs.symlinkSync(busybox, path.join(dir, applet));
  }
  return dir;
}

/** The rendered job's containers, in order: wall and CPU time, each container's time, the etcdctl commands' times. */
async function job(etcd, busybox, wrapper) {
  const cronJob = renderPolicy(etcdPolicy({ endpoint: etcd.endpoint })).find((o) => o.kind === 'CronJob');
  const dest = tempDir('dest');
  const times = path.join(tempDir('times'), 'etcdctl');
  fs.writeFileSync(times, '');
  const volumeDirs = {};
  try {
    const containers = [
      ...cronJob.spec.jobTemplate.spec.template.spec.initContainers,
      ...cronJob.spec.jobTemplate.spec.template.spec.containers,
    ].map((c) => c.name);
    const steps = {};
    const stepsCpu = {};
    let wallMs = 0;
    let cpuMs = 0;
    // one container at a time (sharing the pod's volumes), for each one's CPU time
    for (const name of containers) {
      const cpu = childrenCpu();
      const started = process.hrtime.bigint();
      const run = await runPod(cronJob, {
        only: [name],
        volumes: { backup: dest, 'etcd-certs': etcd.pkiDir },
        volumeDirs,
        timeoutMs: 600000,
        pathPrepend: [wrapper],
        env: { ETCDCTL_TIMES: times },
        envFor: { finalize: { PATH: busybox } },
      });
      const ms = elapsedMs(started);
      if (run.failed) throw new Error(`the job failed at ${run.failed}:\n${run.log}`);
      steps[name] = run.results[name].durationMs;
      stepsCpu[`${name} CPU`] = (childrenCpu() - cpu) * 1000;
      wallMs += ms;
      cpuMs += stepsCpu[`${name} CPU`];
    }
    Object.assign(steps, stepsCpu);
    const { times: commands, busyMs } = etcdctlTimes(times);
    commands['snapshot step outside etcdctl'] = steps.snapshot - busyMs;
    return { wallMs, cpuMs, steps, commands };
  } finally {
    fs.rmSync(dest, { recursive: true, force: true });
    fs.rmSync(path.dirname(times), { recursive: true, force: true });
    for (const dir of Object.values(volumeDirs)) fs.rmSync(dir, { recursive: true, force: true });
    cleanupContainerRuns();
  }
}

async function timed(cmd, args, opts) {
  const started = process.hrtime.bigint();
  const r = await runCommand(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  return { ms: elapsedMs(started), stdout: r.stdout.toString() };
}

/**
 * Bare: etcdctl snapshot save + snapshot status + snapshot restore into scratch (their sum is the wall time).
 * Then, apart: what the job adds to that -- endpoint status, removing the restored directory -- and, with
 * --probes, the other ways to check the snapshot.
 */
async function bare(etcd, probes) {
  const dir = tempDir('bare');
  const file = path.join(dir, 'snapshot.db');
  const opts = { env: ETCDCTL_ENV(dir), cwd: dir };
  try {
    const steps = {};
    const cpu = childrenCpu();
    steps.save = (await timed(ETCDCTL(), [...clientFlags(etcd), 'snapshot', 'save', file], opts)).ms;
    steps.status = (await timed(ETCDCTL(), ['snapshot', 'status', file, '-w', 'json'], opts)).ms;
    steps.restore = (
      await timed(ETCDCTL(), ['snapshot', 'restore', file, '--data-dir', path.join(dir, 'restored')], opts)
    ).ms;
    const wallMs = steps.save + steps.status + steps.restore;
    const cpuMs = (childrenCpu() - cpu) * 1000;
    const extra = {
      'endpoint status': (await timed(ETCDCTL(), [...clientFlags(etcd), 'endpoint', 'status', '-w', 'json'], opts)).ms,
      'rm restored': (await timed('rm', ['-rf', path.join(dir, 'restored')], opts)).ms,
    };
    return { wallMs, cpuMs, steps, extra, probes: probes ? await probeChecks(file, dir) : undefined };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The candidate ways to check a snapshot, each timed once (busybox = the applets the etcd steps run). */
async function probeChecks(file, dir) {
  const busybox = requireCommands('busybox').busybox;
  const db = fs.statSync(file).size - 32;
  let block = 512;
  while (block < 1048576 && db % (block * 2) === 0) block *= 2;
  const sh = (script) =>
    timed(busybox, ['sh', '-c', script, 'probe', file, String(db), String(block), String(db / block)], {
      env: cleanEnv({ PATH: '/nonexistent' }),
      cwd: dir,
    });
  const bb = `${busybox} `;
  return {
    'busybox wc -c': (await sh(`${bb}wc -c <"$1" >/dev/null`)).ms,
    'busybox stat -c %s': (await sh(`${bb}stat -c %s "$1" >/dev/null`)).ms,
    'busybox head -c → sha256sum': (await sh(`${bb}head -c "$2" "$1" | ${bb}sha256sum >/dev/null`)).ms,
    'busybox dd → sha256sum': (await sh(`${bb}dd if="$1" bs="$3" count="$4" 2>/dev/null | ${bb}sha256sum >/dev/null`))
      .ms,
    'restore --skip-hash-check': (
      await timed(
        ETCDCTL(),
        ['snapshot', 'restore', file, '--skip-hash-check', '--data-dir', path.join(dir, 'probe-skip')],
        { env: ETCDCTL_ENV(dir), cwd: dir },
      )
    ).ms,
  };
}

function medians(runs, field) {
  return Object.fromEntries(Object.keys(runs[0][field]).map((name) => [name, median(runs.map((r) => r[field][name]))]));
}
const list = (m) =>
  Object.entries(m)
    .map(([name, ms]) => `${name} ${seconds(ms)}`)
    .join(', ');

const shapeName = ({ valueBytes, mb }) =>
  `${mb} MB of ${valueBytes >= 1e6 ? `${valueBytes / 1e6} MB` : `${valueBytes / 1e3} KB`} values`;

async function main() {
  requireCommands('etcd', 'etcdctl', 'busybox', 'openssl');
  console.log(
    `load before: ${load()} (${os.cpus().length} CPUs); shapes: ${SHAPES.map(shapeName).join(', ')}; ${RUNS} runs each`,
  );
  const busybox = busyboxImage();
  const wrapper = etcdctlWrapper();
  const rows = [];
  try {
    for (const shape of SHAPES) {
      const etcd = await startEtcdTls();
      try {
        const filled = Date.now();
        const { size, keys } = await fillTo(etcd, shape.mb * 1e6, shape.valueBytes);
        // the fill's writes reach the disk before anything is timed (else the first runs pay their writeback)
        execFileSync('sync');
        console.log(
          `${shapeName(shape)}: ${keys} keys, database ${size} bytes, filled in ${seconds(Date.now() - filled)} s; load ${load()}`,
        );
        const jobs = [];
        const bares = [];
        for (let i = 0; i < RUNS; i++) {
          if (BARE_FIRST) bares.push(await bare(etcd, PROBES && i === 0));
          jobs.push(await job(etcd, busybox, wrapper));
          if (!BARE_FIRST) bares.push(await bare(etcd, PROBES && i === 0));
        }
        const row = {
          shape,
          size,
          keys,
          job: median(jobs.map((r) => r.wallMs)),
          bare: median(bares.map((r) => r.wallMs)),
          jobCpu: median(jobs.map((r) => r.cpuMs)),
          bareCpu: median(bares.map((r) => r.cpuMs)),
          jobSteps: medians(jobs, 'steps'),
          jobCommands: medians(jobs, 'commands'),
          bareSteps: medians(bares, 'steps'),
          extra: medians(bares, 'extra'),
          probes: bares[0].probes,
          load: load(),
        };
        rows.push(row);
        const all = (runs, field) => runs.map((r) => seconds(r[field])).join(' ');
        console.log(
          `  job ${all(jobs, 'wallMs')} s (CPU ${all(jobs, 'cpuMs')} s) [${list(row.jobSteps)}] [${list(row.jobCommands)}]`,
        );
        console.log(
          `  bare ${all(bares, 'wallMs')} s (CPU ${all(bares, 'cpuMs')} s) [${list(row.bareSteps)}] | apart: ${list(row.extra)}${row.probes ? ` | probes: ${list(row.probes)}` : ''} | load ${row.load}`,
        );
      } finally {
        await stopAll();
      }
    }
  } finally {
    fs.rmSync(busybox, { recursive: true, force: true });
    fs.rmSync(wrapper, { recursive: true, force: true });
  }
  const lines = [
    '',
    '| data | keys | database | job wall | bare wall | job / bare | job CPU | bare CPU | job / bare CPU | load (1, 5, 15 min) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows.map(
      (r) =>
        `| ${shapeName(r.shape)} | ${r.keys} | ${(r.size / 1e6).toFixed(0)} MB | ${seconds(r.job)} s | ${seconds(r.bare)} s | ${(r.job / r.bare).toFixed(2)}× | ${seconds(r.jobCpu)} s | ${seconds(r.bareCpu)} s | ${(r.jobCpu / r.bareCpu).toFixed(2)}× | ${r.load} |`,
    ),
    '',
    '| data | job containers (medians, s) | job snapshot step (medians, s) | bare (medians, s) | apart (medians, s) |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${shapeName(r.shape)} | ${list(r.jobSteps)} | ${list(r.jobCommands)} | ${list(r.bareSteps)} | ${list(r.extra)} |`,
    ),
  ];
  if (PROBES) {
    lines.push('', '| data | check probes (one run each, s) |', '| --- | --- |');
    for (const r of rows) lines.push(`| ${shapeName(r.shape)} | ${list(r.probes)} |`);
  }
  const containers = Object.keys(rows[0].jobSteps).filter((name) => !name.endsWith(' CPU'));
  lines.push(
    '',
    `containers started per run: job ${containers.length} (${containers.join(', ')}), bare 1`,
    `load after: ${load()}; ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`,
  );
  console.log(lines.join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
