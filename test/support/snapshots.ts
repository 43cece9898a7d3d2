/** Snapshot helpers: manifests with each embedded script replaced by a line naming its hash and size. */
import { createHash } from 'crypto';
import { SCRIPT_HEADER } from '../../lib/scripts';

/**
 * The embedded container scripts are reviewed as the .sh files; in the snapshots each one is a line
 * naming its hash and size, so a script change still changes the snapshot but the reviewable part is
 * the manifest around it.
 */
export function abbreviateScripts<T>(value: T): T {
  if (typeof value === 'string' && value.startsWith(SCRIPT_HEADER)) {
    const hash = createHash('sha256').update(value).digest('hex').slice(0, 12);
    return `<embedded script sha256:${hash}, ${value.split('\n').length} lines>` as T;
  }
  if (Array.isArray(value)) return value.map(abbreviateScripts) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, abbreviateScripts(v)])) as T;
  }
  return value;
}
