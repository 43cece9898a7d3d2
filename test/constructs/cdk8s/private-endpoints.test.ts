// The cdk8s example of docs/operations/private-endpoints.md, run as written: a cdk8s-plus Secret (its basic-auth
// keys `username` and `password` are the defaults) names the Pushgateway's credentials, ConfigMap keys the CA bundles.
import { readFileSync } from 'fs';
import { join } from 'path';
import { App, Chart, Testing } from 'cdk8s';
import * as ts from 'typescript';
import { RedisBackupSchedule } from '../../../constructs/cdk8s';
import type { Manifest } from '../../../lib';
import { asCronJob, containerOf } from '../../support/kube';
import { codeBlocks } from '../../support/markdown';
import { ImportedSecret } from './cdk8s-plus';

const PAGE = 'docs/operations/private-endpoints.md';

/** The page's TypeScript block, compiled; it uses `chart`, `kplus` and `RedisBackupSchedule` as a chart's main.ts would. */
function docsExample(): (chart: Chart, kplus: unknown, schedule: typeof RedisBackupSchedule) => void {
  const blocks = codeBlocks(readFileSync(join(__dirname, '..', '..', '..', PAGE), 'utf8'), PAGE).filter(
    (b) => b.language === 'ts',
  );
  expect(blocks).toHaveLength(1);
  const js = ts.transpileModule(blocks[0].text, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020 },
  }).outputText;
  return new Function('chart', 'kplus', 'RedisBackupSchedule', js) as never; // eslint-disable-line @typescript-eslint/no-implied-eval -- runs the page's example as its reader would
}

test('the docs example: a cdk8s-plus Secret and CA bundles reach the pushing container by reference', () => {
  const app = new App();
  const chart = new Chart(app, 'backups', { namespace: 'redis' });
  // kplus.Secret.fromSecretName, as cdk8s-plus implements it (./cdk8s-plus.ts cites the source).
  const kplus = {
    Secret: { fromSecretName: (scope: Chart, id: string, name: string) => new ImportedSecret(scope, id, name) },
  };
  docsExample()(chart, kplus, RedisBackupSchedule);
  const cronJob = asCronJob((Testing.synth(chart) as Manifest[]).find((o) => o.kind === 'CronJob'));
  expect(containerOf(cronJob, 's3-upload').env).toEqual(
    expect.arrayContaining([
      { name: 'AWS_CA_BUNDLE', value: '/etc/backup-cronjobs/s3-ca/ca.crt' },
      {
        name: 'BACKUP_PUSHGATEWAY_USERNAME',
        valueFrom: { secretKeyRef: { name: 'pushgateway-auth', key: 'username' } },
      },
      {
        name: 'BACKUP_PUSHGATEWAY_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'pushgateway-auth', key: 'password' } },
      },
      { name: 'BACKUP_PUSHGATEWAY_CA_FILE', value: '/etc/backup-cronjobs/pushgateway-ca/ca.crt' },
    ]),
  );
});
