// The script embedder: header-declared modules, one-of choices (the backup destination), function-level
// reachability, overrides, and the two renderings (inline, sourced from the policy's ConfigMap).
import { execFileSync } from 'child_process';
import { readFileSync } from 'fs';
import { parseModule, reachable } from '../../../lib/scripts/compose';
import { inlineCommand, scriptModule, scriptModules, scriptText, shellCommand } from '../../../lib/scripts';
import { entryMain, entryWithoutMain, sourcedFiles, sourcingText } from '../../../lib/scripts/sourced';
import { requireCommands } from '../../support/services/commands';
import { SHIPPED_FILES } from './shipped';

const DESTINATIONS = ['retention-dir', 'retention-s3', 'retention-vitess'];
const defs = (text: string) => [...text.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)\(\) \{/gm)].map((m) => m[1]);

describe('parseModule', () => {
  const m = parseModule(
    'x.sh',
    'lib/x.sh',
    [
      '# shellcheck shell=sh',
      '# needs: a.sh b.sh',
      '# optional: metrics.sh',
      '# one-of: dest-a.sh dest-b.sh',
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
    ].join('\n'),
  );

  test('header lists, top-level code and functions as written (comment lines dropped), with where each is in the file', () => {
    expect(m.needs).toEqual(['a.sh', 'b.sh']);
    expect(m.optional).toEqual(['metrics.sh']);
    expect(m.oneOf).toEqual(['dest-a.sh', 'dest-b.sh']);
    expect(m.topLevel).toEqual(['set -eu', 'main "$@"']);
    expect(m.functions.map((f) => [f.name, f.lines, f.start, f.end])).toEqual([
      ['one', ['one() { two; }'], 6, 6],
      ['two', ['two() {', '  echo "$1"', '}'], 8, 11],
      ['main', ['main() {', '  one', '}'], 12, 14],
    ]);
    expect(m.text.split('\n')[9]).toBe('  # inner comment');
  });

  test('refuses heredocs and unterminated functions', () => {
    expect(() => parseModule('h.sh', 'lib/h.sh', 'cat <<EOF\nx\nEOF\n')).toThrow(/heredocs are not supported/);
    expect(() => parseModule('u.sh', 'lib/u.sh', 'f() {\n  echo\n')).toThrow(/function f has no closing/);
  });
});

