// Follows "Adding an engine" of ARCHITECTURE.md in a copy of lib/ and constructs/: the engine folder from
// that section's own code blocks, one line in the registry, one line per front end, and nothing else; then
// renders with it, through the core, a cdk8s construct and a Pulumi component.
import { execFileSync } from 'child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join } from 'path';
import type { Manifest } from '../../../lib';
import { asConfigMap, cronJobSpecOf, jobSpecOf, podSpecOf } from '../../support/kube';

const ROOT = join(__dirname, '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'bcj-engine-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The code blocks of ARCHITECTURE.md under "## Adding an engine" that follow a line naming their file. */
function engineFiles(): Map<string, string> {
  const doc = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const start = doc.indexOf('\n## Adding an engine\n');
  if (start < 0) throw new Error('ARCHITECTURE.md has no section "## Adding an engine"');
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const files = new Map<string, string>();
  for (const m of section.matchAll(/^`([^`\n]+)`:\n```[a-z]*\n([\s\S]*?)\n```$/gm)) files.set(m[1], `${m[2]}\n`);
  return files;
}

function run(script: string): string {
  return execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
    cwd: work,
    encoding: 'utf8',
  });
}

/** The JSON that `script` prints, of the shape the test's script gives it. */
const runJson = <T>(script: string): T => JSON.parse(run(script)) as T;

/** What the scripts below print: the objects rendered, and what each test reads beside them. */
interface CoreOutput {
  readonly objects: Manifest[];
  readonly schema: string[];
  readonly bad: string[];
}
interface Cdk8sOutput {
  readonly objects: Manifest[];
  readonly key: string;
  /** Unset when the construct does not throw. */
  readonly bad?: string[];
}
interface PulumiOutput {
  readonly objects: Manifest[];
  readonly types: string[];
}

test("an engine made of ARCHITECTURE.md's folder and one registry line is validated, resolved and rendered", () => {
  cpSync(join(ROOT, 'lib'), join(work, 'lib'), { recursive: true });
  cpSync(join(ROOT, 'constructs'), join(work, 'constructs'), { recursive: true });
  cpSync(join(ROOT, 'tsconfig.json'), join(work, 'tsconfig.json'));
  cpSync(join(ROOT, 'package.json'), join(work, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'));
  const files = engineFiles();
  expect([...files.keys()].sort()).toEqual([
    'lib/engines/example/index.ts',
    'lib/engines/example/scripts/example-backup.sh',
  ]);
  for (const [file, text] of files) {
    mkdirSync(dirname(join(work, file)), { recursive: true });
    writeFileSync(join(work, file), text);
  }
  // step 2: the import and the one line in the table
  const registry = join(work, 'lib', 'registry.ts');
  const source = readFileSync(registry, 'utf8');
  const patched = source
    .replace(
      "import { vitessEngine } from './engines/vitess';",
      "import { vitessEngine } from './engines/vitess';\nimport { exampleEngine } from './engines/example';",
    )
    .replace('  etcd: etcdEngine,\n', '  etcd: etcdEngine,\n  example: exampleEngine,\n');
  expect(patched.split('\n').length).toBe(source.split('\n').length + 2);
  writeFileSync(registry, patched);
  // step 3: the generated props, and one class per front end (with its line in the engine map)
  mkdirSync(join(work, 'tools'));
  cpSync(join(ROOT, 'scripts', 'generate-types.ts'), join(work, 'tools', 'generate-types.ts'));
  cpSync(join(ROOT, '.prettierrc.json'), join(work, '.prettierrc.json'));
  mkdirSync(join(work, 'jsii', 'src'), { recursive: true });
  execFileSync(process.execPath, [require.resolve('ts-node/dist/bin'), '--transpile-only', 'tools/generate-types.ts'], {
    cwd: work,
    stdio: 'pipe',
  });
  expect(readFileSync(join(work, 'constructs', 'cdk8s', 'props.generated.ts'), 'utf8')).toMatch(
    /export interface ExampleBackupScheduleProps \{\n[\s\S]*readonly databases: readonly string\[\];/,
  );
  expect(readFileSync(join(work, 'constructs', 'pulumi', 'args.generated.ts'), 'utf8')).toMatch(
    /export interface ExampleBackupScheduleArgs \{/,
  );
  const classes = {
    cdk8s: [
      '  readonly etcd: EtcdBackupScheduleProps;\n',
      '  readonly example: ExampleBackupScheduleProps;\n',
      "import type { ExampleBackupScheduleProps } from './props.generated';\n" +
        'export class ExampleBackupSchedule extends PolicyConstruct {\n' +
        '  constructor(scope: Construct, id: string, props: ExampleBackupScheduleProps) {\n' +
        "    super(scope, id, scheduleSource('example', props, id));\n  }\n}\n",
    ],
    pulumi: [
      '  readonly etcd: EtcdBackupScheduleArgs;\n',
      '  readonly example: ExampleBackupScheduleArgs;\n',
      "import type { ExampleBackupScheduleArgs } from './args.generated';\n" +
        'export class ExampleBackupSchedule extends PolicyComponent {\n' +
        '  constructor(name: string, args: ExampleBackupScheduleArgs, opts?: pulumi.ComponentResourceOptions) {\n' +
        "    super(engineProps('example').typeName, name, scheduleSource('example', args, name), opts);\n  }\n}\n",
    ],
  };
  for (const [frontEnd, [after, line, code]] of Object.entries(classes)) {
    const list = join(work, 'constructs', frontEnd, 'engine-schedules.ts');
    const text = readFileSync(list, 'utf8');
    expect(text).toContain(after);
    writeFileSync(list, `${text.replace(after, after + line)}${code}`);
  }
  // the copy type-checks: the generated props are the class's
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'], {
    cwd: work,
    stdio: 'pipe',
  });

  const out = runJson<CoreOutput>(
    `
    const lib = require('./lib');
    const doc = { apiVersion: lib.API_VERSION, kind: lib.KIND, metadata: { name: 'shop', namespace: 'db' },
      spec: { defaults: { schedule: '0 3 * * *' }, metrics: { pushgatewayUrl: 'http://pushgateway:9091' }, example: { databases: ['orders', 'users'] } } };
    const errors = (d) => { try { lib.renderPolicy(d); return []; } catch (e) { return e.issues.map((i) => i.path + ': ' + i.message); } };
    console.log(JSON.stringify({
      objects: lib.renderPolicy(doc),
      schema: Object.keys(lib.policySchema.properties.spec.properties),
      bad: errors({ ...doc, spec: { example: { databases: ['all'], extra: 1 } } }),
    }));
  `,
  );
  expect(out.schema).toContain('example');
  expect(out.bad).toEqual([
    expect.stringMatching(/^spec\.example\.extra: unknown field/),
    'spec.example.databases: received "all"; name each database',
  ]);
  expect(out.objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
    expect.stringMatching(/^ConfigMap\/shop-scripts-[0-9a-f]{10}$/),
    'CronJob/shop-orders',
    'CronJob/shop-users',
  ]);
  const [, cronJob] = out.objects;
  expect(cronJob.metadata.labels).toMatchObject({
    'backup-cronjobs.io/engine': 'example',
    'backup-cronjobs.io/database': 'orders',
    'app.kubernetes.io/component': 'backup',
  });
  expect(cronJobSpecOf(cronJob).schedule).toBe('0 3 * * *');
  expect(jobSpecOf(cronJob).activeDeadlineSeconds).toBe(1800);
  const container = podSpecOf(cronJob).containers[0];
  const main = container.command?.[2];
  if (main === undefined) throw new Error(`no script in the command of ${container.name}`);
  expect(main.split('\n').slice(0, 2)).toEqual([
    "# backup-cronjobs: main of example-backup.sh; every other line of it and of its modules from /scripts (the policy's script ConfigMap)",
    '. /scripts/common.sh; . /scripts/metrics.sh; . /scripts/example-backup.sh',
  ]);
  expect(main).toMatch(/\nmain\(\) \{\n[\s\S]*\}\nmain "\$@"\n$/);
  expect(container.env).toContainEqual({ name: 'BACKUP_METRICS_PREFIX', value: 'example_backup' });
  // the script runs with the policy's ConfigMap's files where the pod mounts them
  const scripts = join(work, 'scripts');
  mkdirSync(scripts);
  for (const [file, text] of Object.entries(asConfigMap(out.objects[0]).data ?? {}))
    writeFileSync(join(scripts, file), text);
  const command = main.replace(/\/scripts\//g, `${scripts}/`);
  const log = execFileSync('/bin/sh', ['-c', command, 'example-backup'], {
    env: { PATH: process.env.PATH, EXAMPLE_DATABASE: 'orders' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  expect(log).toBe('');

  // the front ends: the same objects as the core's, from the flat props
  const props =
    "{ name: 'shop', namespace: 'db', schedule: '0 3 * * *', databases: ['orders', 'users'], metrics: { pushgatewayUrl: 'http://pushgateway:9091' } }";
  const cdk8s = runJson<Cdk8sOutput>(
    `
    const { App, Chart, Duration } = require('cdk8s');
    const { ExampleBackupSchedule } = require('./constructs/cdk8s');
    const chart = new Chart(new App(), 'chart');
    const schedule = new ExampleBackupSchedule(chart, 'example', { ...${props}, timeout: Duration.minutes(30) });
    let bad;
    try { new ExampleBackupSchedule(new Chart(new App(), 'other'), 'example', { ...${props}, databases: ['all'] }); } catch (e) { bad = e.issues.map((i) => i.path + ': ' + i.message); }
    console.log(JSON.stringify({ objects: chart.toJson(), key: schedule.cronJob('orders').name, bad }));
  `,
  );
  expect(cdk8s.objects).toEqual(out.objects);
  expect(cdk8s.key).toBe('shop-orders');
  expect(cdk8s.bad).toEqual(['databases: received "all"; name each database (policy field spec.example.databases)']);
  const pulumi = runJson<PulumiOutput>(
    `
    const pulumi = require('@pulumi/pulumi');
    const types = [];
    pulumi.runtime.setMocks({ newResource: (a) => { types.push(a.type); return { id: a.name + '_id', state: a.inputs }; }, call: (a) => a.inputs }, 'project', 'stack', true);
    const { ExampleBackupSchedule } = require('./constructs/pulumi');
    const component = new ExampleBackupSchedule('example', ${props});
    setTimeout(() => console.log(JSON.stringify({ objects: component.manifests, types })), 200);
  `,
  );
  expect(pulumi.objects).toEqual(out.objects);
  expect(pulumi.types).toEqual([
    'backup-cronjobs:index:ExampleBackupSchedule',
    'kubernetes:core/v1:ConfigMap',
    'kubernetes:batch/v1:CronJob',
    'kubernetes:batch/v1:CronJob',
  ]);
});
