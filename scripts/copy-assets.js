// Copies the container scripts next to the compiled core (dist/lib/scripts, dist/lib/engines/<engine>/scripts),
// and writes the JSON Schema and its precompiled validator.
'use strict';
const { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } = require('fs');
const { join } = require('path');

const root = join(__dirname, '..');
const dirs = ['scripts', ...readdirSync(join(root, 'lib', 'engines')).map((e) => join('engines', e, 'scripts'))];
for (const dir of dirs) {
  const from = join(root, 'lib', dir);
  if (!existsSync(from)) continue;
  const to = join(root, 'dist', 'lib', dir);
  mkdirSync(to, { recursive: true });
  for (const f of readdirSync(from).filter((f) => f.endsWith('.sh'))) copyFileSync(join(from, f), join(to, f));
}
const { policySchema } = require(join(root, 'dist', 'lib', 'registry.js'));
writeFileSync(
  join(root, 'dist', 'lib', 'policy', 'backup-policy.schema.json'),
  `${JSON.stringify(policySchema, null, 2)}\n`,
);
// The policy schema's validator as code, so that the CLI and a synth do not compile the schema at every start.
const { PRECOMPILED_VALIDATOR_FILE, precompiledValidatorCode } = require(
  join(root, 'dist', 'lib', 'policy', 'schema-validate.js'),
);
writeFileSync(join(root, 'dist', 'lib', 'policy', PRECOMPILED_VALIDATOR_FILE), precompiledValidatorCode(policySchema));
