// The package as a new user gets it: `npm pack` once, installed from the
// tarball into fresh consumer projects (the cdk8s and Pulumi starters'
// tsconfigs, an ES module project, a bundler project), each compiled with its
// own tsc and run. The cdk8s projects have no Pulumi packages installed and the
// Pulumi projects no cdk8s ones, so neither entry point may need the other's.
//
//   install root   project    compiler options                               runs
//   cdk8s/         app/       `cdk8s init typescript-app` (CommonJS, node10) cdk8s synth
//                  idioms-P/  the same; chart namespace, Duration, Cron,     cdk8s synth
//                             Secrets and PVC of cdk8s-plus P (-28, -33), handles
//                  readme-N-P/ the same; main.ts = README "## cdk8s" block N cdk8s synth
//                             importing cdk8s-plus P (-28, and -33 as `cdk8s init` installs)
//                  esm/       `tsc --init` (nodenext), "type": "module";     node main.js, node main.cjs
//                             main.ts (ESM) and main.cts (CommonJS)
//                  bundler/   `tsc --init` + module preserve (bundler)       node main.js
//   pulumi/        app/       Pulumi `typescript` template 2024 (node10)     under setMocks
//                  idioms/    the template since 2026 (nodenext); Outputs    under setMocks
//                             of other resources as namespace, Secret name
//                  readme-N/  the template since 2026 (nodenext, CommonJS);  under setMocks
//                             index.ts = README "## Pulumi" block N
//                  esm/, bundler/ as above, with backup-cronjobs/pulumi
import { createHash } from 'crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'fs';
import { createRequire } from 'module';
import { tmpdir } from 'os';
import { join } from 'path';
import { parseAllDocuments } from 'yaml';
import * as sourceCore from '../../lib';
import { loadPolicies, renderPolicy } from '../../lib';
import type { BackupPolicy, Manifest } from '../../lib';
import { etcdSchedulePolicy } from '../../lib/engines/etcd/props';
import { redisSchedulePolicy } from '../../lib/engines/redis/props';
import * as sourceCdk8s from '../../constructs/cdk8s';
import * as sourcePulumi from '../../constructs/pulumi';
import {
  CDK8S_APP,
  CDK8S_IDIOMS_PLAIN,
  CDK8S_INIT_PLUS,
  cdk8sIdiomsApp,
  PULUMI_IDIOMS_PLAIN,
  PULUMI_IDIOMS_PROGRAM,
  PULUMI_MOCK_RUNNER,
  PULUMI_PROGRAM,
  PULUMI_TSCONFIG_NODE10,
  PULUMI_TSCONFIG_NODENEXT,
  cdk8sTemplateFiles,
  childEnv,
  cjsProgram,
  copyPolicies,
  esmProgram,
  installConsumerRoot,
  packPackage,
  repoRoot,
  run,
  runNode,
  writeFiles,
} from './consumer-projects';
import type { EsmReport, Packed, Tool } from './consumer-projects';
import { referencedPolicyFiles, sectionCodeBlocks } from './readme-blocks';
import { asCronJob, podSpecOf } from '../support/kube';

const work = mkdtempSync(join(tmpdir(), 'bcj-consumers-'));
const roots: Record<Tool, string> = { cdk8s: join(work, 'cdk8s'), pulumi: join(work, 'pulumi') };
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const readmeBlocks: Record<Tool, string[]> = {
  cdk8s: sectionCodeBlocks(readme, '## cdk8s', 'ts'),
  pulumi: sectionCodeBlocks(readme, '## Pulumi', 'ts'),
};
/** The oldest cdk8s-plus the constructs take, and the one `cdk8s init typescript-app` installs. */
const CDK8S_PLUS = ['cdk8s-plus-28', CDK8S_INIT_PLUS] as const;
const examplePolicyPaths = readdirSync(join(repoRoot, 'examples', 'policies'))
  .filter((f) => /\.ya?ml$/.test(f))
  .sort()
  .map((f) => `policies/${f}`);
let packed: Packed;

