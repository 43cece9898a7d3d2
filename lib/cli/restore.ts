/** `restore`: prints the one-off Job that restores one backup of a policy, to apply by hand. */
import { PolicyError } from '../policy/errors';
import { pointInTimeRestore, restoreJob } from '../model/restore';
import { CliIO, Command, EXIT, UsageError, choice, parseCommand, policyFiles } from './command';
import { loadInputs } from './inputs';
import { OUTPUT_FORMATS, jsonText, writeYamlDocuments } from './output';

export const restoreCommand: Command = {
  name: 'restore',
  summary: 'print a one-off Job that restores a backup (apply it with kubectl)',
  help: `Usage: backup-cronjobs restore <policy file|-> --snapshot NAME (--target T | --node NODE)
                                [--policy NAME] [-o yaml|json]
       backup-cronjobs restore <policy file|-> --time RFC3339 [--target T] [--policy NAME]

Prints a Job that restores one backup of the policy, built with the same pod
settings as the policy's CronJobs, to apply by hand:
  backup-cronjobs restore etcd.yaml --target cp-1 --snapshot <file> | kubectl apply -f -
Its name follows from the policy, the target and the snapshot (at most 63
characters), so printing it again gives the same Job. It is never part of
synth's output: a Job's pod template cannot change once created, so a Job kept
in Git could never name another snapshot.

With --time (Vitess with incremental backups), it prints the point-in-time
restore procedure instead: the vtctldclient commands that restore each shard
(or the --target keyspace/shard) to that time, with their prerequisites.

Options:
  --time RFC3339       Vitess: print the point-in-time procedure for this time
                       (e.g. 2025-02-26T02:20:00Z), up to and excluding it
  --snapshot NAME      the backup to restore (etcd: a snapshot file name of this
                       policy, etcd-snapshot_<policy>_<time>_<node>.db)
  --target T           the target to restore (etcd perNode: a node of
                       spec.etcd.nodes; the restore runs there; Vitess --time:
                       a keyspace/shard with incremental backups)
  --node NODE          etcd cluster mode (no nodes listed): the control-plane node
                       to restore on
  --policy NAME        which policy of the file, when it has several
  -o, --output FORMAT  yaml (default) or json
  -h, --help           show this help

Engines without a restore Job (Vitess without --time, Redis) print how to
restore instead, with exit status 2. To run a backup now instead:
  kubectl create job --from=cronjob/<name> <name>-manual
Exit status: 0 printed; 1 the policy is unreadable or invalid; 2 usage error
(a flag that does not fit the policy, or an engine without a restore Job).
`,
  run: restore,
};

function restore(args: readonly string[], io: CliIO): number {
  const parsed = parseCommand(restoreCommand, args, io, {
    snapshot: { type: 'string' },
    time: { type: 'string' },
    target: { type: 'string' },
    node: { type: 'string' },
    policy: { type: 'string' },
    output: { type: 'string', short: 'o' },
  });
  if (!parsed) return EXIT.ok;
  const v = parsed.values as Record<string, string | undefined>;
  const files = policyFiles('restore', parsed.positionals);
  if (files.length > 1)
    throw new UsageError(`one policy file, received ${files.length}: ${files.join(' ')}`, 'restore');
  const format = choice('restore', '-o, --output', v.output, OUTPUT_FORMATS);
  if (v.time !== undefined && (v.snapshot !== undefined || v.node !== undefined || v.output !== undefined))
    throw new UsageError('--time prints a procedure: it takes neither --snapshot, --node nor --output', 'restore');
  if (v.snapshot === undefined && v.time === undefined)
    throw new UsageError(
      '--snapshot NAME is required: the backup to restore (or --time for a point in time)',
      'restore',
    );
  const loaded = loadInputs(files, io);
  if (!loaded) return EXIT.invalid;
  const [{ file, resolved }] = loaded.files;
  const names = resolved.map((r) => r.name);
  const policy =
    v.policy === undefined
      ? resolved.length === 1
        ? resolved[0]
        : undefined
      : resolved.find((r) => r.name === v.policy);
  if (!policy) {
    throw new UsageError(
      v.policy === undefined
        ? `${file} has ${resolved.length} policies: name one with --policy (${names.join(', ')})`
        : `--policy: received ${JSON.stringify(v.policy)}; ${file} has: ${names.join(', ')}`,
      'restore',
    );
  }
  if (v.time !== undefined) {
    const procedure = pointInTimeRestore(policy, { time: v.time, target: v.target });
    if (procedure.kind === 'refused') {
      io.stderr(`${procedure.problems.join('\n')}\nRun "backup-cronjobs restore --help" for usage.\n`);
      return EXIT.usage;
    }
    io.stdout(procedure.text);
    return EXIT.ok;
  }
  let outcome;
  try {
    outcome = restoreJob(policy, { target: v.target, node: v.node, snapshot: v.snapshot! }, file);
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
    io.stderr(`${e.message}\n`);
    return EXIT.invalid;
  }
  if (outcome.kind === 'unsupported') {
    io.stderr(`policy ${policy.name} (${policy.engine}) has no restore Job. ${outcome.help}\n`);
    return EXIT.usage;
  }
  if (outcome.kind === 'refused') {
    io.stderr(`${outcome.problems.join('\n')}\nRun "backup-cronjobs restore --help" for usage.\n`);
    return EXIT.usage;
  }
  if (format === 'json') io.stdout(jsonText(outcome.job));
  else writeYamlDocuments([outcome.job], io.stdout);
  const { name, namespace } = outcome.job.metadata;
  for (const note of outcome.notes) io.stderr(`note: ${note}\n`);
  io.stderr(
    `apply it with kubectl apply -f - (or save it and kubectl apply -f FILE), then follow it: kubectl -n ${namespace} logs -f job/${name} --all-containers\n`,
  );
  return EXIT.ok;
}
