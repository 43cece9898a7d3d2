// The jsii module (jsii/) in Java, as its users run it: the Maven artifact of the build (scripts/build-jsii.sh
// --all-targets, dist/java: a file repository) with cdk8s and the jsii runtime from Maven Central, compiled by
// Maven (test/jsii/java/pom.xml) and run: the README's cdk8s app in Java (Main.java, builders) writes the
// TypeScript app's manifests byte for byte, and an invalid prop fails with the package's message at its path
// as the props are spelled in Java (camelCase, as in TypeScript). Maven Central has cdk8s for Java (org.cdk8s,
// up to 2.70.47) but no cdk8s-plus: the app names the Secret by its name and builds the claim as an ApiObject.
//
// Maven's repository is ${XDG_CACHE_HOME:-~/.cache}/backup-cronjobs/m2 (CI caches it); the module's artifact is
// removed from it before each run, so that a rebuilt jar of the same version is never shadowed by an old one.
// Without mvn, java and go the test is skipped locally and fails in CI (CI=true).
import { execFileSync, spawnSync } from 'child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import {
  CACHE,
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

const M2 = join(CACHE, 'm2');
const APP = join(__dirname, 'java');

describeFor('java')('the jsii module in Java', () => {
  let work: string;
  let core: string;
  let classpath: string;

  beforeAll(() => {
    requireTools('java');
    const out = timed('java: build-jsii.sh', buildJsii);
    core = join(out, 'core');
    work = mkdtempSync(join(tmpdir(), 'jsii-java-'));
    mkdirSync(join(work, 'project'));
    cpSync(join(APP, 'pom.xml'), join(work, 'project', 'pom.xml'));
    cpSync(join(APP, 'src'), join(work, 'project', 'src'), { recursive: true });
    rmSync(join(M2, 'io', 'github', 'backup-cronjobs'), { recursive: true, force: true });
    timed('java: mvn compile', () =>
      execFileSync(
        'mvn',
        [
          '-B',
          '-q',
          `-Dmaven.repo.local=${M2}`,
          `-Djsii.repository=file://${join(out, 'dist', 'java')}`,
          'compile',
          'dependency:build-classpath',
          `-Dmdep.outputFile=${join(work, 'classpath')}`,
        ],
        { cwd: join(work, 'project'), env: ENV, stdio: 'pipe' },
      ),
    );
    classpath = `${join(work, 'project', 'target', 'classes')}:${readFileSync(join(work, 'classpath'), 'utf8').trim()}`;
  }, 600_000);

  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  test("the README's cdk8s app in Java writes the TypeScript app's manifests, byte for byte", () => {
    const { code, policyFiles } = readmeApp();
    const javaApp = readFileSync(join(APP, 'src', 'main', 'java', 'example', 'Main.java'), 'utf8');
    expect([...javaApp.matchAll(/"(policies\/[^"]+)"/g)].map((m) => m[1])).toEqual(policyFiles);

    // both apps run in the same directory, holding the policy files they read
    const appDir = appDirectory(join(work, 'app'), policyFiles);
    const tsOut = join(work, 'ts-out');
    runNode(core, appDir, code, { CDK8S_OUTDIR: tsOut });
    const javaOut = join(work, 'java-out');
    timed('java: Main', () =>
      execFileSync('java', ['-cp', classpath, 'example.Main'], {
        cwd: appDir,
        env: { ...ENV, CDK8S_OUTDIR: javaOut },
        stdio: 'pipe',
      }),
    );
    expectSameFiles(javaOut, tsOut);
  });

  test("an invalid prop fails with the package's message, at its path in Java's spelling", () => {
    const run = spawnSync('java', ['-cp', classpath, 'example.Invalid'], { env: ENV, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    const tsMessages = typescriptInvalidMessages(core, join(work, 'invalid'));
    // Java: the same messages (a JsiiError's message, the JavaScript stack after it left out here), the path as
    // in TypeScript (the builders' camelCase), the children as a Java list
    const expected = tsMessages
      .replace(/^backups\/two: /, 'Error: backups/two: ')
      .replace(/^backups\/cache: /m, 'software.amazon.jsii.JsiiError: backups/cache: ')
      .replace(/^children: .*\n$/m, 'children: [two]\n');
    expect(withoutJavaScriptStacks(run.stdout)).toBe(expected);
  });
});

/**
 * Java's output without the JavaScript stacks that the jsii runtime appends to an error's message (`<name>:
 * <message>` and its `    at ...` lines).
 */
function withoutJavaScriptStacks(text: string): string {
  return text.replace(/^(?:@jsii\/kernel\.RuntimeError|PolicyError): [\s\S]*?(?:^ {4}at .*\n)+/gm, '');
}
