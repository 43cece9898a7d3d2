/**
 * Consumer projects for the packed package (test/package/consumers.test.ts):
 * `npm pack` once, one npm install per tool (cdk8s, Pulumi) of the tarball
 * and that tool's packages only, and projects laid out the way each tool's
 * starter writes them, sharing their tool's node_modules from a parent folder.
 */
import { execFile } from 'child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { basename, dirname, join } from 'path';

export const repoRoot = join(__dirname, '..', '..');

const repoPackage = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  readonly devDependencies: Record<string, string>;
};

/** The environment of child processes: without the `npm_*` variables of an enclosing `npm test`, which npm would read as settings. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
  return { ...env, ...extra };
}

/** Runs a command; resolves to its stdout, rejects with the command, exit status and both outputs (tsc reports on stdout). */
export function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = childEnv(),
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const status = error.code ?? error.signal;
        reject(
          new Error(
            `${[command, ...args].join(' ')} (in ${cwd}) failed with ${status}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`,
          ),
        );
      } else resolve(stdout);
    });
  });
}

/** Runs a JavaScript file with this Node.js (e.g. a package's bin). */
export function runNode(
  script: string,
  args: readonly string[],
  cwd: string,
  env?: NodeJS.ProcessEnv,
): Promise<string> {
  return run(process.execPath, [script, ...args], cwd, env);
}

export interface Packed {
  /** Absolute path of the tarball. */
  readonly tarball: string;
  /** The paths in the tarball, relative to its `package/` folder, sorted. */
  readonly files: readonly string[];
}

/** `npm pack` of this repository (its `prepack` script builds `dist/` from scratch first). */
export async function packPackage(destination: string): Promise<Packed> {
  const out = await run('npm', ['pack', '--json', '--pack-destination', destination], repoRoot);
  const [report] = JSON.parse(out) as [{ filename: string; files: { path: string }[] }];
  return { tarball: join(destination, report.filename), files: report.files.map((f) => f.path).sort() };
}

/**
 * Versions of packages the consumer projects install that this repository
 * does not: the oldest and the current cdk8s-plus, optional peers the cdk8s
 * constructs only read structurally: cdk8s-plus-28 (the version of the
 * cdk8s-plus source copied in test/constructs/cdk8s/cdk8s-plus.ts) and
 * cdk8s-plus-33, which `cdk8s init typescript-app` of the pinned cdk8s-cli
 * installs (CDK8S_INIT_PLUS; its newest version on npm, December 2026).
 */
const CONSUMER_ONLY_VERSIONS: Readonly<Record<string, string>> = {
  'cdk8s-plus-28': '2.5.6',
  'cdk8s-plus-33': '2.5.57',
};

/** The cdk8s-plus a project made by `cdk8s init typescript-app` (the pinned cdk8s-cli's template) depends on. */
export const CDK8S_INIT_PLUS = Object.keys(
  (
    JSON.parse(
      readFileSync(join(repoRoot, 'node_modules', 'cdk8s-cli', 'templates', 'typescript-app', 'package.json'), 'utf8'),
    ) as {
      readonly dependencies: Record<string, string>;
    }
  ).dependencies,
).find((name) => name.startsWith('cdk8s-plus-'))!;

/**
 * A folder whose package.json depends on the tarball and on `packages` at the
 * versions this repository pins in its devDependencies (or CONSUMER_ONLY_VERSIONS),
 * installed with npm (preferring its cache). Projects in subfolders resolve
 * from its node_modules.
 */
export async function installConsumerRoot(dir: string, tarball: string, packages: readonly string[]): Promise<void> {
  const dependencies: Record<string, string> = { 'backup-cronjobs': `file:${tarball}` };
  for (const name of packages) {
    const version = repoPackage.devDependencies[name] ?? CONSUMER_ONLY_VERSIONS[name];
    if (version === undefined)
      throw new Error(`${name}: not a devDependency of this repository, so no version to install`);
    dependencies[name] = version;
  }
  writeFiles(dir, {
    'package.json': `${JSON.stringify({ name: `consumer-${basename(dir)}`, version: '1.0.0', private: true, dependencies }, null, 2)}\n`,
  });
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], dir);
}

