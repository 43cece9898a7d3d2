// Copies the container scripts next to the compiled core (dist/lib/scripts), and writes the JSON Schema.
'use strict';
const { copyFileSync, mkdirSync, readdirSync, writeFileSync } = require('fs');
const { join } = require('path');

const root = join(__dirname, '..');
const from = join(root, 'lib', 'scripts');
const to = join(root, 'dist', 'lib', 'scripts');
mkdirSync(to, { recursive: true });
for (const f of readdirSync(from).filter((f) => /\.(sh|awk)$/.test(f))) copyFileSync(join(from, f), join(to, f));
const { policySchema } = require(join(root, 'dist', 'lib', 'policy', 'schema.js'));
writeFileSync(join(root, 'dist', 'lib', 'policy', 'backup-policy.schema.json'), `${JSON.stringify(policySchema, null, 2)}\n`);
