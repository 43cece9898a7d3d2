// Every Markdown file of the project (README.md, ARCHITECTURE.md, CONTRIBUTING.md, docs/**): the field
// reference is current, relative links lead somewhere, and every code block is tested, each kind its way
// (CONTRIBUTING.md, "Code blocks in the docs"): policies validated, backup-cronjobs commands run, their
// output compared, other commands checked, TypeScript compiled by the tests named below.
import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'fs';
import { tmpdir } from 'os';
import { dirname, join, normalize } from 'path';
import { parse, stringify } from 'yaml';
import { loadPolicies, renderPolicy } from '../lib';
import { runCli } from '../lib/cli';
import { FIELDS_FILE, withTable } from '../scripts/policy-fields';
import { backupSchedule, cluster } from './lib/convert/fixtures';
import { sectionCodeBlocks } from './package/readme-blocks';
import { expectValidManifests } from './support/k8s-validate';
import { webConfig } from './support/services/pushgateway';
import { CodeBlock, anchors, codeBlocks, markdownFiles, relativeLinks } from './support/markdown';

const root = join(__dirname, '..');

/** The scripts of package.json. */
const packageScripts = (): Record<string, string> =>
  (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const files = markdownFiles(root);
const text = new Map(files.map((f) => [f, readFileSync(join(root, f), 'utf8')]));
const blocks = new Map(files.map((f) => [f, codeBlocks(text.get(f)!, f)]));

/**
 * Pages other branches write, linked before they land. The integrator empties this list once they are
 * merged; a link to any other missing file fails.
 */
const DANGLING: string[] = [];

/** The README's app in Python, Java and Go, shown in the cdk8s guide: the files test/jsii/<language>.test.ts runs. */
const JSII_GUIDE = 'docs/frontends/cdk8s.md';
const JSII_APPS: Record<string, string> = {
  python: 'test/jsii/python/app.py',
  java: 'test/jsii/java/src/main/java/example/Main.java',
  go: 'test/jsii/go/main.go',
};

/** Programs the docs may name that need a cluster, a key or root: checked against this list, never run. */
const EXTERNAL = new Set([
  'kubectl',
  'pulumi',
  'age',
  'etcdutl',
  'oc',
  'k3s',
  'crictl',
  'aws',
  'mkdir',
  'cp',
  'mv',
  'sudo',
  'export',
]);

test('the field reference is generated from the current schema (npm run docs)', () => {
  const page = readFileSync(join(root, FIELDS_FILE), 'utf8');
  expect(page).toBe(withTable(page));
  expect(packageScripts().docs).toContain('scripts/policy-fields.ts --write');
});

test('the README starts with the two commands, and CI runs the README test command verbatim', () => {
  const block = /^```sh\n(.*)\n(.*)\n```/.exec(readme);
  expect(block).not.toBeNull();
  const testCommand = block![2].split('#')[0].trim();
  expect(block![1]).toMatch(/^npm ci && npm run synth\b/);
  expect(testCommand).toMatch(/npm test$/);
  expect(readFileSync(join(root, '.ci', 'run'), 'utf8').split('\n')).toContain(testCommand);
});

test('the docs are the README, ARCHITECTURE.md, CONTRIBUTING.md and pages under docs/', () => {
  expect(files.slice(0, 3)).toEqual(['README.md', 'ARCHITECTURE.md', 'CONTRIBUTING.md']);
  expect(files).toContain(FIELDS_FILE);
  expect(files.length).toBeGreaterThan(10);
});

test('the dangling links allowed are pages that do not exist yet', () => {
  for (const page of DANGLING)
    expect(existsSync(join(root, page)) ? `${page} exists: drop it from DANGLING` : 'missing').toBe('missing');
});

describe.each(files)('%s', (file) => {
  test('every relative link leads to a file, and every #anchor to a heading', () => {
    const broken: string[] = [];
    for (const { line, target } of relativeLinks(text.get(file)!)) {
      const [path, anchor] = target.split('#');
      const resolved = path === '' ? file : normalize(join(dirname(file), path)).replace(/\/$/, '');
      if (DANGLING.includes(resolved)) continue;
      if (!existsSync(join(root, resolved))) {
        broken.push(`${file}:${line}: ${target}: no file ${resolved}`);
        continue;
      }
      if (anchor !== undefined && resolved.endsWith('.md')) {
        const page = text.get(resolved) ?? readFileSync(join(root, resolved), 'utf8');
        if (!anchors(page).has(anchor))
          broken.push(`${file}:${line}: ${target}: ${resolved} has no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  test('every code block is of a kind a test runs', () => {
    const untested = blocks
      .get(file)!
      .filter((b) => kind(b) === undefined)
      .map((b) => `${b.file}:${b.line}: \`\`\`${b.language}`);
    expect(untested).toEqual([]);
  });

  const policies = blocks.get(file)!.filter((b) => kind(b) === 'policy' && !expectedInvalid(b));
  if (policies.length > 0) {
    test.each(policies.map((b) => [b.line, b]))(
      'the policy at line %i loads, validates and renders objects the API server accepts',
      (_line, block) => {
        const loaded = loadPolicies(block.text, block.name ?? `${file}:${block.line}`);
        expect(loaded.length).toBeGreaterThan(0);
        for (const policy of loaded) expectValidManifests(renderPolicy(policy));
      },
    );
  }

  const webConfigs = blocks.get(file)!.filter((b) => kind(b) === 'web-config');
  if (webConfigs.length > 0) {
    test('a Pushgateway web config has the fields the real Pushgateway of the tests is started with', () => {
      const tested = JSON.parse(
        webConfig({ tls: { certFile: 'tls.crt', keyFile: 'tls.key', caFile: 'ca.crt' }, basicAuth: true })!,
      ) as Record<string, Record<string, unknown>>;
      for (const block of webConfigs) {
        const doc = parse(block.text) as Record<string, Record<string, unknown>>;
        expect(Object.keys(doc).sort()).toEqual(Object.keys(tested).sort());
        expect(Object.keys(doc.tls_server_config).sort()).toEqual(Object.keys(tested.tls_server_config).sort());
        for (const hash of Object.values(doc.basic_auth_users)) expect(hash).toMatch(/^\$2[aby]\$\d\d\$/);
      }
    });
  }

  const shell = blocks.get(file)!.filter((b) => kind(b) === 'commands');
  if (shell.length > 0) {
    test('every command runs as written (backup-cronjobs), or names an npm script, a file or a known tool', () => {
      const sandbox = pageSandbox(file);
      const problems: string[] = [];
      try {
        for (const block of shell) {
          const outcome = runBlock(block, sandbox);
          problems.push(...outcome.problems);
          const following = nextBlock(block);
          if (following && kind(following) === 'output') {
            const last = outcome.runs.at(-1);
            if (last === undefined)
              problems.push(`${file}:${following.line}: an output block after commands that run no backup-cronjobs`);
            else if (!matches(following.text, last.output))
              problems.push(
                `${file}:${following.line}: \`${last.command}\` printed\n${last.output}\nnot\n${following.text}`,
              );
          }
        }
      } finally {
        rmSync(sandbox, { recursive: true, force: true });
      }
      expect(problems).toEqual([]);
    });
  }

  const outputs = blocks.get(file)!.filter((b) => kind(b) === 'output');
  if (outputs.length > 0) {
    test('every output block follows the commands that print it', () => {
      for (const block of outputs)
        expect([block.line, previousBlock(block) && kind(previousBlock(block)!)]).toEqual([block.line, 'commands']);
    });
  }
});

test('the TypeScript blocks are the ones the consumer tests and the adding-an-engine test run', () => {
  const ts = [...blocks.values()].flat().filter((b) => b.language === 'ts');
  const consumers = ts.filter((b) => b.file === 'README.md');
  expect(consumers.map((b) => b.text)).toEqual([
    ...sectionCodeBlocks(readme, '## cdk8s', 'ts'),
    ...sectionCodeBlocks(readme, '## Pulumi', 'ts'),
  ]);
  expect(ts.filter((b) => b.file !== 'README.md').map((b) => `${b.file} ${b.section} ${b.name}`)).toEqual([
    'ARCHITECTURE.md ## Adding an engine lib/engines/example/index.ts',
    'docs/operations/private-endpoints.md ## The Pushgateway (`spec.metrics`) undefined',
  ]);
});

test("the cdk8s guide's Python, Java and Go blocks are the apps test/jsii runs, as written", () => {
  const shown = blocks.get(JSII_GUIDE)!.filter((b) => kind(b) === 'jsii-app');
  expect(shown.map((b) => [b.language, b.text])).toEqual(
    Object.entries(JSII_APPS).map(([language, file]) => [language, readFileSync(join(root, file), 'utf8')]),
  );
});

type Kind =
  | 'policy'
  | 'commands'
  | 'output'
  | 'consumer-ts'
  | 'engine-file'
  | 'construct-example'
  | 'web-config'
  | 'package-error'
  | 'jsii-app';

/** How a block is tested, or undefined when nothing tests it. */
function kind(b: CodeBlock): Kind | undefined {
  if (b.file === 'ARCHITECTURE.md' && b.section === '## Adding an engine' && b.name?.startsWith('lib/engines/example/'))
    return 'engine-file';
  // Run as written by test/constructs/cdk8s/private-endpoints.test.ts.
  if (b.language === 'ts' && b.file === 'docs/operations/private-endpoints.md') return 'construct-example';
  if (b.language === 'ts')
    return b.file === 'README.md' && (b.section === '## cdk8s' || b.section === '## Pulumi')
      ? 'consumer-ts'
      : undefined;
  // The files test/jsii/<language>.test.ts runs (checked above).
  if (b.file === JSII_GUIDE && Object.hasOwn(JSII_APPS, b.language)) return 'jsii-app';
  // Compared with the package's message by test/lib/workload/resources.test.ts.
  if (b.language === 'text' && b.file === 'docs/operations/resources.md') return 'package-error';
  if (b.language === 'yaml' && b.text.startsWith('# pushgateway --web.config.file')) return 'web-config';
  if (b.language === 'yaml') return 'policy';
  if (b.language === 'sh') return 'commands';
  if (b.language === '') return 'output';
  return undefined;
}

function previousBlock(b: CodeBlock): CodeBlock | undefined {
  const list = blocks.get(b.file)!;
  return list[list.indexOf(b) - 1];
}

function nextBlock(b: CodeBlock): CodeBlock | undefined {
  const list = blocks.get(b.file)!;
  return list[list.indexOf(b) + 1];
}

/** A named policy that a command of its page expects to fail (`# exits 1`): the command tests it. */
function expectedInvalid(b: CodeBlock): boolean {
  if (b.name === undefined) return false;
  return blocks
    .get(b.file)!
    .some(
      (s) => kind(s) === 'commands' && s.text.split('\n').some((l) => l.includes(b.name!) && /#\s*exits [1-9]/.test(l)),
    );
}

/** Expected output with `…` for any text, against what was printed (trailing blank lines aside). */
function matches(expected: string, actual: string): boolean {
  const pattern = expected
    .trimEnd()
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*?');
  return new RegExp(`^${pattern}$`).test(actual.trimEnd());
}

/** A directory for one page's commands: a copy of examples/, the page's named blocks, and what the cluster would give. */
function pageSandbox(file: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'bcj-docs-'));
  cpSync(join(root, 'examples'), join(dir, 'examples'), { recursive: true });
  // What `kubectl get vitesscluster,vitessbackupschedule -o yaml` prints for a cluster of two keyspaces: a List.
  const operatorObjects = [
    cluster('example', { commerce: 1, customer: 2 }),
    backupSchedule('nightly', 'example', { schedule: '0 2 * * *', strategies: [{ name: 'all', scope: 'Cluster' }] }),
  ];
  writeFileSync(
    join(dir, 'vitess.yaml'),
    stringify({ apiVersion: 'v1', kind: 'List', items: operatorObjects, metadata: { resourceVersion: '' } }),
  );
  // discover --vtctld: the vtctldclient stand-in (test/lib/engines/vitess/fixtures, citing the real client).
  mkdirSync(join(dir, '.bin'));
  copyFileSync(
    join(__dirname, 'lib', 'engines', 'vitess', 'fixtures', 'vtctldclient-stub.sh'),
    join(dir, '.bin', 'vtctldclient'),
  );
  chmodSync(join(dir, '.bin', 'vtctldclient'), 0o755);
  for (const b of blocks.get(file)!)
    if (b.name !== undefined && kind(b) === 'policy') writeFileSync(join(dir, b.name), b.text);
  return dir;
}

interface CliRun {
  readonly command: string;
  readonly output: string;
}

/** Runs one block's commands: backup-cronjobs for real in the sandbox, the others checked. */
function runBlock(block: CodeBlock, sandbox: string): { runs: CliRun[]; problems: string[] } {
  const runs: CliRun[] = [];
  const problems: string[] = [];
  const where = (i: number) => `${block.file}:${block.line + 1 + i}`;
  const vars: Record<string, string> = {};
  const prompted = block.text.split('\n').some((l) => l.startsWith('$ '));
  const lines = block.text.replace(/\\\n\s*/g, ' ').split('\n');
  let expecting: { run: CliRun; lines: string[]; at: number } | undefined;
  const settle = () => {
    if (expecting && !matches(expecting.lines.join('\n'), expecting.run.output)) {
      problems.push(
        `${where(expecting.at)}: \`${expecting.run.command}\` printed\n${expecting.run.output}\nnot\n${expecting.lines.join('\n')}`,
      );
    }
    expecting = undefined;
  };
  lines.forEach((raw, i) => {
    if (prompted && !raw.startsWith('$ ')) {
      if (raw !== '' || expecting?.lines.length) expecting?.lines.push(raw);
      return;
    }
    settle();
    const line = prompted ? raw.slice(2) : raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const { code, comment } = splitComment(line);
    const exits = Number(/^exits (\d+)/.exec(comment)?.[1] ?? 0);
    const loop = /^for (\w+) in (\S+)[^;]*; do$/.exec(code);
    if (loop) {
      vars[loop[1]] = loop[2];
      return;
    }
    if (code === 'done') return;
    for (const simple of simpleCommands(code)) {
      const words = simple.words.map((w) => w.replace(/\$(\w+)/g, (_, v: string) => vars[v] ?? ''));
      while (words.length > 0 && /^\w+=/.test(words[0])) words.shift();
      const [program, ...args] = words;
      if (program === undefined) continue;
      if (program === 'backup-cronjobs' || (program === 'npx' && args[0] === 'backup-cronjobs')) {
        const cliArgs = program === 'npx' ? args.slice(1) : args;
        const run = runInSandbox(cliArgs, sandbox, simple.redirect);
        const command = `backup-cronjobs ${cliArgs.join(' ')}`;
        if (run.code !== exits)
          problems.push(`${where(i)}: \`${command}\` exited ${run.code}, not ${exits}:\n${run.output}`);
        runs.push({ command, output: run.output });
        if (prompted) expecting = { run: { command, output: run.output }, lines: [], at: i };
      } else if (program === 'npm') {
        const scripts = packageScripts();
        const name = args[0] === 'run' ? args[1] : args[0];
        if (!(args[0] === 'ci' || name in scripts))
          problems.push(`${where(i)}: npm ${args.join(' ')}: no such script in package.json`);
      } else if (program === 'npx') {
        if (!['cdk8s', 'jest', 'tsc'].includes(args[0]))
          problems.push(`${where(i)}: npx ${args[0]}: not a tool of this project`);
      } else if (program.includes('/')) {
        try {
          accessSync(join(root, program), constants.X_OK);
        } catch {
          problems.push(`${where(i)}: ${program}: no such executable in the repository`);
        }
      } else if (!EXTERNAL.has(program))
        problems.push(
          `${where(i)}: ${program}: a program the docs test neither runs nor knows (add it to EXTERNAL if it needs a cluster)`,
        );
    }
  });
  settle();
  return { runs, problems };
}

/** The code of a command line and its trailing comment (a `#` after a blank, outside quotes). */
function splitComment(line: string): { code: string; comment: string } {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1])))
      return { code: line.slice(0, i).trim(), comment: line.slice(i + 1).trim() };
  }
  return { code: line.trim(), comment: '' };
}

