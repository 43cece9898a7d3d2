import {
  configKeyProblem,
  fileModeProblem,
  hostPathProblem,
  hostPathTypeProblem,
  itemKeyProblem,
  itemPathProblem,
  subPathProblem,
} from '../../../support/kubernetes-validation';
import { goMessage, utilValidationRows } from './go-oracle';

describe('volumeMount subPath (validateLocalDescendingPath)', () => {
  test.each([
    ['data', undefined],
    ['a/b/c', undefined],
    ['a/b/', undefined],
    ['..a', undefined],
    ['a..b/c', undefined],
    ['./a', undefined],
    ['/data', ['must be a relative path']],
    ['..', ["must not contain '..'"]],
    ['../a', ["must not contain '..'"]],
    ['a/../b', ["must not contain '..'"]],
    ['a/..', ["must not contain '..'"]],
    ['/a/../b', ['must be a relative path', "must not contain '..'"]],
  ])('%j', (subPath, details) => {
    expect(subPathProblem(subPath)).toBe(details && `received ${JSON.stringify(subPath)}; ${details.join('; ')}`);
  });
});

describe('hostPath path', () => {
  test('absolute normalized paths pass', () => {
    for (const path of ['/', '/var/lib/etcd-backup', '/var/lib/etcd..old', '/etc/kubernetes/pki'])
      expect(hostPathProblem(path)).toBeUndefined();
  });

  test('the API server refuses empty paths and `..` elements', () => {
    expect(hostPathProblem('')).toBe('received ""; a hostPath volume needs a path');
    expect(hostPathProblem('/var/lib/../etc')).toBe('received "/var/lib/../etc"; must not contain \'..\'');
    expect(hostPathProblem('../etc')).toBe('received "../etc"; must not contain \'..\'');
  });

  test('we also refuse relative and unnormalized paths, naming the normalized form', () => {
    expect(hostPathProblem('var/lib/etcd')).toContain('must be an absolute path');
    expect(hostPathProblem('/var//lib')).toContain('such as "/var/lib"');
    expect(hostPathProblem('/var/./lib')).toContain('such as "/var/lib"');
    expect(hostPathProblem('/var/lib/')).toContain('such as "/var/lib"');
    expect(hostPathProblem('//')).toContain('such as "/"');
  });

  test('types', () => {
    for (const type of [
      '',
      'DirectoryOrCreate',
      'Directory',
      'FileOrCreate',
      'File',
      'Socket',
      'CharDevice',
      'BlockDevice',
    ])
      expect(hostPathTypeProblem(type)).toBeUndefined();
    expect(hostPathTypeProblem('directory')).toContain('supported values: "DirectoryOrCreate"');
  });
});

describe('config keys (IsConfigMapKey)', () => {
  // TestIsConfigMapKey, apimachinery v0.28.8 pkg/util/validation/validation_test.go.
  test('upstream vectors', () => {
    const good = [
      'a',
      'good',
      'good-good',
      'still.good',
      'this.is.also.good',
      '.so.is.this',
      'THIS_IS_GOOD',
      'so_is_this_17',
    ];
    const bad = ['.', '..', '..bad', 'b*d', 'bad!&bad'];
    expect(good.filter((k) => configKeyProblem(k) !== undefined)).toEqual([]);
    expect(bad.filter((k) => configKeyProblem(k) === undefined)).toEqual([]);
  });

  test('253 characters at most', () => {
    expect(configKeyProblem('k'.repeat(253))).toBeUndefined();
    expect(configKeyProblem('k'.repeat(254))).toMatch(/^received "k+\.\.\.; must be no more than 253 characters$/);
  });

  test('messages are exactly what apimachinery v0.28.8 returns, for every recorded input', () => {
    for (const row of utilValidationRows())
      expect([row.input, configKeyProblem(row.input)]).toEqual([row.input, goMessage(row.input, row.errors.configkey)]);
  });
});

describe('secret/configMap volume items', () => {
  test('key: required by the API server, a config key by our rule', () => {
    expect(itemKeyProblem('ca.crt')).toBeUndefined();
    expect(itemKeyProblem('')).toContain('an item needs the key');
    expect(itemKeyProblem('tls/ca.crt')).toContain('a valid config key must consist of');
    expect(itemKeyProblem('..data')).toContain("must not start with '..'");
  });

  test('path: relative, no `..` element, not starting with `..`', () => {
    for (const path of ['ca.crt', 'certs/ca.crt', 'a..b']) expect(itemPathProblem(path)).toBeUndefined();
    expect(itemPathProblem('')).toContain('an item needs the relative file path');
    expect(itemPathProblem('/ca.crt')).toBe('received "/ca.crt"; must be a relative path');
    expect(itemPathProblem('a/../b')).toBe('received "a/../b"; must not contain \'..\'');
    expect(itemPathProblem('..data')).toBe('received "..data"; must not start with \'..\'');
  });

  test('file modes from 0 to 0777', () => {
    for (const mode of [0, 0o400, 0o777]) expect(fileModeProblem(mode)).toBeUndefined();
    for (const mode of [-1, 0o1000, 1.5, '0400'])
      expect(fileModeProblem(mode)).toContain('must be a number between 0 and 0777 (octal), both inclusive');
  });
});
