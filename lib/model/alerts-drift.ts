/**
 * BackupPolicyDrift: the cluster has serving shards that no CronJob of the
 * policy backs up (a reshard, a new shard). Engines that report coverage push
 * `<prefix>_uncovered_shards` from every backup run; the rule reads the
 * policy's current, not suspended, backup targets only, so the last value a
 * removed or suspended CronJob pushed cannot hold it.
 */
import { engineDefinition } from '../registry';
import { reportedSeries } from './alerts-source';
import type { ResolvedPolicy, ResolvedTarget } from './resolve';

/**
 * The time a positive count must last before the alert fires: a reshard is
 * usually followed at once by the policy change that adds its new shards (the
 * count stays until the next runs of the keyspace's CronJobs push 0), and an
 * hour is short beside the backup interval those shards go without.
 */
export const DRIFT_FOR = '1h';

/** The drift rule of a policy whose engine reports coverage and whose runs push metrics (else none). */
export function driftRules(r: ResolvedPolicy, watched: readonly ResolvedTarget[]): Record<string, unknown>[] {
  if (!r.rule || !r.metrics || !engineDefinition(r.engine).reportsCoverage || watched.length === 0) return [];
  const series = reportedSeries(r, r.metrics.prefix, 'uncovered_shards', watched);
  return [
    {
      alert: 'BackupPolicyDrift',
      expr: `max by (namespace, policy) (${series}) > 0`,
      for: DRIFT_FOR,
      labels: { severity: r.rule.severity, policy: r.name },
      annotations: {
        summary: 'The cluster has shards that the backup policy does not cover',
        description:
          `Policy ${r.name} leaves {{ $value }} serving shard(s) of its cluster without a backup CronJob (a reshard or a new shard?); ` +
          'the backup logs name them. Add them to the policy: `backup-cronjobs discover` prints the shards: list.',
      },
    },
  ];
}
