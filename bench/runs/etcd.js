#!/usr/bin/env node
'use strict';
// npm run bench:runs -- [--sizes 50,200,1000] [--runs 3] [--probes]
// The etcd backup job beside the bare tools, in one run, on the same data:
//  - a real etcd with mutual TLS (test/support/services), filled with 1 MB random values up to each
//    database size in turn (MB = 10^6 bytes; etcd's default quota is 2 GB, its request limit 1.5 MiB);
//  - job:  the rendered CronJob's containers in order, as the tests run them (test/etcd/fixtures runPod
//          over test/support/run-container: the manifest's command and env, volumes mapped to temp dirs),
//          default policy (hostPath destination, restore check on); the etcd steps run the busybox that
//          the tools step copies, finalize runs with busybox's applets only (the default finalize image);
//  - bare: the same checks by hand, nothing else: `etcdctl snapshot save`, `etcdctl snapshot status -w
//          json`, `etcdctl snapshot restore` into a scratch directory;
//  - job and bare alternate, RUNS times each; the table gives medians. Beside bare, the work the job does
//    on top of it is timed on its own: `etcdctl endpoint status` (the precheck) and removing the restored
//    directory.
// What runs inside the containers is measured. A real cluster adds each container's start (job: 3, bare: 1).
// --probes also times the candidate ways to check the snapshot once per size (busybox against etcdctl).
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
const SIZES_MB = option('sizes', '50,200,1000').split(',').map(Number);
const RUNS = Number(option('runs', '3'));
const PROBES = process.argv.includes('--probes');
const VALUE_BYTES = 1000000;
const PUT_CONCURRENCY = 4;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const seconds = (ms) => (ms / 1000).toFixed(2);
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const tempDir = (what) => fs.mkdtempSync(path.join(os.tmpdir(), `bcj-bench-etcd-${what}-`));
const elapsedMs = (since) => Number(process.hrtime.bigint() - since) / 1e6;
const ETCDCTL = () => requireCommands('etcdctl').etcdctl;
const ETCDCTL_ENV = (home) => cleanEnv({ ETCDCTL_API: '3', HOME: home });
/** etcdctl's flags for the member: its endpoint and the kubeadm-named client certificate. */
const clientFlags = (etcd) => [`--endpoints=${etcd.endpoint}`, `--cacert=${path.join(etcd.pkiDir, 'ca.crt')}`,
  `--cert=${path.join(etcd.pkiDir, 'healthcheck-client.crt')}`, `--key=${path.join(etcd.pkiDir, 'healthcheck-client.key')}`];

async function dbSize(etcd) {
  return JSON.parse(await etcd.etcdctl(['endpoint', 'status', '-w', 'json']))[0].Status.dbSize;
}

