/**
 * The engine-neutral parts of a BackupPolicy document: the same structure in
 * YAML/JSON policy files and in the TypeScript props of the cdk8s constructs
 * and Pulumi components. The whole document type (with one key per engine) is
 * assembled from the engine definitions in `lib/registry.ts`. Defaults live in
 * `defaults.ts`.
 */
import type { PolicyCommonSpec, PolicyMetadata } from './types.generated';

export type * from './types.generated';

export const API_VERSION = 'backup-cronjobs.io/v1alpha1';
export const KIND = 'BackupPolicy';

/** A policy document with the given spec type. */
export interface PolicyDocument<Spec extends PolicyCommonSpec = PolicyCommonSpec> {
  readonly apiVersion: typeof API_VERSION;
  readonly kind: typeof KIND;
  readonly metadata: PolicyMetadata;
  readonly spec: Spec;
}
