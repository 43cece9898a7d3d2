// OpenShift `Backup` → etcd policy → CronJob, against what cluster-etcd-operator renders for it
// (etcd.md §1.3 the CronJob, §8.1 the controller's test vectors, §1.6 the prune algorithm's units).
import { expectValidManifests } from '../../support/k8s-validate';
import { type KubeObject, containerOf, cronJobSpecOf, jobSpecOf, podSpecOf } from '../../support/kube';
import { convertAndRender, errors, openshiftBackup, unwrapped } from './fixtures';

/** The finalize container's env with a plain value. */
const finalizeEnv = (cj: KubeObject) =>
  Object.fromEntries(
    (containerOf(cj, 'finalize').env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value]),
  );

test('the periodicbackupcontroller_test.go Backup (§8.1): schedule, timeZone, namespace, name, history, deadline, PVC', () => {
  const {
    notes,
    objects: [[cj, ...others]],
  } = convertAndRender([openshiftBackup()]);
  expect(errors(notes)).toEqual([]);
  expect(others).toEqual([]);
  expectValidManifests([cj]);
  const spec = cronJobSpecOf(cj);
  expect([cj.metadata.namespace, cj.metadata.name, spec.schedule, spec.timeZone]).toEqual([
    'openshift-etcd',
    'test-backup',
    '20 4 * * *',
    'UTC',
  ]);
  expect([spec.concurrencyPolicy, spec.successfulJobsHistoryLimit, spec.failedJobsHistoryLimit]).toEqual([
    'Forbid',
    5,
    10,
  ]);
  expect(jobSpecOf(cj).activeDeadlineSeconds).toBe(900);
  expect(podSpecOf(cj).volumes).toContainEqual({
    name: 'backup',
    persistentVolumeClaim: { claimName: 'backup-happy-path-pvc' },
  });
  expect(podSpecOf(cj).tolerations).toEqual([{ operator: 'Exists' }]);
  expect(JSON.stringify(podSpecOf(cj).affinity)).toContain('node-role.kubernetes.io/master');
  expect(finalizeEnv(cj).RETENTION_KEEP_LAST).toBe('5');
});

// TestBackupRetentionCommand (§8.1): what OpenShift prunes with, and the rule that keeps the same backups.
test.each([
  ['unset', undefined, { RETENTION_KEEP_LAST: '15' }],
  ['{}', {}, { RETENTION_KEEP_LAST: '15' }],
  [
    '{retentionNumber: 13} (type empty)',
    { retentionNumber: { maxNumberOfBackups: 13 } },
    { RETENTION_KEEP_LAST: '13' },
  ],
  [
    'RetentionNumber 42',
    { retentionType: 'RetentionNumber', retentionNumber: { maxNumberOfBackups: 42 } },
    { RETENTION_KEEP_LAST: '42' },
  ],
  ['RetentionNumber without a number', { retentionType: 'RetentionNumber' }, { RETENTION_KEEP_LAST: '15' }],
  // OpenShift's "Gb" is GiB: cutOff = G * 1024^3 (prune.go retainBySizeGb, §1.6)
  [
    'RetentionSize 44',
    { retentionType: 'RetentionSize', retentionSize: { maxSizeOfBackupsGb: 44 } },
    { RETENTION_MAX_TOTAL_BYTES: String(44 * 1024 ** 3) },
  ],
  [
    'RetentionSize without a size',
    { retentionType: 'RetentionSize' },
    { RETENTION_MAX_TOTAL_BYTES: String(10 * 1024 ** 3) },
  ],
  [
    '{retentionSize: 3} (type empty: the size is ignored)',
    { retentionSize: { maxSizeOfBackupsGb: 3 } },
    { RETENTION_KEEP_LAST: '15' },
  ],
])('retentionPolicy %s', (_name, retentionPolicy, expected) => {
  const {
    objects: [[cj]],
  } = convertAndRender([openshiftBackup({ retentionPolicy })]);
  const env = finalizeEnv(cj);
  const rules = Object.fromEntries(
    Object.entries(env).filter(([k]) => /^RETENTION_(KEEP_LAST|MAX_TOTAL_BYTES|MAX_AGE|HOURLY|DAILY)/.test(k)),
  );
  expect(rules).toEqual(expected);
});

test('a size the type ignores gets a note; the comment says why N, not N+1, remain', () => {
  const { notes, yaml } = convertAndRender([
    openshiftBackup({ retentionPolicy: { retentionSize: { maxSizeOfBackupsGb: 3 } } }),
  ]);
  expect(notes).toContainEqual(
    expect.objectContaining({ level: 'note', path: 'spec.etcd.retentionPolicy.retentionSize' }),
  );
  expect(unwrapped(yaml[0])).toContain(
    'OpenShift prunes before each backup (16 remain after a run); here pruning follows the verified backup and 15 remain',
  );
});

test('an unknown retention type fails in OpenShift, and here', () => {
  const { notes, yaml } = convertAndRender([openshiftBackup({ retentionPolicy: { retentionType: 'something' } })]);
  expect(yaml).toEqual([]);
  expect(errors(notes)).toEqual([
    expect.objectContaining({ object: 'Backup test-backup', path: 'spec.etcd.retentionPolicy.retentionType' }),
  ]);
});

test('an empty schedule takes no backups in OpenShift: the policy is suspended, with a note', () => {
  const {
    notes,
    objects: [[cj]],
  } = convertAndRender([openshiftBackup({ schedule: '' })]);
  expect(cronJobSpecOf(cj).suspend).toBe(true);
  expect(notes).toContainEqual(expect.objectContaining({ level: 'note', path: 'spec.etcd.schedule' }));
});

test("a CRON_TZ= prefix, which OpenShift's regex lets through and the CronJob API refuses, becomes timeZone", () => {
  const {
    objects: [[cj]],
  } = convertAndRender([openshiftBackup({ schedule: 'CRON_TZ=Europe/Berlin 0 0 * * *', timeZone: undefined })]);
  expect([cronJobSpecOf(cj).schedule, cronJobSpecOf(cj).timeZone]).toEqual(['0 0 * * *', 'Europe/Berlin']);
});

test("a schedule or time zone the CronJob API refuses is an error at the Backup's own field (§8.3)", () => {
  const { notes } = convertAndRender([openshiftBackup({ schedule: '*/5 */0 * * *', timeZone: 'Local' })]);
  expect(errors(notes).map((n) => [n.object, n.path])).toEqual([
    ['Backup test-backup', 'spec.etcd.schedule'],
    ['Backup test-backup', 'spec.etcd.timeZone'],
  ]);
});

test('no pvcName: snapshots stay on the master that takes them (hostPath), with a note', () => {
  const {
    notes,
    objects: [[cj]],
  } = convertAndRender([openshiftBackup({ pvcName: undefined })]);
  expect(podSpecOf(cj).volumes).toContainEqual(
    expect.objectContaining({
      name: 'backup',
      hostPath: expect.objectContaining({ path: '/var/lib/etcd-backup' }) as unknown,
    }),
  );
  expect(notes).toContainEqual(expect.objectContaining({ level: 'note', path: 'spec.etcd.pvcName' }));
});
