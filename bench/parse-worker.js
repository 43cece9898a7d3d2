'use strict';
// One measurement in a fresh process: node parse-worker.js <root> <file>; loads the file with the core's
// policy loader of <root> (its compiled code in dist/, as the installed CLI runs it) and prints JSON
// {ms, cpuMs, maxRssKb, outcome} (cpuMs: user + system CPU time, which a loaded machine inflates less). The time excludes Node start-up, module loading and reading the file.
const { readFileSync } = require('fs');
const { join } = require('path');

const [root, file] = process.argv.slice(2);
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
