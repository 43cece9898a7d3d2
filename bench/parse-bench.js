#!/usr/bin/env node
'use strict';
// npm run bench:parse: how long the policy loader (YAML parse + validation, lib/model/load.ts) takes, and
// its peak memory, on large inputs: label maps of 20,000 to 80,000 keys (valid, and with one duplicate key),
// a file just under the size limit, and files over it (20 MB, a 400,000-key map). Each measurement runs in
// a fresh process (best of BENCH_RUNS); a run that takes longer than BENCH_TIMEOUT seconds is reported as such.
// BENCH_ROOT=<checkout> measures another checkout's loader (the same inputs), e.g. the code before a change.
// The loader measured is the compiled one (`npm run build` first), which the installed package runs.
const { execFileSync, spawnSync } = require('child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('fs');
const { tmpdir } = require('os');
const { join, resolve } = require('path');

const root = resolve(process.env.BENCH_ROOT || join(__dirname, '..'));
const RUNS = Number(process.env.BENCH_RUNS || 3);
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT || 120);
/** lib/model/yaml-input.ts MAX_INPUT_BYTES (1.5 MiB, etcd's request limit). */
const LIMIT = 1572864;

const HEAD = [
  'apiVersion: backup-cronjobs.io/v1alpha1',
  'kind: BackupPolicy',
  'metadata:',
  '  name: etcd',
  '  labels:',
];
const TAIL = [
  'spec:',
  '  etcd:',
  '    mode: cluster',
  '    destination:',
  '      hostPath: {}',
  '  defaults:',
  '    schedule: "0 3 * * *"',
  '',
];

/** A policy whose metadata.labels has `keys` keys (the last one a copy of the first with `duplicate`); `short`: `k000000: v`. */
function labelPolicy(keys, duplicate = false, short = false) {
  const lines = [...HEAD];
  for (let i = 0; i < keys; i++) lines.push(`    ${short ? '' : 'example.com/'}k${String(i).padStart(6, '0')}: v`);
  if (duplicate) lines[lines.length - 1] = lines[HEAD.length];
  return [...lines, ...TAIL].join('\n');
}

/** A valid-looking policy padded with label keys to `bytes` bytes (within one line). */
function policyOfSize(bytes) {
  const one = labelPolicy(1);
  const line = '    example.com/k000000: v\n'.length;
  const keys = Math.floor((bytes - one.length) / line) + 1;
  let text = labelPolicy(keys);
  while (Buffer.byteLength(text) > bytes) text = labelPolicy(keys - 1);
  return text;
}

function measure(file) {
  let best;
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(
      process.execPath,
      ['--max-old-space-size=8192', '--expose-gc', join(__dirname, 'parse-worker.js'), root, file],
      { encoding: 'utf8', timeout: TIMEOUT_S * 1000 },
    );
    if (r.error?.code === 'ETIMEDOUT' || r.signal === 'SIGTERM') return { timedOut: true };
    if (r.status !== 0) throw new Error(`${file}: ${r.stderr || r.stdout}`);
    const m = JSON.parse(r.stdout.trim().split('\n').pop());
    if (!best || m.ms < best.ms) best = m;
  }
  return best;
}

execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
const dir = mkdtempSync(join(tmpdir(), 'bcj-parse-bench-'));
try {
  const cases = [
    ['labels-20000', labelPolicy(20_000)],
    ['labels-40000', labelPolicy(40_000)],
    ['labels-80000-short', labelPolicy(80_000, false, true)],
    ['labels-80000-short-duplicate', labelPolicy(80_000, true, true)],
    ['labels-80000-prefixed', labelPolicy(80_000)],
    ['at-limit-1.5MiB', policyOfSize(LIMIT)],
    ['labels-400000', labelPolicy(400_000)],
    ['20MB', policyOfSize(20_000_000)],
  ];
  console.log(`loader of ${root}; best of ${RUNS} runs; timeout ${TIMEOUT_S}s`);
  console.log(
    `load average ${require('os')
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${require('os').cpus().length} CPUs`,
  );
  console.log(['input', 'bytes', 'wall ms', 'CPU ms', 'peak RSS MB', 'outcome'].join('\t'));
  for (const [name, text] of cases) {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, text);
    const m = measure(file);
    const bytes = Buffer.byteLength(text);
    console.log(
      m.timedOut
        ? [name, bytes, `>${TIMEOUT_S * 1000}`, '-', '-', 'timed out'].join('\t')
        : [name, bytes, m.ms, m.cpuMs, Math.round(m.maxRssKb / 1024), m.outcome].join('\t'),
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