beforeAll(async () => {
  packed = await packPackage(work);
  await Promise.all([
    installConsumerRoot(roots.cdk8s, packed.tarball, [
      'cdk8s',
      ...CDK8S_PLUS,
      'constructs',
      'typescript',
      'ts-node',
      '@types/node',
    ]),
    installConsumerRoot(roots.pulumi, packed.tarball, [
      '@pulumi/pulumi',
      '@pulumi/kubernetes',
      'typescript',
      '@types/node',
    ]),
  ]);
  // the compiler options of a new TypeScript project, for the ES module and bundler projects
  for (const root of Object.values(roots)) {
    mkdirSync(join(root, 'tsc-init'));
    await runNode(tscOf(root), ['--init'], join(root, 'tsc-init'));
  }
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The consumer's own TypeScript compiler. */
function tscOf(root: string): string {
  return join(root, 'node_modules', 'typescript', 'bin', 'tsc');
}

function tsc(root: string, project: string, ...args: string[]): Promise<string> {
  return runNode(tscOf(root), ['-p', project, '--pretty', 'false', ...args], project); // plain error text in a failure
}

/** The real `cdk8s synth` (this repository's cdk8s-cli) in a project; its app command comes from the project's cdk8s.yaml. */
function cdk8sSynth(project: string): Promise<string> {
  // tsc has type-checked the project already; ts-node only has to run it
  return run(
    join(repoRoot, 'node_modules', '.bin', 'cdk8s'),
    ['synth'],
    project,
    childEnv({ CDK8S_CHECK_UPGRADE: 'false', TS_NODE_TRANSPILE_ONLY: 'true' }),
  );
}

/** The policies of files under examples/, read and rendered by the source tree (not the package under test). */
function sourcePolicies(paths: readonly string[]): BackupPolicy[] {
  return paths.flatMap((p) => loadPolicies(readFileSync(join(repoRoot, 'examples', p), 'utf8'), p));
}

/** JSON data as the YAML/JSON a manifest becomes (no undefined fields). */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function cronJobNames(manifests: readonly Manifest[]): string[] {
  return manifests.filter((m) => m.kind === 'CronJob').map((m) => m.metadata.name);
}

/** Every document of every manifest file cdk8s wrote into `dir`. */
function synthesized(dir: string): Manifest[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.k8s.yaml'))
    .sort()
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as Manifest));
}

function exportedNames(module: object): string[] {
  return Object.keys(module)
    .filter((k) => k !== 'default' && k !== '__esModule')
    .sort();
}

/** What the compiled Pulumi program registered under the mocks (PULUMI_MOCK_RUNNER). */
interface MockRun {
  readonly outputs: Record<string, unknown>;
  readonly registered: readonly { readonly type: string; readonly name: string; readonly inputs: Manifest }[];
}

async function runPulumiProgram(project: string): Promise<MockRun> {
  return JSON.parse(await runNode('run-with-mocks.js', [], project)) as MockRun;
}

const registeredCronJobs = (result: MockRun): MockRun['registered'] =>
  result.registered.filter((r) => r.type === 'kubernetes:batch/v1:CronJob');

/** Every file `npm pack` must ship, derived from the source tree and the build rules (tsconfig.json, scripts/copy-assets.js). */
function expectedTarballFiles(): string[] {
  const sources = (dir: string): string[] =>
    (readdirSync(join(repoRoot, dir), { recursive: true }) as string[]).map((f) => `${dir}/${f}`);
  const compiled = [...sources('lib'), ...sources('constructs')]
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .flatMap((f) => [`dist/${f.slice(0, -3)}.js`, `dist/${f.slice(0, -3)}.d.ts`]);
  const scripts = sources('lib')
    .filter((f) => f.endsWith('.sh'))
    .map((f) => `dist/${f}`);
  const npmAlwaysIncludes = readdirSync(repoRoot).filter((f) =>
    /^(package\.json|readme|license|licence|copying)(\..*)?$/i.test(f),
  );
  return [
    ...npmAlwaysIncludes,
    ...sources('bin'),
    'cdk8s/package.json',
    'pulumi/package.json',
    ...compiled,
    ...scripts,
    'dist/lib/policy/backup-policy.schema.json',
    'dist/lib/policy/policy-validator.js',
  ].sort();
}

