#!/usr/bin/env node
'use strict';
// npm run bench: synthesis time and peak memory for Vitess policies of 100, 1,000 and 10,000 shards,
// through the CLI and through cdk8s, each beside its floor measured in the same run:
//   cli-floor:   the same objects built as plain values (template + per-shard fields) and printed as
//                YAML by the fastest emitter measured here (js-yaml or yaml), written to a file;
//   cdk8s-floor: the same objects as bare cdk8s ApiObjects in one chart, `app.synth()`.
// Every measurement runs in a fresh child process (peak RSS is per process); times exclude Node start-up
// and module loading. Beside the wall time, the CPU time (user + system) of the same timed region: on a
// shared machine it is the steadier figure. The floors are checked to build objects deep-equal to the core's.
const { execFileSync, spawnSync } = require('child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('fs');
const { tmpdir } = require('os');
const { join } = require('path');

const root = join(__dirname, '..');
const SIZES = (process.env.BENCH_SIZES || '100,1000,10000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS || 3);

function measure(kind, shards) {
  const out = mkdtempSync(join(tmpdir(), `bcj-bench-${kind}-`));
  try {
    const r = spawnSync(
      process.execPath,
      ['--max-old-space-size=8192', join(__dirname, 'worker.js'), kind, String(shards), out],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (r.status !== 0) throw new Error(`${kind} ${shards}: ${r.stderr || r.stdout}`);
    return JSON.parse(r.stdout.trim().split('\n').pop());
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Best (minimum) time of RUNS runs; peak memory of that run; the least CPU time (user + system) of any run. */
function best(kind, shards) {
  let bestRun;
  let cpuMs = Infinity;
  for (let i = 0; i < RUNS; i++) {
    const r = measure(kind, shards);
    if (!bestRun || r.ms < bestRun.ms) bestRun = r;
    cpuMs = Math.min(cpuMs, r.cpuMs);
  }
  return { ...bestRun, cpuMs };
}

execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
const rows = [];
for (const shards of SIZES) {
  const cli = best('cli', shards);
  const cliFloor = best('cli-floor', shards);
  const cdk8s = best('cdk8s', shards);
  const cdk8sFloor = best('cdk8s-floor', shards);
  rows.push({ shards, cli, cliFloor, cdk8s, cdk8sFloor });
  const f = (r) =>
    `${(r.ms / 1000).toFixed(2)} s (CPU ${(r.cpuMs / 1000).toFixed(2)} s) ${Math.round(r.maxRssKb / 1024)} MiB`;
  console.error(
    `${shards} shards: cli ${f(cli)} | cli floor ${f(cliFloor)} (${cliFloor.emitter}) | cdk8s ${f(cdk8s)} | cdk8s floor ${f(cdk8sFloor)}`,
  );
}

const lines = [
  '| shards | CLI | CLI floor | CLI / floor | cdk8s | cdk8s floor | cdk8s / floor | CPU: CLI / floor | CPU: cdk8s / floor | CLI µs/shard | cdk8s µs/shard |',
  '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(({ shards, cli, cliFloor, cdk8s, cdk8sFloor }) => {
    const t = (r) => `${(r.ms / 1000).toFixed(2)} s, ${Math.round(r.maxRssKb / 1024)} MiB`;
    return `| ${shards} | ${t(cli)} | ${t(cliFloor)} (${cliFloor.emitter}) | ${(cli.ms / cliFloor.ms).toFixed(2)}× | ${t(cdk8s)} | ${t(cdk8sFloor)} | ${(cdk8s.ms / cdk8sFloor.ms).toFixed(2)}× | ${(cli.cpuMs / cliFloor.cpuMs).toFixed(2)}× | ${(cdk8s.cpuMs / cdk8sFloor.cpuMs).toFixed(2)}× | ${Math.round((cli.ms * 1000) / shards)} | ${Math.round((cdk8s.ms * 1000) / shards)} |`;
  }),
];
console.log(lines.join('\n'));
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, `${lines.join('\n')}\n`);
