// The shipped dashboard file is the generator's output (npm run docs writes it); the queries it holds
// are checked against real metrics in test/lib/engines/redis/scripts/redis-dashboard.test.ts.
import { readFileSync } from 'fs';
import { join } from 'path';
import { runCli } from '../../../lib/cli';
import { grafanaDashboard } from '../../../lib/model/dashboard';

test('examples/grafana/backup-cronjobs-dashboard.json is what `backup-cronjobs dashboard` prints (run npm run docs after a change)', () => {
  let printed = '';
  expect(runCli(['dashboard'], { stdout: (t) => (printed += t), stderr: () => undefined })).toBe(0);
  expect(readFileSync(join(__dirname, '../../../examples/grafana/backup-cronjobs-dashboard.json'), 'utf8')).toBe(printed);
  expect(JSON.parse(printed)).toEqual(JSON.parse(JSON.stringify(grafanaDashboard())));
});
