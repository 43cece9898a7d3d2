// What the tests of the jsii module in each language (test/jsii/<language>.test.ts) share: the build
// (scripts/build-jsii.sh, once per input hash, one build at a time), the README's TypeScript app and the same
// invalid props run in node against the core of that build, and the byte-for-byte comparison of two output
// directories. Each language's app is the one docs/frontends/cdk8s.md shows (test/docs.test.ts checks it).
//
// A language's tools missing (python3 with venv; mvn, java and go) skip its test locally and fail it in CI
// (CI=true): CI installs them (scripts/install-test-deps.sh).
import { execFileSync, spawnSync } from 'child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'fs';
import { homedir } from 'os';
import { join } from 'path';
import * as ts from 'typescript';
import { referencedPolicyFiles, sectionCodeBlocks } from '../package/readme-blocks';

export const ROOT = join(__dirname, '..', '..');
export const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'backup-cronjobs');
export const CI = process.env.CI === 'true';
export const ENV: NodeJS.ProcessEnv = {
  ...process.env,
  JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION: '20',
  CDK8S_CHECK_UPGRADE: 'false',
};

/** Whether a command runs (exit 0), its output ignored. */
function runs(command: string, args: readonly string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore', env: ENV }).status === 0;
}

/** What each language's test needs besides node. */
const TOOLS = {
  python: { check: () => runs('python3', ['-c', 'import venv, ensurepip']), needs: 'python3 with venv (python3-venv)' },
  // the build makes the Java and Go artifacts together (build-jsii.sh --all-targets): each test needs both
  java: {
    check: () => runs('mvn', ['-v']) && runs('javac', ['-version']) && runs('go', ['version']),
    needs: 'mvn, a JDK (maven, openjdk-17-jdk-headless) and go (Go 1.26)',
  },
  go: {
    check: () => runs('go', ['version']) && runs('mvn', ['-v']) && runs('javac', ['-version']),
    needs: 'go (Go 1.26), mvn and a JDK (maven, openjdk-17-jdk-headless)',
  },
} as const;

export type Language = keyof typeof TOOLS;

const present = new Map<Language, boolean>();

/** Whether a language's tools are here. */
export function toolsPresent(language: Language): boolean {
  if (!present.has(language)) present.set(language, TOOLS[language].check());
  return present.get(language)!;
}

/**
 * `describe` for a language's test: skipped (with a warning) without its tools, except in CI, where the test
 * runs and its `beforeAll` fails (`requireTools`).
 */
export function describeFor(language: Language): jest.Describe {
  if (toolsPresent(language) || CI) return describe;
  console.warn(
    `test/jsii/${language}.test.ts skipped: it needs ${TOOLS[language].needs} (scripts/install-test-deps.sh)`,
  );
  return describe.skip;
}

/** Throws, in CI, when a language's tools are missing. */
export function requireTools(language: Language): void {
  if (!toolsPresent(language))
    throw new Error(
      `the jsii test in ${language} needs ${TOOLS[language].needs}: in CI (CI=true) a missing tool fails it`,
    );
}

/**
 * The jsii module built (scripts/build-jsii.sh; cached by its inputs): every target when the Java and Go
 * toolchains are here (always in CI), else Python's only, so that the tests of one run share one build. Builds
 * run one at a time (flock), the second finding the first's in the cache. The core is packed from the working
 * tree; BACKUP_CRONJOBS_JSII_FROM=head packs it from HEAD. Returns the build's directory (dist/, core/).
 */
export function buildJsii(): string {
  const args = [join(ROOT, 'scripts', 'build-jsii.sh')];
  if (process.env.BACKUP_CRONJOBS_JSII_FROM === 'head') args.push('--head');
  if (CI || toolsPresent('java')) args.push('--all-targets');
  mkdirSync(join(CACHE, 'jsii'), { recursive: true });
  const [command, commandArgs] = runs('flock', ['-V'])
    ? ['flock', [join(CACHE, 'jsii', '.lock'), 'sh', ...args]]
    : ['sh', args];
  return execFileSync(command, commandArgs, {
    cwd: ROOT,
    env: ENV,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  })
    .trim()
    .split('\n')
    .pop()!;
}