let keys = 0;
/** Puts 1 MB random values, PUT_CONCURRENCY at a time, until the database reaches `bytes`. */
async function fillTo(etcd, bytes) {
  for (let size = await dbSize(etcd); size < bytes; size = await dbSize(etcd)) {
    const missing = Math.ceil((bytes - size) / (VALUE_BYTES * 1.2));
    let next = 0;
    const worker = async () => {
      while (next < missing) {
        next++;
        const key = `/bench/${String(keys++).padStart(6, '0')}`;
        const r = await runCommand(ETCDCTL(), [...clientFlags(etcd), 'put', key], { env: ETCDCTL_ENV(os.tmpdir()), input: crypto.randomBytes(VALUE_BYTES) });
        if (r.code !== 0) throw new Error(`etcdctl put ${key}: ${r.stderr}`);
      }
    };
    await Promise.all(Array.from({ length: PUT_CONCURRENCY }, worker));
  }
  return dbSize(etcd);
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

/** The rendered job's containers, in order: wall time and each container's time. */
async function job(etcd, busybox) {
  const cronJob = renderPolicy(etcdPolicy({ endpoint: etcd.endpoint })).find((o) => o.kind === 'CronJob');
  const dest = tempDir('dest');
  const volumeDirs = {};
  try {
    const started = process.hrtime.bigint();
    const run = await runPod(cronJob, {
      volumes: { backup: dest, 'etcd-certs': etcd.pkiDir },
      volumeDirs,
      timeoutMs: 600000,
      envFor: { finalize: { PATH: busybox } },
    });
    const wallMs = elapsedMs(started);
    if (run.failed) throw new Error(`the job failed at ${run.failed}:\n${run.log}`);
    return { wallMs, steps: Object.fromEntries(Object.entries(run.results).map(([name, r]) => [name, r.durationMs])) };
  } finally {
    fs.rmSync(dest, { recursive: true, force: true });
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
    steps.save = (await timed(ETCDCTL(), [...clientFlags(etcd), 'snapshot', 'save', file], opts)).ms;
    steps.status = (await timed(ETCDCTL(), ['snapshot', 'status', file, '-w', 'json'], opts)).ms;
    steps.restore = (await timed(ETCDCTL(), ['snapshot', 'restore', file, '--data-dir', path.join(dir, 'restored')], opts)).ms;
    const wallMs = steps.save + steps.status + steps.restore;
    const extra = {
      'endpoint status': (await timed(ETCDCTL(), [...clientFlags(etcd), 'endpoint', 'status', '-w', 'json'], opts)).ms,
      'rm restored': (await timed('rm', ['-rf', path.join(dir, 'restored')], opts)).ms,
    };
    return { wallMs, steps, extra, probes: probes ? await probeChecks(file, dir) : undefined };
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
  const sh = (script) => timed(busybox, ['sh', '-c', script, 'probe', file, String(db), String(block), String(db / block)], { env: cleanEnv({ PATH: '/nonexistent' }), cwd: dir });
  const bb = `${busybox} `;
  return {
    'busybox wc -c': (await sh(`${bb}wc -c <"$1" >/dev/null`)).ms,
    'busybox stat -c %s': (await sh(`${bb}stat -c %s "$1" >/dev/null`)).ms,
    'busybox head -c → sha256sum': (await sh(`${bb}head -c "$2" "$1" | ${bb}sha256sum >/dev/null`)).ms,
    'busybox dd → sha256sum': (await sh(`${bb}dd if="$1" bs="$3" count="$4" 2>/dev/null | ${bb}sha256sum >/dev/null`)).ms,
    'restore --skip-hash-check': (await timed(ETCDCTL(), ['snapshot', 'restore', file, '--skip-hash-check', '--data-dir', path.join(dir, 'probe-skip')], { env: ETCDCTL_ENV(dir), cwd: dir })).ms,
  };
}

function medians(runs, field) {
  return Object.fromEntries(Object.keys(runs[0][field]).map((name) => [name, median(runs.map((r) => r[field][name]))]));
}
const list = (m) => Object.entries(m).map(([name, ms]) => `${name} ${seconds(ms)}`).join(', ');

async function main() {
  requireCommands('etcd', 'etcdctl', 'busybox', 'openssl');
  console.log(`load before: ${load()} (${os.cpus().length} CPUs); sizes ${SIZES_MB.join(', ')} MB, ${RUNS} runs each`);
  const etcd = await startEtcdTls();
  const busybox = busyboxImage();
  const rows = [];
  try {
    for (const mb of SIZES_MB) {
      const size = await fillTo(etcd, mb * 1e6);
      const jobs = [];
      const bares = [];
      for (let i = 0; i < RUNS; i++) {
        jobs.push(await job(etcd, busybox));
        bares.push(await bare(etcd, PROBES && i === 0));
      }
      const row = {
        size,
        job: median(jobs.map((r) => r.wallMs)),
        bare: median(bares.map((r) => r.wallMs)),
        jobSteps: medians(jobs, 'steps'),
        bareSteps: medians(bares, 'steps'),
        extra: medians(bares, 'extra'),
        probes: bares[0].probes,
        load: load(),
      };
      rows.push(row);
      const all = (runs) => runs.map((r) => seconds(r.wallMs)).join(' ');
      console.log(`${mb} MB (${size} bytes): job ${all(jobs)} s [${list(row.jobSteps)}] | bare ${all(bares)} s [${list(row.bareSteps)}] | apart: ${list(row.extra)}${row.probes ? ` | probes: ${list(row.probes)}` : ''} | load ${row.load}`);
    }
  } finally {
    await stopAll();
    fs.rmSync(busybox, { recursive: true, force: true });
  }
  const perGb = (ms, bytes) => (ms / 1000 / (bytes / 1e9)).toFixed(2);
  const lines = [
    '',
    '| database | job median | bare median | job / bare | job s/GB | bare s/GB | job steps (medians, s) | bare steps (medians, s) | apart (medians, s) |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |',
    ...rows.map((r) => `| ${(r.size / 1e6).toFixed(0)} MB | ${seconds(r.job)} s | ${seconds(r.bare)} s | ${(r.job / r.bare).toFixed(2)}× | ${perGb(r.job, r.size)} | ${perGb(r.bare, r.size)} | ${list(r.jobSteps)} | ${list(r.bareSteps)} | ${list(r.extra)} |`),
  ];
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]];
    const gb = (b.size - a.size) / 1e9;
    lines.push(`marginal ${(a.size / 1e6).toFixed(0)} → ${(b.size / 1e6).toFixed(0)} MB: job ${((b.job - a.job) / 1000 / gb).toFixed(2)} s/GB, bare ${((b.bare - a.bare) / 1000 / gb).toFixed(2)} s/GB`);
  }
  if (PROBES) {
    lines.push('', '| database | check probes (one run each, s) |', '| ---: | --- |');
    for (const r of rows) lines.push(`| ${(r.size / 1e6).toFixed(0)} MB | ${list(r.probes)} |`);
  }
  const containers = Object.keys(rows[0].jobSteps);
  lines.push('', `containers started per run: job ${containers.length} (${containers.join(', ')}), bare 1`, `load after: ${load()}; ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
  console.log(lines.join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
