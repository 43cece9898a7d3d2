// The jsii module (jsii/) in Go, as its users run it: the Go module of the build (scripts/build-jsii.sh
// --all-targets, dist/go/backupcronjobscdk8s, linked where test/jsii/go/go.mod's replace points) with cdk8s,
// constructs and the jsii runtime from the Go module proxy (GOPROXY as the machine has it; the module cache
// is Go's own), built by `go build` and run: the README's cdk8s app in Go (main.go: `jsii.String`, props
// structs) writes the TypeScript app's manifests byte for byte, and an invalid prop panics with the package's
// message at its path as Go spells the props (PascalCase, the struct fields). The proxy has cdk8s for Go
// (cdk8s-core-go) only at v2.68.91, the version the module is built against, and no cdk8s-plus: the app names
// the Secret by its name and builds the claim as an ApiObject.
// Without go, mvn and java the test is skipped locally and fails in CI (CI=true).
import { execFileSync, spawnSync } from 'child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import {
  ENV,
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

const APP = join(__dirname, 'go');

describeFor('go')('the jsii module in Go', () => {
  let work: string;
  let core: string;
  let bin: string;

  beforeAll(() => {
    requireTools('go');
    const out = timed('go: build-jsii.sh', buildJsii);
    core = join(out, 'core');
    work = mkdtempSync(join(tmpdir(), 'jsii-go-'));
    const project = join(work, 'project');
    cpSync(APP, project, { recursive: true });
    symlinkSync(join(out, 'dist', 'go', 'backupcronjobscdk8s'), join(project, 'backupcronjobscdk8s'));
    bin = join(work, 'bin');
    // -mod=mod besides the machine's GOFLAGS (its go env file's too); go.mod and go.sum stay as committed (checked
    // below): it only adds what they miss
    const goflags = execFileSync('go', ['env', 'GOFLAGS'], { env: ENV, encoding: 'utf8' }).trim();
    const goEnv = { ...ENV, GOFLAGS: `${goflags} -mod=mod`.trim() };
    timed('go: go build', () =>
      execFileSync('go', ['build', '-o', `${bin}/`, '.', './invalid'], { cwd: project, env: goEnv, stdio: 'pipe' }),
    );
    for (const f of ['go.mod', 'go.sum'])
      expect([f, readFileSync(join(project, f), 'utf8')]).toEqual([f, readFileSync(join(APP, f), 'utf8')]);
  }, 600_000);

  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  test("the README's cdk8s app in Go writes the TypeScript app's manifests, byte for byte", () => {
    const { code, policyFiles } = readmeApp();
    const goApp = readFileSync(join(APP, 'main.go'), 'utf8');
    expect([...goApp.matchAll(/"(policies\/[^"]+)"/g)].map((m) => m[1])).toEqual(policyFiles);

    // both apps run in the same directory, holding the policy files they read
    const appDir = appDirectory(join(work, 'app'), policyFiles);
    const tsOut = join(work, 'ts-out');
    runNode(core, appDir, code, { CDK8S_OUTDIR: tsOut });
    const goOut = join(work, 'go-out');
    timed('go: app', () =>
      execFileSync(join(bin, 'backups'), [], { cwd: appDir, env: { ...ENV, CDK8S_OUTDIR: goOut }, stdio: 'pipe' }),
    );
    expectSameFiles(goOut, tsOut);
  });

  test("an invalid prop panics with the package's message, at its path in Go's spelling", () => {
    const run = spawnSync(join(bin, 'invalid'), [], { env: ENV, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    const tsMessages = typescriptInvalidMessages(core, join(work, 'invalid'));
    // Go: the same messages (what the jsii runtime panics with, recovered), the path as the struct fields
    // (PascalCase), the children as a Go slice
    const expected = tsMessages
      .replace(/^backups\/two: /, 'Error: backups/two: ')
      .replace('sentinel.passwordSecret.name:', 'Sentinel.PasswordSecret.Name:')
      .replace('metrics.bearerTokenSecret: applies', 'Metrics.BearerTokenSecret: applies')
      .replace('set metrics.pushgatewayUrl too', 'set Metrics.PushgatewayUrl too')
      .replace(/^children: .*\n$/m, 'children: [two]\n');
    expect(run.stdout).toBe(expected);
  });
});
