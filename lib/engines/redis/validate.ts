/** Checks of `spec.redis` beyond the schema (the per-shard settings levels included). */
import { IssueList, show } from '../../policy/errors';
import type { PolicyPath } from '../../policy/errors';
import { validateNamedEntries } from '../../policy/named-entries';
import { validateS3 } from '../s3';
import { validateS3Copies } from '../s3-copies';
import type { Accepted } from '../engine';
import type { RedisSpec } from './types';

/** Each check reads only its parts, and runs when the schema accepted them. */
export function validateRedis(spec: RedisSpec, path: PolicyPath, issues: IssueList, accepted: Accepted): void {
  const at = (field: string) => [...path, field];
  if (accepted(at('shards'))) validateNamedEntries(spec.shards ?? [], path, 'shards', 'shard', issues);
  if (accepted(at('sentinel'))) validateSentinel(spec, path, issues);
  if (accepted(at('scratch'))) validateScratch(spec, path, issues);
  if (spec.s3 && accepted(at('s3'))) {
    validateS3(spec.s3, at('s3'), issues);
    if (spec.copies && accepted(at('copies'))) validateS3Copies(spec.copies, spec.s3, at('copies'), issues);
  }
}

function validateSentinel(spec: RedisSpec, path: PolicyPath, issues: IssueList): void {
  const addresses = new Map<string, number>();
  (spec.sentinel?.addresses ?? []).forEach((address, i) => {
    const at = [...path, 'sentinel', 'addresses', i];
    const port = Number(address.slice(address.lastIndexOf(':') + 1));
    if (!(port >= 1 && port <= 65535)) issues.add(at, `received ${show(address)}; the port must be 1-65535`);
    const prev = addresses.get(address);
    if (prev !== undefined) issues.add(at, `received ${show(address)}; already listed at addresses[${prev}]`);
    else addresses.set(address, i);
  });
}

function validateScratch(spec: RedisSpec, path: PolicyPath, issues: IssueList): void {
  const scratch = spec.scratch;
  if (scratch) {
    const at = [...path, 'scratch'];
    if (scratch.size !== undefined && scratch.sizeLimit !== undefined) {
      issues.add(at, 'set either size (a per-run PVC) or sizeLimit (an emptyDir), not both');
    }
    if (scratch.storageClassName !== undefined && scratch.size === undefined) {
      issues.add([...at, 'storageClassName'], 'only valid with size (a per-run PVC); an emptyDir has no StorageClass');
    }
  }
}
