/**
 * The etcd engine's own alert rule: EtcdFragmentationHigh, a member whose
 * database is still more fragmented than `defragmentation.thresholdPercent`
 * after the last defragmentation run (the run defragmented it and it did not
 * shrink, e.g. a defragmentation that etcd stopped; or the run left it alone
 * while a later write freed much). Only for a policy with `defragmentation`.
 * A NOSPACE or CORRUPT alarm the defragmentation run sees is pushed as the
 * backups push it and alerted by BackupSourceAlarm. EtcdDefragmentationFailed:
 * the last run failed (a defragmentation or the check after it; the members
 * after it were not reached, so their fragmentation is not pushed anew).
 */
import type { AlertContext } from '../engine';
import { ETCD_DEFAULTS } from './defaults';
import type { ResolvedDefragmentation } from './resolve';

export function etcdAlertRules(
  defrag: ResolvedDefragmentation | undefined,
  c: AlertContext,
): Record<string, unknown>[] {
  const names = c.targets('maintenance');
  if (!defrag || names.length === 0) return [];
  const threshold = defrag.thresholdPercent;
  const byMember = (metric: string) => `max by (namespace, policy, member) (${c.series(metric, 'maintenance')})`;
  const floor = ETCD_DEFAULTS.defragAlertMinBytes;
  return [
    {
      alert: 'EtcdFragmentationHigh',
      expr: `${byMember('defrag_fragmentation_after_ratio')} > ${threshold / 100} and on (namespace, policy, member) ${byMember('defrag_db_size_after_bytes')} > ${floor}`,
      for: c.reportedFor,
      labels: { severity: c.severity, policy: c.policy },
      annotations: {
        summary: 'An etcd member stays fragmented after its defragmentation',
        description: `After the last defragmentation run of policy ${c.policy}, member {{ $labels.member }} still has {{ $value | humanizePercentage }} of its database file free, above spec.etcd.defragmentation.thresholdPercent (${threshold}%), and the file is over ${floor / 1048576} MiB: see the run's log (a defragmentation that failed or timed out: raise memberTimeout), or defragment it by hand (etcdctl defrag --endpoints=<its client URL>).`,
      },
    },
    {
      alert: 'EtcdDefragmentationFailed',
      expr: `max by (namespace, policy) (${c.series('defrag_last_run', 'maintenance', ', outcome="failed"')}) == 1`,
      for: c.reportedFor,
      labels: { severity: c.severity, policy: c.policy },
      annotations: {
        summary: 'The last etcd defragmentation run failed',
        description: `The last defragmentation run of policy ${c.policy} failed: a member's defragmentation or the health check after it; the members after it were left alone. Its log names the member and etcdctl's error (a timeout: raise spec.etcd.defragmentation.memberTimeout). It clears with the next run that succeeds or is skipped.`,
      },
    },
  ];
}
