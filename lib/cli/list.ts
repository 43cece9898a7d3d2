/**
 * `list`: the backups of a policy's targets, read where the CronJobs store them: S3 through the aws
 * CLI on PATH (as `discover` runs the engines' clients), a hostPath or PVC destination from a
 * directory given with --dir. What the retention rules keep or delete next is the plan the prune
 * would make (lib/model/list.ts).
 */
import { execFileSync } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { BackupStore, ListedBackup, StoredObject, listStore, policyStores } from '../model/list';
import { CliIO, Command, EXIT, UsageError, choice, parseCommand, policyFiles } from './command';
import { loadInputs } from './inputs';
import { jsonText } from './output';
import { TIME_HELP, parseTimeOption } from './time';

export const listCommand: Command = {
  name: 'list',
  summary: "the backups of a policy's targets (S3 through the aws CLI, or --dir), with what retention keeps",
  help: `Usage: backup-cronjobs list <policy file|->... [--dir DIR] [-o text|json] [--now TIME]

Lists the backups of every target of the policies, newest first: target (and
node), name, time, size, whether it is encrypted, until when an S3 Object Lock
keeps it, the content facts of its metadata (etcd: revision and key count;
Redis: key count), and what the
policy's retention rules do with it next (keep, and by which rule; or delete),
exactly as the prune would plan it. Changes nothing.

Where the backups are read:
  S3            with the aws CLI on PATH (aws s3api list-objects-v2, and one
                aws s3 cp --recursive for the metadata), with its usual
                credentials and settings (AWS_PROFILE, AWS_CA_BUNDLE, ...) and
                the policy's endpoint and region
  hostPath/PVC  from --dir DIR: the destination directory, copied or mounted
                (a hostPath holds the snapshots of the node it is on)

Options:
  --dir DIR            the directory of a hostPath or PVC destination
  -o, --output FORMAT  text (default) or json
  --now TIME           the time of the retention plan (default: now); see TIME
  -h, --help           show this help

${TIME_HELP}
Vitess backups are listed by vtctld: vtctldclient --server <vtctld> GetBackups
<keyspace>/<shard>.
Exit status: 0 printed; 1 an invalid policy, or a store that could not be read
(each named on stderr; the others are printed); 2 usage error.
`,
  run: list,
};

/** A store that could not be read: one line on stderr. */
class StoreError extends Error {}

function list(args: readonly string[], io: CliIO): number {
  const parsed = parseCommand(listCommand, args, io, {
    dir: { type: 'string' },
    output: { type: 'string', short: 'o' },
    now: { type: 'string' },
  });
  if (!parsed) return EXIT.ok;
  const { dir, now } = parsed.values as { dir?: string; now?: string };
  const format = choice('list', '-o, --output', parsed.values.output, ['text', 'json'] as const);
  const files = policyFiles('list', parsed.positionals);
  const nowTime = now === undefined ? { ms: Date.now() } : parseTimeOption('--now', now);
  if ('problem' in nowTime) throw new UsageError(nowTime.problem, 'list');
  const loaded = loadInputs(files, io);
  if (!loaded) return EXIT.invalid;
  const rows: (ListedBackup & { policy: string })[] = [];
  let failed = false;
  for (const { resolved } of loaded.files) {
    for (const r of resolved) {
      const { stores, help } = policyStores(r.policy);
      if (help !== undefined) io.stderr(`${r.name}: ${help}\n`);
      for (const store of stores) {
        try {
          const { objects, metadataOf, cleanup } = readStore(store, dir);
          try {
            rows.push(
              ...listStore(store, objects, metadataOf, r.policy, Math.floor(nowTime.ms / 1000)).map((b) => ({
                policy: r.name,
                ...b,
              })),
            );
          } finally {
            cleanup();
          }
        } catch (e) {
          if (!(e instanceof StoreError)) throw e;
          io.stderr(`${r.name}: ${store.target}: ${e.message}\n`);
          failed = true;
        }
      }
    }
  }
  io.stdout(format === 'json' ? jsonText(rows) : textTable(rows));
  return failed ? EXIT.invalid : EXIT.ok;
}

interface StoreContents {
  readonly objects: readonly StoredObject[];
  readonly metadataOf: (name: string) => string | undefined;
  readonly cleanup: () => void;
}

function readStore(store: BackupStore, dir: string | undefined): StoreContents {
  if (store.kind === 'dir') {
    if (dir === undefined)
      throw new StoreError('the backups are in a hostPath or PVC directory: give it with --dir DIR');
    return readDir(dir);
  }
  return readS3(store);
}

