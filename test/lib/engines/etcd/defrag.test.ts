// spec.etcd.defragmentation: the maintenance CronJob as rendered (one per policy in both modes, the snapshots'
// serialization group, the backups' nodes, network and certificates), its refusals, its alert (promtool) and
// its place in `backup-cronjobs plan`.
import * as fs from 'fs';
import * as path from 'path';
import { renderPolicy, resolvePolicy, toYaml } from '../../../../lib';
import type { BackupPolicy, EtcdDefragmentation, Manifest, SerializationGroup } from '../../../../lib';
import { runCli } from '../../../../lib/cli';
import { maintenanceOverlaps, planPolicies } from '../../../../lib/model/plan';
import { alertingRulesOf, containerOf, envValuesOf, podSpecOf } from '../../../support/kube';
import { abbreviateScripts } from '../../../support/snapshots';
import { promtoolTest } from '../../model/promtool.harness';
import { cronJobs, etcdPolicy, problems, tempDir, removeTempDirs } from './fixtures';

afterAll(() => removeTempDirs());

const SCHEDULE = '30 3 * * 0';
const component = (o: Manifest) => o.metadata.labels?.['app.kubernetes.io/component'];
const ofComponent = (objects: readonly Manifest[], c: string) =>
  cronJobs([...objects]).filter((o) => component(o) === c);
const defragPolicy = (
  etcd: Record<string, unknown> = {},
  defrag: Partial<EtcdDefragmentation> = {},
  spec: Record<string, unknown> = {},
): BackupPolicy => etcdPolicy({ ...etcd, defragmentation: { schedule: SCHEDULE, ...defrag } }, spec);

test('no defragmentation CronJob unless the policy asks for one', () => {
  expect(ofComponent(renderPolicy(etcdPolicy()), 'maintenance')).toEqual([]);
});

test('one CronJob <policy>-defrag with every default, after its script ConfigMap (snapshot)', () => {
  const objects = renderPolicy(defragPolicy());
  const [cj, ...more] = ofComponent(objects, 'maintenance');
  expect(more).toEqual([]);
  expect(cj.metadata.name).toBe('etcd-defrag');
  expect(toYaml(abbreviateScripts([objects[0], cj]))).toMatchSnapshot();
});

test('perNode mode: still one CronJob for the cluster, not pinned, in the cluster-wide group of every snapshot pod', () => {
  const objects = renderPolicy(defragPolicy({ mode: 'perNode', nodes: ['cp-1', 'cp-2', 'cp-3'] }));
  const [cj, ...more] = ofComponent(objects, 'maintenance');
  expect(more).toEqual([]);
  const backups = ofComponent(objects, 'backup');
  expect(backups).toHaveLength(3);
  const pod = podSpecOf(cj);
  expect(pod.nodeSelector).toBeUndefined();
  for (const b of backups) {
    const bp = podSpecOf(b);
    // the same group label and the same required anti-affinity term (scope cluster) as every backup pod
    expect(pod.affinity?.podAntiAffinity).toEqual(bp.affinity?.podAntiAffinity);
    expect(pod.affinity?.nodeAffinity).toEqual(bp.affinity?.nodeAffinity);
    expect(pod.tolerations).toEqual(bp.tolerations);
    expect(pod.hostNetwork).toBe(true);
    expect(pod.volumes?.find((v) => v.name === 'etcd-certs')).toEqual(bp.volumes?.find((v) => v.name === 'etcd-certs'));
  }
  const term = pod.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0];
  expect(term?.labelSelector?.matchLabels).toEqual({ 'backup-cronjobs.io/serialization-group': 'etcd-snapshot' });
  expect(term?.topologyKey).toBe('kubernetes.io/os');
  const r = resolvePolicy(defragPolicy({ mode: 'perNode', nodes: ['cp-1'] }));
  const defrag = r.targets.find((t) => t.component === 'maintenance')!;
  expect(defrag.serializationGroup).toEqual({
    name: 'etcd-snapshot',
    scope: 'cluster',
    topologyKey: 'kubernetes.io/os',
  });
  expect(defrag.node).toBeUndefined();
});

