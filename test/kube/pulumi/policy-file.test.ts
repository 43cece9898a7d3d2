// `pulumi up` for real of a `BackupPolicy.fromFile` (the Redis example policy) on the test control
// plane: the live objects are exactly those `backup-cronjobs synth` writes for the same policy, the
// stack outputs are the live names, a second up does nothing, one change makes one update, a script
// change replaces the ConfigMap with every CronJob following in create-before-delete order, an
// invalid policy fails before anything is created, and destroy removes every object.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BackupPolicy } from '../../../constructs/pulumi';
import { runCommand } from '../../support/services/commands';
import { testCluster, type TestCluster } from '../support/cluster';
import {
  REPO,
  changed,
  changedPaths,
  comparable,
  doneSteps,
  dryRunReplaced,
  namespaceObjects,
  newStack,
  objectId,
  synth,
  type RunResult,
  type StepEvent,
  type TestStack,
  upgradedPackage,
} from './stack';

jest.setTimeout(15 * 60 * 1000);

const EXAMPLE = fs.readFileSync(path.join(REPO, 'examples/policies/redis-sharded.yaml'), 'utf8');
const CRONJOB = 'kubernetes:batch/v1:CronJob';
const CONFIGMAP = 'kubernetes:core/v1:ConfigMap';

/** The example policy in `namespace` (the document's own metadata.namespace: `synth` of it is the expected output). */
function policyText(namespace: string, edit: (text: string) => string = (t) => t): string {
  const text = edit(EXAMPLE).replace(/^ {2}namespace: redis$/m, `  namespace: ${namespace}`);
  expect(text).toContain(`  namespace: ${namespace}\n`);
  return text;
}

/** Replaces `from` by `to` in `text`, failing when `from` is not there (the example changed). */
function edited(text: string, from: string, to: string): string {
  expect(text).toContain(from);
  return text.replace(from, to);
}

/** The live objects of `namespace` are exactly the objects `backup-cronjobs synth file` writes, field by field. */
async function expectLiveIsSynth(
  cluster: TestCluster,
  namespace: string,
  file: string,
  cli?: Parameters<typeof synth>[1],
): Promise<void> {
  const expected = synth(file, cli);
  const live = await namespaceObjects(cluster, namespace);
  expect(live.map(objectId).sort()).toEqual(expected.map(objectId).sort());
  for (const manifest of expected) {
    const object = live.find((o) => objectId(o) === objectId(manifest))!;
    // The manifest through the same API server path as the live object (defaults, admission), in
    // place of it: what kubectl apply of the synth output would have stored.
    const replaced = await dryRunReplaced(cluster, manifest);
    expect([objectId(manifest), comparable(object).object]).toEqual([objectId(manifest), comparable(replaced).object]);
  }
}

/** The start of the update of CronJob `name` in a run (its event carries the detailed diff). */
function updateOf(r: RunResult, name: string): StepEvent {
  const starts = r.steps.filter(
    (s) => s.phase === 'pre' && s.op === 'update' && s.type === CRONJOB && s.objectName === name,
  );
  expect(starts).toHaveLength(1);
  return starts[0];
}

const index = (
  steps: readonly StepEvent[],
  phase: StepEvent['phase'],
  op: string,
  type: string,
  name?: string,
): number[] =>
  steps.flatMap((s, i) =>
    s.phase === phase && s.op === op && s.type === type && (name === undefined || s.objectName === name) ? [i] : [],
  );