function readDir(dir: string): StoreContents {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    throw new StoreError(`cannot read --dir ${dir}: ${(e as Error).message}`);
  }
  const objects = names.flatMap((name) => {
    const s = statSync(join(dir, name), { throwIfNoEntry: false });
    return s?.isFile() ? [{ name, size: s.size }] : [];
  });
  const metadataOf = (name: string) =>
    existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : undefined;
  return { objects, metadataOf, cleanup: () => undefined };
}

function readS3(store: BackupStore): StoreContents {
  const prefix = `${store.keyPrefix ?? ''}${store.namePrefix}`;
  const common = [
    ...(store.endpoint ? ['--endpoint-url', store.endpoint] : []),
    ...(store.region ? ['--region', store.region] : []),
  ];
  const listing = aws('s3api list-objects-v2', [
    ...common,
    's3api',
    'list-objects-v2',
    '--bucket',
    store.bucket!,
    '--prefix',
    prefix,
    '--output',
    'json',
  ]);
  let contents: unknown;
  try {
    contents = listing.trim() === '' ? [] : ((JSON.parse(listing) as { Contents?: unknown }).Contents ?? []);
  } catch {
    throw new StoreError(
      `aws s3api list-objects-v2 printed something else than JSON: ${JSON.stringify(listing.slice(0, 200))}`,
    );
  }
  if (!Array.isArray(contents)) throw new StoreError('aws s3api list-objects-v2: Contents is not a list');
  const strip = (key: string) => key.slice((store.keyPrefix ?? '').length);
  const objects = contents.flatMap((c: { Key?: unknown; Size?: unknown }) =>
    typeof c.Key === 'string' && typeof c.Size === 'number' ? [{ name: strip(c.Key), size: c.Size }] : [],
  );
  // every metadata object in one aws process (one per backup would start the CLI hundreds of times)
  const local = mkdtempSync(join(tmpdir(), 'backup-cronjobs-list-'));
  const cleanup = () => rmSync(local, { recursive: true, force: true });
  try {
    if (objects.some((o) => o.name.endsWith(store.metadataSuffix))) {
      aws('s3 cp --recursive (the metadata)', [
        ...common,
        's3',
        'cp',
        '--recursive',
        '--quiet',
        '--exclude',
        '*',
        '--include',
        `${store.namePrefix}*${store.metadataSuffix}`,
        `s3://${store.bucket}/${store.keyPrefix ?? ''}`,
        local,
      ]);
    }
  } catch (e) {
    cleanup();
    throw e;
  }
  return {
    objects,
    metadataOf: (name) => (existsSync(join(local, name)) ? readFileSync(join(local, name), 'utf8') : undefined),
    cleanup,
  };
}

/** Runs the aws CLI; `what` names the command in the error line. */
function aws(what: string, args: readonly string[]): string {
  try {
    // env as this process sees it (PATH, AWS_*), also where a test runner sandboxes process.env
    return execFileSync('aws', [...args], {
      env: process.env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch (e) {
    const err = e as { code?: string; status?: number; stderr?: string };
    if (err.code === 'ENOENT') throw new StoreError('the aws CLI is not on PATH (it reads the S3 destinations)');
    const line = (err.stderr ?? '').trim().split('\n').filter(Boolean).pop() ?? `exit status ${err.status}`;
    throw new StoreError(`aws ${what} failed: ${line}`);
  }
}

/** 1536 → 1.5 KiB (binary units, one decimal). */
function humanBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

function retentionText(b: ListedBackup): string {
  if (!b.retention) return 'no rules';
  return b.retention.keep ? `keep (${b.retention.reasons.join(', ')})` : 'delete';
}

function factsText(b: ListedBackup): string {
  if (b.metadata !== 'read') return `metadata ${b.metadata}`;
  const facts = Object.entries(b.facts).map(([k, v]) => `${k}=${v}`);
  return facts.length > 0 ? facts.join(' ') : '-';
}

function textTable(rows: readonly (ListedBackup & { policy: string })[]): string {
  if (rows.length === 0) return 'no backups\n';
  const header = [
    'POLICY',
    'TARGET',
    'NODE',
    'TIME',
    'SIZE',
    'ENCRYPTED',
    'LOCKED UNTIL',
    'CONTENT',
    'RETENTION',
    'NAME',
  ];
  const lines = rows.map((b) => [
    b.policy,
    b.target,
    b.node ?? '-',
    b.time,
    humanBytes(b.size),
    b.encrypted ? 'yes' : 'no',
    b.lockedUntil ?? '-',
    factsText(b),
    retentionText(b),
    b.name,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  return (
    [header, ...lines]
      .map((l) => l.map((c, i) => (i === l.length - 1 ? c : c.padEnd(widths[i]))).join('  '))
      .join('\n') + '\n'
  );
}
