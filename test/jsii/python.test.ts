// The jsii module (jsii/) in Python, as its users run it: the wheel (scripts/build-jsii.sh, built once per
// input hash) installed into a fresh virtual environment with cdk8s and cdk8s-plus-33 from PyPI; the README's
// cdk8s app written in Python writes the TypeScript app's manifests byte for byte, and an invalid prop fails
// with the package's message at its Python path. The TypeScript side runs in node against the core of the
// same build (the package as npm ships it, `backup-cronjobs/cdk8s`), so both render with the same core.
// The core is packed from the working tree; BACKUP_CRONJOBS_JSII_FROM=head packs it from HEAD.
// Without python3 (and its venv module) the test is skipped locally and fails in CI (CI=true). Shared with the
// Java and Go tests: test/jsii/support.ts.
import { execFileSync, spawnSync } from 'child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { referencedPolicyFiles } from '../package/readme-blocks';
import {
  CACHE,
  ENV as JSII_ENV,
  ROOT,
  appDirectory,
  buildJsii,
  describeFor,
  expectSameFiles,
  readmeApp,
  requireTools,
  runNode,
  timed,
  typescriptInvalidMessages,
} from './support';

// What a Python user of cdk8s 2.70 gets from PyPI (the module's peer range is cdk8s ^2.68.91).
const PYPI_REQUIREMENTS = ['cdk8s==2.70.115', 'cdk8s-plus-33==2.5.63'];
const ENV = { ...JSII_ENV, PIP_CACHE_DIR: join(CACHE, 'pip'), PIP_DISABLE_PIP_VERSION_CHECK: '1' };

describeFor('python')('the jsii module in Python', () => {
  let work: string;
  let python: string;
  let core: string;

  beforeAll(() => {
    requireTools('python');
    const out = timed('python: build-jsii.sh', buildJsii);
    core = join(out, 'core');
    const wheels = readdirSync(join(out, 'dist', 'python')).filter((f) => f.endsWith('.whl'));
    expect(wheels).toHaveLength(1);
    work = mkdtempSync(join(tmpdir(), 'jsii-python-'));
    execFileSync('python3', ['-m', 'venv', join(work, 'venv')], { env: ENV, stdio: 'pipe' });
    python = join(work, 'venv', 'bin', 'python');
    timed('python: venv and pip install', () =>
      execFileSync(
        python,
        ['-m', 'pip', 'install', '-q', join(out, 'dist', 'python', wheels[0]), ...PYPI_REQUIREMENTS],
        {
          env: ENV,
          stdio: 'pipe',
        },
      ),
    );
  }, 600_000);

  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  test("the README's cdk8s app in Python writes the TypeScript app's manifests, byte for byte", () => {
    const { code, policyFiles } = readmeApp();
    const pyApp = readFileSync(join(__dirname, 'python', 'app.py'), 'utf8');
    expect([...pyApp.matchAll(/"(policies\/[^"]+)"/g)].map((m) => m[1])).toEqual(policyFiles);

    // both apps run in the same directory, holding the policy files they read
    const appDir = appDirectory(join(work, 'app'), policyFiles);
    const tsOut = join(work, 'ts-out');
    runNode(core, appDir, code, { CDK8S_OUTDIR: tsOut });
    const pyOut = join(work, 'py-out');
    execFileSync(python, [join(__dirname, 'python', 'app.py')], {
      cwd: appDir,
      env: { ...ENV, CDK8S_OUTDIR: pyOut },
      stdio: 'pipe',
    });
    expectSameFiles(pyOut, tsOut);
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
    const tsMessages = typescriptInvalidMessages(core, join(work, 'invalid'));
    // Python: the same, the prop at its Python path (jsii's Python runtime writes a plain JavaScript Error, not
    // the PolicyError, as `Error: <message>`), the children as a Python list
    const expected = tsMessages
      .replace(/^backups\/two: /, 'Error: backups/two: ')
      .replace('sentinel.passwordSecret.name:', 'sentinel.password_secret.name:')
      .replace('metrics.bearerTokenSecret: applies', 'metrics.bearer_token_secret: applies')
      .replace('set metrics.pushgatewayUrl too', 'set metrics.pushgateway_url too')
      .replace(/^children: .*\n$/m, "children: ['two']\n");
    expect(run.stdout).toBe(expected);
  });
});
