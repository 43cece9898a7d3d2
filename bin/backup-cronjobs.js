#!/usr/bin/env node
'use strict';
// Runs the compiled CLI when the package is built, else the TypeScript source.
const { existsSync } = require('fs');
const { join } = require('path');
const built = join(__dirname, '..', 'dist', 'lib', 'cli.js');
let cli;
if (existsSync(built)) {
  cli = require(built);
} else {
  require('ts-node').register({ transpileOnly: true, project: join(__dirname, '..', 'tsconfig.json') });
  cli = require('../lib/cli.ts');
}
process.exitCode = cli.runCli(process.argv.slice(2));
