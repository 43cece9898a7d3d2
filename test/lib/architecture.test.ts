// The shape of the core, checked on its import graph (dpdm): no cycles, layers
// that only import downwards, engines that know no other engine, small files.
import { execFileSync } from 'child_process';
import { readFileSync, readdirSync, statSync } from 'fs';
import { join, relative } from 'path';
import type { DependencyTree } from 'dpdm';
import { RETENTION_DESTINATIONS } from '../../lib/registry';
import { GENERIC_RETENTION_DESTINATIONS } from '../../lib/retention';
import { scriptAlternatives, scriptModule } from '../../lib/scripts';

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

test('no engine imports another engine', () => {
  for (const file of FILES.filter((f) => /^lib\/engines\/[^/]+\//.test(f))) {
    const own = /^lib\/engines\/([^/]+)\//.exec(file)![1];
    const other = imports(file)
      .files.map((d) => /^lib\/engines\/([^/]+)\//.exec(d)?.[1])
      .filter((e): e is string => e !== undefined && e !== own);
    expect({ file, other }).toEqual({ file, other: [] });
  }
});

/**
 * The files outside an engine's folder that import from inside one, besides the registry, and why. Each
 * only re-exports (`export … from`): nothing outside the engine uses its code except through the registry.
 */
const ENGINE_IMPORT_EXCEPTIONS: Readonly<Record<string, string>> = {
  'lib/index.ts': "the public API names each engine's spec and props types (reviewed in api/backup-cronjobs.api.md)",
  'lib/cli/discover.ts':
    'test/lib/cli/discover.test.ts imports vitessShards and sentinelMasters from this path, as before they moved into their engines',
  'lib/convert/openshift.ts':
    'test/lib/convert imports BACKUP_FIELDS from this path (moved to lib/engines/etcd/convert.ts)',
  'lib/convert/redis.ts': 'test/lib/convert imports SRB_FIELDS from this path (moved to lib/engines/redis/convert.ts)',
  'lib/convert/vitess-names.ts':
    "test/lib/convert imports the operator's naming rules from this path (moved to lib/engines/vitess/convert/names.ts)",
  'lib/convert/vitess-pool.ts':
    'test/lib/convert imports VITESS_BACKUP_FIELDS from this path (moved to lib/engines/vitess/convert/pool.ts)',
  'lib/convert/vitess-schedules.ts':
    'test/lib/convert imports SCHEDULE_FIELDS and STRATEGY_FIELDS from this path (moved to lib/engines/vitess/convert/schedules.ts)',
};

test('engine code lives with its engine: outside lib/engines/<engine>/, only the registry imports from inside it (through its index), and the listed exceptions only re-export', () => {
  const inEngine = (f: string) => /^lib\/engines\/[^/]+\//.test(f);
  for (const file of FILES.filter((f) => !inEngine(f))) {
    const edges = (tree[file] ?? []).filter((d) => d.id !== null && inEngine(d.id));
    if (file === 'lib/registry.ts')
      expect({
        file,
        notIndex: edges.map((d) => d.id).filter((id) => !/^lib\/engines\/[^/]+\/index\.ts$/.test(id!)),
      }).toEqual({
        file,
        notIndex: [],
      });
    else if (file in ENGINE_IMPORT_EXCEPTIONS)
      expect({ file, notReExports: edges.filter((d) => String(d.kind) !== 'StaticExport').map((d) => d.id) }).toEqual({
        file,
        notReExports: [],
      });
    else expect({ file, engineImports: edges.map((d) => d.id) }).toEqual({ file, engineImports: [] });
  }
  // every exception is still needed (a stale one would hide nothing, but says something false)
  for (const file of Object.keys(ENGINE_IMPORT_EXCEPTIONS))
    expect({ file, importsAnEngine: (tree[file] ?? []).some((d) => d.id !== null && inEngine(d.id)) }).toEqual({
      file,
      importsAnEngine: true,
    });
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
    // generated from the registry's schemas (scripts/generate-types.ts), kept current by test/generated.test.ts
    if (!/\/engine-schedules\.ts$|\.generated\.ts$/.test(file))
      expect({ file, engines: source.match(/\b(vitess|redis|etcd)\b(?=['"])/gi) ?? [] }).toEqual({ file, engines: [] });
  }
});

test("retention knows only the generic destination kinds: lib/retention names no engine's kind or env, lib/scripts holds no engine's destination module, and each kind's script is the module BACKUP_DEST_KIND chooses", () => {
  for (const file of FILES.filter((f) => f.startsWith('lib/retention/'))) {
    const source = readFileSync(join(ROOT, file), 'utf8');
    const named = [
      ...(source.match(/\b(vitess|redis|etcd)\b(?=['"`])/gi) ?? []),
      ...(source.match(/\b(VITESS|VTCTLD|REDIS|ETCD)_[A-Z_]+/g) ?? []),
    ];
    expect({ file, named }).toEqual({ file, named: [] });
  }
  const generic = Object.values(GENERIC_RETENTION_DESTINATIONS).map((d) => d.script);
  const shared = readdirSync(join(ROOT, 'lib', 'scripts')).filter((f) => /^retention-.+\.sh$/.test(f));
  expect(shared.sort()).toEqual([...generic].sort());
  // the workload builder joins retention-<kind>.sh from the container's BACKUP_DEST_KIND, among retention.sh's one-of
  for (const definition of Object.values(RETENTION_DESTINATIONS)) {
    expect({ kind: definition.kind, script: definition.script }).toEqual({
      kind: definition.kind,
      script: `retention-${definition.kind}.sh`,
    });
    expect(scriptModule(definition.script).functions.map((f) => f.name)).toEqual(
      expect.arrayContaining(['_rt_check_dest', 'retention_destination', 'retention_list', 'retention_delete']),
    );
  }
  expect(scriptAlternatives(scriptModule('retention.sh'))).toEqual(
    Object.values(RETENTION_DESTINATIONS)
      .map((d) => d.script)
      .sort(),
  );
  // the shared scripts' code and header directives name no engine (their comments may, as examples)
  for (const file of readdirSync(join(ROOT, 'lib', 'scripts')).filter((f) => f.endsWith('.sh'))) {
    const code = readFileSync(join(ROOT, 'lib', 'scripts', file), 'utf8')
      .split('\n')
      .filter((line) => !/^\s*#/.test(line) || /^# (needs|optional|one-of):/.test(line));
    expect({ file, named: code.filter((line) => /\b(vitess|vtctld|vtbackup)\b/i.test(line)) }).toEqual({
      file,
      named: [],
    });
  }
});

test('no TypeScript file in lib/ or constructs/ (but the generated props) and no shell script anywhere is over 400 lines', () => {
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
    .filter((f) => f.lines > 400 && !f.file.endsWith('.generated.ts'));
  expect(long).toEqual([]);
});
