/** `validate`: policies checked exactly as `synth` checks them; nothing rendered to output. */
import { CliIO, Command, EXIT, parseCommand, policyFiles } from './command';
import { loadInputs, reportCollisions } from './inputs';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check policies as synth does, write nothing',
  help: `Usage: backup-cronjobs validate <policy file|->...

Checks every policy of every file exactly as synth does (schema, Kubernetes
rules, names, two inputs rendering the same object) and prints one line per
valid file. Writes no manifest. Warns (on stderr, without failing) about
retention rules that would delete a backup while its S3 Object Lock holds it.

Options:
  -h, --help   show this help

A policy file "-" reads standard input.
Exit status: 0 valid; 1 an input is unreadable or invalid, or two inputs render
the same object; 2 usage error.
`,
  run: validate,
};

function validate(args: readonly string[], io: CliIO): number {
  const parsed = parseCommand(validateCommand, args, io, {});
  if (!parsed) return EXIT.ok;
  const loaded = loadInputs(policyFiles('validate', parsed.positionals), io);
  if (!loaded || !reportCollisions(loaded, io)) return EXIT.invalid;
  // loaded here, not with this module: a file over the size limit is refused before the engines load (./main)
  const { objectLockWarnings } = require('../model/lock-warnings') as typeof import('../model/lock-warnings'); // eslint-disable-line @typescript-eslint/no-require-imports -- see the line above
  for (const { file, manifests, resolved } of loaded.files) {
    const count = manifests.reduce((n, m) => n + m.length, 0);
    io.stdout(`${file}: valid (${count} object${count === 1 ? '' : 's'})\n`);
    for (const r of resolved)
      for (const w of objectLockWarnings(r.policy)) io.stderr(`${file}: warning: ${r.name}: ${w.path}: ${w.message}\n`);
  }
  return EXIT.ok;
}
