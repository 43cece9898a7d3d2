/** `schema`: the published JSON Schema of a BackupPolicy, for editors and CI. */
import { policySchema } from '../registry';
import { CliIO, Command, EXIT, parseCommand } from './command';

export const schemaCommand: Command = {
  name: 'schema',
  summary: 'print the BackupPolicy JSON Schema (for editors: see docs/frontends/cli.md)',
  help: `Usage: backup-cronjobs schema

Prints the JSON Schema (draft-07) of a BackupPolicy document. Save it next to
your policies and point your editor at it, e.g. with the modeline
  # yaml-language-server: $schema=./backup-policy.schema.json

Options:
  -h, --help   show this help

Exit status: 0; 2 usage error.
`,
  run: schema,
};

function schema(args: readonly string[], io: CliIO): number {
  if (!parseCommand(schemaCommand, args, io, {}, false)) return EXIT.ok;
  io.stdout(`${JSON.stringify(policySchema, null, 2)}\n`);
  return EXIT.ok;
}
