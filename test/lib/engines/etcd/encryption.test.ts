// What spec.encryption and spec.etcd.controlPlaneFiles change in the etcd backup pod: which
// container does what, which volume each mounts, where the clear snapshot lives; and the
// policy errors of controlPlaneFiles (field path, value received, what is allowed).

import { renderCronJobs } from '../../../support/render';
import { expectValidManifests } from '../../../support/k8s-validate';
import { containerOf, envOf, etcdPolicy, podOf, problems } from './fixtures';
import { type KubeObject, containersOf } from '../../../support/kube';

const RECIPIENT = 'age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p';
const age = { image: 'example.com/age:1', recipients: [RECIPIENT] };
const names = (list: { name: string }[] | undefined) => (list ?? []).map((c) => c.name);
const mounts = (o: KubeObject, container: string) => names(containerOf(o, container).volumeMounts);

describe('spec.encryption (hostPath)', () => {
  const [cj] = renderCronJobs(etcdPolicy({}, { encryption: { age } }));
  const pod = podOf(cj);

  test('an encrypt step in the age image runs between the snapshot step and finalize', () => {
    expect(names(pod.initContainers)).toEqual(['tools', 'snapshot', 'encrypt']);
    expect(names(pod.containers)).toEqual(['finalize']);
    expect(containerOf(cj, 'encrypt').image).toBe('example.com/age:1');
    expect(containerOf(cj, 'encrypt').command?.slice(3)).toEqual(['etcd-encrypt']);
    expectValidManifests([cj]);
  });

  test('the clear snapshot, its restore check and the work directory are in scratch; the snapshot step does not mount the destination', () => {
    expect(envOf(cj, 'snapshot')).toMatchObject({
      ETCD_BACKUP_WORK_DIR: '/scratch',
      ETCD_BACKUP_PARTIAL: '/scratch/.etcd-snapshot_etcd_$(ETCD_BACKUP_NODE).partial',
      ETCD_BACKUP_RESTORE_CHECK_DIR: '/scratch/.etcd-snapshot_etcd_$(ETCD_BACKUP_NODE).restore-check',
    });
    expect(mounts(cj, 'snapshot')).toEqual(['etcd-certs', 'scratch', 'scripts']);
  });

  test('age writes into a hidden temporary name in the destination; finalize renames it; the metadata stays <name>.json', () => {
    expect(envOf(cj, 'encrypt')).toMatchObject({
      ETCD_BACKUP_PARTIAL: '/scratch/.etcd-snapshot_etcd_$(ETCD_BACKUP_NODE).partial',
      ETCD_BACKUP_AGE_PARTIAL: '/backup/.etcd-snapshot_etcd_$(ETCD_BACKUP_NODE).partial.age',
      BACKUP_AGE_RECIPIENTS: RECIPIENT,
    });
    expect(mounts(cj, 'encrypt')).toEqual(['backup', 'scratch', 'scripts']);
    expect(envOf(cj, 'finalize')).toMatchObject({
      ETCD_BACKUP_AGE_PARTIAL: '/backup/.etcd-snapshot_etcd_$(ETCD_BACKUP_NODE).partial.age',
      BACKUP_DIR: '/backup',
    });
    expect(mounts(cj, 'finalize')).toEqual(['backup', 'scratch', 'scripts']);
  });

  test('recipients from a Secret: mounted read-only in the encrypt step only', () => {
    const [o] = renderCronJobs(
      etcdPolicy({}, { encryption: { age: { image: 'a:1', recipientsSecret: { name: 'keys', key: 'r.txt' } } } }),
    );
    expect(podOf(o).volumes).toContainEqual({
      name: 'age-recipients',
      secret: { secretName: 'keys', items: [{ key: 'r.txt', path: 'recipients.txt' }] },
    });
    const mounting = containersOf(o).filter((c) => c.volumeMounts?.some((m) => m.name === 'age-recipients'));
    expect(names(mounting)).toEqual(['encrypt']);
    expect(envOf(o, 'encrypt').BACKUP_AGE_RECIPIENTS_FILE).toBe('/etc/backup-cronjobs/age-recipients/recipients.txt');
    expectValidManifests([o]);
  });

  test('S3: the ciphertext is written into scratch for finalize to upload', () => {
    const [o] = renderCronJobs(
      etcdPolicy({ destination: { s3: { bucket: 'bkt', region: 'r' } } }, { encryption: { age } }),
    );
    expect(envOf(o, 'encrypt').ETCD_BACKUP_AGE_PARTIAL).toBe(
      '/scratch/.etcd-snapshot_etcd_$(ETCD_BACKUP_NODE).partial.age',
    );
    expect(mounts(o, 'encrypt')).toEqual(['scratch', 'scripts']);
    expect(containerOf(o, 'finalize').image).toBe('amazon/aws-cli:2.17.64');
    expectValidManifests([o]);
  });
});