/** Writes files (paths relative to `dir`), creating folders. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** Copies the policy files a program reads (`policies/<file>`) from examples/policies; a missing one is an error naming it. */
export function copyPolicies(dir: string, paths: readonly string[], usedBy: string): void {
  for (const path of paths) {
    const source = join(repoRoot, 'examples', path);
    try {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      copyFileSync(source, join(dir, path));
    } catch (e) {
      throw new Error(`${usedBy} reads ${path}, but examples/${path} does not exist (${(e as Error).message})`);
    }
  }
}

/** The files `cdk8s init typescript-app` writes that matter here, from the cdk8s-cli this repository pins. */
export function cdk8sTemplateFiles(): Record<string, string> {
  const template = join(repoRoot, 'node_modules', 'cdk8s-cli', 'templates', 'typescript-app');
  return {
    'tsconfig.json': readFileSync(join(template, 'tsconfig.json'), 'utf8'),
    'cdk8s.yaml': readFileSync(join(template, 'cdk8s.yaml'), 'utf8'),
  };
}

/**
 * tsconfig.json of Pulumi's `typescript` template (pulumi/templates,
 * typescript/tsconfig.json) from commit a3029400caaa160d1c45b8e6d5caba594d369735
 * (April 2024) until 81e6522593dedb07f0addfc763f5be3375607db7 (March 2026):
 * CommonJS with node10 resolution.
 */
export const PULUMI_TSCONFIG_NODE10 = `{
    "compilerOptions": {
        "strict": true,
        "outDir": "bin",
        "target": "es2020",
        "module": "commonjs",
        "moduleResolution": "node",
        "sourceMap": true,
        "experimentalDecorators": true,
        "pretty": true,
        "noFallthroughCasesInSwitch": true,
        "noImplicitReturns": true,
        "forceConsistentCasingInFileNames": true
    },
    "files": [
        "index.ts"
    ]
}
`;

/**
 * The same file since pulumi/templates commit 81e6522593dedb07f0addfc763f5be3375607db7
 * ("Use moduleResolution: nodenext", March 2026): nodenext, and CommonJS because
 * the template's package.json has no "type".
 */
export const PULUMI_TSCONFIG_NODENEXT = PULUMI_TSCONFIG_NODE10.replace(
  '"module": "commonjs"',
  '"module": "nodenext"',
).replace('"moduleResolution": "node"', '"moduleResolution": "nodenext"');

/**
 * Runs the compiled Pulumi program `bin/index.js` the way Pulumi's Node.js
 * language host does (`runInPulumiStack`), under `pulumi.runtime.setMocks`
 * instead of an engine, and prints its stack outputs and every resource
 * registration as JSON.
 */
export const PULUMI_MOCK_RUNNER = `'use strict';
const pulumi = require('@pulumi/pulumi');

const registered = [];
pulumi.runtime.setMocks(
  {
    newResource: (a) => {
      registered.push({ type: a.type, name: a.name, inputs: a.inputs });
      return { id: a.custom ? a.name + '_id' : undefined, state: a.inputs };
    },
    call: (a) => a.inputs,
  },
  'consumer',
  'test',
  false,
);
pulumi.runtime.runInPulumiStack(async () => require('./bin/index.js')).then(async (outputs) => {
  await pulumi.runtime.disconnect(); // waits until every registration has reached the mocks
  process.stdout.write(JSON.stringify({ outputs, registered }));
});
`;

export type Tool = 'cdk8s' | 'pulumi';

/** What the ES module and bundler programs print (see `esmProgram`). */
export interface EsmReport {
  readonly esm: { readonly core: string[]; readonly tool: string[] };
  readonly cjs: { readonly core: string[]; readonly tool: string[] };
  readonly sameBackupPolicy: boolean;
  readonly schemaJson: boolean;
  readonly packageJsonName: string;
}

/**
 * An ES module importing the root and the tool's subpath by name (a name the
 * CommonJS build does not expose fails at link time), listing both as ESM and
 * through require().
 */
