// The product never imports the tests' code: no file of lib/, constructs/ or bin/ imports a module under
// test/. The API server's rules that no policy input reaches are the tests' oracle
// (test/support/kubernetes-validation, ARCHITECTURE.md "What the API server decides"): nothing in the render
// path may reach for them again.
import { readFileSync, readdirSync, statSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';

const ROOT = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return sources(path);
    return /\.[cm]?[jt]s$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every relative module a file names: static and dynamic imports, re-exports, require. */
function relativeSpecifiers(text: string): string[] {
  const found = text.matchAll(
    /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]*)['"]/gm,
  );
  return [...found].map((m) => m[1]);
}

test('no file of lib/, constructs/ or bin/ imports from test/', () => {
  const files = ['lib', 'constructs', 'bin'].flatMap((dir) => sources(join(ROOT, dir)));
  expect(files.length).toBeGreaterThan(100);
  const edges = files.flatMap((file) =>
    relativeSpecifiers(readFileSync(file, 'utf8'))
      .map((spec) =>
        relative(ROOT, resolve(dirname(file), spec))
          .split('\\')
          .join('/'),
      )
      .filter((target) => target === 'test' || target.startsWith('test/'))
      .map((target) => `${relative(ROOT, file)} → ${target}`),
  );
  expect(edges).toEqual([]);
});

test('the check sees an import of the oracle', () => {
  const file = join(ROOT, 'lib', 'model', 'render.ts');
  const spec = relativeSpecifiers("import { assertAccepted } from '../../test/support/kubernetes-validation';")[0];
  expect(relative(ROOT, resolve(dirname(file), spec))).toBe(join('test', 'support', 'kubernetes-validation'));
});