test('the report pushes from the image the finalize step pushes from: with copies, the aws CLI image (curl), so a hostPath policy that pushes needs no images.shell', () => {
  const objects = renderPolicy(
    defragPolicy(
      { copies: [{ name: 'offsite', s3: { bucket: 'etcd-dr', region: 'eu-west-1' } }] },
      {},
      { metrics: { pushgatewayUrl: 'http://pushgateway:9091' } },
    ),
  );
  const report = containerOf(ofComponent(objects, 'maintenance')[0], 'report');
  const finalize = containerOf(ofComponent(objects, 'backup')[0], 'finalize');
  expect(report.image).toBe('amazon/aws-cli:2.17.64');
  expect(finalize.image).toBe(report.image);
  expect(problems(defragPolicy({}, {}, { metrics: { pushgatewayUrl: 'http://pushgateway:9091' } }))).toEqual([
    expect.stringMatching(/^spec\.etcd\.images: metrics are pushed with curl, which the default busybox image lacks/),
  ]);
});

test('the defrag step: etcd image, no ETCDCTL_ENDPOINTS (each call names its member), threshold and timeout', () => {
  const cj = ofComponent(
    renderPolicy(defragPolicy({}, { thresholdPercent: 30, memberTimeout: '2m' })),
    'maintenance',
  )[0];
  expect(containerOf(cj, 'defrag').image).toBe('registry.k8s.io/etcd:3.5.16-0');
  const env = envValuesOf(cj, 'defrag');
  expect(env.ETCDCTL_ENDPOINTS).toBeUndefined();
  expect(env.ETCD_DEFRAG_LOCAL_ENDPOINT).toBe('https://127.0.0.1:2379');
  expect(env.ETCD_DEFRAG_THRESHOLD_PERCENT).toBe('30');
  expect(env.ETCD_DEFRAG_MEMBER_TIMEOUT).toBe('120s');
  expect(env.ETCDCTL_CERT).toBe('/etc/etcd-backup/pki/healthcheck-client.crt');
  expect(podSpecOf(cj).initContainers?.map((c) => c.name)).toEqual(['tools', 'defrag']);
  expect(podSpecOf(cj).containers.map((c) => c.name)).toEqual(['report']);
});

test('job settings: spec.defaults, then spec.etcd.defragmentation, field by field; the run deadline defaults to 30m', () => {
  const r = resolvePolicy(
    defragPolicy({}, { timeout: '45m', suspend: true }, { defaults: { schedule: '0 * * * *', backoffLimit: 4 } }),
  );
  const t = r.targets.find((x) => x.component === 'maintenance')!;
  expect(t.schedule.written).toBe(SCHEDULE);
  expect(t.settings.activeDeadlineSeconds).toBe(2700);
  expect(t.settings.suspend).toBe(true);
  expect(t.settings.backoffLimit).toBe(4);
  const backup = r.targets.find((x) => x.component === 'backup')!;
  expect(backup.settings.suspend).toBe(false);
  const plain = resolvePolicy(defragPolicy()).targets.find((x) => x.component === 'maintenance')!;
  expect(plain.settings.activeDeadlineSeconds).toBe(1800);
});

test('with a per-node group in spec.defaults, the defragmentation keeps its name and is cluster-wide; plan sees both meet', () => {
  const policy = defragPolicy(
    { mode: 'perNode', nodes: ['cp-1', 'cp-2'] },
    { schedule: '5 3 * * *' },
    { defaults: { schedule: '0 3 * * *', placement: { serializationGroup: { name: 'etcd-jobs' } } } },
  );
  const objects = renderPolicy(policy);
  const terms = (o: Manifest) => podSpecOf(o).affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const [defrag] = ofComponent(objects, 'maintenance');
  // the snapshots stay per node (they may run side by side on different nodes); the defragmentation's term keeps
  // every snapshot pod of the group off every node while it runs, and the scheduler applies it to them too
  for (const b of ofComponent(objects, 'backup')) {
    expect(terms(b)?.map((t) => t.topologyKey)).toEqual(['kubernetes.io/hostname']);
    expect(podSpecOf(b).affinity).toBeDefined();
  }
  expect(terms(defrag)?.map((t) => [t.labelSelector?.matchLabels, t.topologyKey])).toEqual([
    [{ 'backup-cronjobs.io/serialization-group': 'etcd-jobs' }, 'kubernetes.io/os'],
  ]);
  const p = planPolicies([resolvePolicy(policy)], {
    from: new Date('2026-12-01T00:00:00Z'),
    count: 1,
    horizon: 86400_000,
  });
  expect(maintenanceOverlaps(p).map((o) => o.targets.map((i) => p.targets[i].name))).toEqual([
    ['etcd-cp-1', 'etcd-defrag'],
    ['etcd-cp-2', 'etcd-defrag'],
  ]);
  // two per-node snapshots on different nodes still never meet
  expect(p.overlaps.filter((o) => o.reason === 'group').map((o) => o.targets.map((i) => p.targets[i].name))).toEqual([
    ['etcd-cp-1', 'etcd-defrag'],
    ['etcd-cp-2', 'etcd-defrag'],
  ]);
});

