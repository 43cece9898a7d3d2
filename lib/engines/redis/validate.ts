/** Checks of `spec.redis` beyond the schema (the per-shard settings levels included). */
import { IssueList, childPath, show } from '../../policy/errors';
import { validateNamedEntries } from '../../policy/named-entries';
import { validateS3 } from '../s3';
import { validateS3Copies } from '../s3-copies';
import type { RedisSpec } from './types';

export function validateRedis(spec: RedisSpec, path: string, issues: IssueList): void {
  validateNamedEntries(spec.shards ?? [], path, 'shards', 'shard', issues);

  const addresses = new Map<string, number>();
  (spec.sentinel?.addresses ?? []).forEach((address, i) => {
    const at = childPath(childPath(childPath(path, 'sentinel'), 'addresses'), i);
    const port = Number(address.slice(address.lastIndexOf(':') + 1));
    if (!(port >= 1 && port <= 65535)) issues.add(at, `received ${show(address)}; the port must be 1-65535`);
    const prev = addresses.get(address);
    if (prev !== undefined) issues.add(at, `received ${show(address)}; already listed at addresses[${prev}]`);
    else addresses.set(address, i);
  });

  const scratch = spec.scratch;
  if (scratch) {
    const at = childPath(path, 'scratch');
    if (scratch.size !== undefined && scratch.sizeLimit !== undefined) {
      issues.add(at, 'set either size (a per-run PVC) or sizeLimit (an emptyDir), not both');
    }
    if (scratch.storageClassName !== undefined && scratch.size === undefined) {
      issues.add(
        childPath(at, 'storageClassName'),
        'only valid with size (a per-run PVC); an emptyDir has no StorageClass',
      );
    }
  }

  if (spec.s3) validateS3(spec.s3, childPath(path, 's3'), issues);
  if (spec.copies) validateS3Copies(spec.copies, spec.s3, childPath(path, 'copies'), issues);
}
