// Helpers of the etcd tests: a small policy, and the rendered pods run for real
// (every container in order, sharing the pod's volumes, as the kubelet runs them).
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { PolicyError, renderPolicy } from '../../../../lib';
import { runCli } from '../../../../lib/cli';
import type { BackupPolicy, EtcdSpec, Manifest } from '../../../../lib';
import { RunContainerOptions, RunContainerResult, resolvePodSpec, runContainer } from '../../../support/run-container';
import { ProcessInfo, processes } from '../../../support/proc';
import { EtcdVersion, etcdTools } from '../../../support/services/etcd';
import type { PushgatewayHandle } from '../../../support/services';

/** A small valid etcd policy with overrides. */
export function etcdPolicy(
  etcd: Partial<EtcdSpec> = {},
  spec: Record<string, unknown> = {},
  name = 'etcd',
): BackupPolicy {
  return {
    apiVersion: 'backup-cronjobs.io/v1alpha1',
    kind: 'BackupPolicy',
    metadata: { name, namespace: 'kube-system' },
    spec: { ...spec, etcd: { ...etcd } },
  };
}

/** The metadata document etcd-finalize.sh stores beside each snapshot (its `metadata()`). */
export interface SnapshotMetadata {
  readonly name: string;
  readonly node: string;
  readonly time: string;
  readonly revision: number;
  readonly hash: number;
  readonly totalKey: number;
  /** Absent in metadata written before the backups counted keys. */
  readonly keyCount?: number;
  /** The revision keyCount was counted at, where a restored member starts (with keyCount). */
  readonly keyCountRevision?: number;
  readonly totalSize: number;
  readonly size: number;
  readonly sha256: string;
  readonly encryption?: { readonly tool: string; readonly recipients: readonly string[] };
  readonly encryptedSize?: number;
  readonly encryptedSha256?: string;
  /** With spec.etcd.controlPlaneFiles: the archive stored beside the snapshot. */
  readonly controlPlaneFiles?: {
    readonly name: string;
    readonly paths: readonly string[];
    readonly entries: number;
    readonly size: number;
    readonly sha256: string;
    readonly encryptedSize?: number;
    readonly encryptedSha256?: string;
  };
  /** The tool that checked the snapshot: etcdctl or etcdutl. */
  readonly verifiedWith: string;
  readonly restoreChecked: boolean;
  readonly endpoint: string;
  readonly policy: string;
}

/** A metadata document as stored (the text of `<snapshot>.json`). */
export const parseSnapshotMetadata = (text: string | Buffer): SnapshotMetadata =>
  JSON.parse(text.toString()) as SnapshotMetadata;

/** What `etcdctl snapshot status -w json` prints. */
export interface SnapshotStatus {
  readonly hash: number;
  readonly revision: number;
  readonly totalKey: number;
  readonly totalSize: number;
}

export { containerOf, envOf, podSpecOf as podOf } from '../../../support/kube';

export const cronJobs = (objs: Manifest[]) => objs.filter((o) => o.kind === 'CronJob');

/**
 * The Job `backup-cronjobs restore - <args>` prints for a policy, run as a
 * person runs it (the policy on standard input, the YAML parsed back).
 */
export function restoreJobOf(policy: BackupPolicy, args: readonly string[]): Manifest {
  let stdout = '';
  let stderr = '';
  const code = runCli(['restore', '-', ...args], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    stdin: () => JSON.stringify(policy),
  });
  if (code !== 0) throw new Error(`backup-cronjobs restore exited ${code}: ${stderr}`);
  const docs = parseAllDocuments(stdout);
  if (!Array.isArray(docs) || docs.length !== 1)
    throw new Error(`backup-cronjobs restore printed ${Array.isArray(docs) ? docs.length : 'no'} documents`);
  return docs[0].toJS() as Manifest;
}

/** The first CronJob of a rendered policy. */
export function cronJobOf(policy: BackupPolicy): Manifest {
  const cj = cronJobs(renderPolicy(policy))[0];
  if (!cj) throw new Error('no CronJob rendered');
  return cj;
}