test('each refusal names the path, the value and what is allowed', () => {
  const at = (defrag: Record<string, unknown>, spec: Record<string, unknown> = {}) =>
    problems(etcdPolicy({ defragmentation: defrag as unknown as EtcdDefragmentation }, spec));
  expect(at({})).toEqual(['spec.etcd.defragmentation.schedule: required field is missing']);
  expect(at({ schedule: '61 * * * *' })).toEqual([
    'spec.etcd.defragmentation.schedule: received "61 * * * *"; field "minute" value "61" is out of range 0-59',
  ]);
  expect([0, 100, 50.5].flatMap((value) => at({ schedule: SCHEDULE, thresholdPercent: value }))).toEqual([
    'spec.etcd.defragmentation.thresholdPercent: received 0; must be >= 1',
    'spec.etcd.defragmentation.thresholdPercent: received 100; must be <= 99',
    'spec.etcd.defragmentation.thresholdPercent: expected integer, received number 50.5',
  ]);
  expect(at({ schedule: SCHEDULE, memberTimeout: '5 minutes' })).toEqual([
    expect.stringMatching(/^spec\.etcd\.defragmentation\.memberTimeout: received "5 minutes"; must be a duration: /),
  ]);
  expect(at({ schedule: SCHEDULE, memberTimeout: '0s' })).toEqual([
    'spec.etcd.defragmentation.memberTimeout: received "0s"; must be longer than 0s',
  ]);
  expect(at({ schedule: SCHEDULE, memberTimeout: '30m' })).toEqual([
    `spec.etcd.defragmentation.memberTimeout: received "30m"; must be shorter than the run's timeout (the default timeout: "30m"), or the Job's deadline stops a member's defragmentation midway: at most 29m59s, or raise spec.etcd.defragmentation.timeout`,
  ]);
  expect(at({ schedule: SCHEDULE }, { defaults: { timeout: '4m' } })).toEqual([
    `spec.etcd.defragmentation.memberTimeout: received "5m"; must be shorter than the run's timeout (spec.defaults.timeout: "4m"), or the Job's deadline stops a member's defragmentation midway: at most 3m59s, or raise spec.etcd.defragmentation.timeout`,
  ]);
  expect(at({ schedule: SCHEDULE, timeout: '1h', memberTimeout: '30m' }, { defaults: { timeout: '4m' } })).toEqual([]);
  expect(at({ schedule: SCHEDULE, timeout: '99999w', memberTimeout: '99998w' })).toEqual([
    `spec.etcd.defragmentation.memberTimeout: received "99998w"; etcdctl's --command-timeout is a Go duration (int64 nanoseconds): at most 106751d23h47m16s`,
  ]);
  expect(at({ schedule: SCHEDULE, placement: { serializationGroup: { name: 'mine' } } })).toEqual([
    `spec.etcd.defragmentation.placement.serializationGroup: received {"name":"mine"}; the defragmentation runs in the snapshots' serialization group ("etcd-snapshot", or spec.defaults.placement.serializationGroup), so that it never blocks a member while a snapshot reads from it: remove it here`,
  ]);
  expect(at({ schedule: SCHEDULE, every: 'week' })).toEqual([
    expect.stringMatching(
      /^spec\.etcd\.defragmentation\.every: unknown field; allowed fields: schedule, .*, thresholdPercent, memberTimeout$/,
    ),
  ]);
  expect(at({ schedule: SCHEDULE, thresholdPercent: 1, memberTimeout: '29m' })).toEqual([]);
  // a node's own group would take its snapshots out of the defragmentation's
  const nodes = (group: SerializationGroup, defaults: Record<string, unknown> = {}) =>
    problems(
      etcdPolicy(
        {
          mode: 'perNode',
          nodes: ['cp-1', { name: 'cp-2', placement: { serializationGroup: group } }],
          defragmentation: { schedule: SCHEDULE },
        },
        defaults,
      ),
    );
  expect(nodes({ name: 'mine' })).toEqual([
    `spec.etcd.nodes[1].placement.serializationGroup: received {"name":"mine"}; with spec.etcd.defragmentation every snapshot is in the defragmentation's serialization group ("etcd-snapshot"), so that the defragmentation never blocks a member while a snapshot reads from it: remove it here, or name "etcd-snapshot"`,
  ]);
  expect(nodes({ name: 'etcd-snapshot', scope: 'node' })).toEqual([]);
  expect(
    nodes({ name: 'etcd-jobs' }, { defaults: { placement: { serializationGroup: { name: 'etcd-jobs' } } } }),
  ).toEqual([]);
});