export function esmProgram(tool: Tool): string {
  return `import { createRequire } from 'node:module';
import * as core from 'backup-cronjobs';
import { renderPolicy } from 'backup-cronjobs';
import * as tool from 'backup-cronjobs/${tool}';
import { BackupPolicy } from 'backup-cronjobs/${tool}';

// compile-time check: skipLibCheck hides an unresolved import inside the package's .d.ts files, which would leave these \`any\`
type IsAny<T> = 0 extends 1 & T ? true : false;
const typed: [IsAny<typeof renderPolicy>, IsAny<typeof BackupPolicy>] = [false, false];

const requireCjs = createRequire(import.meta.url);
const names = (m: object): string[] => Object.keys(m).filter((k) => k !== 'default' && k !== '__esModule').sort();
console.log(JSON.stringify({
  esm: { core: names(core), tool: names(tool) },
  cjs: { core: names(requireCjs('backup-cronjobs')), tool: names(requireCjs('backup-cronjobs/${tool}')) },
  sameBackupPolicy: BackupPolicy === requireCjs('backup-cronjobs/${tool}').BackupPolicy,
  schemaJson: JSON.stringify(requireCjs('backup-cronjobs/schema.json')) === JSON.stringify(core.policySchema),
  packageJsonName: requireCjs('backup-cronjobs/package.json').name,
}));
`;
}

/** The CommonJS counterpart under nodenext (a .cts file): both entry points through require(). */
export function cjsProgram(tool: Tool): string {
  return `import core = require('backup-cronjobs');
import tool = require('backup-cronjobs/${tool}');

// compile-time check, as in the ES module
type IsAny<T> = 0 extends 1 & T ? true : false;
const typed: [IsAny<typeof core.renderPolicy>, IsAny<typeof tool.BackupPolicy>] = [false, false];

const names = (m: object): string[] => Object.keys(m).filter((k) => k !== 'default' && k !== '__esModule').sort();
console.log(JSON.stringify({ core: names(core), tool: names(tool) }));
`;
}

/** A cdk8s app (the template's main.ts replaced): one chart per policy file in policies/, through the root and `backup-cronjobs/cdk8s`. */
export const CDK8S_APP = `import { App, Chart } from 'cdk8s';
import { readdirSync, readFileSync } from 'fs';
import { loadPolicies } from 'backup-cronjobs';
import { BackupPolicy } from 'backup-cronjobs/cdk8s';

const app = new App();
for (const file of readdirSync('policies').sort()) {
  for (const policy of loadPolicies(readFileSync(\`policies/\${file}\`, 'utf8'), file)) {
    new BackupPolicy(new Chart(app, policy.metadata.name), 'policy', policy);
  }
}
app.synth();
`;

/** A Pulumi program: one BackupPolicy component per policy file in policies/, through the root and `backup-cronjobs/pulumi`. */
export const PULUMI_PROGRAM = `import type { Output } from '@pulumi/pulumi';
import { readdirSync, readFileSync } from 'fs';
import { loadPolicies } from 'backup-cronjobs';
import { BackupPolicy } from 'backup-cronjobs/pulumi';

export const cronJobNames: Record<string, Output<string[]>> = {};
for (const file of readdirSync('policies').sort()) {
  for (const policy of loadPolicies(readFileSync(\`policies/\${file}\`, 'utf8'), file)) {
    cronJobNames[policy.metadata.name] = new BackupPolicy(policy.metadata.name, policy).cronJobNames;
  }
}
`;

/**
 * A cdk8s app with the idioms cdk8s users write: a chart namespace (none in
 * the props), `Duration` and `Cron` values, cdk8s-plus Secrets (imported, and
 * one the app defines, given whole for `credentialsSecret`) and a
 * PersistentVolumeClaim, and escape hatches on `cronJob()` handles, with the
 * cdk8s-plus module `plus` (`cdk8s-plus-28`, `cdk8s-plus-33`).
 * `CDK8S_IDIOMS_PLAIN` holds the same props as plain values (with the chart
 * namespace), for the test to render from the source tree.
 */
