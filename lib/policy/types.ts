/**
 * The engine-neutral parts of a BackupPolicy document: the same structure in
 * YAML/JSON policy files and in the TypeScript props of the cdk8s constructs
 * and Pulumi components. The whole document type (with one key per engine) is
 * assembled from the engine definitions in `lib/registry.ts`. Defaults live in
 * `defaults.ts`.
 */
import type { PolicyCommonSpec, PolicyMetadata } from './types.generated';

export type * from './types.generated';

/** The `apiVersion` of every BackupPolicy document. */
export const API_VERSION = 'backup-cronjobs.io/v1alpha1';
/** The `kind` of every BackupPolicy document. */
export const KIND = 'BackupPolicy';

/** A policy document with the given spec type. */
export interface PolicyDocument<Spec extends PolicyCommonSpec = PolicyCommonSpec> {
  /** Always `API_VERSION`. */
  readonly apiVersion: typeof API_VERSION;
  /** Always `KIND`. */
  readonly kind: typeof KIND;
  /** Name, namespace, labels and annotations of the policy. */
  readonly metadata: PolicyMetadata;
  /** What to back up and how. */
  readonly spec: Spec;
}
