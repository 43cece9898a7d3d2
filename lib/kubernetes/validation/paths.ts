/**
 * File paths and data keys inside a pod spec as the Kubernetes 1.28 API server checks them, plus
 * the stricter forms we require: the rules the etcd and Vitess checks apply to host paths, subPaths
 * and mounted keys. hostPath types, item paths and file modes are the tests' oracle
 * (test/support/kubernetes-validation/paths.ts): the engines build them.
 *
 * Sources (kubernetes v1.28.8, pkg/apis/core/validation/validation.go; unchanged in v1.33.3):
 * - validateLocalDescendingPath (volumeMount subPath and subPathExpr, gitRepo directory): not
 *   absolute, no `..` element. validatePathNoBacksteps splits on `/` (filepath.ToSlash on a Linux
 *   API server leaves `\` alone).
 * - validateHostPathVolumeSource: path required, no `..` element (validatePathNoBacksteps).
 * - validateKeyToPath (secret/configMap `items`): key required.
 * - k8s.io/apimachinery/pkg/util/validation/validation.go IsConfigMapKey: `[-._a-zA-Z0-9]+`,
 *   ≤ 253, not `.` or `..`, not starting with `..` (ConfigMap/Secret data keys, configMapKeyRef
 *   and secretKeyRef keys).
 * Ours, on top of the API server:
 * - hostPath paths must be absolute and normalized (no empty, `.` or `..` segment, no trailing
 *   `/`): a relative path has no defined meaning on the node, and a normalized path gives each
 *   directory one spelling.
 * - an `items[].key` must be a valid config key: the API server only requires it to be non-empty,
 *   but a ConfigMap or Secret can never hold a key that fails IsConfigMapKey, so such an item
 *   never resolves.
 */
import { posix } from 'path';
import { show } from '../../messages';
import { DNS1123_SUBDOMAIN_MAX_LENGTH } from './names';
import { anchored, byteLength, maxLenError, received, regexError } from './problems';

const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const CONFIG_KEY = anchored(CONFIG_KEY_FMT);

/** hasChDirPrefix. */
export function chDirPrefixErrors(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

const hasBackstep = (path: string): boolean => path.split('/').includes('..');

/** IsConfigMapKey: the API server's messages, empty when valid. */
function configKeyErrors(key: string): string[] {
  const errors: string[] = [];
  if (byteLength(key) > DNS1123_SUBDOMAIN_MAX_LENGTH) errors.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!CONFIG_KEY.test(key))
    errors.push(regexError(CONFIG_KEY_MSG, CONFIG_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  errors.push(...chDirPrefixErrors(key));
  return errors;
}

/** A key of ConfigMap/Secret data, or the key of a configMapKeyRef/secretKeyRef. */
export function configKeyProblem(key: string): string | undefined {
  return received(key, configKeyErrors(key));
}

/** A volumeMount `subPath` (or `subPathExpr`): relative, without `..` elements. */
export function subPathProblem(subPath: string): string | undefined {
  const errors: string[] = [];
  if (subPath.startsWith('/')) errors.push('must be a relative path');
  if (hasBackstep(subPath)) errors.push("must not contain '..'");
  return received(subPath, errors);
}

/**
 * A hostPath volume `path`. The API server requires it non-empty without `..` elements; we also
 * require an absolute, normalized path.
 */
export function hostPathProblem(path: string): string | undefined {
  if (path === '') return 'received ""; a hostPath volume needs a path';
  if (hasBackstep(path)) return received(path, ["must not contain '..'"]);
  const errors: string[] = [];
  if (!path.startsWith('/')) errors.push('must be an absolute path (it is a directory on the node)');
  else if (path !== '/' && (posix.normalize(path) !== path || path.endsWith('/'))) {
    errors.push(
      `must be a normalized absolute path without empty or '.' segments or a trailing '/', such as ${show(posix.normalize(path).replace(/(.)\/$/, '$1'))}`,
    );
  }
  return received(path, errors);
}

/**
 * The `key` of a secret/configMap volume item. The API server requires it non-empty; we also
 * require a valid config key, since no ConfigMap or Secret can hold another one.
 */
export function itemKeyProblem(key: string): string | undefined {
  if (key === '') return 'received ""; an item needs the key of the Secret or ConfigMap entry to project';
  return configKeyProblem(key);
}
