/** `dashboard`: the Grafana dashboard of the metrics the runs push, as JSON to import. */
import { grafanaDashboard } from '../model/dashboard';
import { CliIO, Command, EXIT, parseCommand } from './command';
import { jsonText } from './output';

export const dashboardCommand: Command = {
  name: 'dashboard',
  summary: 'print the Grafana dashboard of the pushed metrics (JSON to import)',
  help: `Usage: backup-cronjobs dashboard

Prints a Grafana dashboard (JSON) of the metrics the backup runs push to the
Pushgateway: per target, the age of the last success, the last result,
duration, size over time, failed runs, restore drills and uncovered shards.
Variables: the Prometheus data source, the engine's metric prefix
(backup_cronjobs for Vitess, etcd_backup, redis_backup), namespace, policy.
Import it in Grafana, or put it in a ConfigMap for Grafana's dashboard sidecar.

Options:
  -h, --help   show this help

Exit status: 0; 2 usage error.
`,
  run: (args: readonly string[], io: CliIO) => {
    if (!parseCommand(dashboardCommand, args, io, {}, false)) return EXIT.ok;
    io.stdout(jsonText(grafanaDashboard()));
    return EXIT.ok;
  },
};
