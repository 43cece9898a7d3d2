// The shape of the core, checked on its import graph (dpdm): no cycles, layers
// that only import downwards, engines that know no other engine, small files.
import { execFileSync } from 'child_process';
import { readFileSync, readdirSync, statSync } from 'fs';
import { join, relative } from 'path';
import type { DependencyTree } from 'dpdm';

const ROOT = join(__dirname, '..', '..');

function sources(dir: string, keep = (name: string) => /\.ts$/.test(name) && !name.endsWith('.d.ts')): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path, keep);
    return keep(name) ? [path] : [];
  });
}

const FILES = [...sources('lib'), ...sources('constructs')];
/** Every shell script of the repository: the container scripts, the tools, the benchmarks, the tests' helpers. */
const SHELL_FILES = ['lib', 'constructs', 'scripts', 'bench', 'test'].flatMap((dir) =>
  sources(dir, (name) => name.endsWith('.sh')),
);
/** dpdm's tree and cycles, computed in a plain node process (dpdm's dependencies are ES modules, which jest cannot load). */
const { tree, circulars } = JSON.parse(
  execFileSync(
    process.execPath,
    [
      '-e',
      `
  const dpdm = require('dpdm');
  dpdm.parseDependencyTree(${JSON.stringify(FILES)}, { context: ${JSON.stringify(ROOT)}, cwd: ${JSON.stringify(ROOT)}, transform: false })
    .then((tree) => console.log(JSON.stringify({ tree, circulars: dpdm.parseCircular(tree) })));
`,
    ],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  ),
) as { tree: DependencyTree; circulars: string[][] };

/** Every import edge between project files, and every import of a package, per file. */
function imports(file: string): { files: string[]; packages: string[] } {
  const deps = tree[file] ?? [];
  return {
    files: deps.map((d) => d.id).filter((id): id is string => id !== null && /^(lib|constructs)\//.test(id)),
    packages: deps.filter((d) => !d.request.startsWith('.')).map((d) => d.request),
  };
}

test('the import graph of lib/ and constructs/ has no cycle (types included)', () => {
  expect(Object.keys(tree).filter((f) => !f.includes('node_modules')).length).toBeGreaterThanOrEqual(FILES.length);
  expect(circulars).toEqual([]);
});

/** Layers of lib/, lowest first: a file imports only from its own layer or below. */
const LAYERS: [number, RegExp][] = [
  [0, /^lib\/(messages\.ts|yaml\.ts|units\/|schedule\/|kubernetes\/|scripts\/)/],
  [1, /^lib\/retention\//],
  [2, /^lib\/policy\//],
  [3, /^lib\/(workload\/|engines\/[^/]+\.ts$)/],
  [4, /^lib\/engines\/[^/]+\//],
  [5, /^lib\/registry\.ts$/],
  [6, /^lib\/model\//],
  [7, /^lib\/(convert\/|cli|index\.ts$|internal\.ts$)/],
];
const layer = (file: string) => LAYERS.find(([, re]) => re.test(file))?.[0];

test('every file of lib/ is in a layer, and imports only from its layer or below', () => {
  for (const file of FILES.filter((f) => f.startsWith('lib/'))) {
    const own = layer(file);
    expect({ file, layer: own }).toEqual({ file, layer: expect.any(Number) as unknown });
    const upwards = imports(file).files.filter((d) => (layer(d) ?? 99) > (own ?? -1));
    expect({ file, upwards }).toEqual({ file, upwards: [] });
  }
});

test('lib/policy knows no engine and nothing above it', () => {
  for (const file of FILES.filter((f) => f.startsWith('lib/policy/'))) {
    expect({
      file,
      bad: imports(file).files.filter((d) => /^lib\/(engines|model)\/|^lib\/registry\.ts$/.test(d)),
    }).toEqual({ file, bad: [] });
  }
});

test('no engine imports another engine; only the registry, the package index and convert import engines', () => {
  for (const file of FILES.filter((f) => f.startsWith('lib/'))) {
    const own = /^lib\/engines\/([^/]+)\//.exec(file)?.[1];
    const engineImports = imports(file)
      .files.map((d) => /^lib\/engines\/([^/]+)\//.exec(d)?.[1])
      .filter((e): e is string => e !== undefined);
    if (own) expect({ file, other: engineImports.filter((e) => e !== own) }).toEqual({ file, other: [] });
    else if (file !== 'lib/registry.ts' && file !== 'lib/index.ts' && !file.startsWith('lib/convert/'))
      expect({ file, engines: engineImports }).toEqual({ file, engines: [] });
  }
});

test('lib/convert sits above the core: only the CLI and the package index import it', () => {
  for (const file of FILES.filter(
    (f) => !f.startsWith('lib/convert/') && !/^lib\/(cli\.ts|cli\/|index\.ts$)/.test(f),
  )) {
    expect({ file, convert: imports(file).files.filter((d) => d.startsWith('lib/convert/')) }).toEqual({
      file,
      convert: [],
    });
  }
});

test('the core imports neither cdk8s nor Pulumi; each adapter only its own tool', () => {
  const tools = /^(cdk8s|cdk8s-plus-\d+|constructs|@pulumi\/.*)$/;
  for (const file of FILES) {
    const packages = imports(file).packages.filter((p) => tools.test(p));
    if (file.startsWith('lib/')) expect({ file, packages }).toEqual({ file, packages: [] });
    if (file.startsWith('constructs/cdk8s/'))
      expect({ file, packages: packages.filter((p) => p.startsWith('@pulumi/')) }).toEqual({ file, packages: [] });
    if (file.startsWith('constructs/pulumi/'))
      expect({ file, packages: packages.filter((p) => !p.startsWith('@pulumi/')) }).toEqual({ file, packages: [] });
    if (file.startsWith('constructs/core/')) expect({ file, packages }).toEqual({ file, packages: [] });
  }
});

test('the front ends reach the core through lib/internal.ts only, never a deep path; the public index never imports it', () => {
  for (const file of FILES.filter((f) => f.startsWith('constructs/'))) {
    const deep = imports(file).files.filter((d) => d.startsWith('lib/') && d !== 'lib/internal.ts');
    expect({ file, deep }).toEqual({ file, deep: [] });
  }
  expect(imports('lib/index.ts').files).not.toContain('lib/internal.ts');
});

test("the front ends hold no engine: no file of constructs/ names an engine's folder, and only the one-line lists name its classes", () => {
  for (const file of FILES.filter((f) => f.startsWith('constructs/'))) {
    const source = readFileSync(join(ROOT, file), 'utf8');
    expect({ file, engineImports: imports(file).files.filter((d) => /^lib\/engines\//.test(d)) }).toEqual({
      file,
      engineImports: [],
    });
    if (!/\/engine-schedules\.ts$/.test(file))
      expect({ file, engines: source.match(/\b(vitess|redis|etcd)\b(?=['"])/gi) ?? [] }).toEqual({ file, engines: [] });
  }
});

test('no TypeScript file in lib/ or constructs/ and no shell script anywhere is over 400 lines', () => {
  expect(SHELL_FILES).toEqual(
    expect.arrayContaining([
      'lib/scripts/step.sh',
      'lib/engines/redis/scripts/redis-dump.sh',
      'scripts/install-test-deps.sh',
    ]),
  );
  const long = [...FILES, ...SHELL_FILES]
    .map((f) => ({
      file: relative(ROOT, join(ROOT, f)),
      lines: readFileSync(join(ROOT, f), 'utf8').split('\n').length,
    }))
    .filter((f) => f.lines > 400);
  expect(long).toEqual([]);
});