/** The README's cdk8s app (TypeScript) and the policy files it reads. */
export function readmeApp(): { readonly code: string; readonly policyFiles: string[] } {
  const code = sectionCodeBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'), '## cdk8s', 'ts')[0];
  return { code, policyFiles: referencedPolicyFiles(code) };
}

/** A directory for an app to run in, holding the policy files it reads (copied from examples/). */
export function appDirectory(dir: string, policyFiles: readonly string[]): string {
  mkdirSync(join(dir, 'policies'), { recursive: true });
  for (const f of policyFiles) copyFileSync(join(ROOT, 'examples', f), join(dir, f));
  return dir;
}

/**
 * Runs a TypeScript cdk8s app in node, in `dir`: `backup-cronjobs` is `core` (the build's), cdk8s and
 * cdk8s-plus the repository's. Returns its standard output.
 */
export function runNode(core: string, dir: string, code: string, env: Record<string, string>): string {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(core, join(dir, 'node_modules', 'backup-cronjobs'));
  const js = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  }).outputText;
  writeFileSync(join(dir, 'main.js'), js);
  // NODE_PATH: what neither the app nor the core finds beside itself (cdk8s, cdk8s-plus-33, ajv, yaml), one copy
  return execFileSync(process.execPath, ['main.js'], {
    cwd: dir,
    env: { ...ENV, ...env, NODE_PATH: join(ROOT, 'node_modules') },
    encoding: 'utf8',
  });
}

/**
 * The invalid props of test/jsii/<language>/ in TypeScript, run in node in `dir`: what each error's message
 * is, then the chart's children after the failed construct. Checked here against the TypeScript API itself.
 */
export function typescriptInvalidMessages(core: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const messages = runNode(
    core,
    dir,
    `import { App, Chart } from 'cdk8s';
import { RedisBackupSchedule } from 'backup-cronjobs/cdk8s';
const chart = new Chart(new App(), 'backups', { namespace: 'backups' });
const two = new RedisBackupSchedule(chart, 'two', {
  name: 'two',
  shards: ['shard01', 'shard02'],
  sentinel: { addresses: ['sentinel.redis.svc:26379'] },
  s3: { bucket: 'cache-backups', region: 'us-east-1' },
});
try {
  two.cronJob();
} catch (e) {
  console.log((e as Error).message);
}
try {
  new RedisBackupSchedule(chart, 'cache', {
    name: 'cache',
    shards: ['shard01'],
    sentinel: { addresses: ['sentinel.redis.svc:26379'], passwordSecret: { name: 'Not A Name', key: 'password' } },
    s3: { bucket: 'cache-backups', region: 'us-east-1' },
    metrics: { bearerTokenSecret: { name: 'push-token', key: 'token' } },
  });
} catch (e) {
  console.log((e as Error).message);
}
console.log('children:', JSON.stringify(chart.node.children.map((c) => c.node.id)));
`,
    {},
  );
  expect(messages).toMatch(/^backups\/two: backup CronJob: there are 2, name one/);
  expect(messages).toMatch(
    /^backups\/cache: invalid BackupPolicy \(2 problems\)\n {2}sentinel\.passwordSecret\.name: /m,
  );
  // a message naming another field names it as a prop (the host languages respell it)
  expect(messages).toMatch(
    /^ {2}metrics\.bearerTokenSecret: applies to the Pushgateway only: set metrics\.pushgatewayUrl too, or remove it \(policy field spec\.metrics\.bearerTokenSecret\)$/m,
  );
  expect(messages).toMatch(/^children: \["two"\]\n$/m);
  return messages;
}

/** Expects two directories to hold the same files, byte for byte (at least one). */
export function expectSameFiles(actual: string, expected: string): void {
  const files = readdirSync(expected).sort();
  expect(files.length).toBeGreaterThan(0);
  expect(readdirSync(actual).sort()).toEqual(files);
  for (const f of files)
    expect([f, readFileSync(join(actual, f), 'utf8')]).toEqual([f, readFileSync(join(expected, f), 'utf8')]);
}

/** Runs a program; its output, with the time it took (for the report of warm and cold times). */
export function timed<T>(label: string, run: () => T): T {
  const started = Date.now();
  try {
    return run();
  } finally {
    if (process.env.BACKUP_CRONJOBS_JSII_TIMES === '1')
      console.log(`${label}: ${((Date.now() - started) / 1000).toFixed(1)}s`);
  }
}
