/**
 * Real Pulumi deployments against the test control plane: the Pulumi CLI and the Kubernetes provider
 * built by scripts/build-test-tools.sh (tools/pulumi, tools/pulumi-kubernetes), stacks run through the
 * Automation API with an inline program (the Node.js language host has no version the Go module proxy
 * serves, and an inline program needs none), state in a file:// backend of a temporary directory.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { EngineEvent, OpMap, PulumiFn, Stack } from '@pulumi/pulumi/automation';
import { LocalWorkspace, PulumiCommand } from '@pulumi/pulumi/automation';
import { parse, stringify } from 'yaml';
import { runCli } from '../../../lib/cli';
import { runOk } from '../../support/services/commands';
import { toolsBinDir } from '../support/control-plane';
import type { TestCluster } from '../support/cluster';

export const REPO = path.resolve(__dirname, '../../..');

/** The bin dirs of the built CLI and provider; throws naming the build command when one is missing. */
export function pulumiTools(): { cliBin: string; providerBin: string } {
  const cliBin = toolsBinDir('pulumi');
  const providerBin = toolsBinDir('pulumi-kubernetes');
  for (const [dir, bin, module] of [
    [cliBin, 'pulumi', 'pulumi'],
    [providerBin, 'pulumi-resource-kubernetes', 'pulumi-kubernetes'],
  ]) {
    if (!fs.existsSync(path.join(dir, bin)))
      throw new Error(`${bin} is missing from ${dir}: run scripts/build-test-tools.sh ${module}`);
  }
  return { cliBin, providerBin };
}

/**
 * The version of the provider plugin: the one @pulumi/kubernetes asks the engine for, which must be
 * the one tools/pulumi-kubernetes builds.
 */
export function providerVersion(): string {
  const sdk = (
    JSON.parse(fs.readFileSync(require.resolve('@pulumi/kubernetes/package.json'), 'utf8')) as { version: string }
  ).version;
  const built = /^VERSION=v?(\S+)$/m.exec(
    fs.readFileSync(path.join(REPO, 'tools/pulumi-kubernetes/build.conf'), 'utf8'),
  )?.[1];
  if (built !== sdk)
    throw new Error(
      `@pulumi/kubernetes is ${sdk} but tools/pulumi-kubernetes builds ${built}: the engine would ask for a plugin that is not there`,
    );
  return sdk;
}

/** A kubeconfig of the test cluster whose (only) context is named `context` (the README's provider names `prod`). */
export function kubeconfigWithContext(cluster: TestCluster, dir: string, context: string): string {
  const doc = parse(fs.readFileSync(cluster.kubeconfig, 'utf8')) as {
    contexts: { name: string }[];
    'current-context': string;
  };
  for (const c of doc.contexts) c.name = context;
  doc['current-context'] = context;
  const file = path.join(dir, `${context}.kubeconfig`);
  fs.writeFileSync(file, stringify(doc));
  return file;
}

/** One step of the engine, as its events report it (in the order they arrived). */
export interface StepEvent {
  /** `pre`: the step starts; `done`: its outputs are in; `failed`. */
  readonly phase: 'pre' | 'done' | 'failed';
  readonly op: string;
  readonly urn: string;
  readonly type: string;
  /** The Kubernetes object name of the step's new (or, for a delete, old) state, when it has one. */
  readonly objectName?: string;
  /** The property paths the step changes (the keys of its `detailedDiff`, reported when it starts). */
  readonly changedPaths?: readonly string[];
}

export interface RunResult {
  readonly stdout: string;
  readonly stderr: string;
  /** The engine's summary (`resourceChanges`): op → count. */
  readonly changes: OpMap;
  readonly steps: readonly StepEvent[];
  readonly diagnostics: readonly string[];
  readonly ms: number;
}

/** A stack of its own backend and Pulumi home; `program` may be swapped between runs. */
export interface TestStack {
  readonly stack: Stack;
  readonly dir: string;
  /** The environment the CLI runs with (for running it directly: `pulumi stack output`). */
  readonly env: Record<string, string>;
  readonly cli: string;
  program: PulumiFn;
  up(): Promise<RunResult>;
  preview(): Promise<RunResult>;
  destroy(): Promise<RunResult>;
  /** Removes the stack's temporary directory (state, home, kubeconfig). */
  cleanup(): void;
}

/** Appends a line to $BACKUP_CRONJOBS_PULUMI_TIMINGS when set (how long the real runs take; never asserted). */
export function recordTiming(what: string, ms: number): void {
  const file = process.env.BACKUP_CRONJOBS_PULUMI_TIMINGS;
  if (file) fs.appendFileSync(file, `${new Date().toISOString()} ${what}: ${ms} ms\n`);
}