export const cdk8sIdiomsApp = (plus: string) => `import { App, Chart, Cron, Duration, JsonPatch, Size } from 'cdk8s';
import * as kplus from '${plus}';
import { EtcdBackupSchedule, RedisBackupSchedule } from 'backup-cronjobs/cdk8s';

const app = new App();
const chart = new Chart(app, 'backups', { namespace: 'backups' });

const redisAuth = kplus.Secret.fromSecretName(chart, 'redis-auth', 'redis-auth');
const awsCredentials = new kplus.Secret(chart, 'aws', { metadata: { name: 'aws-credentials' }, stringData: { AWS_ACCESS_KEY_ID: 'id' } });
const cache = new RedisBackupSchedule(chart, 'cache', {
  name: 'cache',
  schedule: Cron.schedule({ minute: '0', hour: '3' }),
  timeout: Duration.minutes(20),
  shards: ['shard01', 'shard02'],
  sentinel: { addresses: ['sentinel.redis.svc:26379'], passwordSecret: { name: redisAuth, key: 'password' } },
  s3: { bucket: 'cache-backups', region: 'us-east-1', credentialsSecret: awsCredentials },
});
cache.cronJob('shard01').addJsonPatch(JsonPatch.add('/spec/jobTemplate/spec/template/spec/priorityClassName', 'backup-low'));
cache.cronJob('shard02').metadata.addAnnotation('example.com/owner', 'cache-team');

const snapshots = new kplus.PersistentVolumeClaim(chart, 'snapshots', {
  metadata: { name: 'etcd-snapshots' },
  storage: Size.gibibytes(20),
  accessModes: [kplus.PersistentVolumeAccessMode.READ_WRITE_MANY],
});
new EtcdBackupSchedule(chart, 'etcd', {
  name: 'etcd',
  mode: 'perNode',
  nodes: ['cp-1', 'cp-2'],
  destination: { persistentVolumeClaim: { claimName: snapshots } },
  retention: { maxAge: Duration.days(7) },
});
app.synth();
`;

/** The props of CDK8S_IDIOMS_APP as plain values, the chart's namespace included. */
export const CDK8S_IDIOMS_PLAIN = {
  redis: {
    name: 'cache',
    namespace: 'backups',
    schedule: '0 3 * * *',
    timeout: '20m',
    shards: ['shard01', 'shard02'],
    sentinel: { addresses: ['sentinel.redis.svc:26379'], passwordSecret: { name: 'redis-auth', key: 'password' } },
    s3: { bucket: 'cache-backups', region: 'us-east-1', credentialsSecret: { name: 'aws-credentials' } },
  },
  etcd: {
    name: 'etcd',
    namespace: 'backups',
    mode: 'perNode' as const,
    nodes: ['cp-1', 'cp-2'],
    destination: { persistentVolumeClaim: { claimName: 'etcd-snapshots' } },
    retention: { maxAge: '7d' },
  },
};

/**
 * A Pulumi program passing Outputs of other resources where values pass
 * through: the namespace and the S3 credentials Secret; it exports the
 * component's outputs and a name read through a `cronJob()` handle.
 */
export const PULUMI_IDIOMS_PROGRAM = `import * as k8s from '@pulumi/kubernetes';
import { RedisBackupSchedule } from 'backup-cronjobs/pulumi';

const namespace = new k8s.core.v1.Namespace('backups', { metadata: { name: 'backups' } });
const credentials = new k8s.core.v1.Secret('aws-credentials', {
  metadata: { name: 'aws-credentials', namespace: namespace.metadata.name },
  stringData: { AWS_ACCESS_KEY_ID: 'id', AWS_SECRET_ACCESS_KEY: 'key' },
});
const cache = new RedisBackupSchedule('cache', {
  name: 'cache',
  namespace: namespace.metadata.name,
  schedule: '0 3 * * *',
  shards: ['shard01', 'shard02'],
  sentinel: { addresses: ['sentinel.redis.svc:26379'] },
  s3: { bucket: 'cache-backups', region: 'us-east-1', credentialsSecret: { name: credentials.metadata.name } },
});

export const cronJobNames = cache.cronJobNames;
export const backupNamespace = cache.namespace;
export const shard01 = cache.cronJob('shard01').metadata.name;
`;

/** The args of PULUMI_IDIOMS_PROGRAM with the Outputs' values. */
export const PULUMI_IDIOMS_PLAIN = {
  name: 'cache',
  namespace: 'backups',
  schedule: '0 3 * * *',
  shards: ['shard01', 'shard02'],
  sentinel: { addresses: ['sentinel.redis.svc:26379'] },
  s3: { bucket: 'cache-backups', region: 'us-east-1', credentialsSecret: { name: 'aws-credentials' } },
};