describe('reachable', () => {
  const lib = parseModule(
    'lib.sh',
    'lib/lib.sh',
    'hook() { :; }\nused() { helper; }\nhelper() { :; }\nunused() { :; }\n',
  );
  const over = parseModule('over.sh', 'lib/over.sh', 'hook() {\n  echo real\n}\n');
  const entry = parseModule(
    'entry.sh',
    'lib/entry.sh',
    'main() {\n  used\n  hook\n  trap cleanup EXIT\n}\ncleanup() { :; }\nmain "$@"\n',
  );

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

describe('the backup destination is chosen at render time (retention.sh takes one of three modules)', () => {
  const upload = { metrics: true, retention: true };

  test('a Redis upload to S3 carries the S3 lister and deleter only: no directory or Vitess code, no etcd code, the metrics hook once', () => {
    const text = scriptText('redis-upload.sh', { ...upload, 'retention-s3': true });
    expect(scriptModules('redis-upload.sh', { ...upload, 'retention-s3': true }).map((m) => m.file)).toEqual([
      'common.sh',
      'step.sh',
      's3.sh',
      'redis-stream.sh',
      's3-retention.sh',
      'retention-s3.sh',
      'retention.sh',
      'content.sh',
      'redis-metadata.sh',
      'metrics.sh',
      'redis-upload.sh',
    ]);
    expect(text).toContain('list-objects-v2');
    expect(text).not.toMatch(/BACKUP_DIR|vtctldclient/);
    expect(text).not.toMatch(/^etcd_/m);
    expect(text.match(/^push_metrics\(\)/gm)).toHaveLength(1);
    expect(text.match(/^retention_list\(\)/gm)).toHaveLength(1);
  });

  test("without retention, the same modules: the content checks (content.sh) list and read the shard's objects with the S3 destination module", () => {
    expect(scriptModules('redis-upload.sh', { metrics: true, 'retention-s3': true }).map((m) => m.file)).toEqual([
      'common.sh',
      'step.sh',
      's3.sh',
      'redis-stream.sh',
      's3-retention.sh',
      'retention-s3.sh',
      'retention.sh',
      'content.sh',
      'redis-metadata.sh',
      'metrics.sh',
      'redis-upload.sh',
    ]);
  });

  test('an entry that reaches the destination functions without a choice is refused at render time', () => {
    expect(() => scriptText('prune.sh')).toThrow(
      /prune\.sh calls \w+, which one of retention-dir\.sh, retention-s3\.sh, retention-vitess\.sh defines: enable one of the features retention-dir, retention-s3, retention-vitess/,
    );
  });

  test('an entry that never reaches them needs no choice (the etcd precheck joins etcd-lib.sh, which needs retention.sh)', () => {
    const text = scriptText('etcd-snapshot.sh');
    expect(scriptModules('etcd-snapshot.sh').map((m) => m.file)).toContain('retention.sh');
    expect(text).not.toMatch(/retention_list|retention_plan/);
  });

  test('two choices are refused', () => {
    expect(() => scriptModules('prune.sh', { 'retention-dir': true, 'retention-s3': true })).toThrow(
      /retention\.sh takes one of retention-dir\.sh, retention-s3\.sh, retention-vitess\.sh; the features choose retention-dir\.sh and retention-s3\.sh/,
    );
  });
});

describe('the shipped scripts', () => {
  test('every script is shellcheck-clean POSIX sh', () => {
    expect(
      execFileSync(requireCommands('shellcheck').shellcheck, ['-s', 'sh', ...SHIPPED_FILES], { encoding: 'utf8' }),
    ).toBe('');
  });

  const entries = SHIPPED_FILES.filter((f) => /main "\$@"/.test(readFileSync(f, 'utf8'))).map((f) =>
    f.split('/').pop()!,
  );
  const featureSets: Record<string, boolean>[] = [
    {} as Record<string, boolean>,
    { metrics: true, retention: true },
  ].flatMap((f) => DESTINATIONS.map((d) => ({ ...f, [d]: true })));
  test.each(entries)(
    '%s: composed with every feature and destination, each function once, valid sh, every function it names defined',
    (entry) => {
      const dash = requireCommands('dash').dash;
      for (const features of featureSets) {
        const text = scriptText(entry, features);
        const names = defs(text);
        expect(new Set(names).size).toBe(names.length);
        expect(text.split('\n')[1]).toBe('# common.sh');
        execFileSync(dash, ['-n', '-c', text]);
        const all = new Set(scriptModules(entry, features).flatMap((m) => m.functions.map((f) => f.name)));
        const words = new Set(
          text
            .split('\n')
            .filter((l) => !l.startsWith('#'))
            .join('\n')
            .match(/[A-Za-z_][A-Za-z0-9_]*/g),
        );
        for (const w of words)
          if (all.has(w))
            expect({ entry, features, defined: names.includes(w) ? w : undefined }).toEqual({
              entry,
              features,
              defined: w,
            });
      }
    },
  );
});

describe('renderings', () => {
  test("inline: sh -c with the whole composition, $0 the entry name, the engine's shell if it names one", () => {
    const features = { 'retention-dir': true };
    expect(inlineCommand(shellCommand('prune.sh', features))).toEqual([
      '/bin/sh',
      '-c',
      scriptText('prune.sh', features),
      'prune',
    ]);
    expect(inlineCommand({ ...shellCommand('etcd-snapshot.sh'), shell: '$(TOOLS)/sh' })[0]).toBe('$(TOOLS)/sh');
  });

  test('sourced: modules as written, the entry without main; the command sources them in order, then main as written and its call', () => {
    const features = { metrics: true, 'retention-s3': true };
    const files = sourcedFiles('etcd-finalize.sh', features);
    expect(files.map((f) => f.file)).toEqual([
      'common.sh',
      's3.sh',
      's3-retention.sh',
      'retention-s3.sh',
      'retention.sh',
      'step.sh',
      'etcd-lib.sh',
      'content.sh',
      'etcd-alarm-gauges.sh',
      'metrics.sh',
      'etcd-finalize.sh',
    ]);
    const source = (file: string) =>
      readFileSync(
        SHIPPED_FILES.find((f) => f.endsWith(`/${file}`))!,
        'utf8',
      );
    for (const f of files.slice(0, -1)) expect(f.text).toBe(source(f.file));
    const finalize = files[files.length - 1].text;
    // everything of the file but main and its call: comments and top-level code (state=start) included
    expect(defs(finalize)).toEqual([
      'push_run_metrics',
      'undo_finalize',
      'remove_uploads',
      'metadata',
      'files_paths_json',
      'stored_check',
      'store_dir',
      'upload',
      'store_s3',
      'artifacts',
      'copies',
    ]);
    expect(finalize).toMatch(/^state=start$/m);
    expect(finalize.split('\n').length).toBe(
      source('etcd-finalize.sh').split('\n').length -
        (entryMain(scriptModule('etcd-finalize.sh')).main.end -
          entryMain(scriptModule('etcd-finalize.sh')).main.start +
          2),
    );
    const text = sourcingText('etcd-finalize.sh', features, '/scripts');
    expect(text.split('\n')[0]).toBe(
      "# backup-cronjobs: main of etcd-finalize.sh; every other line of it and of its modules from /scripts (the policy's script ConfigMap)",
    );
    expect(text.split('\n')[1]).toBe(
      '. /scripts/common.sh; . /scripts/s3.sh; . /scripts/s3-retention.sh; . /scripts/retention-s3.sh; . /scripts/retention.sh; . /scripts/step.sh; . /scripts/etcd-lib.sh; . /scripts/content.sh; . /scripts/etcd-alarm-gauges.sh; . /scripts/metrics.sh; . /scripts/etcd-finalize.sh',
    );
    expect(defs(text)).toEqual(['main']);
    const main = source('etcd-finalize.sh').split('\n');
    expect(text.split('\n').slice(2, -2)).toEqual(main.slice(main.indexOf('main() {'), main.indexOf('main "$@"') - 1));
    expect(text).toMatch(/\n\}\nmain "\$@"\n$/);
  });

  test('sourced: an entry whose only function is main is still a file (its comments); a function after main stays in it', () => {
    expect(sourcingText('prune.sh', { 'retention-vitess': true }, '/s').split('\n')[1]).toBe(
      '. /s/common.sh; . /s/retention-vitess.sh; . /s/retention.sh; . /s/prune.sh',
    );
    expect(defs(entryWithoutMain(scriptModule('etcd-prune.sh')))).toEqual(['prune']);
  });

  test('an entry must define main once and call it once', () => {
    const entry = (text: string) => parseModule('e.sh', 'lib/e.sh', text);
    expect(() => entryMain(entry('f() { :; }\nmain "$@"\n'))).toThrow(
      'lib/e.sh: an entry defines main() once and calls main "$@" once at the start of a line; found 0 and 1',
    );
    expect(() => entryMain(entry('main() {\n  :\n}\n'))).toThrow(/found 1 and 0/);
    expect(entryWithoutMain(entry('# c\nmain() {\n  :\n}\n\nmain "$@"\n'))).toBe('# c\n\n');
  });
});
