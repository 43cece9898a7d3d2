/**
 * Retention: one model (keepLast, maxAge, maxTotalSize, hourly … yearly),
 * implemented here as the TypeScript reference and in
 * `lib/scripts/retention.sh` for the containers (property tests prove both
 * keep exactly the same backups).
 */

export type {
  RetentionRules,
  RetentionRuleName,
  BucketRuleName,
  NormalizedRetentionRules,
  RetentionDestinationKind,
  ValidateRetentionOptions,
} from './rules';
export {
  BUCKET_RULES,
  RETENTION_RULE_NAMES,
  MAX_RETENTION_COUNT,
  RETENTION_JSON_SCHEMA,
  validateRetention,
  normalizeRetention,
  hasRetentionRules,
  supportedRetentionRules,
} from './rules';
export type { BackupEntry, RetentionReason, PlannedBackup, RetentionPlan, PlanOptions } from './plan';
export {
  planRetention,
  planNormalized,
  formatPlan,
  formatRules,
  plannedDeletions,
  sortNewestFirst,
  compareBytes,
} from './plan';
export {
  parseListing,
  formatListing,
  planFromListing,
  backupName,
  formatBackupTimestamp,
  parseBackupName,
  parseVitessBackupName,
  RETENTION_CLI_FLAGS,
  retentionRulesFromFlags,
} from './listing';
export type { PeriodKeys } from './calendar';
export { periodKeys, formatUtc, isoWeek, MAX_EPOCH_SECONDS } from './calendar';
export type { DestinationEnvVar, EnvVar, RetentionDestination, RetentionDestinationName } from './env';
export {
  RETENTION_ENV,
  retentionEnv,
  retentionDestinationEnv,
  validateRetentionDestination,
  validateRetentionFor,
} from './env';
