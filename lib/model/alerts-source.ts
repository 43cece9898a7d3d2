/**
 * BackupSourceAlarm: the database a policy backs up has raised an alarm (etcd's NOSPACE: the cluster
 * refuses writes). Engines that declare `sourceAlarms` push `<prefix>_source_alarm{alarm}` from every
 * backup run that reached the database, 1 while raised and 0 otherwise; one rule per alarm, reading the
 * policy's current, not suspended, backup targets only (as BackupPolicyDrift does).
 */
import { engineDefinition } from '../registry';
import type { ResolvedPolicy, ResolvedTarget } from './resolve';

/** How long a raised alarm must be seen before the alert fires: a backup run reports it once per run. */
export const SOURCE_ALARM_FOR = '1m';

/** The alarm rules of a policy whose engine reports alarms and whose runs push metrics (else none). */
export function sourceAlarmRules(r: ResolvedPolicy, watched: readonly ResolvedTarget[]): Record<string, unknown>[] {
  const alarms = engineDefinition(r.engine).sourceAlarms;
  const { rule, metrics } = r;
  if (!rule || !metrics || !alarms || watched.length === 0) return [];
  return Object.entries(alarms).map(([alarm, meaning]) => ({
    alert: 'BackupSourceAlarm',
    expr: `max by (namespace, policy, alarm) (${metrics.prefix}_source_alarm{namespace="${r.namespace}", policy="${r.name}", target=~"${watched.map((t) => t.name).join('|')}", alarm="${alarm}"}) > 0`,
    for: SOURCE_ALARM_FOR,
    labels: { severity: rule.severity, policy: r.name },
    annotations: {
      summary: `The database that policy ${r.name} backs up has raised the ${alarm} alarm`,
      description: `The last backup run of policy ${r.name} saw the ${alarm} alarm raised: ${meaning}. Backups still run.`,
    },
  }));
}
