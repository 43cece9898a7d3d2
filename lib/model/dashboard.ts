/**
 * A Grafana dashboard of the metrics the backup scripts push (lib/scripts/metrics.sh, the drills'
 * and the coverage checks'): per target, the age of the last success, the last result, duration,
 * size over time, failures, the content facts (keys, a shrink), restore drills and uncovered shards. One dashboard for every engine: the
 * `prefix` variable picks the engine's metric prefix, `namespace` and `policy` filter the targets.
 * Deterministic JSON (Grafana's dashboard model, schemaVersion 39).
 */
import { shortHash } from '../kubernetes/names';
import { ENGINE_KEYS, engineDefinition } from '../registry';

/** One panel: a title, what it shows, and its PromQL (Grafana variables `${prefix}`, `$namespace`, `$policy`). */
export interface DashboardPanel {
  /** The panel's title. */
  readonly title: string;
  /** What it shows, in a sentence (the panel's description in Grafana). */
  readonly description: string;
  /** Its PromQL query. */
  readonly expr: string;
  /** The legend format of each series. */
  readonly legend: string;
  /** Grafana's panel type. */
  readonly type: 'timeseries' | 'table';
  /** Grafana's unit of the values (`s`, `bytes`, `short`, …). */
  readonly unit: string;
}

/** A metric of the prefix chosen by the variable, for the selected namespaces and policies. */
const series = (name: string) => `{__name__="\${prefix}_${name}", namespace=~"$namespace", policy=~"$policy"}`;
const BY = 'namespace, policy, target, shard';
const LEGEND = '{{policy}} {{target}} {{shard}}';

/** The panels, in order. Every expression reads only metrics the scripts push. */
export const DASHBOARD_PANELS: readonly DashboardPanel[] = [
  {
    title: 'Age of the last successful backup',
    description: "Seconds since the end of each target's last successful run (what BackupStale alerts on).",
    expr: `time() - max by (${BY}) (${series('last_success_timestamp_seconds')})`,
    legend: LEGEND,
    type: 'table',
    unit: 's',
  },
  {
    title: 'Last run succeeded',
    description: '1 after a successful run, 0 after a failed one.',
    expr: `max by (${BY}) (${series('last_run_success')})`,
    legend: LEGEND,
    type: 'table',
    unit: 'bool',
  },
  {
    title: 'Duration of the last run',
    description: 'Seconds the last run took, successful or not.',
    expr: `max by (${BY}) (${series('duration_seconds')})`,
    legend: LEGEND,
    type: 'timeseries',
    unit: 's',
  },
  {
    title: 'Size of the last backup',
    description: 'Bytes of the last stored backup, over time (a sudden drop is worth a look).',
    expr: `max by (${BY}) (${series('size_bytes')})`,
    legend: LEGEND,
    type: 'timeseries',
    unit: 'bytes',
  },
  {
    title: 'Failed runs',
    description:
      'Failed runs per target since the Pushgateway began counting them (the runs read the counter back and push it + 1).',
    expr: `max by (${BY}) (${series('failure_total')})`,
    legend: LEGEND,
    type: 'table',
    unit: 'short',
  },
  {
    title: 'Restore drill succeeded',
    description: '1 after a good restore drill, 0 after a failed one.',
    expr: `max by (${BY}) (${series('restore_drill_success')})`,
    legend: LEGEND,
    type: 'table',
    unit: 'bool',
  },
  {
    title: 'Restore drill: age of the restored backup (recovery point)',
    description: 'Age of the backup the last drill restored, at its end.',
    expr: `max by (${BY}) (${series('restore_drill_backup_age_seconds')})`,
    legend: LEGEND,
    type: 'timeseries',
    unit: 's',
  },
  {
    title: 'Restore drill: duration (recovery time)',
    description: 'How long the last drill took: fetch, decrypt, verify, restore, compare.',
    expr: `max by (${BY}) (${series('restore_drill_duration_seconds')})`,
    legend: LEGEND,
    type: 'timeseries',
    unit: 's',
  },
  {
    title: 'Keys in the last checked backup',
    description:
      'Keys the last backup held when its content was checked (etcd: at the snapshot revision; Redis: the dump), over time: a fall is what BackupContentShrank looks for.',
    expr: `max by (${BY}) (${series('content_keys')})`,
    legend: LEGEND,
    type: 'timeseries',
    unit: 'short',
  },
  {
    title: 'Backup shrank',
    description:
      '1 when the last backup held fewer keys than spec.contentChecks.shrinkBelowPercent of the newest earlier one (BackupContentShrank), else 0.',
    expr: `max by (${BY}) (${series('content_shrunk')})`,
    legend: LEGEND,
    type: 'table',
    unit: 'bool',
  },
  {
    title: 'Uncovered shards',
    description: 'Serving shards a run counted that no CronJob of its policy backs up (Vitess, Redis).',
    expr: `max by (namespace, policy) (${series('uncovered_shards')})`,
    legend: '{{namespace}} {{policy}}',
    type: 'timeseries',
    unit: 'short',
  },
];

