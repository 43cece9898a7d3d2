#!/usr/bin/env node
'use strict';
// In a checkout, runs the TypeScript source (so a stale dist/ never answers); installed, the compiled CLI.
const { existsSync } = require('fs');
const { join } = require('path');
const source = join(__dirname, '..', 'lib', 'cli', 'main.ts');
let cli;
if (existsSync(source)) {
  require('ts-node').register({ transpileOnly: true, project: join(__dirname, '..', 'tsconfig.json') });
  cli = require(source);
} else {
  cli = require(join(__dirname, '..', 'dist', 'lib', 'cli', 'main.js'));
}
process.exitCode = cli.main(process.argv.slice(2));
