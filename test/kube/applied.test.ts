// What a GitOps tool applies: the files `backup-cronjobs synth` writes for every example, and the files
// the repository's cdk8s app (cdk8s.yaml) writes with the real `cdk8s synth`, each applied with
// `kubectl apply --server-side` on the real API server. Every object is accepted, and a second apply
// changes nothing (no object gets a new resourceVersion).
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../../lib/cli';
import { referencedPolicyFiles, sectionCodeBlocks } from '../package/readme-blocks';
import { sessionSteps } from '../support/markdown';
import { matchesOutput } from './pulumi/stack';
import { ensureNamespace } from './support/apply';
import { testCluster } from './support/cluster';

const ROOT = path.resolve(__dirname, '../..');

function cliSynth(): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-applied-cli-'));
  const policies = fs
    .readdirSync(path.join(ROOT, 'examples/policies'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => path.join(ROOT, 'examples/policies', f));
  expect(runCli(['synth', ...policies, '--out', out], { stdout: () => undefined, stderr: () => undefined })).toBe(0);
  return out;
}

function cdk8sSynth(): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-applied-cdk8s-'));
  execFileSync(path.join(ROOT, 'node_modules/.bin/cdk8s'), ['synth', '--output', out], {
    cwd: ROOT,
    env: { ...process.env, CDK8S_CHECK_UPGRADE: 'false' },
    stdio: 'pipe',
  });
  return out;
}

/**
 * The README's cdk8s app, as `cdk8s init typescript-app` lays a project out (main.ts, cdk8s.yaml
 * running it with ts-node), synthesized by the real `cdk8s synth`. Its import of the package names this
 * checkout's source (test/package runs the same block against the packed tarball).
 */
function readmeCdk8sSynth(): string {
  const project = readmeCdk8sProject();
  const out = path.join(project, 'dist');
  execFileSync(path.join(ROOT, 'node_modules/.bin/cdk8s'), ['synth', '--output', out], {
    cwd: project,
    env: { ...process.env, CDK8S_CHECK_UPGRADE: 'false' },
    stdio: 'pipe',
  });
  return out;
}

/** A project directory holding the README's cdk8s app (main.ts, cdk8s.yaml, its policy files). */
function readmeCdk8sProject(): string {
  const [block] = sectionCodeBlocks(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), '## cdk8s', 'ts');
  fs.mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
  const project = fs.mkdtempSync(path.join(ROOT, '.tmp', 'readme-cdk8s-'));
  const source = path.relative(project, path.join(ROOT, 'constructs/cdk8s'));
  fs.writeFileSync(path.join(project, 'main.ts'), block.replace(/'backup-cronjobs\/cdk8s'/g, `'${source}'`));
  fs.writeFileSync(
    path.join(project, 'cdk8s.yaml'),
    'language: typescript\napp: npx ts-node --transpile-only main.ts\n',
  );
  for (const file of referencedPolicyFiles(block)) {
    fs.mkdirSync(path.join(project, path.dirname(file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'examples', file), path.join(project, file));
  }
  return project;
}

/** Every namespaced object's namespace and identity, from the files. */
function objectsOf(dir: string): { kind: string; name: string; namespace?: string }[] {
  type Doc = { kind: string; metadata: { name: string; namespace?: string } } | null;
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.k8s.yaml'))
    .flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(dir, f), 'utf8')).map((d) => d.toJSON() as Doc))
    .filter((o): o is NonNullable<Doc> => o !== null)
    .map((o) => ({ kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace }));
}