/** The simple commands of a line (split at `&&`, `||`, `;`, `|` and a final `&`), each as words and its `> file`. */
function simpleCommands(code: string): { words: string[]; redirect?: string }[] {
  const out: { words: string[]; redirect?: string }[] = [];
  let words: string[] = [];
  let word: string | undefined;
  let quote = '';
  let redirect: string | undefined;
  let redirecting = false;
  const endWord = () => {
    if (word === undefined) return;
    if (redirecting) {
      redirect = word;
      redirecting = false;
    } else words.push(word);
    word = undefined;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) out.push({ words, redirect });
    words = [];
    redirect = undefined;
  };
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (quote) {
      if (c === quote) quote = '';
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (/\s/.test(c)) endWord();
    else if (c === '>') {
      endWord();
      redirecting = true;
    } else if (c === '|' || c === ';' || c === '&') {
      endCommand();
      if (code[i + 1] === c) i++;
    } else word = (word ?? '') + c;
  }
  endCommand();
  return out;
}

/** Runs the CLI in-process in the sandbox (its cwd), with the vtctldclient stand-in first on PATH. */
function runInSandbox(args: readonly string[], sandbox: string, redirect?: string): { code: number; output: string } {
  let stdout = '';
  let output = '';
  const cwd = process.cwd();
  const env = { PATH: process.env.PATH, STUB_SHARDS: process.env.STUB_SHARDS, STUB_CALLS: process.env.STUB_CALLS };
  try {
    process.chdir(sandbox);
    process.env.PATH = `${join(sandbox, '.bin')}:${env.PATH}`;
    process.env.STUB_SHARDS = '-80 80-';
    process.env.STUB_CALLS = join(sandbox, '.bin', 'calls');
    const code = runCli(args, {
      stdout: (t) => {
        stdout += t;
        if (redirect === undefined) output += t;
      },
      stderr: (t) => (output += t),
      stdin: () => {
        throw new Error('a documented command read standard input, which the docs test gives none');
      },
    });
    if (redirect !== undefined) writeFileSync(join(sandbox, redirect), stdout);
    return { code, output };
  } finally {
    process.chdir(cwd);
    for (const [k, v] of Object.entries(env))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}