describe('npm pack', () => {
  test('ships exactly the compiled code, its types, the container scripts, the JSON Schema, the bin and the subpath folders', () => {
    expect(packed.files).toEqual(expectedTarballFiles());
    // the shared script modules and every engine's scripts, which the core reads at render time
    const engines = readdirSync(join(repoRoot, 'lib', 'engines'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(engines.length).toBeGreaterThanOrEqual(3);
    for (const dir of ['lib/scripts', ...engines.map((e) => `lib/engines/${e}/scripts`)]) {
      expect(packed.files.filter((f) => f.startsWith(`dist/${dir}/`) && f.endsWith('.sh'))).not.toEqual([]);
    }
    expect(packed.files).toContain('dist/lib/policy/backup-policy.schema.json');
  });

  test('the precompiled policy validator is made from the shipped schema, so the installed package uses it', () => {
    const policyDir = join(roots.cdk8s, 'node_modules', 'backup-cronjobs', 'dist', 'lib', 'policy');
    const shipped = JSON.parse(readFileSync(join(policyDir, 'backup-policy.schema.json'), 'utf8')) as object;
    // loaded as the installed package loads it (its ajv runtime modules resolved from the consumer's node_modules)
    const validator = createRequire(join(policyDir, 'index.js'))('./policy-validator.js') as {
      schemaFingerprint: string;
    };
    const fingerprint = createHash('sha256').update(JSON.stringify(shipped)).digest('hex');
    expect(validator.schemaFingerprint).toBe(fingerprint);
  });

  test('every file package.json and the subpath folders point at is in the tarball, and both routes to a subpath reach the same files', () => {
    const installed = join(roots.cdk8s, 'node_modules', 'backup-cronjobs');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      main: string;
      types: string;
      bin: Record<string, string>;
      exports: Record<string, string | Record<string, string>>;
    };
    const targets = [
      manifest.main,
      manifest.types,
      ...Object.values(manifest.bin),
      ...Object.values(manifest.exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e))),
    ];
    for (const target of targets) expect(packed.files).toContain(target.replace(/^\.\//, ''));
    for (const tool of ['cdk8s', 'pulumi']) {
      // node10 resolution (TypeScript's, and run-time resolvers without `exports`) reads the folder's package.json
      const folder = JSON.parse(readFileSync(join(installed, tool, 'package.json'), 'utf8')) as {
        main: string;
        types: string;
      };
      const conditions = manifest.exports[`./${tool}`] as Record<string, string>;
      expect({ main: join(tool, folder.main), types: join(tool, folder.types) }).toEqual({
        main: join(conditions.default),
        types: join(conditions.types),
      });
    }
  });
});

describe('cdk8s consumer', () => {
  const root = roots.cdk8s;

  test('a `cdk8s init typescript-app` app (CommonJS, node10) compiles; `cdk8s synth` writes what the source renders and the installed CLI prints', async () => {
    const app = join(root, 'app');
    writeFiles(app, { ...cdk8sTemplateFiles(), 'main.ts': CDK8S_APP });
    copyPolicies(app, examplePolicyPaths, 'the cdk8s app');
    await tsc(root, app, '--noEmit');
    await cdk8sSynth(app);

    const policies = sourcePolicies(examplePolicyPaths);
    const files = policies.map((p) => `${p.metadata.name}.k8s.yaml`).sort();
    expect(readdirSync(join(app, 'dist')).sort()).toEqual(files);
    for (const policy of policies) {
      const written = parseAllDocuments(
        readFileSync(join(app, 'dist', `${policy.metadata.name}.k8s.yaml`), 'utf8'),
      ).map((d) => d.toJS() as unknown);
      expect(written).toEqual(plain(renderPolicy(policy)));
    }
    await run(
      join(root, 'node_modules', '.bin', 'backup-cronjobs'),
      ['synth', ...examplePolicyPaths, '--out', 'cli-out'],
      app,
    );
    expect(readdirSync(join(app, 'cli-out')).sort()).toEqual(files);
    for (const f of files)
      expect(readFileSync(join(app, 'cli-out', f), 'utf8')).toBe(readFileSync(join(app, 'dist', f), 'utf8'));
  }, 180_000);

  test.each(CDK8S_PLUS)(
    'an app with the cdk8s idioms (a chart namespace, Duration, Cron, %s Secrets (one whole for credentialsSecret) and PVC, escape hatches on cronJob() handles) compiles; `cdk8s synth` writes the objects of the plain props',
    async (plus) => {
      const app = join(root, `idioms-${plus}`);
      writeFiles(app, { ...cdk8sTemplateFiles(), 'main.ts': cdk8sIdiomsApp(plus) });
      await tsc(root, app, '--noEmit');
      await cdk8sSynth(app);
      const written = synthesized(join(app, 'dist'));
      const expected = plain([
        ...renderPolicy(redisSchedulePolicy(CDK8S_IDIOMS_PLAIN.redis)),
        ...renderPolicy(etcdSchedulePolicy(CDK8S_IDIOMS_PLAIN.etcd)),
      ]);
      // the escape hatches of the app
      podSpecOf(asCronJob(expected.find((m) => m.metadata.name === 'cache-shard01'))).priorityClassName = 'backup-low';
      const shard02 = asCronJob(expected.find((m) => m.metadata.name === 'cache-shard02'));
      shard02.metadata = {
        ...shard02.metadata,
        annotations: { ...shard02.metadata?.annotations, 'example.com/owner': 'cache-team' },
      };
      const cdk8sPlusObjects = ['PersistentVolumeClaim', 'Secret'];
      expect(written.filter((m) => !cdk8sPlusObjects.includes(m.kind))).toEqual(expected);
      // the claim and the Secret are cdk8s-plus's own objects, in the chart's namespace, and the CronJobs name them
      expect(
        written
          .filter((m) => cdk8sPlusObjects.includes(m.kind))
          .map((m) => [m.kind, m.metadata.name, m.metadata.namespace])
          .sort(),
      ).toEqual([
        ['PersistentVolumeClaim', 'etcd-snapshots', 'backups'],
        ['Secret', 'aws-credentials', 'backups'],
      ]);
      expect(JSON.stringify(written.find((m) => m.metadata.name === 'etcd-cp-1'))).toContain(
        '"persistentVolumeClaim":{"claimName":"etcd-snapshots"}',
      );
    },
    180_000,
  );

  test('the README has a TypeScript block in "## cdk8s"', () => {
    expect(readmeBlocks.cdk8s.length).toBeGreaterThanOrEqual(1);
  });

  test(`the README's "## cdk8s" blocks import the cdk8s-plus \`cdk8s init typescript-app\` installs (${CDK8S_INIT_PLUS}), if any`, () => {
    for (const code of readmeBlocks.cdk8s)
      for (const plus of code.match(/(?<=')cdk8s-plus-[0-9]+(?=')/g) ?? []) expect(plus).toBe(CDK8S_INIT_PLUS);
  });

  readmeBlocks.cdk8s.forEach((block, i) => {
    test.each(CDK8S_PLUS)(
      `README "## cdk8s" block ${i + 1}, with %s, as main.ts of a \`cdk8s init typescript-app\` app, compiles and synthesizes the CronJobs of the policy files it reads`,
      async (plus) => {
        const code = block.replace(/'cdk8s-plus-[0-9]+'/g, `'${plus}'`);
        const app = join(root, `readme-${i + 1}-${plus}`);
        writeFiles(app, { ...cdk8sTemplateFiles(), 'main.ts': code });
        const policyFiles = referencedPolicyFiles(code);
        copyPolicies(app, policyFiles, `README "## cdk8s" block ${i + 1}`);
        await tsc(root, app, '--noEmit');
        await cdk8sSynth(app);
        const written = cronJobNames(synthesized(join(app, 'dist')));
        expect(written.length).toBeGreaterThanOrEqual(1);
        expect(written).toEqual(
          expect.arrayContaining(sourcePolicies(policyFiles).flatMap((p) => cronJobNames(renderPolicy(p)))),
        );
      },
      180_000,
    );
  });

  esmTests('cdk8s', sourceCdk8s);
});

describe('Pulumi consumer', () => {
  const root = roots.pulumi;

  test("a program with the Pulumi `typescript` template's tsconfig (CommonJS, node10) compiles and, under mocks, registers the CronJobs the source renders as typed children", async () => {
    const app = join(root, 'app');
    writeFiles(app, {
      'tsconfig.json': PULUMI_TSCONFIG_NODE10,
      'index.ts': PULUMI_PROGRAM,
      'run-with-mocks.js': PULUMI_MOCK_RUNNER,
    });
    copyPolicies(app, examplePolicyPaths, 'the Pulumi program');
    await tsc(root, app);
    const result = await runPulumiProgram(app);

    const policies = sourcePolicies(examplePolicyPaths);
    expect(result.outputs).toEqual({
      cronJobNames: Object.fromEntries(policies.map((p) => [p.metadata.name, cronJobNames(renderPolicy(p))])),
    });
    expect(
      result.registered
        .filter((r) => r.type === 'backup-cronjobs:index:BackupPolicy')
        .map((r) => r.name)
        .sort(),
    ).toEqual(policies.map((p) => p.metadata.name).sort());
    const children = registeredCronJobs(result);
    for (const cronJob of policies.flatMap((p) => renderPolicy(p)).filter((m) => m.kind === 'CronJob')) {
      const child = children.find(
        (c) =>
          c.inputs.metadata.name === cronJob.metadata.name &&
          c.inputs.metadata.namespace === cronJob.metadata.namespace,
      );
      expect(child?.inputs).toEqual(plain(cronJob));
    }
  }, 180_000);

  test('a program passing Outputs of other resources as the namespace and a Secret name compiles and, under mocks, registers the children of their values', async () => {
    const app = join(root, 'idioms');
    writeFiles(app, {
      'tsconfig.json': PULUMI_TSCONFIG_NODENEXT,
      'index.ts': PULUMI_IDIOMS_PROGRAM,
      'run-with-mocks.js': PULUMI_MOCK_RUNNER,
    });
    await tsc(root, app);
    const result = await runPulumiProgram(app);
    expect(result.outputs).toEqual({
      cronJobNames: ['cache-shard01', 'cache-shard02'],
      backupNamespace: 'backups',
      shard01: 'cache-shard01',
    });
    expect(registeredCronJobs(result).map((c) => c.inputs)).toEqual(
      plain(renderPolicy(redisSchedulePolicy(PULUMI_IDIOMS_PLAIN)).filter((o) => o.kind === 'CronJob')),
    );
  }, 180_000);

  test('the README has a TypeScript block in "## Pulumi"', () => {
    expect(readmeBlocks.pulumi.length).toBeGreaterThanOrEqual(1);
  });

  readmeBlocks.pulumi.forEach((code, i) => {
    test(`README "## Pulumi" block ${i + 1}, as index.ts of the current Pulumi \`typescript\` template (nodenext), compiles and, under mocks, registers the CronJobs of the policy files it reads`, async () => {
      const app = join(root, `readme-${i + 1}`);
      writeFiles(app, {
        'tsconfig.json': PULUMI_TSCONFIG_NODENEXT,
        'index.ts': code,
        'run-with-mocks.js': PULUMI_MOCK_RUNNER,
      });
      const policyFiles = referencedPolicyFiles(code);
      copyPolicies(app, policyFiles, `README "## Pulumi" block ${i + 1}`);
      await tsc(root, app);
      const registered = registeredCronJobs(await runPulumiProgram(app)).map((c) => c.inputs.metadata.name);
      expect(registered.length).toBeGreaterThanOrEqual(1);
      expect(registered).toEqual(
        expect.arrayContaining(sourcePolicies(policyFiles).flatMap((p) => cronJobNames(renderPolicy(p)))),
      );
    }, 180_000);
  });

  esmTests('pulumi', sourcePulumi);
});

/** The ES module (nodenext), CommonJS-under-nodenext and bundler projects of one install root. */
function esmTests(tool: Tool, sourceTool: object): void {
  const root = roots[tool];
  const expected = { core: exportedNames(sourceCore), tool: exportedNames(sourceTool) };

  test(`an ES module project (\`tsc --init\`: nodenext, "type": "module") imports the root and backup-cronjobs/${tool} by name; a .cts file in it requires them`, async () => {
    const project = join(root, 'esm');
    writeFiles(project, {
      'package.json': '{ "type": "module" }\n',
      // `tsc --init` as written, plus the Node.js settings its comments recommend
      'tsconfig.json': JSON.stringify({
        extends: '../tsc-init/tsconfig.json',
        compilerOptions: { types: ['node'], lib: ['esnext'] },
        files: ['main.ts', 'main.cts'],
      }),
      'main.ts': esmProgram(tool),
      'main.cts': cjsProgram(tool),
    });
    await tsc(root, project);
    const esm = JSON.parse(await runNode('main.js', [], project)) as EsmReport;
    expect(esm).toEqual({
      esm: expected,
      cjs: expected,
      sameBackupPolicy: true,
      schemaJson: true,
      packageJsonName: 'backup-cronjobs',
    });
    expect(JSON.parse(await runNode('main.cjs', [], project))).toEqual(expected);
  }, 180_000);

  test(`a bundler project (\`tsc --init\` with module preserve: bundler resolution) imports the root and backup-cronjobs/${tool} by name`, async () => {
    const project = join(root, 'bundler');
    writeFiles(project, {
      'package.json': '{ "type": "module" }\n',
      'tsconfig.json': JSON.stringify({
        extends: '../tsc-init/tsconfig.json',
        compilerOptions: { module: 'preserve', moduleResolution: 'bundler', types: ['node'], lib: ['esnext'] },
        files: ['main.ts'],
      }),
      'main.ts': esmProgram(tool),
    });
    await tsc(root, project);
    // no bundler is installed; the package's `exports` has only `types` and `default`, so Node.js resolves what a bundler would
    const report = JSON.parse(await runNode('main.js', [], project)) as EsmReport;
    expect(report).toEqual({
      esm: expected,
      cjs: expected,
      sameBackupPolicy: true,
      schemaJson: true,
      packageJsonName: 'backup-cronjobs',
    });
  }, 180_000);
}
