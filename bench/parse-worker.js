'use strict';
// One measurement in a fresh process: node parse-worker.js <root> <file>; loads the file with the core's
// policy loader of <root> (its TypeScript source, as the CLI runs in a checkout) and prints JSON
// {ms, maxRssKb, outcome}. The time excludes Node start-up, module loading and reading the file.
const { readFileSync } = require('fs');
const { join } = require('path');

const [root, file] = process.argv.slice(2);
require(join(root, 'node_modules', 'ts-node')).register({ transpileOnly: true, project: join(root, 'tsconfig.json') });
const { loadPolicies } = require(join(root, 'lib', 'model', 'load.ts'));
const text = readFileSync(file, 'utf8');
const start = process.hrtime.bigint();
let outcome;
try {
  outcome = `valid (${loadPolicies(text, 'bench.yaml').length} policy)`;
} catch (e) {
  const lines = String(e.message).split('\n');
  outcome = `${lines[0]}${lines[1] ? `: ${lines[1].trim().slice(0, 160)}` : ''}`;
}
const ms = Number(process.hrtime.bigint() - start) / 1e6;
console.log(JSON.stringify({ ms: Math.round(ms), maxRssKb: process.resourceUsage().maxRSS, outcome }));
