/** Checks of `spec.vitess` beyond the schema (the schedules' settings levels included). */
import { IssueList, fieldText, show } from '../../policy/errors';
import type { PolicyPath } from '../../policy/errors';
import { checkedDuration, validateSettings } from '../../policy/settings';
import { parseDuration } from '../../units';
import { vitessBackupEngine } from './defaults';
import { ScheduleError, cronFromFrequency } from '../../schedule';
import { RUNTIME_FLAGS, canonicalFlag, requiredFlags } from './flags';
import { resolveVitess } from './resolve';
import type { Accepted } from '../engine';
import type { VitessSpec } from './types';
import {
  accessModesProblem,
  itemKeyProblem,
  storageClassNameProblem,
  subPathProblem,
} from '../../kubernetes/validation';

/** The schedules' own checks run when the schema accepted the schedules; the rest reads the spec as a whole. */
export function validateVitess(spec: VitessSpec, path: PolicyPath, issues: IssueList, accepted: Accepted): void {
  if (accepted([...path, 'schedules'])) validateScheduleEntries(spec, path, issues);
  if (!accepted(path)) return;
  for (const field of ['minBackupInterval', 'minRetentionTime'] as const) {
    checkedDuration(spec.vtbackupRetention?.[field], [...path, 'vtbackupRetention', field], issues);
  }
  const scratch = spec.scratch;
  if (scratch?.accessModes)
    issues.addProblem([...path, 'scratch', 'accessModes'], accessModesProblem(scratch.accessModes));
  if (scratch?.storageClassName)
    issues.addProblem([...path, 'scratch', 'storageClassName'], storageClassNameProblem(scratch.storageClassName));
  const s3 = spec.storage?.s3;
  if (s3?.caBundle && s3.endpoint?.startsWith('http://')) {
    issues.add(
      [...path, 'storage', 's3', 'caBundle'],
      `received a CA bundle for the plain-HTTP endpoint ${show(s3.endpoint)}; a CA bundle only applies to https://: use https:// or remove caBundle`,
    );
  }
  const file = spec.storage?.file;
  if (file?.subPath !== undefined)
    issues.addProblem([...path, 'storage', 'file', 'subPath'], subPathProblem(file.subPath));
  // Secret keys mounted as files (`items`): key and file name
  const mounted: [PolicyPath, string | undefined][] = [
    [[...path, 'dbInitScriptSecret', 'key'], spec.dbInitScriptSecret?.key],
    ...(['s3', 'gcs', 'azblob', 'ceph'] as const).map((kind): [PolicyPath, string | undefined] => [
      [...path, 'storage', kind, 'authSecret', 'key'],
      spec.storage?.[kind]?.authSecret?.key,
    ]),
  ];
  for (const [at, key] of mounted) if (key !== undefined) issues.addProblem(at, itemKeyProblem(key));
  if (spec.extraFlags) validateExtraFlags(spec, path, issues);
  validateIncrementals(spec, path, issues);
  (spec.schedules ?? []).forEach((s, i) => validateSettings(s, [...path, 'schedules', i], issues));
}

/** Each schedule: a unique name, frequency or schedule, each keyspace/shard once with its key range in order. */
function validateScheduleEntries(spec: VitessSpec, path: PolicyPath, issues: IssueList): void {
  const names = new Map<string, number>();
  (spec.schedules ?? []).forEach((sched, i) => {
    const sPath = [...path, 'schedules', i];
    const prev = names.get(sched.name);
    if (prev !== undefined)
      issues.add(
        [...sPath, 'name'],
        `received ${show(sched.name)}; schedule names must be unique (also used by schedules[${prev}])`,
      );
    names.set(sched.name, i);
    if (sched.frequency !== undefined && sched.schedule !== undefined) {
      issues.add([...sPath, 'frequency'], 'set either frequency or schedule, not both');
    }
    if (sched.frequency !== undefined) {
      try {
        cronFromFrequency(sched.frequency, 'check');
      } catch (e) {
        if (!(e instanceof ScheduleError)) throw e;
        issues.add([...sPath, 'frequency'], `received ${show(sched.frequency)}; ${e.message}`);
      }
    }
    const seen = new Map<string, PolicyPath>();
    (sched.strategies ?? []).forEach((strategy, j) => {
      (strategy.shards ?? []).forEach((shard, k) => {
        const key = `${strategy.keyspace}/${shard}`;
        const shardPath = [...sPath, 'strategies', j, 'shards', k];
        const other = seen.get(key);
        if (other)
          issues.add(
            shardPath,
            fieldText`received ${show(shard)}; ${key} is already listed at ${other}: each keyspace/shard once per schedule`,
          );
        else seen.set(key, shardPath);
        if (!/^([0-9a-f]*)-([0-9a-f]*)$/.test(shard)) return;
        const [start, end] = shard.split('-');
        if (start && end && start >= end.padEnd(start.length, '0')) {
          issues.add(shardPath, `received ${show(shard)}; the key range start must be below its end`);
        }
      });
    });
  });
}