// ---------------------------------------------------------------------------------------------
// Alerts

const metrics = { metrics: { pushgatewayUrl: 'http://pushgateway:9091', prometheusRule: {} } };
const shell = { images: { shell: 'curlimages/curl:8.10.1' } };
const ruleOf = (objects: readonly Manifest[]) => objects.find((o) => o.kind === 'PrometheusRule');
const alerts = (objects: readonly Manifest[], name: string) =>
  alertingRulesOf(ruleOf(objects)).filter((r) => r.alert === name);

test('EtcdFragmentationHigh: only with defragmentation and pushed metrics, over the defrag CronJob, at the policy threshold', () => {
  expect(alerts(renderPolicy(etcdPolicy(shell, metrics)), 'EtcdFragmentationHigh')).toEqual([]);
  const [rule, ...more] = alerts(
    renderPolicy(defragPolicy(shell, { thresholdPercent: 40 }, metrics)),
    'EtcdFragmentationHigh',
  );
  expect(more).toEqual([]);
  const sel = '{namespace="kube-system", policy="etcd", target=~"etcd-defrag"}';
  expect(rule.expr).toBe(
    `max by (namespace, policy, member) (etcd_backup_defrag_fragmentation_after_ratio${sel}) > 0.4 and on (namespace, policy, member) max by (namespace, policy, member) (etcd_backup_defrag_db_size_after_bytes${sel}) > 104857600`,
  );
  expect(rule.for).toBe('1m');
  // suspended: not watched
  expect(alerts(renderPolicy(defragPolicy(shell, { suspend: true }, metrics)), 'EtcdFragmentationHigh')).toEqual([]);
});

test('BackupSourceAlarm watches the defragmentation run too: it pushes the alarms it sees as the backups do', () => {
  const [nospace] = alerts(renderPolicy(defragPolicy(shell, {}, metrics)), 'BackupSourceAlarm');
  expect(nospace.expr).toBe(
    'max by (namespace, policy, alarm) (etcd_backup_source_alarm{namespace="kube-system", policy="etcd", target=~"etcd|etcd-defrag", alarm="NOSPACE"}) > 0',
  );
  expect(nospace.annotations.description).toMatch(/^The last backup or maintenance run of policy etcd saw the NOSPACE/);
  const [plain] = alerts(renderPolicy(etcdPolicy(shell, metrics)), 'BackupSourceAlarm');
  expect(plain.annotations.description).toMatch(/^The last backup run of policy etcd saw/);
});

