/**
 * hostPath volume types, secret/configMap item paths and file modes as the Kubernetes 1.28 API
 * server checks them. Test-only: the engines build these; the host path, subPath and key rules
 * the policy checks use are in lib/kubernetes/validation/paths.ts.
 *
 * Sources (kubernetes v1.28.8, pkg/apis/core/validation/validation.go; unchanged in v1.33.3):
 * - validateHostPathVolumeSource: type one of the HostPathType values (validateHostPathType).
 * - validateKeyToPath (secret/configMap `items`): path required and validateLocalNonReservedPath
 *   (relative, no `..` element, not starting with `..`), mode 0-0777 (as are secret/configMap
 *   defaultMode).
 */
import { show } from '../../../lib/messages';
import { received } from '../../../lib/kubernetes/validation/problems';

const HOST_PATH_TYPES = [
  '',
  'DirectoryOrCreate',
  'Directory',
  'FileOrCreate',
  'File',
  'Socket',
  'CharDevice',
  'BlockDevice',
];
const FILE_MODE_MAX = 0o777;

const hasBackstep = (path: string): boolean => path.split('/').includes('..');

/** A hostPath volume `type`. */
export function hostPathTypeProblem(type: string): string | undefined {
  if (HOST_PATH_TYPES.includes(type)) return undefined;
  return `received ${show(type)}; supported values: ${HOST_PATH_TYPES.filter((t) => t)
    .map((t) => show(t))
    .join(', ')} or ""`;
}

/** The `path` of a secret/configMap volume item: relative, no `..` element, not starting with `..`. */
export function itemPathProblem(path: string): string | undefined {
  if (path === '') return 'received ""; an item needs the relative file path to project the key to';
  const errors: string[] = [];
  if (path.startsWith('/')) errors.push('must be a relative path');
  if (hasBackstep(path)) errors.push("must not contain '..'");
  else if (path.startsWith('..')) errors.push("must not start with '..'");
  return received(path, errors);
}

/** A file mode (`defaultMode`, `items[].mode`): 0 to 0777. */
export function fileModeProblem(mode: unknown): string | undefined {
  if (typeof mode === 'number' && Number.isInteger(mode) && mode >= 0 && mode <= FILE_MODE_MAX) return undefined;
  return `received ${show(mode)}; must be a number between 0 and 0777 (octal), both inclusive`;
}
