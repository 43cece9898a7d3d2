/**
 * vitess-operator's naming and key-range rules, ported to find the objects
 * it made (the managed etcd and vtctld Services) and the shards a keyspace
 * spec stands for.
 */
import { createHash } from 'crypto';

/** `names.Hash` (pkg/operator/names/join.go): md5 over the parts, each followed by a NUL byte; the first 4 bytes in hex. */
function operatorHash(parts: readonly string[]): string {
  const md5 = createHash('md5');
  for (const part of parts) md5.update(part).update('\0');
  return md5.digest('hex').slice(0, 8);
}

/**
 * `names.JoinWithConstraints` (pkg/operator/names/join_constraints.go): parts
 * lowercased, other characters than [a-z0-9-] become `-`, joined with `-`, an
 * `x` prepended when the first character is not allowed, then `-<hash>`, or
 * `---<hash>` after cutting the end when the name would be too long.
 */
export function joinWithConstraints(
  maxLength: number,
  firstCharMustBeLetter: boolean,
  parts: readonly string[],
): string {
  const hash = operatorHash(parts);
  const clean = parts.map((p) => p.toLowerCase().replace(/[^a-z0-9-]/g, '-'));
  const first = firstCharMustBeLetter ? /^[a-z]/ : /^[a-z0-9]/;
  if (!first.test(clean[0] ?? '')) clean[0] = `x${clean[0] ?? ''}`;
  const joined = clean.join('-');
  const predicted = joined.length + 1 + hash.length;
  if (predicted <= maxLength) return `${joined}-${hash}`;
  return `${joined.slice(0, joined.length - (predicted - maxLength + 2))}---${hash}`;
}

/** `names.ServiceConstraints`: at most 63 characters, starting with a lowercase letter. */
export const SERVICE_NAME_MAX = 63;
/** `names.DefaultConstraints`: at most 253 characters, starting with a lowercase letter or digit. */
const DEFAULT_NAME_MAX = 253;

/** `lockserver.GlobalEtcdName`: the managed global etcd (room left for `-client`). */
export function globalEtcdName(cluster: string): string {
  return joinWithConstraints(SERVICE_NAME_MAX - '-client'.length, true, [cluster, 'etcd']);
}

/** `vtctld.ServiceName`: the cluster's vtctld Service. */
export function vtctldServiceName(cluster: string): string {
  return joinWithConstraints(SERVICE_NAME_MAX, true, [cluster, 'vtctld']);
}

/** `vitessbackup.ScheduleName`: the VitessBackupSchedule made from a cluster's schedule template. */
export function backupScheduleName(cluster: string, schedule: string): string {
  return joinWithConstraints(DEFAULT_NAME_MAX, false, [cluster, 'vbsc', schedule]);
}

/**
 * `VitessKeyspaceEqualPartitioning.KeyRanges` (Vitess `key.GenerateShardRanges(parts, hexWidth)`):
 * hexWidth 0 means 2 hex digits up to 256 parts, else 4; bounds are the truncated multiples of 16^width/parts.
 */
export function equalKeyRanges(parts: number, hexWidth: number): string[] {
  const width = hexWidth > 0 ? hexWidth : parts <= 256 ? 2 : 4;
  const max = 16 ** width;
  const hex = (n: number) => n.toString(16).padStart(width, '0');
  const size = max / parts;
  const ranges: string[] = [];
  let start = 0;
  for (let i = 1; i <= parts; i++) {
    const end = Math.trunc(i * size);
    ranges.push(`${start === 0 ? '' : hex(start)}-${end === max ? '' : hex(end)}`);
    start = end;
  }
  return ranges;
}

/** `SortKeyRanges`: by start, then by end with an empty (unbounded) end last. */
export function compareKeyRanges(a: string, b: string): number {
  const [aStart, aEnd] = a.split('-');
  const [bStart, bEnd] = b.split('-');
  if (aStart !== bStart) return aStart < bStart ? -1 : 1;
  if (aEnd === bEnd) return 0;
  if (aEnd === '') return 1;
  if (bEnd === '') return -1;
  return aEnd < bEnd ? -1 : 1;
}