test('promtool: EtcdFragmentationHigh fires for the member still fragmented and big after the run, and clears with the next good run', () => {
  const objects = renderPolicy(defragPolicy(shell, {}, metrics));
  const [rule] = alerts(objects, 'EtcdFragmentationHigh');
  const series = (metric: string, member: string, values: string) => ({
    series: `etcd_backup_${metric}{namespace="kube-system", policy="etcd", target="etcd-defrag", member="${member}", job="backup-cronjobs"}`,
    values,
  });
  const big = 200 * 1048576;
  const out = promtoolTest(ruleOf(objects), [
    {
      interval: '1m',
      input_series: [
        // m1 stays at 60% free after the run at 10m, until the run at 70m
        series('defrag_fragmentation_after_ratio', 'm1', '0.1+0x9 0.6+0x59 0.05+0x30'),
        series('defrag_db_size_after_bytes', 'm1', `${big}+0x100`),
        // m2: well defragmented
        series('defrag_fragmentation_after_ratio', 'm2', '0.02+0x100'),
        series('defrag_db_size_after_bytes', 'm2', `${big}+0x100`),
        // m3: 90% free, but a 20 MB file: below the floor
        series('defrag_fragmentation_after_ratio', 'm3', '0.9+0x100'),
        series('defrag_db_size_after_bytes', 'm3', `${20 * 1048576}+0x100`),
      ],
      alert_rule_test: [
        { eval_time: '5m', alertname: 'EtcdFragmentationHigh', exp_alerts: [] },
        {
          eval_time: '15m',
          alertname: 'EtcdFragmentationHigh',
          exp_alerts: [
            {
              exp_labels: { severity: 'warning', policy: 'etcd', namespace: 'kube-system', member: 'm1' },
              exp_annotations: {
                summary: rule.annotations.summary,
                description: rule.annotations.description
                  .replace('{{ $labels.member }}', 'm1')
                  .replace('{{ $value | humanizePercentage }}', '60%'),
              },
            },
          ],
        },
        { eval_time: '80m', alertname: 'EtcdFragmentationHigh', exp_alerts: [] },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});

test('promtool: EtcdDefragmentationFailed fires after a failed run, and clears with the next run that succeeds or is skipped', () => {
  const objects = renderPolicy(defragPolicy(shell, {}, metrics));
  const [rule, ...more] = alerts(objects, 'EtcdDefragmentationFailed');
  expect(more).toEqual([]);
  expect(alerts(renderPolicy(etcdPolicy(shell, metrics)), 'EtcdDefragmentationFailed')).toEqual([]);
  const outcome = (o: string, values: string) => ({
    series: `etcd_backup_defrag_last_run{namespace="kube-system", policy="etcd", target="etcd-defrag", outcome="${o}", job="backup-cronjobs"}`,
    values,
  });
  const out = promtoolTest(ruleOf(objects), [
    {
      interval: '1m',
      input_series: [
        // success at 0m, failed at 10m, skipped at 70m
        outcome('success', '1+0x9 0+0x90'),
        outcome('failed', '0+0x9 1+0x59 0+0x30'),
        outcome('skipped', '0+0x69 1+0x30'),
      ],
      alert_rule_test: [
        { eval_time: '5m', alertname: 'EtcdDefragmentationFailed', exp_alerts: [] },
        {
          eval_time: '15m',
          alertname: 'EtcdDefragmentationFailed',
          exp_alerts: [
            {
              exp_labels: { severity: 'warning', policy: 'etcd', namespace: 'kube-system' },
              exp_annotations: { summary: rule.annotations.summary, description: rule.annotations.description },
            },
          ],
        },
        { eval_time: '80m', alertname: 'EtcdDefragmentationFailed', exp_alerts: [] },
      ],
    },
  ]);
  expect(out).toContain('SUCCESS');
});

// ---------------------------------------------------------------------------------------------
// plan

test('plan lists the defragmentation CronJob, text and --svg, and flags its overlap with a snapshot (same group)', () => {
  const policy = defragPolicy(
    { mode: 'perNode', nodes: ['cp-1'] },
    { schedule: '0 3 * * *', timeout: '1h' },
    {
      defaults: { schedule: '0 3 * * *' },
    },
  );
  const p = planPolicies([resolvePolicy(policy)], {
    from: new Date('2026-12-01T00:00:00Z'),
    count: 1,
    horizon: 24 * 3600_000,
  });
  const names = p.targets.map((t) => `${t.name}:${t.component}`);
  expect(names).toEqual(['etcd-cp-1:backup', 'etcd-defrag:maintenance']);
  expect(p.overlaps.map((o) => o.reason)).toEqual(['group']);
  // the hook of a warning of its own: the defragmentation waits for the snapshot (or the other way round)
  expect(maintenanceOverlaps(p).map((o) => o.targets.map((i) => p.targets[i].name))).toEqual([
    ['etcd-cp-1', 'etcd-defrag'],
  ]);
  const apart = defragPolicy(
    { mode: 'perNode', nodes: ['cp-1'] },
    { schedule: '0 5 * * *' },
    {
      defaults: { schedule: '0 3 * * *' },
    },
  );
  const later = planPolicies([resolvePolicy(apart)], {
    from: new Date('2026-12-01T00:00:00Z'),
    count: 1,
    horizon: 86400_000,
  });
  expect(maintenanceOverlaps(later)).toEqual([]);

  const dir = tempDir('plan');
  const file = path.join(dir, 'policy.json');
  fs.writeFileSync(file, JSON.stringify(policy));
  const svg = path.join(dir, 'plan.svg');
  let stdout = '';
  let stderr = '';
  const code = runCli(['plan', file, '--from', '2026-12-01T00:00:00Z', '--count', '1', '--svg', svg], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  expect({ code, stderr }).toEqual({ code: 0, stderr: expect.any(String) as string });
  expect(stdout).toContain('etcd-defrag');
  expect(stdout).toContain('etcd-cp-1');
  expect(stdout).toMatch(
    /overlap {3}kube-system\/etcd-defrag \(maintenance\) and kube-system\/etcd-cp-1 \(backup\), serialization group etcd-snapshot \(scope cluster\): \d+ pairs of runs overlap \(first .*\); never both at once: the one that comes second waits \(Pending\) and its timeout keeps counting, so a defragmentation can delay a snapshot, or fail waiting for one: move the maintenance schedule off the backup window/,
  );
  expect(fs.readFileSync(svg, 'utf8')).toContain('etcd-defrag');
});
