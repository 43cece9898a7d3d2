#!/usr/bin/env node
'use strict';
// npm run bench:parse: how long the policy loader (YAML parse + validation, lib/model/load.ts) takes, and
// its peak memory, on large inputs: label maps of 20,000 to 80,000 keys (valid, and with one duplicate key),
// a file just under the size limit, and files over it (20 MB, a 400,000-key map). Each measurement runs in
// a fresh process (best of BENCH_RUNS); a run that takes longer than BENCH_TIMEOUT seconds is reported as such.
// BENCH_ROOT=<checkout> measures another checkout's loader (the same inputs), e.g. the code before a change.
// The loader measured is the compiled one (`npm run build` first), which the installed package runs.
// Then the CLI, `backup-cronjobs validate FILE` as installed, whole process (Node's start, module loading and
// reading the file included): each input shape valid, then the same file with one problem at its start,
// middle and end, and a 20 MB file over the size limit. The shapes: an 80,000-key label map in YAML (a block
// map) and in JSON (flow maps), and a 10,000-shard Vitess policy (bench/policy.js). A bad file should take
// about as long as the good one. BENCH_ONLY=loader or BENCH_ONLY=cli runs one of the two tables.
const { execFileSync, spawnSync } = require('child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('fs');
const { tmpdir } = require('os');
const { join, resolve } = require('path');
const { stringify } = require('yaml');
const { benchPolicy } = require('./policy');

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

/** The CLI's inputs: an etcd policy to S3 with `keys` labels; `where` a problem is: start, middle, end or none. */
function s3LabelPolicy(keys, where) {
  const labels = {};
  for (let i = 0; i < keys; i++) labels[`k${String(i).padStart(6, '0')}`] = 'v';
  if (where === 'middle') labels[`k${String(keys / 2).padStart(6, '0')}`] = '-bad-'; // not a label value
  return {
    apiVersion: 'backup-cronjobs.io/v1alpha1',
    kind: 'BackupPolicy',
    metadata: { name: where === 'start' ? 'Bad_Name' : 'etcd', labels },
    spec: {
      defaults: { schedule: '0 3 * * *' },
      etcd: {
        mode: 'cluster',
        destination: {
          // 'ab': a bucket name is 3 to 63 characters
          s3: {
            bucket: where === 'end' ? 'ab' : 'etcd-backups',
            region: 'us-east-1',
            credentialsSecret: { name: 's3' },
          },
        },
      },
    },
  };
}

/** bench/policy.js's policy of `shards` Vitess shards, a problem at `where` (an upper-case key range). */
function shardsPolicy(shards, where) {
  const policy = benchPolicy(shards);
  const strategies = policy.spec.vitess.schedules[0].strategies;
  const bad = (list, i) => (list[i] = list[i].toUpperCase());
  if (where === 'start') policy.metadata.name = 'Bad_Name';
  if (where === 'middle') bad(strategies[strategies.length >> 1].shards, 0);
  if (where === 'end')
    bad(strategies[strategies.length - 1].shards, strategies[strategies.length - 1].shards.length - 1);
  return policy;
}

function cliCases() {
  const cases = [];
  for (const where of ['valid', 'start', 'middle', 'end']) {
    cases.push([`labels-80000-${where}.yaml`, stringify(s3LabelPolicy(80_000, where))]);
    cases.push([`labels-80000-${where}.json`, JSON.stringify(s3LabelPolicy(80_000, where), null, 1)]);
    cases.push([`shards-10000-${where}.yaml`, stringify(shardsPolicy(10_000, where))]);
  }
  cases.push(['20MB.yaml', policyOfSize(20_000_000)]);
  return cases;
}

function measure(file, cli = false) {
  let best;
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(
      process.execPath,
      cli
        ? [join(__dirname, 'parse-worker.js'), root, file, 'cli']
        : ['--max-old-space-size=8192', '--expose-gc', join(__dirname, 'parse-worker.js'), root, file],
      { encoding: 'utf8', timeout: TIMEOUT_S * 1000 },
    );
    if (r.error?.code === 'ETIMEDOUT' || r.signal === 'SIGTERM') return { timedOut: true };
    if (r.status !== 0) throw new Error(`${file}: ${r.stderr || r.stdout}`);
    const m = JSON.parse(r.stdout.trim().split('\n').pop());
    if (!best || m.ms < best.ms) best = m;
  }
  return best;
}

const ONLY = process.env.BENCH_ONLY;
execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
const dir = mkdtempSync(join(tmpdir(), 'bcj-parse-bench-'));
const load = () =>
  `load average ${require('os')
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${require('os').cpus().length} CPUs`;
/** Measures each case (a fresh process each, best of RUNS) and prints a line per case. */
function table(cases, cli) {
  console.log(['input', 'bytes', 'wall ms', 'CPU ms', 'peak RSS MB', 'outcome'].join('\t'));
  for (const [name, text] of cases) {
    const file = join(dir, name.includes('.') ? name : `${name}.yaml`);
    writeFileSync(file, text);
    const m = measure(file, cli);
    const bytes = Buffer.byteLength(text);
    console.log(
      m.timedOut
        ? [name, bytes, `>${TIMEOUT_S * 1000}`, '-', '-', 'timed out'].join('\t')
        : [name, bytes, m.ms, m.cpuMs, Math.round(m.maxRssKb / 1024), m.outcome].join('\t'),
    );
  }
}
try {
  if (ONLY !== 'cli') {
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
    console.log(load());
    table(cases, false);
  }
  if (ONLY !== 'loader') {
    console.log(
      `\nbackup-cronjobs validate FILE, the installed CLI of ${root}, whole process; best of ${RUNS} runs; timeout ${TIMEOUT_S}s`,
    );
    console.log(load());
    table(cliCases(), true);
    console.log(load());
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
