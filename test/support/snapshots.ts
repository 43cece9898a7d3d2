/** Snapshot helpers: manifests with each embedded script or script file replaced by a line naming its hash and size. */
import { createHash } from 'crypto';
import { SCRIPT_HEADER } from '../../lib/scripts';

/**
 * The embedded container scripts are reviewed as the .sh files; in the snapshots each one is a line
 * naming its hash and size, so a script change still changes the snapshot but the reviewable part is
 * the manifest around it. So are the files of the policy's script ConfigMap (test/lib/workload/
 * scripts-as-written.test.ts checks them against the .sh files byte for byte).
 */
export function abbreviateScripts<T>(value: T): T {
  const abbreviated = (what: string, text: string) =>
    `<${what} sha256:${createHash('sha256').update(text).digest('hex').slice(0, 12)}, ${text.split('\n').length} lines>`;
  if (typeof value === 'string' && value.startsWith(SCRIPT_HEADER)) return abbreviated('embedded script', value) as T;
  const o = value as { kind?: unknown; metadata?: { name?: unknown }; data?: Record<string, string> };
  if (o?.kind === 'ConfigMap' && /-scripts-[0-9a-f]{10}$/.test(String(o.metadata?.name)) && o.data) {
    return {
      ...o,
      data: Object.fromEntries(Object.entries(o.data).map(([k, v]) => [k, abbreviated('script file', v)])),
    } as T;
  }
  if (Array.isArray(value)) return value.map(abbreviateScripts) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, abbreviateScripts(v)])) as T;
  }
  return value;
}