describe('spec.etcd.controlPlaneFiles', () => {
  test("kubeadm's directories by default, read-only hostPaths at /host<path>, in the snapshot step only", () => {
    const [cj] = renderCronJobs(etcdPolicy({ controlPlaneFiles: {} }, { encryption: { age } }));
    const pod = podOf(cj);
    expect(pod.volumes).toEqual(
      expect.arrayContaining([
        { name: 'control-plane-files-0', hostPath: { path: '/etc/kubernetes/pki', type: 'Directory' } },
        { name: 'control-plane-files-1', hostPath: { path: '/etc/kubernetes/manifests', type: 'Directory' } },
      ]),
    );
    expect(containerOf(cj, 'snapshot').volumeMounts).toEqual(
      expect.arrayContaining([
        { name: 'control-plane-files-0', mountPath: '/host/etc/kubernetes/pki', readOnly: true },
        { name: 'control-plane-files-1', mountPath: '/host/etc/kubernetes/manifests', readOnly: true },
      ]),
    );
    for (const c of ['tools', 'encrypt', 'finalize'])
      expect(mounts(cj, c).filter((m) => m.startsWith('control-plane-files'))).toEqual([]);
    expect(envOf(cj, 'snapshot')).toMatchObject({
      ETCD_BACKUP_FILES:
        '/etc/kubernetes/pki /host/etc/kubernetes/pki\n/etc/kubernetes/manifests /host/etc/kubernetes/manifests',
      ETCD_BACKUP_FILES_PARTIAL: '/scratch/.etcd-snapshot_etcd_$(ETCD_BACKUP_NODE).files.partial',
    });
    expect(envOf(cj, 'encrypt').ETCD_BACKUP_FILES_AGE_PARTIAL).toBe(
      '/backup/.etcd-snapshot_etcd_$(ETCD_BACKUP_NODE).files.partial.age',
    );
    expect(envOf(cj, 'finalize').ETCD_BACKUP_FILES_SUFFIX).toBe('.control-plane-files.tar.gz');
    expectValidManifests([cj]);
  });

  test('the snapshot step sources (or, inline, embeds) the archive functions only when the policy archives files', () => {
    const script = (o: KubeObject) => containerOf(o, 'snapshot').command?.[2] as string;
    const inline = { scripts: { mode: 'inline' } };
    const [plain] = renderCronJobs(etcdPolicy({}, inline));
    const [archiving] = renderCronJobs(etcdPolicy({ controlPlaneFiles: { allowUnencrypted: true } }, inline));
    expect(script(plain)).not.toContain('etcd_archive_files()');
    expect(script(archiving)).toContain('etcd_archive_files()');
    const sources = (o: KubeObject) => script(o).split('\n')[1];
    expect(sources(renderCronJobs(etcdPolicy())[0])).not.toContain('/scripts/etcd-files.sh');
    expect(sources(renderCronJobs(etcdPolicy({ controlPlaneFiles: { allowUnencrypted: true } }))[0])).toContain(
      '. /scripts/etcd-files.sh',
    );
  });

  test('retention deletes an archive with its snapshot, whether or not the policy archives files now', () => {
    for (const etcd of [{}, { controlPlaneFiles: { allowUnencrypted: true } }]) {
      const [cj] = renderCronJobs(etcdPolicy(etcd));
      expect(envOf(cj, 'finalize').BACKUP_SIDECAR_SUFFIXES).toBe('.json .control-plane-files.tar.gz');
    }
  });

  test.each<[string, Record<string, unknown>, Record<string, unknown>, string[]]>([
    [
      'without spec.encryption',
      { controlPlaneFiles: {} },
      {},
      [
        'spec.etcd.controlPlaneFiles: received paths "/etc/kubernetes/pki", "/etc/kubernetes/manifests" to archive without spec.encryption; the archive holds the cluster\'s private keys: allowed with spec.encryption.age, or stored in the clear with spec.etcd.controlPlaneFiles.allowUnencrypted: true',
      ],
    ],
    [
      'allowUnencrypted: false, said explicitly',
      { controlPlaneFiles: { paths: ['/srv/pki'], allowUnencrypted: false } },
      {},
      [
        'spec.etcd.controlPlaneFiles: received paths "/srv/pki" to archive without spec.encryption; the archive holds the cluster\'s private keys: allowed with spec.encryption.age, or stored in the clear with spec.etcd.controlPlaneFiles.allowUnencrypted: true',
      ],
    ],
    [
      'a directory inside another listed one',
      { controlPlaneFiles: { paths: ['/etc/kubernetes', '/etc/kubernetes/pki'] } },
      { encryption: { age } },
      [
        'spec.etcd.controlPlaneFiles.paths[1]: received "/etc/kubernetes/pki", which is inside "/etc/kubernetes" (also listed): its files would be archived twice; list only "/etc/kubernetes"',
      ],
    ],
    [
      'a path that is not normalized',
      { controlPlaneFiles: { paths: ['/etc//kubernetes'] } },
      { encryption: { age } },
      [
        expect.stringMatching(
          /^spec\.etcd\.controlPlaneFiles\.paths\[0\]: received "\/etc\/\/kubernetes"; must be a normalized absolute path/,
        ),
      ],
    ],
    [
      'a relative path',
      { controlPlaneFiles: { paths: ['etc/kubernetes'] } },
      { encryption: { age } },
      [expect.stringMatching(/^spec\.etcd\.controlPlaneFiles\.paths\[0\]: received "etc\/kubernetes"; /)],
    ],
  ])('refused: %s', (_, etcd, spec, expected) => {
    expect(problems(etcdPolicy(etcd, spec))).toEqual(expected);
  });

  test.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['with spec.encryption', { controlPlaneFiles: {} }, { encryption: { age } }],
    ['in the clear when the policy says so', { controlPlaneFiles: { allowUnencrypted: true } }, {}],
    [
      "OpenShift's directories",
      { controlPlaneFiles: { paths: ['/etc/kubernetes/static-pod-resources', '/etc/kubernetes/manifests'] } },
      { encryption: { age } },
    ],
  ])('accepted: %s', (_, etcd, spec) => {
    expect(problems(etcdPolicy(etcd, spec))).toEqual([]);
  });
});
