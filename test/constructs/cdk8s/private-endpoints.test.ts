// The cdk8s example of docs/operations/private-endpoints.md: a cdk8s-plus Secret (its basic-auth keys `username`
// and `password` are the defaults) names the Pushgateway's credentials, ConfigMap keys the CA bundles.
import { App, Chart, Testing } from 'cdk8s';
import { RedisBackupSchedule } from '../../../constructs/cdk8s';
import { ImportedSecret } from './cdk8s-plus';

test('a cdk8s-plus BasicAuthSecret and a CA bundle reach the pushing container by reference', () => {
  const app = new App();
  const chart = new Chart(app, 'backups', { namespace: 'redis' });
  const auth = new ImportedSecret(chart, 'pushgateway-auth', 'pushgateway-auth'); // kplus.Secret.fromSecretName
  new RedisBackupSchedule(chart, 'redis', {
    name: 'redis-backup',
    sentinel: { addresses: ['redis-sentinel.redis.svc:26379'] },
    shards: ['shard01'],
    s3: { bucket: 'redis-backups', region: 'us-east-1', endpoint: 'https://minio.example.com:9000', caBundle: { configMap: { name: 'minio-ca', key: 'ca.crt' } } },
    metrics: {
      pushgatewayUrl: 'https://pushgateway.monitoring.svc:9091',
      basicAuthSecret: { name: auth },
      caBundle: { configMap: { name: 'kube-root-ca.crt', key: 'ca.crt' } },
    },
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const cronJob: any = Testing.synth(chart).find((o) => o.kind === 'CronJob');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const upload = cronJob.spec.jobTemplate.spec.template.spec.containers.find((c: any) => c.name === 's3-upload');
  expect(upload.env).toEqual(expect.arrayContaining([
    { name: 'AWS_CA_BUNDLE', value: '/etc/backup-cronjobs/s3-ca/ca.crt' },
    { name: 'BACKUP_PUSHGATEWAY_USERNAME', valueFrom: { secretKeyRef: { name: 'pushgateway-auth', key: 'username' } } },
    { name: 'BACKUP_PUSHGATEWAY_PASSWORD', valueFrom: { secretKeyRef: { name: 'pushgateway-auth', key: 'password' } } },
    { name: 'BACKUP_PUSHGATEWAY_CA_FILE', value: '/etc/backup-cronjobs/pushgateway-ca/ca.crt' },
  ]));
});