describe.each([
  ['backup-cronjobs synth of every example', cliSynth],
  ['cdk8s synth of the repository’s cdk8s app', cdk8sSynth],
  ['cdk8s synth of the README’s cdk8s app', readmeCdk8sSynth],
])('%s, applied with kubectl apply --server-side', (_what, synth) => {
  test('every object is accepted, and a second apply changes nothing', async () => {
    const cluster = await testCluster();
    const dir = synth();
    try {
      const objects = objectsOf(dir);
      expect(objects.length).toBeGreaterThan(5);
      for (const ns of new Set(objects.map((o) => o.namespace).filter((n): n is string => !!n)))
        await ensureNamespace(cluster.api, ns);
      const apply = (): Promise<string> =>
        cluster.kubectl(['apply', '--server-side', '--field-manager=gitops', '--force-conflicts', '-f', dir]);
      const first = await apply();
      expect(first.trim().split('\n')).toHaveLength(objects.length);
      // Each object as stored, but for the bookkeeping of writes (resourceVersion, managedFields): a
      // re-apply of a cdk8s-plus claim that leaves its defaulted storageClassName to the server rewrites
      // only its managedFields.
      const versions = async (): Promise<string[]> => {
        const out = JSON.parse(await cluster.kubectl(['get', '-f', dir, '-o', 'json'])) as {
          items: { kind: string; metadata: Record<string, unknown> & { name: string } }[];
        };
        return out.items
          .map((o) => {
            const { resourceVersion: _rv, managedFields: _mf, ...metadata } = o.metadata;
            return `${o.kind}/${o.metadata.name}=${JSON.stringify({ ...o, metadata })}`;
          })
          .sort();
      };
      // Controllers may still write to what was applied (the volume binder annotates a claim): wait for quiet.
      let before = await versions();
      for (let i = 0; i < 20; i++) {
        await new Promise((r) => setTimeout(r, 1500));
        const now = await versions();
        if (now.join() === before.join()) break;
        before = now;
      }
      expect(before).toHaveLength(objects.length);
      // Nothing to change, by the server's own diff (exit 0), and an apply that writes nothing.
      const diff = await cluster.kubectlRaw([
        'diff',
        '--server-side',
        '--field-manager=gitops',
        '--force-conflicts',
        '-f',
        dir,
      ]);
      expect({ code: diff.code, diff: diff.stdout.toString() }).toEqual({ code: 0, diff: '' });
      await apply();
      expect(await versions()).toEqual(before);
    } finally {
      fs.rmSync(dir.endsWith('/dist') ? path.dirname(dir) : dir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('the cdk8s guide’s session (docs/frontends/cdk8s.md)', () => {
  const DOC = 'docs/frontends/cdk8s.md';

  const session = () =>
    sessionSteps(fs.readFileSync(path.join(ROOT, DOC), 'utf8'), DOC, "## A session with the README's app");

  test('each command prints what the docs show, on the real API server', async () => {
    const cluster = await testCluster();
    const project = readmeCdk8sProject();
    try {
      const steps = session();
      expect(steps.map((s) => s.command.split(' ').find((w) => !w.includes('='))).sort()).toEqual([
        'kubectl',
        'kubectl',
        'kubectl',
        'npx',
      ]);
      for (const { command, expected } of steps) {
        const [env, words] = [
          command.split(' ').filter((w) => /^\w+=/.test(w)),
          command.split(' ').filter((w) => !/^\w+=/.test(w)),
        ];
        let output: string;
        if (words[0] === 'npx' && words[1] === 'cdk8s') {
          output = execFileSync(path.join(ROOT, 'node_modules/.bin/cdk8s'), words.slice(2), {
            cwd: project,
            env: {
              ...process.env,
              ...Object.fromEntries(env.map((e): [string, string] => [e.split('=')[0], e.split('=')[1]])),
            },
            encoding: 'utf8',
          });
          // the namespaces the app's objects name exist, as they would on the user's cluster
          for (const o of objectsOf(path.join(project, 'dist')))
            if (o.namespace) await ensureNamespace(cluster.api, o.namespace);
        } else {
          expect(words[0]).toBe('kubectl');
          const args = words.slice(1).map((w) => (w === 'dist/' ? path.join(project, 'dist') : w));
          const r = await cluster.kubectlRaw(args);
          expect({ command, code: r.code, stderr: r.stderr }).toEqual({ command, code: 0, stderr: '' });
          output = r.stdout.toString();
        }
        expect({ command, output, matches: matchesOutput(expected, output) }).toEqual({
          command,
          output,
          matches: true,
        });
      }
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  }, 180_000);
});