const tempDirs: string[] = [];
export function tempDir(prefix: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `bcj-etcd-${prefix}-`));
  tempDirs.push(d);
  return d;
}
export function removeTempDirs(): void {
  for (const d of tempDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

export interface PodRun {
  /** Results by container name, in the order they ran. */
  readonly results: Record<string, RunContainerResult>;
  /** The container that failed (the pod stops there, restartPolicy Never), if any. */
  readonly failed?: string;
  /** volume name -> host dir. */
  readonly volumeDirs: Record<string, string>;
  /** Everything the containers logged. */
  readonly log: string;
}

/**
 * Runs every container of the pod in order (init containers, then the main
 * one) until one fails. `opts.volumes` maps hostPath/PVC volumes to dirs.
 * `opts.only` runs only the listed containers (sharing `opts.volumeDirs`).
 * The containers run the binaries of etcd `opts.etcd` (default MAIN_ETCD_VERSION: its dirs come on PATH
 * after `opts.pathPrepend`, whose stand-ins may wrap them); `false`: none added (the test gives its own).
 */
export async function runPod(
  obj: unknown,
  opts: RunContainerOptions & {
    only?: string[];
    envFor?: Record<string, Record<string, string>>;
    etcd?: EtcdVersion | false;
  } = {},
): Promise<PodRun> {
  const pathPrepend = [...(opts.pathPrepend ?? []), ...(opts.etcd === false ? [] : etcdTools(opts.etcd).pathPrepend)];
  const spec = resolvePodSpec(obj);
  const names = [...(spec.initContainers ?? []), ...spec.containers].map((c) => c.name);
  const volumeDirs = opts.volumeDirs ?? {};
  const results: Record<string, RunContainerResult> = {};
  let log = '';
  for (const name of names) {
    if (opts.only && !opts.only.includes(name)) continue;
    const r = await runContainer(spec, name, {
      timeoutMs: 60000,
      ...opts,
      pathPrepend,
      env: { ...opts.env, ...opts.envFor?.[name] },
      volumeDirs,
      pod: { nodeName: 'cp-1', ...opts.pod },
    });
    results[name] = r;
    log += `--- ${name} (exit ${r.code}${r.timedOut ? ', timed out' : ''}, ${r.durationMs} ms)\n${r.stdout}${r.stderr}`;
    if (r.code !== 0) return { results, failed: name, volumeDirs, log };
  }
  return { results, volumeDirs, log };
}

/** The error lines a container logged (`<time> <job> error <message>`; not a warning that quotes a tool's error). */
export const errorLines = (r: RunContainerResult | undefined): string[] =>
  (r?.stderr ?? '').split('\n').filter((l) => /^\S+ \S+ error /.test(l));

/** Files of a directory, sorted (hidden ones included). */
export const filesOf = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

/** A UTC RFC3339 second stamp as used in names. */
export const stamp = (epoch: number): string => new Date(epoch * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Every problem of a policy (empty when it renders). */
export function problems(policy: BackupPolicy): string[] {
  try {
    renderPolicy(policy);
    return [];
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
    return e.issues.map((i) => `${i.path}: ${i.message}`);
  }
}

/** Polls `condition` every 20 ms until it returns a truthy value (which it returns), failing after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  condition: () => T | undefined | null | false,
  timeoutMs = 30000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The first process of a container that runContainer is running now: its `sh -c SCRIPT ENTRY`, a child of
 * this process (the kubelet signals this one at the Job's deadline).
 */
export const containerProcess = (entry: string): ProcessInfo | undefined =>
  processes().find(
    (p) => p.ppid === process.pid && p.argv.length >= 4 && p.argv[1] === '-c' && p.argv[p.argv.length - 1] === entry,
  );

/** A bin directory with an aws CLI whose head-object reports one byte less than stored; every other call runs the real /usr/bin/aws. */
export function shortHeadObjectAws(): string {
  const bin = tempDir('aws-stub');
  fs.writeFileSync(
    path.join(bin, 'aws'),
    [
      '#!/bin/sh',
      'for a in "$@"; do if [ "$a" = head-object ]; then n=$(/usr/bin/aws "$@") || exit 1; echo $((n - 1)); exit 0; fi; done',
      'exec /usr/bin/aws "$@"',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return bin;
}

/**
 * A bin directory with a stand-in `etcdctl` that runs the real etcdctl for every call (so it prints exactly
 * what etcdctl prints), and pauses `snapshot save` (before it starts, or after it succeeded) or `snapshot
 * restore` (after it succeeded) until the test resumes it: `paused` exists while it waits.
 */
export function pausingEtcdctl(
  etcdctl: string,
  at: 'before-save' | 'after-save' | 'after-restore',
): { bin: string; paused: string; resume: () => void } {
  const bin = tempDir('etcdctl-bin');
  // from 3.5 on, the scripts restore with etcdutl: that is the one to wrap
  const tool = path.basename(etcdctl);
  const paused = path.join(bin, 'paused');
  const resumed = path.join(bin, 'resumed');
  const pause = `: >'${paused}'; while [ ! -e '${resumed}' ]; do sleep 0.02; done`;
  const command = at === 'after-restore' ? 'snapshot restore' : 'snapshot save';
  fs.writeFileSync(
    path.join(bin, tool),
    [
      '#!/bin/sh',
      `case " $* " in *" ${command} "*) ;; *) exec '${etcdctl}' "$@" ;; esac`,
      at === 'before-save' ? `${pause}; exec '${etcdctl}' "$@"` : `'${etcdctl}' "$@" || exit; ${pause}`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return { bin, paused, resume: () => fs.writeFileSync(resumed, '') };
}

/** The value of metric `name` that the backups of CronJob `target` pushed to the gateway, if any. */
export async function metricValue(
  gateway: PushgatewayHandle,
  name: string,
  target: string,
): Promise<number | undefined> {
  const line = (await gateway.metrics())
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && l.includes(`target="${target}"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** A fresh age identity (its file's text) and recipient, from the real age-keygen (Debian package age). */
export function ageKeypair(): { identity: string; recipient: string } {
  const dir = tempDir('age-key');
  const file = path.join(dir, 'key.txt');
  execFileSync('age-keygen', ['-o', file], { stdio: 'ignore' });
  return {
    identity: fs.readFileSync(file, 'utf8'),
    recipient: execFileSync('age-keygen', ['-y', file], { encoding: 'utf8' }).trim(),
  };
}

/** `age --decrypt -i <identity> -o OUT IN` with the real age, as the restore steps of docs/operations/restore.md run it. */
export function ageDecrypt(identity: string, input: string, output: string): void {
  const key = path.join(tempDir('age-identity'), 'key.txt');
  fs.writeFileSync(key, identity, { mode: 0o600 });
  execFileSync('age', ['--decrypt', '-i', key, '-o', output, input], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Every file under `dir` (relative paths, sorted), directories walked. */
export function walk(dir: string, at = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(path.join(dir, at), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(dir, path.join(at, e.name)) : [path.join(at, e.name)]))
    .sort();
}
