/**
 * The public API of `backup-cronjobs`: read, check, render and plan backup
 * policies without cdk8s or Pulumi. Every name here is a promise under the
 * package's `exports`; the front ends (`backup-cronjobs/cdk8s`,
 * `backup-cronjobs/pulumi`) reach the rest of the core through
 * `lib/internal.ts`, which is not exported. `api/backup-cronjobs.api.md` is
 * the reviewed report of this surface (`npm run api`).
 *
 * @packageDocumentation
 */

// The policy: its document type (the same in files and in TypeScript props), every part of it, its JSON Schema.
export * from './policy/types';
export type { RetentionOptions } from './policy/retention-options';
export { policySchema } from './registry';
export type { BackupPolicy, BackupPolicySpec, EngineKey } from './registry';
export type { Schema } from './policy/schema-builders';
export type { S3Destination, S3Credentials, S3ObjectLock } from './engines/s3';
export type { S3Copy } from './engines/s3-copies';
export type {
  EtcdSpec,
  EtcdNodeSpec,
  EtcdNodeRole,
  EtcdDistribution,
  EtcdCertificates,
  EtcdControlPlaneFiles,
  EtcdDefragmentation,
  EtcdDestination,
  EtcdHostPathDestination,
  EtcdPvcDestination,
  EtcdImages,
  EtcdRestoreSpec,
} from './engines/etcd/types';
export type { RedisSpec, RedisShardSpec, RedisSentinel, RedisScratch } from './engines/redis/types';
export type {
  VitessSpec,
  VitessSchedule,
  VitessIncremental,
  VitessStrategy,
  VitessStorage,
  VitessS3Storage,
  VitessGcsStorage,
  VitessAzblobStorage,
  VitessCephStorage,
  VitessFileStorage,
  VitessScratch,
} from './engines/vitess/types';

// The flat props of one engine's schedule (what the cdk8s constructs and Pulumi components take).
export type { SchedulePolicyProps } from './engines/props';
export type { EtcdScheduleProps } from './engines/etcd/props';
export type { RedisScheduleProps } from './engines/redis/props';
export type { VitessScheduleProps } from './engines/vitess/props';
export type { EngineScheduleProps, ScheduleEngineKey } from './registry';

// Errors: every problem at once, each at its field path.
export { PolicyError, formatPath } from './policy/errors';
export type { MessageParts, PolicyIssue, PolicyPath } from './policy/errors';

// Load → validate → resolve → render.
export { loadPolicies } from './model/load';
export { validatePolicy } from './model/validate';
// The resolved policy is what planPolicies and restoreJob take; its parts (targets, resolved settings) are the
// package's own, not promised here.
export { resolvePolicy } from './model/resolve';
export type { ResolvedPolicy } from './model/resolve';
export { renderPolicy } from './model/render';
export type { Manifest, ObjectMeta } from './kubernetes/objects';

// What `backup-cronjobs plan` and `restore` print, as data.
export { planPolicies } from './model/plan';
export type { Plan, PlanOptions, PlanRun, PlanTarget, PlanOverlap, PlanDst } from './model/plan';
export type { DstAmbiguity, OffsetChange } from './schedule/dst';
export { restoreJob } from './model/restore';
export type { RestoreOutcome, RestoreRequest } from './model/restore';

// The YAML writer of `backup-cronjobs synth`: sorted keys, one document per object.
export { toYaml, documentYaml } from './yaml';

// What `backup-cronjobs list` and `dashboard` print, as data.
export { policyStores, listStore } from './model/list';
export type { BackupStore, ListedBackup, StoredObject } from './model/list';
export { grafanaDashboard, DASHBOARD_PANELS } from './model/dashboard';
export type { DashboardPanel, DashboardScope } from './model/dashboard';