describe('BackupPolicy.fromFile, deployed by the Pulumi engine', () => {
  let cluster: TestCluster;
  let namespace: string;
  let file: string;
  let stack: TestStack;
  let upgraded: string | undefined;
  const write = (text: string) => fs.writeFileSync(file, text);
  const liveCronJobs = async (): Promise<Record<string, string>> => {
    const list = JSON.parse(await cluster.kubectl(['get', 'cronjobs', '-n', namespace, '-o', 'json'])) as {
      items: {
        metadata: { name: string };
        spec: {
          schedule: string;
          jobTemplate: { spec: { template: { spec: { volumes?: { name: string; configMap?: { name: string } }[] } } } };
        };
      }[];
    };
    return Object.fromEntries(
      list.items.map((c) => [
        c.metadata.name,
        `${c.spec.schedule} ${c.spec.jobTemplate.spec.template.spec.volumes?.find((v) => v.name === 'scripts')?.configMap?.name}`,
      ]),
    );
  };

  beforeAll(async () => {
    cluster = await testCluster();
    namespace = await cluster.createNamespace('pulumi-file');
    stack = await newStack({
      project: 'policy-file',
      stackName: 'dev',
      kubeconfig: () => cluster.kubeconfig,
      program: () => {
        const policy = BackupPolicy.fromFile('redis-backup', file, { namespace });
        return Promise.resolve({ cronJobNames: policy.cronJobNames, shard01: policy.cronJob('shard01').metadata.name });
      },
    });
    file = path.join(stack.dir, 'redis-backup.yaml');
  });
  afterAll(async () => {
    if (stack) {
      await stack.destroy().catch(() => undefined);
      stack.cleanup();
    }
    if (namespace) await cluster.kubectl(['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
    if (upgraded) fs.rmSync(upgraded, { recursive: true, force: true });
  });

  test('up creates exactly the objects backup-cronjobs synth writes for the policy', async () => {
    write(policyText(namespace));
    const first = await stack.up();
    expect(doneSteps(first)).toEqual(
      synth(file)
        .map(
          (m) =>
            `create kubernetes:${m.apiVersion === 'v1' ? 'core/v1' : String(m.apiVersion)}:${String(m.kind)} ${(m.metadata as { name: string }).name}`,
        )
        .sort(),
    );
    await expectLiveIsSynth(cluster, namespace, file);
  });

  test('the stack outputs are the live names', async () => {
    const outputs = await stack.stack.outputs();
    const live = Object.keys(await liveCronJobs()).sort();
    expect(live).toEqual(['redis-backup-shard01', 'redis-backup-shard02']);
    expect((outputs.cronJobNames.value as string[]).slice().sort()).toEqual(live);
    expect(outputs.shard01.value).toBe('redis-backup-shard01');
    expect(live).toContain(outputs.shard01.value);
  });

  test('a second up with nothing changed does nothing', async () => {
    const r = await stack.up();
    expect(changed(r.changes)).toEqual({});
    expect(doneSteps(r)).toEqual([]);
    expect(r.stdout).toMatch(/Resources:\n\s+\d+ unchanged\n/);
  });

  test("changing one shard's schedule updates exactly that CronJob", async () => {
    const before = await liveCronJobs();
    write(
      policyText(namespace, (t) =>
        edited(t, 'shards: [shard01, shard02]', 'shards: [shard01, { name: shard02, schedule: "45 2 * * *" }]'),
      ),
    );
    const r = await stack.up();
    expect(changed(r.changes)).toEqual({ update: 1 });
    expect(doneSteps(r)).toEqual([`update ${CRONJOB} redis-backup-shard02`]);
    expect(updateOf(r, 'redis-backup-shard02').changedPaths).toEqual(['spec.schedule']);
    const after = await liveCronJobs();
    expect(after['redis-backup-shard02']).toBe(before['redis-backup-shard02'].replace('30 1 * * *', '45 2 * * *'));
    expect(after['redis-backup-shard01']).toBe(before['redis-backup-shard01']);
    await expectLiveIsSynth(cluster, namespace, file);
  });

  test('adding a shard creates its CronJob and updates the others in one env var (BACKUP_POLICY_SHARDS: the drift check knows every shard of the policy); the ConfigMap stays (the scripts are the same)', async () => {
    const before = await liveCronJobs();
    const rendered = synth(file);
    write(
      policyText(namespace, (t) =>
        edited(
          t,
          'shards: [shard01, shard02]',
          'shards: [shard01, { name: shard02, schedule: "45 2 * * *" }, shard03]',
        ),
      ),
    );
    const next = synth(file);
    const r = await stack.up();
    const existing = Object.keys(before).sort();
    expect(changed(r.changes)).toEqual({ create: 1, update: existing.length });
    expect(doneSteps(r)).toEqual(
      [`create ${CRONJOB} redis-backup-shard03`, ...existing.map((c) => `update ${CRONJOB} ${c}`)].sort(),
    );
    for (const name of existing) {
      const [old, now] = [rendered, next].map((objects) =>
        objects.find((o) => objectId(o) === `batch/v1/CronJob/${name}`)!,
      );
      const paths = changedPaths(old, now);
      expect(paths).toHaveLength(1);
      expect(paths[0]).toMatch(/^spec\.jobTemplate\.spec\.template\.spec\.containers\[\d+\]\.env\[\d+\]\.value$/);
      expect(updateOf(r, name).changedPaths).toEqual(paths);
    }
    const after = await liveCronJobs();
    expect(Object.keys(after).sort()).toEqual([...existing, 'redis-backup-shard03'].sort());
    for (const [name, v] of Object.entries(before)) expect(after[name]).toBe(v);
    await expectLiveIsSynth(cluster, namespace, file);
  });

  test("a script change (the package's next version) replaces the ConfigMap (a new name): the new one is created, every CronJob then updated to it, the old one deleted last", async () => {
    const before = await liveCronJobs();
    const oldConfigMap = (await namespaceObjects(cluster, namespace)).find((o) => o.kind === 'ConfigMap')!.metadata
      .name as string;
    upgraded = upgradedPackage('scripts/common.sh', '# (a line of the next version)');
    /* eslint-disable @typescript-eslint/no-require-imports -- the copy is loaded only here */
    const nextPackage = require(
      path.join(upgraded, 'constructs/pulumi'),
    ) as typeof import('../../../constructs/pulumi');
    const nextCli = (require(path.join(upgraded, 'lib/cli')) as typeof import('../../../lib/cli')).runCli;
    /* eslint-enable @typescript-eslint/no-require-imports */
    stack.program = () => {
      const policy = nextPackage.BackupPolicy.fromFile('redis-backup', file, { namespace });
      return Promise.resolve({ cronJobNames: policy.cronJobNames, shard01: policy.cronJob('shard01').metadata.name });
    };
    const rendered = synth(file);
    const next = synth(file, nextCli);
    const newConfigMap = (next.find((m) => m.kind === 'ConfigMap')!.metadata as { name: string }).name;
    expect(newConfigMap).not.toBe(oldConfigMap);
    const r = await stack.up();
    const cronJobs = Object.keys(before).sort();
    expect(changed(r.changes)).toEqual({ create: 1, update: cronJobs.length, delete: 1 });
    expect(doneSteps(r)).toEqual(
      [
        `create ${CONFIGMAP} ${newConfigMap}`,
        `delete ${CONFIGMAP} ${oldConfigMap}`,
        ...cronJobs.map((c) => `update ${CRONJOB} ${c}`),
      ].sort(),
    );
    // Each CronJob's update changes the scripts volume's ConfigMap name only (its command keeps `main`).
    for (const name of cronJobs) {
      const [old, now] = [rendered, next].map((objects) =>
        objects.find((o) => objectId(o) === `batch/v1/CronJob/${name}`)!,
      );
      const paths = changedPaths(old, now);
      expect(paths).toHaveLength(1);
      expect(paths[0]).toMatch(/^spec\.jobTemplate\.spec\.template\.spec\.volumes\[\d+\]\.configMap\.name$/);
      expect(updateOf(r, name).changedPaths).toEqual(paths);
    }
    // The engine's order: the new ConfigMap exists before any CronJob update starts, and the old one
    // is deleted only after every CronJob names the new one.
    const created = index(r.steps, 'done', 'create', CONFIGMAP, newConfigMap);
    const updateStarts = index(r.steps, 'pre', 'update', CRONJOB);
    const updatesDone = index(r.steps, 'done', 'update', CRONJOB);
    const deleteStarts = index(r.steps, 'pre', 'delete', CONFIGMAP, oldConfigMap);
    expect([created.length, updateStarts.length, updatesDone.length, deleteStarts.length]).toEqual([
      1,
      cronJobs.length,
      cronJobs.length,
      1,
    ]);
    expect(Math.min(...updateStarts)).toBeGreaterThan(created[0]);
    expect(deleteStarts[0]).toBeGreaterThan(Math.max(...updatesDone));
    const after = await liveCronJobs();
    for (const c of cronJobs) expect(after[c]).toBe(before[c].replace(oldConfigMap, newConfigMap));
    await expectLiveIsSynth(cluster, namespace, file, nextCli);
  });

  test('destroy removes every object', async () => {
    const count = (await namespaceObjects(cluster, namespace)).length;
    const r = await stack.destroy();
    expect(changed(r.changes)).toEqual({ delete: count + 2 }); // the objects, the component and the stack
    expect(await namespaceObjects(cluster, namespace)).toEqual([]);
  });
});

describe('an invalid policy', () => {
  test("fails preview (and up) with the package's message naming the path, and creates nothing", async () => {
    const cluster = await testCluster();
    const namespace = await cluster.createNamespace('pulumi-invalid');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-pulumi-invalid-'));
    try {
      const file = path.join(dir, 'invalid.yaml');
      fs.writeFileSync(
        file,
        policyText(namespace, (t) => edited(t, 'schedule: "30 1 * * *"', 'schedule: "61 1 * * *"')),
      );
      const line = fs.readFileSync(file, 'utf8').split('\n').indexOf('    schedule: "61 1 * * *"') + 1;
      const message = `${file}:${line}:5: spec.defaults.schedule: received "61 1 * * *"; field "minute" value "61" is out of range 0-59`;
      const child = await runCommand(
        process.execPath,
        [
          '-r',
          'ts-node/register/transpile-only',
          path.join(__dirname, 'invalid-policy-run.ts'),
          file,
          namespace,
          cluster.kubeconfig,
        ],
        {
          cwd: REPO,
          env: { ...process.env, TS_NODE_PROJECT: path.join(REPO, 'tsconfig.json') },
          timeoutMs: 10 * 60 * 1000,
        },
      );
      expect([child.code, child.stderr]).toEqual([0, '']);
      const result = JSON.parse(child.stdout.toString('utf8')) as {
        runs: { op: string; error?: string; steps: StepEvent[] }[];
        resources: { type: string }[];
      };
      expect(result.runs.map((r) => r.op)).toEqual(['preview', 'up']);
      for (const run of result.runs) {
        expect(run.error).toContain(`${file}: invalid BackupPolicy (1 problem)`);
        expect(run.error).toContain(message);
        expect(
          run.steps.filter((s) => s.type.startsWith('kubernetes:') || s.type.startsWith('backup-cronjobs:')),
        ).toEqual([]);
      }
      expect(await namespaceObjects(cluster, namespace)).toEqual([]);
      expect(result.resources.filter((r) => r.type !== 'pulumi:pulumi:Stack')).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await cluster.kubectl(['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
    }
  });
});