/** The metric prefixes of the engines (the `prefix` variable's options; the first is the default). */
export function metricPrefixes(): string[] {
  return [...new Set(ENGINE_KEYS.map((k) => engineDefinition(k).metricsPrefix))];
}

/** One policy's dashboard: its own uid and title, the variables set to its namespace, policy and prefix. */
export interface DashboardScope {
  /** The namespace of the policy's objects (the `namespace` variable). */
  readonly namespace: string;
  /** The policy's name (the `policy` variable). */
  readonly policy: string;
  /** Its engine's metric prefix (the `prefix` variable): `redis_backup`, `etcd_backup`, `vitess_backup`. */
  readonly prefix: string;
}

/** The dashboard JSON model, ready for Grafana's import or its dashboard sidecar; `scope`: one policy's. */
export function grafanaDashboard(scope?: DashboardScope): Record<string, unknown> {
  const prefixes = scope ? [scope.prefix, ...metricPrefixes().filter((p) => p !== scope.prefix)] : metricPrefixes();
  const datasource = { type: 'prometheus', uid: '${datasource}' };
  const selected = (value: string | undefined) =>
    value === undefined ? { text: 'All', value: '$__all' } : { text: value, value };
  const labelVariable = (name: 'namespace' | 'policy') => ({
    name,
    type: 'query',
    datasource,
    query: `label_values({__name__="\${prefix}_last_run_success"}, ${name})`,
    includeAll: true,
    multi: true,
    allValue: '.*',
    refresh: 2,
    sort: 1,
    current: selected(scope?.[name]),
  });
  return {
    title: scope ? `backup-cronjobs: ${scope.namespace}/${scope.policy}` : 'backup-cronjobs',
    uid: scope ? `backup-cronjobs-${shortHash(`${scope.namespace}/${scope.policy}`)}` : 'backup-cronjobs',
    description: 'Backups of backup-cronjobs policies: the metrics their runs push to the Pushgateway.',
    tags: ['backup-cronjobs', 'backups'],
    schemaVersion: 39,
    editable: true,
    time: { from: 'now-7d', to: 'now' },
    refresh: '5m',
    templating: {
      list: [
        { name: 'datasource', type: 'datasource', query: 'prometheus', current: {} },
        {
          name: 'prefix',
          label: 'engine metrics',
          type: 'custom',
          query: prefixes.join(','),
          current: { text: prefixes[0], value: prefixes[0] },
          options: prefixes.map((p, i) => ({ text: p, value: p, selected: i === 0 })),
        },
        labelVariable('namespace'),
        labelVariable('policy'),
      ],
    },
    panels: DASHBOARD_PANELS.map((p, i) => ({
      id: i + 1,
      type: p.type,
      title: p.title,
      description: p.description,
      datasource,
      gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: Math.floor(i / 2) * 8 },
      fieldConfig: { defaults: { unit: p.unit }, overrides: [] },
      targets: [
        {
          refId: 'A',
          datasource,
          expr: p.expr,
          legendFormat: p.legend,
          ...(p.type === 'table' ? { instant: true, format: 'table' } : {}),
        },
      ],
    })),
  };
}
