/** `convert`: the operators' own objects in, the equivalent BackupPolicy out. */
import { convertHint } from '../convert';
import { runConvert } from '../convert/command';
import { CliIO, Command, EXIT, parseCommand, readInput } from './command';

export const convertCommand: Command = {
  name: 'convert',
  summary: 'VitessCluster/VitessBackupSchedule, OpenShift Backup, ShardedRedisBackup → BackupPolicy',
  help: `Usage: backup-cronjobs convert <file|->...

Reads the objects of the operators backup-cronjobs replaces and prints the
equivalent BackupPolicy documents (YAML, with a comment wherever a choice was
made) on stdout:
  planetscale.com/v2          VitessCluster (+ its VitessBackupSchedules)
  config.openshift.io/v1alpha1  Backup (OpenShift's automated etcd backup)
  saas.3scale.net/v1alpha1    ShardedRedisBackup (+ its Sentinel)
Every field without an equivalent is a note on stderr, saying what to do.

Options:
  -h, --help   show this help

A file "-" reads standard input.
Exit status: 0 converted; 1 an input is unreadable, of another kind or cannot
be converted (nothing printed); 2 usage error.
`,
  run: convert,
};

function convert(args: readonly string[], io: CliIO): number {
  const parsed = parseCommand(convertCommand, args, io, {});
  if (!parsed) return EXIT.ok;
  const inputs: { name: string; text: string }[] = [];
  for (const path of parsed.positionals) {
    try {
      inputs.push(readInput(path, io));
    } catch (e) {
      io.stderr(`${path}: cannot read: ${(e as Error).message}\n`);
      return EXIT.invalid;
    }
  }
  const result = runConvert(inputs);
  io.stdout(result.stdout);
  io.stderr(result.stderr);
  return result.code;
}

/**
 * For a file that is no policy: a line per document that `convert` would take instead. `documents` are
 * the values the loader read (`readPolicies`): the file is not parsed again (a second parse of an
 * 80,000-key map, with `yaml`'s quadratic repeated-key check, took a minute).
 */
export function convertHints(file: string, documents: readonly unknown[]): string[] {
  return documents.flatMap((doc, i) => {
    const hint = doc === undefined ? undefined : convertHint(doc);
    return hint ? [`${file}: document ${i + 1}: ${hint}`] : [];
  });
}
