import { RETENTION_JSON_SCHEMA } from '../retention';
import { bool, cron, named, obj, withMeta } from './schema-builders';

/** Schema of `spec.retention`: the retention engine's rules, plus when and how pruning runs. */
export const retentionSchema = named(
  'RetentionOptions',
  obj(RETENTION_JSON_SCHEMA.description, {
    ...RETENTION_JSON_SCHEMA.properties,
    dryRun: bool('Print the prune plan and delete nothing.', { default: false }),
    schedule: withMeta(
      cron(
        'Schedule of a separate retention-prune CronJob per destination (default: none; pruning runs after each verified backup).',
      ),
      { defaultText: 'no separate job; pruning runs after each verified backup' },
    ),
  }),
);