/** The flags (canonical, underscore spelling) that `extraFlags` may not set for this spec. */
export function reservedFlags(spec: VitessSpec): Set<string> {
  // the flag names only: durations are checked above
  return new Set([
    ...Object.keys(requiredFlags(resolveVitess({ ...spec, vtbackupRetention: undefined }), 'k', '-', undefined)),
    ...RUNTIME_FLAGS,
    'init_db_sql_file',
    'mysql_server_version',
  ]);
}

function validateExtraFlags(spec: VitessSpec, path: PolicyPath, issues: IssueList): void {
  const set = reservedFlags(spec);
  for (const key of Object.keys(spec.extraFlags ?? {})) {
    const flagPath = [...path, 'extraFlags', key];
    if (set.has(canonicalFlag(key))) {
      issues.add(
        flagPath,
        `--${key} is set by backup-cronjobs (${RUNTIME_FLAGS.includes(canonicalFlag(key) as never) ? 'decided at run time by the entry script' : 'derived from the policy'}) and may not be overridden`,
      );
    } else if (!/^-{0,2}[a-zA-Z0-9][-_a-zA-Z0-9.]*$/.test(key)) {
      issues.add(flagPath, `received ${show(key)}; a flag name is letters, digits, "-", "_" and "."`);
    }
  }
}

/**
 * `schedules[].incremental`: its settings, and the combinations Vitess refuses or that
 * would break the chain of backups a point-in-time restore needs.
 */
function validateIncrementals(spec: VitessSpec, path: PolicyPath, issues: IssueList): void {
  const withIncrementals: PolicyPath[] = [];
  (spec.schedules ?? []).forEach((sched, i) => {
    const incremental = sched.incremental;
    if (!incremental) return;
    const at = [...path, 'schedules', i, 'incremental'];
    withIncrementals.push(at);
    validateSettings({ schedule: incremental.schedule, timeout: incremental.timeout }, at, issues);
    const age = [...at, 'maxRecoveryPointAge'];
    if (checkedDuration(incremental.maxRecoveryPointAge, age, issues) === 0)
      issues.add(age, `received ${show(incremental.maxRecoveryPointAge)}; must be longer than 0s`);
    const engine = vitessBackupEngine(spec);
    if (engine !== 'builtin')
      issues.add(
        at,
        `received incremental backups with backupEngine ${show(engine)}; Vitess implements incremental backups and their point-in-time restore in its builtin engine (go/vt/mysqlctl/builtinbackupengine.go, executeIncrementalBackup): set backupEngine: builtin or remove incremental`,
      );
  });
  const minBackupInterval = spec.vtbackupRetention?.minBackupInterval;
  if (withIncrementals.length > 0 && minBackupInterval !== undefined && safeSeconds(minBackupInterval) > 0)
    issues.add(
      [...path, 'vtbackupRetention', 'minBackupInterval'],
      fieldText`received ${show(minBackupInterval)} with incremental backups (${withIncrementals[0]}); vtbackup measures it from the shard's newest complete backup, incremental ones included, so frequent incremental backups would keep it from ever taking a full backup (go/cmd/vtbackup, shouldBackup and lastCompleteBackup): keep it at 0s and schedule the full backups with the schedule`,
    );
  const minRetentionTime = spec.vtbackupRetention?.minRetentionTime;
  if (withIncrementals.length > 0 && minRetentionTime !== undefined && safeSeconds(minRetentionTime) > 0)
    issues.add(
      [...path, 'vtbackupRetention', 'minRetentionTime'],
      fieldText`received ${show(minRetentionTime)} with incremental backups (${withIncrementals[0]}); vtbackup's own pruning removes the oldest backups of the shard by age, full or incremental, so it can remove the full backup that kept incremental backups need (go/cmd/vtbackup, pruneBackups): keep it at 0s and prune with ${['spec', 'retention']}, which keeps every full backup a kept incremental needs`,
    );
}

/** Seconds of a duration, 0 when it does not parse (reported by checkedDuration already). */
function safeSeconds(value: string): number {
  try {
    return parseDuration(value);
  } catch {
    return 0;
  }
}