export async function newStack(opts: {
  readonly project: string;
  readonly stackName: string;
  readonly kubeconfig: (dir: string) => string;
  readonly program: PulumiFn;
}): Promise<TestStack> {
  const { cliBin, providerBin } = pulumiTools();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-pulumi-'));
  for (const d of ['state', 'home', 'work']) fs.mkdirSync(path.join(dir, d));
  const env: Record<string, string> = {
    PULUMI_SKIP_UPDATE_CHECK: 'true',
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
    PULUMI_CONFIG_PASSPHRASE: 'test-passphrase',
    PULUMI_HOME: path.join(dir, 'home'),
    PULUMI_BACKEND_URL: `file://${path.join(dir, 'state')}`,
    KUBECONFIG: opts.kubeconfig(dir),
    PATH: `${cliBin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  };
  const pulumiCommand = await PulumiCommand.get({ root: path.dirname(cliBin) });
  // The provider plugin, installed from the built binary as the docs install the released one.
  await runOk(
    pulumiCommand.command,
    [
      'plugin',
      'install',
      'resource',
      'kubernetes',
      providerVersion(),
      '--file',
      path.join(providerBin, 'pulumi-resource-kubernetes'),
    ],
    { cwd: path.join(dir, 'work'), env: { ...process.env, ...env } },
  );
  const holder = { program: opts.program };
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: opts.stackName, projectName: opts.project, program: () => holder.program() },
    {
      workDir: path.join(dir, 'work'),
      pulumiHome: env.PULUMI_HOME,
      pulumiCommand,
      envVars: env,
      projectSettings: {
        name: opts.project,
        runtime: 'nodejs',
        backend: { url: env.PULUMI_BACKEND_URL },
      },
    },
  );
  const run = async (
    what: string,
    fn: (onEvent: (e: EngineEvent) => void) => Promise<{ stdout: string; stderr: string; changes?: OpMap }>,
  ): Promise<RunResult> => {
    const steps: StepEvent[] = [];
    const diagnostics: string[] = [];
    let changes: OpMap = {};
    const onEvent = (e: EngineEvent): void => {
      const step = e.resourcePreEvent ?? e.resOutputsEvent ?? e.resOpFailedEvent;
      if (step) {
        const m = step.metadata;
        const state = (m.op === 'delete' ? m.old : (m.new ?? m.old)) as
          { inputs?: { metadata?: { name?: unknown } } } | undefined;
        const objectName = state?.inputs?.metadata?.name;
        steps.push({
          phase: e.resourcePreEvent ? 'pre' : e.resOutputsEvent ? 'done' : 'failed',
          op: m.op,
          urn: m.urn,
          type: m.type,
          objectName: typeof objectName === 'string' ? objectName : undefined,
          changedPaths: m.detailedDiff ? Object.keys(m.detailedDiff).sort() : undefined,
        });
      }
      if (e.diagnosticEvent) diagnostics.push(`${e.diagnosticEvent.severity}: ${e.diagnosticEvent.message}`);
      if (e.summaryEvent) changes = e.summaryEvent.resourceChanges;
    };
    const start = Date.now();
    try {
      const r = await fn(onEvent);
      const ms = Date.now() - start;
      recordTiming(`${opts.project}/${opts.stackName} ${what}`, ms);
      return { stdout: r.stdout, stderr: r.stderr, changes: r.changes ?? changes, steps, diagnostics, ms };
    } catch (e) {
      recordTiming(`${opts.project}/${opts.stackName} ${what} (failed)`, Date.now() - start);
      throw Object.assign(e as Error, { steps, diagnostics });
    }
  };
  return {
    stack,
    dir,
    env,
    cli: path.join(cliBin, 'pulumi'),
    get program() {
      return holder.program;
    },
    set program(p: PulumiFn) {
      holder.program = p;
    },
    up: () =>
      run('up', async (onEvent) => {
        const r = await stack.up({ onEvent });
        return { stdout: r.stdout, stderr: r.stderr, changes: r.summary.resourceChanges ?? {} };
      }),
    preview: () =>
      run('preview', async (onEvent) => {
        const r = await stack.preview({ onEvent });
        return { stdout: r.stdout, stderr: r.stderr, changes: r.changeSummary };
      }),
    destroy: () =>
      run('destroy', async (onEvent) => {
        const r = await stack.destroy({ onEvent });
        return { stdout: r.stdout, stderr: r.stderr, changes: r.summary.resourceChanges ?? {} };
      }),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** Ops of a summary other than `same`, with their counts (`{}` when nothing changed). */
export function changed(changes: OpMap): Record<string, number> {
  return Object.fromEntries(Object.entries(changes).filter(([op, n]) => op !== 'same' && (n ?? 0) > 0));
}

/** The steps that did something (not `same`), completed, as `op type objectName`. */
export function doneSteps(r: RunResult): string[] {
  return r.steps
    .filter((s) => s.phase === 'done' && s.op !== 'same' && s.type.startsWith('kubernetes:'))
    .map((s) => `${s.op} ${s.type} ${s.objectName ?? s.urn}`)
    .sort();
}

/** What `backup-cronjobs synth FILE` writes (run in-process, as the docs test does), as objects; `cli`: another copy's runCli. */
export function synth(file: string, cli: typeof runCli = runCli): Record<string, unknown>[] {
  let stdout = '';
  let stderr = '';
  const code = cli(['synth', file], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    stdin: () => {
      throw new Error('synth read standard input');
    },
  });
  if (code !== 0) throw new Error(`backup-cronjobs synth ${file} exited ${code}: ${stderr}`);
  return stdout
    .split(/^---$/m)
    .map((d) => parse(d) as Record<string, unknown> | null)
    .filter((d): d is Record<string, unknown> => d !== null);
}

type Obj = Record<string, unknown> & { apiVersion: string; kind: string; metadata: Record<string, unknown> };

/** Objects the control plane makes in every namespace by itself. */
const CONTROL_PLANE_OBJECTS = new Set(['v1/ConfigMap/kube-root-ca.crt', 'v1/ServiceAccount/default']);

/** `apiVersion/kind/name`. */
export const objectId = (o: { apiVersion?: unknown; kind?: unknown; metadata?: unknown }): string =>
  `${String(o.apiVersion)}/${String(o.kind)}/${String((o.metadata as { name?: unknown } | undefined)?.name)}`;

/** Every object in a namespace (every namespaced kind that can be listed), but events and what the control plane makes by itself or from another object. */
export async function namespaceObjects(cluster: TestCluster, namespace: string): Promise<Obj[]> {
  const kinds = (await cluster.kubectl(['api-resources', '--verbs=list', '--namespaced', '-o', 'name']))
    .split('\n')
    .filter((k) => k !== '' && !/^events(\.|$)/.test(k));
  const list = JSON.parse(await cluster.kubectl(['get', kinds.join(','), '-n', namespace, '-o', 'json'])) as {
    items: Obj[];
  };
  // Objects a controller made (a Job of a CronJob, its Pod) have an owner; no rendered object has.
  return list.items.filter((o) => !CONTROL_PLANE_OBJECTS.has(objectId(o)) && o.metadata.ownerReferences === undefined);
}

/** Fields the API server sets on every write (and status): removed before comparing. */
const SERVER_SET = ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'generation'];

/**
 * A live object without what the API server sets on a write and without what Pulumi adds; returns it
 * and the Pulumi additions it removed (annotations `pulumi.com/…`), for the report.
 */
export function comparable(o: Obj): { object: Obj; removed: string[] } {
  const copy = JSON.parse(JSON.stringify(o)) as Obj;
  const removed: string[] = [];
  delete copy.status;
  for (const f of SERVER_SET) delete copy.metadata[f];
  const annotations = copy.metadata.annotations as Record<string, string> | undefined;
  if (annotations) {
    for (const k of Object.keys(annotations))
      if (k.startsWith('pulumi.com/')) {
        removed.push(`metadata.annotations.${k}`);
        delete annotations[k];
      }
    if (Object.keys(annotations).length === 0) delete copy.metadata.annotations;
  }
  return { object: copy, removed };
}

/**
 * The object `manifest` becomes when it replaces the live one in full (a server-side dry-run PUT): the
 * same defaults, admission and normalization as the live object got, none of the fields a manager
 * other than the manifest set. Compared with the live object, it shows exactly what Pulumi wrote
 * otherwise than the manifest.
 */
export async function dryRunReplaced(cluster: TestCluster, manifest: Record<string, unknown>): Promise<Obj> {
  return JSON.parse(
    await cluster.kubectl(['replace', '--dry-run=server', '-o', 'json', '-f', '-'], {
      input: JSON.stringify(manifest),
    }),
  ) as Obj;
}

/** Expected output with `…` for any text, against what was printed (trailing blanks aside): the docs test's rule. */
export function matchesOutput(expected: string, actual: string): boolean {
  const pattern = expected
    .trimEnd()
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*?');
  return new RegExp(`^${pattern}$`).test(actual.trimEnd());
}

/**
 * The package's next version, as far as a script change goes: a copy of lib/ and constructs/ under
 * .tmp/ of the repository (so that it resolves the same node_modules) whose `script` has one more
 * line at its end. Returns the copy's directory.
 */
export function upgradedPackage(script: string, line: string): string {
  fs.mkdirSync(path.join(REPO, '.tmp'), { recursive: true });
  const dir = fs.mkdtempSync(path.join(REPO, '.tmp', 'pulumi-upgrade-'));
  for (const d of ['lib', 'constructs']) fs.cpSync(path.join(REPO, d), path.join(dir, d), { recursive: true });
  const file = path.join(dir, 'lib', script);
  const text = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, `${text}${text.endsWith('\n') ? '' : '\n'}${line}\n`);
  return dir;
}

/** The leaf paths where two JSON values differ, written as Pulumi's detailed diffs write them (`a.b[2].c`). */
export function changedPaths(a: unknown, b: unknown, at = ''): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const join = (k: string | number) => (typeof k === 'number' ? `${at}[${k}]` : at === '' ? k : `${at}.${k}`);
  if (Array.isArray(a) && Array.isArray(b)) {
    return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => changedPaths(a[i], b[i], join(i))).flat();
  }
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObject(a) && isObject(b)) {
    return [...new Set([...Object.keys(a), ...Object.keys(b)])]
      .sort()
      .flatMap((k) => changedPaths(a[k], b[k], join(k)));
  }
  return [at];
}
