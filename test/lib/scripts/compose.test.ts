// The script embedder: header-declared modules, function-level reachability, overrides.
import { execFileSync } from 'child_process';
import { readdirSync } from 'fs';
import { join } from 'path';
import { parseModule, reachable } from '../../../lib/scripts/compose';
import { scriptModules, scriptText, shellCommand } from '../../../lib/scripts';

const LIB = join(__dirname, '..', '..', '..', 'lib');
const shFiles = (dir: string) => readdirSync(join(LIB, dir)).filter((f) => f.endsWith('.sh')).map((f) => join(LIB, dir, f));
const ALL_FILES = [...shFiles('scripts'), ...readdirSync(join(LIB, 'engines')).flatMap((e) => {
  try { return shFiles(join('engines', e, 'scripts')); } catch { return []; }
})];

describe('parseModule', () => {
  const m = parseModule('x.sh', 'lib/x.sh', [
    '# shellcheck shell=sh',
    '# needs: a.sh b.sh',
    '# optional: metrics.sh',
    'set -eu',
    '',
    'one() { two; }',
    '# a comment',
    'two() {',
    '  # inner comment',
    '  echo "$1"',
    '}',
    'main() {',
    '  one',
    '}',
    'main "$@"',
  ].join('\n'));

  test('header lists, top-level code and functions (comments dropped)', () => {
    expect(m.needs).toEqual(['a.sh', 'b.sh']);
    expect(m.optional).toEqual(['metrics.sh']);
    expect(m.topLevel).toEqual(['set -eu', 'main "$@"']);
    expect(m.functions.map((f) => [f.name, f.lines])).toEqual([
      ['one', ['one() { two; }']],
      ['two', ['two() {', '  echo "$1"', '}']],
      ['main', ['main() {', '  one', '}']],
    ]);
  });

  test('refuses heredocs and unterminated functions', () => {
    expect(() => parseModule('h.sh', 'lib/h.sh', 'cat <<EOF\nx\nEOF\n')).toThrow(/heredocs are not supported/);
    expect(() => parseModule('u.sh', 'lib/u.sh', 'f() {\n  echo\n')).toThrow(/function f has no closing/);
  });
});

describe('reachable', () => {
  const lib = parseModule('lib.sh', 'lib/lib.sh', 'hook() { :; }\nused() { helper; }\nhelper() { :; }\nunused() { :; }\n');
  const over = parseModule('over.sh', 'lib/over.sh', 'hook() {\n  echo real\n}\n');
  const entry = parseModule('entry.sh', 'lib/entry.sh', 'main() {\n  used\n  hook\n  trap cleanup EXIT\n}\ncleanup() { :; }\nmain "$@"\n');

  test('keeps the functions the top-level code reaches, transitively, also when named as a word', () => {
    const parts = reachable([lib, entry]);
    expect(parts.map((p) => p.file)).toEqual(['lib.sh', 'entry.sh']);
    expect(parts[0].lines).toEqual(['hook() { :; }', 'used() { helper; }', 'helper() { :; }']);
    expect(parts[1].lines).toContain('cleanup() { :; }');
  });

  test('a later definition replaces an earlier one: each function is defined once', () => {
    const parts = reachable([lib, over, entry]);
    const text = parts.flatMap((p) => p.lines).join('\n');
    expect(text.match(/^hook\(\)/gm)).toHaveLength(1);
    expect(parts.find((p) => p.file === 'over.sh')?.lines).toEqual(['hook() {', '  echo real', '}']);
  });
});

describe('the shipped scripts', () => {
  test('every script is shellcheck-clean POSIX sh', () => {
    expect(execFileSync('shellcheck', ['-s', 'sh', ...ALL_FILES], { encoding: 'utf8' })).toBe('');
  });

  const entries = ALL_FILES.filter((f) => /main "\$@"/.test(require('fs').readFileSync(f, 'utf8'))).map((f) => f.split('/').pop()!);
  test.each(entries)('%s: composed with every feature, each function once, valid sh, common.sh first', (entry) => {
    for (const features of [{}, { metrics: true, retention: true }] as Record<string, boolean>[]) {
      const text = scriptText(entry, features);
      const defs = [...text.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)\(\) \{/gm)].map((m) => m[1]);
      expect(new Set(defs).size).toBe(defs.length);
      expect(text.split('\n')[1]).toBe('# common.sh');
      execFileSync('sh', ['-n', '-c', text]);
      // every word that names a function of the modules involved is defined in the composition
      const defined = new Set(defs);
      const all = new Set(scriptModules(entry, features).flatMap((m) => m.functions.map((f) => f.name)));
      const words = new Set(text.split('\n').filter((l) => !l.startsWith('#')).join('\n').match(/[A-Za-z_][A-Za-z0-9_]*/g));
      for (const w of words) if (all.has(w)) expect(defined.has(w)).toBe(true);
    }
  });

  test('optional modules join only when enabled; needs always', () => {
    const plain = scriptModules('redis-upload.sh').map((m) => m.file);
    expect(plain).toEqual(['common.sh', 's3.sh', 'redis-stream.sh', 'redis-upload.sh']);
    const full = scriptModules('redis-upload.sh', { metrics: true, retention: true }).map((m) => m.file);
    expect(full).toEqual(['common.sh', 's3.sh', 'redis-stream.sh', 'retention.sh', 'metrics.sh', 'redis-upload.sh']);
  });

  test('a Redis upload step carries no etcd code, and the metrics hook once', () => {
    const text = scriptText('redis-upload.sh', { metrics: true, retention: true });
    expect(text).not.toMatch(/^etcd_/m);
    expect(text.match(/^push_metrics\(\)/gm)).toHaveLength(1);
    expect(shellCommand('redis-upload.sh')).toEqual(['/bin/sh', '-c', scriptText('redis-upload.sh'), 'redis-upload']);
  });
});
