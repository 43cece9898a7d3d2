// The jsii module (jsii/) in Python, as its users run it: the wheel (scripts/build-jsii.sh, built once per
// input hash) installed into a fresh virtual environment with cdk8s and cdk8s-plus-33 from PyPI; the README's
// cdk8s app written in Python writes the TypeScript app's manifests byte for byte, and an invalid prop fails
// with the package's message at its Python path. The TypeScript side runs in node against the core of the
// same build (the package as npm ships it, `backup-cronjobs/cdk8s`), so both render with the same core.
// The core is packed from the working tree; BACKUP_CRONJOBS_JSII_FROM=head packs it from HEAD.
// Without python3 (and its venv module) the test is skipped locally and fails in CI (CI=true).
import { execFileSync, spawnSync } from 'child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'fs';
import { homedir, tmpdir } from 'os';
import { join } from 'path';
import * as ts from 'typescript';
import { referencedPolicyFiles, sectionCodeBlocks } from '../package/readme-blocks';

const ROOT = join(__dirname, '..', '..');
const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'backup-cronjobs');
// What a Python user of cdk8s 2.70 gets from PyPI (the module's peer range is cdk8s ^2.68.91).
const PYPI_REQUIREMENTS = ['cdk8s==2.70.115', 'cdk8s-plus-33==2.5.63'];
const ENV = {
  ...process.env,
  JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION: '20',
  CDK8S_CHECK_UPGRADE: 'false',
  PIP_CACHE_DIR: join(CACHE, 'pip'),
  PIP_DISABLE_PIP_VERSION_CHECK: '1',
};
const CI = process.env.CI === 'true';

/** Whether python3 with its venv module (and pip's bootstrap) is here. */
function pythonAvailable(): boolean {
  return spawnSync('python3', ['-c', 'import venv, ensurepip'], { stdio: 'ignore' }).status === 0;
}

const available = pythonAvailable();
if (!available && !CI)
  console.warn('test/jsii/python.test.ts skipped: no python3 with venv (scripts/install-test-deps.sh installs it)');

(available || CI ? describe : describe.skip)('the jsii module in Python', () => {
  let work: string;
  let python: string;
  let core: string;

  beforeAll(() => {
    if (!available) throw new Error('python3 with its venv module is required (CI=true): python3-venv');
    const args = process.env.BACKUP_CRONJOBS_JSII_FROM === 'head' ? ['--head'] : [];
    const out = execFileSync('sh', [join(ROOT, 'scripts', 'build-jsii.sh'), ...args], {
      cwd: ROOT,
      env: ENV,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    })
      .trim()
      .split('\n')
      .pop()!;
    core = join(out, 'core');
    const wheels = readdirSync(join(out, 'dist', 'python')).filter((f) => f.endsWith('.whl'));
    expect(wheels).toHaveLength(1);
    work = mkdtempSync(join(tmpdir(), 'jsii-python-'));
    execFileSync('python3', ['-m', 'venv', join(work, 'venv')], { env: ENV, stdio: 'pipe' });
    python = join(work, 'venv', 'bin', 'python');
    execFileSync(python, ['-m', 'pip', 'install', '-q', join(out, 'dist', 'python', wheels[0]), ...PYPI_REQUIREMENTS], {
      env: ENV,
      stdio: 'pipe',
    });
  }, 600_000);

  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  test("the README's cdk8s app in Python writes the TypeScript app's manifests, byte for byte", () => {
    const readmeApp = sectionCodeBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'), '## cdk8s', 'ts')[0];
    const policyFiles = referencedPolicyFiles(readmeApp);
    const pyApp = readFileSync(join(__dirname, 'python', 'app.py'), 'utf8');
    expect([...pyApp.matchAll(/"(policies\/[^"]+)"/g)].map((m) => m[1])).toEqual(policyFiles);

    // both apps run in the same directory, holding the policy files they read
    const appDir = join(work, 'app');
    mkdirSync(join(appDir, 'policies'), { recursive: true });
    for (const f of policyFiles) copyFileSync(join(ROOT, 'examples', f), join(appDir, f));
    const tsOut = join(work, 'ts-out');
    runNode(appDir, readmeApp, { CDK8S_OUTDIR: tsOut });
    const pyOut = join(work, 'py-out');
    execFileSync(python, [join(__dirname, 'python', 'app.py')], {
      cwd: appDir,
      env: { ...ENV, CDK8S_OUTDIR: pyOut },
      stdio: 'pipe',
    });

    const files = readdirSync(tsOut).sort();
    expect(files.length).toBeGreaterThan(0);
    expect(readdirSync(pyOut).sort()).toEqual(files);
    for (const f of files)
      expect([f, readFileSync(join(pyOut, f), 'utf8')]).toEqual([f, readFileSync(join(tsOut, f), 'utf8')]);
  });

  test("the jsii module's README example (PyPI's page) synthesizes", () => {
    const blocks = [...readFileSync(join(ROOT, 'jsii', 'README.md'), 'utf8').matchAll(/^```python\n([\s\S]*?)^```$/gm)];
    expect(blocks).toHaveLength(1);
    const dir = join(work, 'readme');
    mkdirSync(join(dir, 'policies'), { recursive: true });
    for (const f of referencedPolicyFiles(blocks[0][1])) copyFileSync(join(ROOT, 'examples', f), join(dir, f));
    writeFileSync(join(dir, 'main.py'), blocks[0][1]);
    execFileSync(python, ['main.py'], { cwd: dir, env: { ...ENV, CDK8S_OUTDIR: join(dir, 'out') }, stdio: 'pipe' });
    expect(readFileSync(join(dir, 'out', 'backups.k8s.yaml'), 'utf8')).toContain('name: cache-shard01');
  });

  test("an invalid prop fails with the package's message, at its path in Python's spelling", () => {
    const run = spawnSync(python, [join(__dirname, 'python', 'invalid.py')], { env: ENV, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    // the same props in TypeScript
    const dir = join(work, 'invalid');
    mkdirSync(dir, { recursive: true });
    const tsMessages = runNode(
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
  });
} catch (e) {
  console.log((e as Error).message);
}
console.log('children:', JSON.stringify(chart.node.children.map((c) => c.node.id)));
`,
      {},
    );
    expect(tsMessages).toMatch(/^backups\/two: backup CronJob: there are 2, name one/);
    expect(tsMessages).toMatch(
      /^backups\/cache: invalid BackupPolicy \(1 problem\)\n {2}sentinel\.passwordSecret\.name: /m,
    );
    // Python: the same, the prop at its Python path (jsii's Python runtime writes a plain JavaScript Error, not
    // the PolicyError, as `Error: <message>`), the children as a Python list
    const expected = tsMessages
      .replace(/^backups\/two: /, 'Error: backups/two: ')
      .replace('sentinel.passwordSecret.name:', 'sentinel.password_secret.name:')
      .replace(/^children: .*\n$/m, "children: ['two']\n");
    expect(run.stdout).toBe(expected);
  });

  /**
   * Runs a TypeScript cdk8s app in node, in `dir`: `backup-cronjobs` is the core of the build, cdk8s and
   * cdk8s-plus the repository's. Returns its standard output.
   */
  function runNode(dir: string, code: string, env: Record<string, string>): string {
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
});
