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
  RetentionRuleSupport,
  ValidateRetentionOptions,
  ReportRetentionProblem,
} from './rules';
export {
  BUCKET_RULES,
  RETENTION_RULE_NAMES,
  MAX_RETENTION_COUNT,
  RETENTION_JSON_SCHEMA,
  checkRetentionRules,
  validateRetention,
  normalizeRetention,
  hasRetentionRules,
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
  civilToEpoch,
  RETENTION_CLI_FLAGS,
  retentionRulesFromFlags,
} from './listing';
export type { PeriodKeys } from './calendar';
export { periodKeys, formatUtc, isoWeek, MAX_EPOCH_SECONDS } from './calendar';
export type {
  AddEnv,
  DestinationEnvVar,
  EnvVar,
  RequireField,
  RetentionDestination,
  RetentionDestinationDefinition,
  RetentionDestinationName,
} from './env';
export {
  GENERIC_RETENTION_DESTINATIONS,
  RETENTION_ENV,
  retentionEnv,
  retentionDestinationEnv,
  validateRetentionDestination,
  validateRetentionFor,
  supportedRetentionRules,
} from './env';
