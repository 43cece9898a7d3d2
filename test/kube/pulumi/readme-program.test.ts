// The README's Pulumi program, run for real by the Pulumi engine on the test control plane, as the
// session of docs/frontends/pulumi.md ("A session with the README's program") shows it: each command
// of that block is run (pulumi through the Automation API with the README's code as the inline
// program, kubectl against the cluster) and prints what the block shows. Between the commands: the
// live objects are exactly what `backup-cronjobs synth` writes for the same policies, and the stack
// outputs are the live names.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import * as pulumi from '@pulumi/pulumi';
import * as k8s from '@pulumi/kubernetes';
import * as components from '../../../constructs/pulumi';
import { sectionCodeBlocks } from '../../package/readme-blocks';
import { sessionSteps } from '../../support/markdown';
import { runCommand } from '../../support/services/commands';
import { testCluster, type TestCluster } from '../support/cluster';
import {
  REPO,
  changed,
  comparable,
  dryRunReplaced,
  kubeconfigWithContext,
  matchesOutput,
  namespaceObjects,
  newStack,
  objectId,
  recordTiming,
  synth,
  type RunResult,
  type TestStack,
} from './stack';

jest.setTimeout(15 * 60 * 1000);

const DOC = 'docs/frontends/pulumi.md';
const SESSION_SECTION = "## A session with the README's program";
/** The namespace the README's program creates; each run creates its own instead. */
const README_NAMESPACE = 'backups';

