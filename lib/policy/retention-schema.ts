import { duration, int, obj, str } from './schema-builders';

const periods = (unit: string) => int(`Keep the newest backup of each of the last N ${unit}s that have one.`, 1, 100000);

/** Schema of `spec.retention`; semantics in lib/retention. */
export const retentionSchema = obj('Retention: a backup is kept if any rule keeps it; the newest verified backup is always kept.', {
  keepLast: int('Keep the newest N backups.', 1, 100000),
  maxAge: duration('Keep backups younger than this, e.g. 30d.'),
  maxTotalSize: str('Keep the newest backups whose total size fits, e.g. 50Gi or 20GB (explicit unit).', { pattern: '^[0-9]+(\\.[0-9]+)?(B|KB|MB|GB|TB|Ki|Mi|Gi|Ti)$' }),
  hourly: periods('hour'),
  daily: periods('day'),
  weekly: periods('ISO week'),
  monthly: periods('month'),
  yearly: periods('year'),
  dryRun: { type: 'boolean', description: 'Print the prune plan and delete nothing.', default: false },
  schedule: str('Schedule of the separate retention-prune CronJob (default: none; pruning runs after each backup).'),
});
