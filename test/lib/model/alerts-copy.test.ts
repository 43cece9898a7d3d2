// BackupCopyFailed (spec.<engine>.copies): which policies get it, and a promtool unit test of when it fires.
import { renderPolicy } from '../../../lib';
import type { Manifest } from '../../../lib';
import { alertingRulesOf } from '../../support/kube';
import { etcdPolicy } from '../engines/etcd/fixtures';
import { promtoolTest } from './promtool.harness';
import { policyIssues } from '../../support/policy-issues';

const metrics = { metrics: { pushgatewayUrl: 'http://pushgateway:9091', prometheusRule: {} } };
const copies = [
  { name: 'offsite', s3: { bucket: 'etcd-dr', region: 'eu-central-1' }, retention: { daily: 14 } },
  { name: 'cold', s3: { bucket: 'etcd-cold', region: 'us-east-1' } },
];
const objects = renderPolicy(etcdPolicy({ copies }, metrics));
const rule = objects.find((o) => o.kind === 'PrometheusRule');
const copyRules = (objs: readonly Manifest[]) => {
  const r = objs.find((o) => o.kind === 'PrometheusRule');
  return (r ? alertingRulesOf(r) : []).filter((a) => a.alert === 'BackupCopyFailed');
};
const target = objects.find((o) => o.kind === 'CronJob')!.metadata.name;

test("one BackupCopyFailed rule over the backup targets and the policy's copies; none without copies or metrics", () => {
  const [only, ...more] = copyRules(objects);
  expect(more).toEqual([]);
  expect(only.expr).toBe(
    `min by (namespace, policy, target, copy) (etcd_backup_copy_last_run_success{namespace="kube-system", policy="etcd", target=~"${target}", copy=~"offsite|cold"}) == 0`,
  );
  expect(copyRules(renderPolicy(etcdPolicy({ images: { shell: 'curlimages/curl:8.10.1' } }, metrics)))).toEqual([]);
  expect(copyRules(renderPolicy(etcdPolicy({ copies }, {})))).toEqual([]);
});

test('promtool: BackupCopyFailed fires for the copy whose last run failed, not for the good one, and clears with the next good copy', () => {
  const [r] = copyRules(objects);
  const series = (copy: string) =>
    `etcd_backup_copy_last_run_success{namespace="kube-system", policy="etcd", target="${target}", copy="${copy}", job="backup-cronjobs"}`;
  const out = promtoolTest(rule, [
    {
      interval: '1m',
      input_series: [
        { series: series('offsite'), values: '1+0x90' },
        { series: series('cold'), values: '1+0x9 0+0x59 1+0x20' },
      ],
      alert_rule_test: [
        { eval_time: '5m', alertname: 'BackupCopyFailed', exp_alerts: [] },
        {
          eval_time: '15m',
          alertname: 'BackupCopyFailed',
          exp_alerts: [
            {
              exp_labels: { severity: 'warning', policy: 'etcd', namespace: 'kube-system', target, copy: 'cold' },
              exp_annotations: {
                summary: r.annotations.summary,
                description: r.annotations.description
                  .replace('{{ $labels.target }}', target)
                  .replaceAll('{{ $labels.copy }}', 'cold'),
              },
            },
          ],
        },
        { eval_time: '85m', alertname: 'BackupCopyFailed', exp_alerts: [] },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});

test("copies are refused with the path, the value and what is allowed: a name twice, a copy onto the backup's own bucket, a private CA", () => {
  const s3 = { bucket: 'etcd-main', region: 'eu-west-1', path: 'prod' };
  const issues = policyIssues(() =>
    renderPolicy(
      etcdPolicy({
        destination: { s3 },
        copies: [
          { name: 'dr', s3: { ...s3 } },
          {
            name: 'dr',
            s3: { bucket: 'etcd-dr', region: 'eu-west-1', caBundle: { configMap: { name: 'ca', key: 'ca.crt' } } },
          },
        ],
      }),
    ),
  );
  expect(issues).toEqual([
    'spec.etcd.copies[0].s3: received bucket "etcd-main" and path "prod" at "AWS", where another destination of the policy already stores its backups; a copy needs a bucket, path or endpoint of its own',
    'spec.etcd.copies[1].name: received "dr", the name of spec.etcd.copies[0] too; each copy needs its own',
    "spec.etcd.copies[1].s3.caBundle: received a CA bundle; a copy's endpoint must be trusted by the aws CLI image's CAs (a copy with a private CA is not supported yet)",
  ]);
});