/** The README's "## Pulumi" program as an inline Pulumi program, in `namespace`, its policy file read from examples/policies. */
function readmeProgram(namespace: string): () => Promise<Record<string, unknown>> {
  const blocks = sectionCodeBlocks(fs.readFileSync(path.join(REPO, 'README.md'), 'utf8'), '## Pulumi', 'ts');
  expect(blocks).toHaveLength(1);
  const namespaceLiteral = `metadata: { name: '${README_NAMESPACE}' }`;
  expect(blocks[0].split(namespaceLiteral)).toHaveLength(2);
  const source = blocks[0]
    .replace(namespaceLiteral, `metadata: { name: '${namespace}' }`)
    .replace(/(['"])policies\//g, `$1${REPO}/examples/policies/`);
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  }).outputText;
  const modules: Record<string, unknown> = {
    '@pulumi/pulumi': pulumi,
    '@pulumi/kubernetes': k8s,
    'backup-cronjobs/pulumi': components,
  };
  const load = (id: string): unknown => {
    if (!(id in modules)) throw new Error(`the README's program imports ${id}, which this test does not provide`);
    return modules[id];
  };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the README's code, compiled above
  const run = new Function('exports', 'require', 'module', js) as (
    exports: Record<string, unknown>,
    require: (id: string) => unknown,
    module: { exports: Record<string, unknown> },
  ) => void;
  return () => {
    const module = { exports: {} as Record<string, unknown> };
    run(module.exports, load, module);
    return Promise.resolve(module.exports);
  };
}

/** The policy the README's `RedisBackupSchedule('cache', …)` args describe, as a policy file. */
const cachePolicy = (namespace: string): string => `apiVersion: backup-cronjobs.io/v1alpha1
kind: BackupPolicy
metadata:
  name: cache
  namespace: ${namespace}
spec:
  defaults:
    schedule: "0 3 * * *"
  redis:
    shards: [shard01, shard02]
    sentinel: { addresses: ["sentinel.redis.svc:26379"] }
    s3: { bucket: cache-backups, region: us-east-1, credentialsSecret: { name: aws-credentials } }
`;

/** The session block: its commands, each with the output shown under it. */
const session = () => sessionSteps(fs.readFileSync(path.join(REPO, DOC), 'utf8'), DOC, SESSION_SECTION);

describe("the README's Pulumi program, deployed by the Pulumi engine", () => {
  let cluster: TestCluster;
  let namespace: string;
  let stack: TestStack;
  let policies: string;

  beforeAll(async () => {
    cluster = await testCluster();
    namespace = `pulumi-readme-${Math.random().toString(16).slice(2, 8)}`;
    stack = await newStack({
      project: 'readme',
      stackName: 'dev',
      kubeconfig: (dir) => kubeconfigWithContext(cluster, dir, 'prod'),
      program: readmeProgram(namespace),
    });
    policies = path.join(stack.dir, 'policies');
    fs.mkdirSync(policies);
    fs.writeFileSync(path.join(policies, 'cache.yaml'), cachePolicy(namespace));
    fs.writeFileSync(
      path.join(policies, 'redis-backup.yaml'),
      fs
        .readFileSync(path.join(REPO, 'examples/policies/redis-sharded.yaml'), 'utf8')
        .replace(/^ {2}namespace: redis$/m, `  namespace: ${namespace}`),
    );
  });
  afterAll(async () => {
    if (stack) {
      await stack.destroy().catch(() => undefined);
      stack.cleanup();
    }
  });

  /** The live objects are the README's Secret and exactly what synth writes for both policies, field by field. */
  async function expectLiveIsSynth(): Promise<void> {
    const expected = [...synth(path.join(policies, 'cache.yaml')), ...synth(path.join(policies, 'redis-backup.yaml'))];
    const live = await namespaceObjects(cluster, namespace);
    expect(live.map(objectId).sort()).toEqual([...expected.map(objectId), 'v1/Secret/aws-credentials'].sort());
    for (const manifest of expected) {
      const object = live.find((o) => objectId(o) === objectId(manifest))!;
      const replaced = await dryRunReplaced(cluster, manifest);
      expect([objectId(manifest), comparable(object).object]).toEqual([
        objectId(manifest),
        comparable(replaced).object,
      ]);
    }
  }

  test("every command of the docs' session prints what the docs show, and does what it says", async () => {
    const steps = session();
    expect(steps.map((s) => s.command)).toEqual([
      'pulumi preview',
      'pulumi up --yes --skip-preview',
      'pulumi stack output cronJobNames',
      'kubectl get cronjobs -n backups',
      'pulumi up --yes --skip-preview',
      'pulumi destroy --yes --skip-preview',
    ]);
    const printed: string[] = [];
    const check = (i: number, output: string): void => {
      printed.push(`$ ${steps[i].command}\n${output}`);
      if (!matchesOutput(steps[i].expected, output))
        throw new Error(`${DOC}: \`${steps[i].command}\` printed\n${output}\nnot\n${steps[i].expected}`);
    };
    try {
      // pulumi preview: nothing is created
      const preview = await stack.preview();
      check(0, preview.stdout);
      expect(await namespaceExists()).toBe(false);

      // pulumi up
      const up: RunResult = await stack.up();
      check(1, up.stdout);
      await expectLiveIsSynth();
      const outputs = await stack.stack.outputs();
      const cronJobs = (await namespaceObjects(cluster, namespace))
        .filter((o) => o.kind === 'CronJob')
        .map((o) => o.metadata.name as string);
      expect(outputs.cronJobNames.value).toEqual(['cache-shard01', 'cache-shard02']);
      expect(outputs.fileCronJobs.value).toEqual(['redis-backup-shard01', 'redis-backup-shard02']);
      expect(outputs.shard01.value).toBe('cache-shard01');
      expect([...(outputs.cronJobNames.value as string[]), ...(outputs.fileCronJobs.value as string[])].sort()).toEqual(
        cronJobs.sort(),
      );

      // pulumi stack output cronJobNames: the CLI itself, in the stack's project
      const t = Date.now();
      const output = await runCommand(stack.cli, ['stack', 'output', 'cronJobNames', '--stack', 'dev'], {
        cwd: stack.stack.workspace.workDir,
        env: { ...process.env, ...stack.env },
      });
      recordTiming('readme/dev pulumi stack output', Date.now() - t);
      expect([output.code, output.stderr]).toEqual([0, '']);
      check(2, output.stdout.toString('utf8'));

      // kubectl get cronjobs -n backups (the namespace of this run)
      check(3, await cluster.kubectl(['get', 'cronjobs', '-n', namespace]));

      // pulumi up, nothing changed
      const again = await stack.up();
      check(4, again.stdout);
      expect(changed(again.changes)).toEqual({});

      // pulumi destroy: every object and the namespace are gone
      const destroy = await stack.destroy();
      check(5, destroy.stdout);
      expect(await namespaceExists()).toBe(false);
    } finally {
      if (process.env.BACKUP_CRONJOBS_PULUMI_SESSION)
        fs.writeFileSync(process.env.BACKUP_CRONJOBS_PULUMI_SESSION, printed.join('\n'));
    }
  });

  async function namespaceExists(): Promise<boolean> {
    const r = await cluster.kubectlRaw(['get', 'namespace', namespace, '-o', 'name']);
    if (r.code === 0) return true;
    expect(r.stderr).toContain('NotFound');
    return false;
  }
});
