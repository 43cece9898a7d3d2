'use strict';
// One measurement in a fresh process: node parse-worker.js <root> <file> [cli]; loads the file with the core's
// policy loader of <root> (its compiled code in dist/, as the installed CLI runs it) and prints JSON
// {ms, cpuMs, maxRssKb, outcome} (cpuMs: user + system CPU time, which a loaded machine inflates less). The time excludes Node start-up, module loading and reading the file.
// With `cli`: runs `backup-cronjobs validate <file>` as the installed CLI does (bin/backup-cronjobs.js without
// the sources: dist/lib/cli/main.js, or dist/lib/cli/index.js in a checkout from before it), and the times are
// the whole process's: from Node's start (performance.now() counts from it) to the exit code, module
// loading and reading the file included, which is what a user waits for.
const { existsSync, readFileSync } = require('fs');
const { join } = require('path');

const [root, file, mode] = process.argv.slice(2);
if (mode === 'cli') {
  const dir = join(root, 'dist', 'lib', 'cli');
  const run = existsSync(join(dir, 'main.js'))
    ? require(join(dir, 'main.js')).main
    : require(join(dir, 'index.js')).runCli;
  const out = [];
  const code = run(['validate', file], { stdout: (t) => out.push(t), stderr: (t) => out.push(t) });
  const lines = out.join('').split('\n');
  const cpu = process.cpuUsage();
  console.log(
    JSON.stringify({
      ms: Math.round(performance.now()),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      maxRssKb: process.resourceUsage().maxRSS,
      outcome: `exit ${code}: ${lines[0].replace(/^\S+: /, '')}${
        lines[1]
          ? `: ${lines[1]
              .trim()
              .replace(/^\S+\.(yaml|json):/, '')
              .slice(0, 100)}`
          : ''
      }`,
    }),
  );
  process.exit(0);
}
const { loadPolicies } = require(join(root, 'dist', 'lib', 'model', 'load.js'));
const text = readFileSync(file, 'utf8');
if (global.gc) global.gc(); // not the garbage of loading the modules
const cpuStart = process.cpuUsage();
const start = process.hrtime.bigint();
let outcome;
try {
  outcome = `valid (${loadPolicies(text, 'bench.yaml').length} policy)`;
} catch (e) {
  const lines = String(e.message).split('\n');
  outcome = `${lines[0]}${lines[1] ? `: ${lines[1].trim().slice(0, 160)}` : ''}`;
}
const ms = Number(process.hrtime.bigint() - start) / 1e6;
const cpu = process.cpuUsage(cpuStart);
console.log(
  JSON.stringify({
    ms: Math.round(ms),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    maxRssKb: process.resourceUsage().maxRSS,
    outcome,
  }),
);
