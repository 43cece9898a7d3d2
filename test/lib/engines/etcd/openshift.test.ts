// `distribution: openshift`: what it sets (OpenShift's own backup certificates, nodeRole master),
// the objects it renders (ServiceAccount, SecurityContextConstraints, Role, RoleBinding) and why each
// field of the SCC is what it is; the SCC admits every rendered pod and the restore Job's pod as they
// are (OpenShift's admission, ported in test/support/scc-admission.ts) and refuses anything more.
import { PolicyError, renderPolicy } from '../../../../lib';
import type { BackupPolicy, EtcdSpec, Manifest } from '../../../../lib';
import { expectValidManifests } from '../../../support/k8s-validate';
import { expandK8s } from '../../../support/run-container';
import { EXAMPLE_NAMESPACE, admitPod } from '../../../support/scc-admission';
import { containerOf, cronJobs, envOf, podOf, problems, restoreJobOf } from './fixtures';
import type { V1Container, V1PodSpec, V1SELinuxOptions } from '@kubernetes/client-node';

const NS = 'etcd-backup';
const SCC_NAME = `backup-cronjobs.${NS}.etcd`;

function openshiftPolicy(
  etcd: Partial<EtcdSpec> = {},
  spec: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {},
): BackupPolicy {
  return {
    apiVersion: 'backup-cronjobs.io/v1alpha1',
    kind: 'BackupPolicy',
    metadata: { name: 'etcd', namespace: NS, ...metadata },
    spec: { ...spec, etcd: { distribution: 'openshift', ...etcd } },
  };
}

/** A container's env as the kubelet expands it (in order, `$(VAR)` of the vars before) on node `nodeName`. */
function kubeletEnv(workload: Manifest, container: string, nodeName: string): Record<string, string> {
  const vars = new Map<string, string>();
  for (const e of containerOf(workload, container).env ?? []) {
    vars.set(e.name, e.valueFrom?.fieldRef?.fieldPath === 'spec.nodeName' ? nodeName : expandK8s(e.value ?? '', vars));
  }
  return Object.fromEntries(vars);
}

/** The rendered object of `kind`; throws when there is none. */
function byKind(objects: Manifest[], kind: string): Manifest {
  const object = objects.find((o) => o.kind === kind);
  if (!object) throw new Error(`no ${kind} among ${objects.map((o) => o.kind).join(', ')}`);
  return object;
}
const sccOf = (objects: Manifest[]) => byKind(objects, 'SecurityContextConstraints');
/** An SCC's seLinuxContext (security.openshift.io/v1): its strategy, and the SELinux options it assigns. */
const seLinuxContextOf = (scc: Manifest) =>
  scc.seLinuxContext as { readonly type: string; readonly seLinuxOptions?: V1SELinuxOptions };
const allContainers = (pod: V1PodSpec): V1Container[] => [...(pod.initContainers ?? []), ...pod.containers];

/** The restore Job of a policy, on its first node (perNode) or on master-0 (cluster mode). */
function restoreOf(policy: BackupPolicy): Manifest {
  const etcd = policy.spec.etcd!;
  const node = typeof etcd.nodes?.[0] === 'string' ? etcd.nodes[0] : 'master-0';
  const snapshot = `etcd-snapshot_${policy.metadata.name}_2026-01-01T00:00:00Z_${node}.db`;
  return restoreJobOf(policy, [
    ...(etcd.mode === 'perNode' ? ['--target', node] : ['--node', node]),
    '--snapshot',
    snapshot,
  ]);
}

/** Every pod OpenShift would admit for a policy: its CronJobs' and a restore Job's. */
const podsOf = (policy: BackupPolicy, objects = renderPolicy(policy)) =>
  [...cronJobs(objects), restoreOf(policy)].map(podOf);

/** The volume types a pod uses, read as OpenShift reads them (the VolumeSource field set). */
const volumeTypes = (pods: V1PodSpec[]) =>
  [...new Set(pods.flatMap((p) => (p.volumes ?? []).map((v) => Object.keys(v).find((k) => k !== 'name'))))].sort();

/** Admission must pass and change nothing but the SELinux options it assigns (type spc_t, the namespace's level). */
function expectAdmittedAsIs(scc: Manifest, pod: V1PodSpec): void {
  const admission: { readonly errors: string[]; readonly pod: unknown } = admitPod(scc, pod);
  expect(admission.errors).toEqual([]);
  const { seLinuxOptions } = seLinuxContextOf(scc);
  const seLinux = seLinuxOptions
    ? { ...seLinuxOptions, level: EXAMPLE_NAMESPACE.mcs }
    : { level: EXAMPLE_NAMESPACE.mcs };
  expect(admission.pod).toEqual({ ...pod, securityContext: { ...pod.securityContext, seLinuxOptions: seLinux } });
}

describe('distribution openshift, every other default', () => {
  const policy = openshiftPolicy({}, {}, { labels: { team: 'platform' }, annotations: { 'example.com/owner': 'ops' } });
  const objects = renderPolicy(policy);
  const [cronJob] = cronJobs(objects);
  const pod = podOf(cronJob);
  const scc = sccOf(objects);

  test('renders the ServiceAccount, the SCC, the Role and its RoleBinding before the CronJob, all valid', () => {
    expect(objects.map((o) => `${o.kind}/${o.metadata.namespace ?? '(cluster)'}/${o.metadata.name}`)).toEqual([
      expect.stringMatching(new RegExp(`^ConfigMap/${NS}/etcd-scripts-[0-9a-f]{10}$`)),
      `ServiceAccount/${NS}/etcd-sa`,
      `SecurityContextConstraints/(cluster)/${SCC_NAME}`,
      `Role/${NS}/etcd-use-scc`,
      `RoleBinding/${NS}/etcd-use-scc`,
      `CronJob/${NS}/etcd`,
    ]);
    expectValidManifests(objects);
  });

  test('they carry the labels and annotations of every object of the policy, component pod-security', () => {
    const {
      'app.kubernetes.io/component': component,
      'backup-cronjobs.io/target': target,
      'backup-cronjobs.io/etcd-mode': mode,
      ...common
    } = cronJob.metadata.labels!;
    expect([component, target, mode]).toEqual(['backup', 'etcd', 'cluster']);
    expect(common).toMatchObject({ team: 'platform', 'backup-cronjobs.io/policy': 'etcd' });
    for (const o of objects.slice(1, 5)) {
      expect({ kind: o.kind, labels: o.metadata.labels }).toEqual({
        kind: o.kind,
        labels: { ...common, 'app.kubernetes.io/component': 'pod-security' },
      });
      expect({ kind: o.kind, annotations: o.metadata.annotations }).toEqual({
        kind: o.kind,
        annotations: cronJob.metadata.annotations,
      });
    }
    expect(cronJob.metadata.annotations).toMatchObject({
      'example.com/owner': 'ops',
      'backup-cronjobs.io/policy': 'etcd',
    });
  });

  test("nodes: node-role.kubernetes.io/master (OpenShift's masters), its taints tolerated", () => {
    expect(pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'node-role.kubernetes.io/master', operator: 'Exists' }] },
    ]);
    expect(pod.tolerations?.map((t) => t.key)).toEqual([
      'node-role.kubernetes.io/master',
      'node-role.kubernetes.io/control-plane',
    ]);
  });

  test("certificates: the files OpenShift's cluster-backup.sh hands etcdctl on a master, the node's own peer certificate", () => {
    // cluster-backup.sh sources etcd.env (pkg/etcdenvvar/etcd_env.go getEtcdctlEnvVars) and reads the files
    // under static-pod-resources/etcd-certs, where NODE_NAME is the node's name (installerpod substituteSecret)
    expect(pod.volumes).toContainEqual({
      name: 'etcd-certs',
      hostPath: { path: '/etc/kubernetes/static-pod-resources/etcd-certs', type: 'Directory' },
    });
    expect(containerOf(cronJob, 'snapshot').volumeMounts).toContainEqual({
      name: 'etcd-certs',
      mountPath: '/etc/etcd-backup/pki',
      readOnly: true,
    });
    const env = kubeletEnv(cronJob, 'snapshot', 'master-0.ocp.example.com');
    expect(env.ETCDCTL_CACERT).toBe('/etc/etcd-backup/pki/configmaps/etcd-all-bundles/server-ca-bundle.crt');
    expect(env.ETCDCTL_CERT).toBe('/etc/etcd-backup/pki/secrets/etcd-all-certs/etcd-peer-master-0.ocp.example.com.crt');
    expect(env.ETCDCTL_KEY).toBe('/etc/etcd-backup/pki/secrets/etcd-all-certs/etcd-peer-master-0.ocp.example.com.key');
    // etcd listens on 0.0.0.0:2379 and its serving certificate names 127.0.0.1 (tlshelpers.go getServerHostNames)
    expect(env.ETCDCTL_ENDPOINTS).toBe('https://127.0.0.1:2379');
  });

  test('every pod runs under the ServiceAccount, still without an API token', () => {
    expect(pod.serviceAccountName).toBe('etcd-sa');
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(byKind(objects, 'ServiceAccount')).toMatchObject({
      metadata: { name: 'etcd-sa', namespace: NS },
      automountServiceAccountToken: false,
    });
  });

  test('the Role grants use of exactly this SCC, and the RoleBinding gives it to exactly this ServiceAccount', () => {
    // OpenShift asks RBAC: verb use, group security.openshift.io, resource securitycontextconstraints,
    // the SCC's name, in the pod's namespace (sccmatching/matcher.go authorizedForSCC)
    expect(byKind(objects, 'Role').rules).toEqual([
      {
        apiGroups: ['security.openshift.io'],
        resources: ['securitycontextconstraints'],
        resourceNames: [SCC_NAME],
        verbs: ['use'],
      },
    ]);
    expect(byKind(objects, 'RoleBinding')).toMatchObject({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'etcd-use-scc' },
      subjects: [{ kind: 'ServiceAccount', name: 'etcd-sa', namespace: NS }],
    });
  });

  test('the SCC, field by field, from what the pods (CronJob and restore Job) are', () => {
    const pods = podsOf(policy, objects);
    const uids = new Set(
      pods.flatMap((p) => allContainers(p).map((c) => c.securityContext?.runAsUser ?? p.securityContext?.runAsUser)),
    );
    expect(uids).toEqual(new Set([0])); // the keys and snapshots are root's, mode 0600
    const { metadata, ...body } = scc;
    expect(metadata.name).toBe(SCC_NAME);
    expect(body).toEqual({
      apiVersion: 'security.openshift.io/v1',
      kind: 'SecurityContextConstraints',
      // none: 0 is what OpenShift counts an unset priority as; the CRD requires the field
      priority: 0,
      allowPrivilegedContainer: false,
      // no container adds a capability, every one drops ALL
      defaultAddCapabilities: [],
      requiredDropCapabilities: ['ALL'],
      allowedCapabilities: [],
      // the certificates, the backups and the restore target are host directories (paths are not in SCCs)
      allowHostDirVolumePlugin: true,
      // exactly the volume types of the pods: hostPath and the scratch emptyDir
      volumes: volumeTypes(pods),
      // etcd's client port on the node's loopback
      allowHostNetwork: true,
      allowHostPorts: false,
      allowHostPID: false,
      allowHostIPC: false,
      // every container sets allowPrivilegeEscalation: false
      allowPrivilegeEscalation: false,
      // container_t may not read /etc/kubernetes (kubernetes_file_t) nor write host directories;
      // spc_t may; the level is the namespace's
      seLinuxContext: { type: 'MustRunAs', seLinuxOptions: { type: 'spc_t' } },
      // uid 0 and nothing else (RunAsAny would admit any uid)
      runAsUser: { type: 'MustRunAs', uid: 0 },
      // MustRunAs would assign a group to pods that set none, and hand the volumes to it
      supplementalGroups: { type: 'RunAsAny' },
      fsGroup: { type: 'RunAsAny' },
      // every container has a read-only root filesystem
      readOnlyRootFilesystem: true,
      // granted through the RoleBinding only
      users: [],
      groups: [],
      // every pod sets RuntimeDefault
      seccompProfiles: ['runtime/default'],
    });
    expect(volumeTypes(pods)).toEqual(['configMap', 'emptyDir', 'hostPath']);
  });

  test("the SCC admits the CronJob's pod and the restore Job's pod as they are", () => {
    for (const p of podsOf(policy, objects)) expectAdmittedAsIs(scc, p);
  });

  test.each<[string, (pod: V1PodSpec) => void, string]>([
    [
      'another volume type',
      (p) => p.volumes?.push({ name: 'extra', secret: { secretName: 'x' } }),
      'secret volumes are not allowed',
    ],
    [
      'another uid',
      (p) => (p.containers[0].securityContext!.runAsUser = 1000),
      'runAsUser: Invalid value: 1000: must be: 0',
    ],
    [
      'a capability',
      (p) => (p.containers[0].securityContext!.capabilities = { add: ['NET_RAW'], drop: ['ALL'] }),
      'capability may not be added',
    ],
    [
      'a privileged container',
      (p) =>
        (p.containers[0].securityContext = {
          ...p.containers[0].securityContext,
          privileged: true,
          allowPrivilegeEscalation: undefined,
        }),
      'Privileged containers are not allowed',
    ],
    [
      'privilege escalation',
      (p) => (p.containers[0].securityContext!.allowPrivilegeEscalation = true),
      'Allowing privilege escalation for containers is not allowed',
    ],
    [
      'a writable root filesystem',
      (p) => (p.containers[0].securityContext!.readOnlyRootFilesystem = false),
      'ReadOnlyRootFilesystem must be set to true',
    ],
    [
      'another seccomp profile',
      (p) => (p.securityContext!.seccompProfile = { type: 'Unconfined' }),
      'unconfined is not an allowed seccomp profile',
    ],
    ['the host PID namespace', (p) => (p.hostPID = true), 'Host PID is not allowed'],
    ['the host IPC namespace', (p) => (p.hostIPC = true), 'Host IPC is not allowed'],
    [
      'a host port',
      (p) => (p.containers[0].ports = [{ containerPort: 2379, hostPort: 2379 }]),
      'Host ports are not allowed',
    ],
    [
      'another SELinux type',
      (p) => (p.securityContext!.seLinuxOptions = { type: 'container_t' }),
      'seLinuxOptions.type: must be spc_t',
    ],
  ])('and refuses a pod with %s', (_what, change, error) => {
    const p = JSON.parse(JSON.stringify(pod)) as V1PodSpec;
    change(p);
    expect(admitPod(scc, p).errors.join('\n')).toContain(error);
  });
});

describe('the SCC follows the pods of each policy', () => {
  const s3 = { s3: { bucket: 'etcd-backups', region: 'eu-west-1' } };
  test.each<[string, BackupPolicy, string[], Record<string, unknown>]>([
    [
      'a PVC destination',
      openshiftPolicy({ destination: { persistentVolumeClaim: { claimName: 'etcd-backups' } } }),
      ['configMap', 'emptyDir', 'hostPath', 'persistentVolumeClaim'],
      {},
    ],
    [
      'the scripts inline (no ConfigMap)',
      openshiftPolicy({}, { scripts: { mode: 'inline' } }),
      ['emptyDir', 'hostPath'],
      {},
    ],
    [
      'an extra Secret volume',
      openshiftPolicy(
        {},
        { defaults: { pod: { volumes: [{ name: 'ca', mountPath: '/etc/extra', secret: { secretName: 'ca' } }] } } },
      ),
      ['configMap', 'emptyDir', 'hostPath', 'secret'],
      {},
    ],
    [
      'no host network',
      openshiftPolicy({ hostNetwork: false, endpoint: 'https://10.0.0.11:2379' }),
      ['configMap', 'emptyDir', 'hostPath'],
      { allowHostNetwork: false },
    ],
    [
      'perNode with a retention-prune CronJob per node',
      openshiftPolicy(
        { mode: 'perNode', nodes: ['master-0', 'master-1', 'master-2'] },
        { retention: { keepLast: 7, schedule: '30 2 * * *' } },
      ),
      ['configMap', 'emptyDir', 'hostPath'],
      { runAsUser: { type: 'MustRunAs', uid: 0 } },
    ],
    // the S3 prune pod runs as nobody (65534): the smallest range holding 0 and 65534
    [
      'S3 with a retention-prune CronJob',
      openshiftPolicy({ destination: s3 }, { retention: { keepLast: 7, schedule: '30 2 * * *' } }),
      ['configMap', 'emptyDir', 'hostPath'],
      { runAsUser: { type: 'MustRunAsRange', uidRangeMin: 0, uidRangeMax: 65534 } },
    ],
    // no certificates: the backups mount no host directory, the restore Job still does
    [
      'S3 over plain http',
      openshiftPolicy({ destination: s3, endpoint: 'http://127.0.0.1:2379' }),
      ['configMap', 'emptyDir', 'hostPath'],
      { allowHostDirVolumePlugin: true, seLinuxContext: { type: 'MustRunAs', seLinuxOptions: { type: 'spc_t' } } },
    ],
  ])('%s', (_what, policy, volumes, fields) => {
    const objects = renderPolicy(policy);
    expectValidManifests(objects);
    const scc = sccOf(objects);
    const pods = podsOf(policy, objects);
    expect(scc.volumes).toEqual(volumes);
    expect(volumeTypes(pods)).toEqual(volumes);
    expect(scc).toMatchObject(fields);
    expect(scc.allowHostNetwork).toBe(pods.some((p) => p.hostNetwork === true));
    for (const p of pods) {
      expect(p.serviceAccountName).toBe('etcd-sa');
      expectAdmittedAsIs(scc, p);
    }
  });

  test('the backups of S3 over plain http mount no host directory: hostPath is in the SCC for the restore Job', () => {
    const policy = openshiftPolicy({ destination: s3, endpoint: 'http://127.0.0.1:2379' });
    const [cronJob] = cronJobs(renderPolicy(policy));
    expect(volumeTypes([podOf(cronJob)])).toEqual(['configMap', 'emptyDir']);
    expect(volumeTypes([podOf(restoreOf(policy))])).toEqual(['emptyDir', 'hostPath']);
  });
});

describe('the restore Job on OpenShift', () => {
  test.each<[string, BackupPolicy]>([
    ['cluster mode, --node', openshiftPolicy()],
    [
      'perNode, --target',
      openshiftPolicy({
        mode: 'perNode',
        nodes: ['master-0', 'master-1'],
        restore: { initialCluster: 'master-0=https://10.0.0.10:2380,master-1=https://10.0.0.11:2380' },
      }),
    ],
    ['a PVC destination', openshiftPolicy({ destination: { persistentVolumeClaim: { claimName: 'etcd-backups' } } })],
  ])(
    '%s: runs under the ServiceAccount, and the SCC rendered with the CronJobs admits it as it is',
    (_what, policy) => {
      const job = restoreOf(policy);
      expectValidManifests([job]);
      const pod = podOf(job);
      expect(pod.serviceAccountName).toBe('etcd-sa');
      expect(pod.hostNetwork).toBeUndefined();
      expect(pod.securityContext).toMatchObject({ runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } });
      expectAdmittedAsIs(sccOf(renderPolicy(policy)), pod);
    },
  );
});

describe('the other distributions', () => {
  const certs = (objects: Manifest[]) => {
    const [cj] = cronJobs(objects);
    const env = envOf(cj, 'snapshot');
    return [
      podOf(cj).volumes?.find((v) => v.name === 'etcd-certs')?.hostPath?.path,
      env.ETCDCTL_CACERT,
      env.ETCDCTL_CERT,
      env.ETCDCTL_KEY,
    ];
  };
  const role = (objects: Manifest[]) =>
    podOf(cronJobs(objects)[0]).affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
      ?.nodeSelectorTerms[0]?.matchExpressions?.[0].key;
  const policyOf = (etcd: Partial<EtcdSpec>) => ({ ...openshiftPolicy(), spec: { etcd } }) as BackupPolicy;

  test.each<[string, Partial<EtcdSpec>, string[], string]>([
    [
      'kubeadm (the default)',
      {},
      ['/etc/kubernetes/pki/etcd', 'ca.crt', 'healthcheck-client.crt', 'healthcheck-client.key'],
      'node-role.kubernetes.io/control-plane',
    ],
    [
      'kubeadm',
      { distribution: 'kubeadm' },
      ['/etc/kubernetes/pki/etcd', 'ca.crt', 'healthcheck-client.crt', 'healthcheck-client.key'],
      'node-role.kubernetes.io/control-plane',
    ],
    // k3s/RKE2: <data-dir>/server/tls/etcd, the ClientAuth-only client.crt (k3s pkg/daemons/control/deps/deps.go)
    [
      'k3s',
      { distribution: 'k3s' },
      ['/var/lib/rancher/k3s/server/tls/etcd', 'server-ca.crt', 'client.crt', 'client.key'],
      'node-role.kubernetes.io/etcd',
    ],
    [
      'rke2',
      { distribution: 'rke2' },
      ['/var/lib/rancher/rke2/server/tls/etcd', 'server-ca.crt', 'client.crt', 'client.key'],
      'node-role.kubernetes.io/etcd',
    ],
  ])(
    '%s: its certificates and node role; no ServiceAccount and no SCC',
    (_what, etcd, [hostPath, ca, cert, key], roleLabel) => {
      const objects = renderPolicy(policyOf(etcd));
      expect(objects.map((o) => o.kind)).toEqual(['ConfigMap', 'CronJob']);
      expect(certs(objects)).toEqual([
        hostPath,
        `/etc/etcd-backup/pki/${ca}`,
        `/etc/etcd-backup/pki/${cert}`,
        `/etc/etcd-backup/pki/${key}`,
      ]);
      expect(role(objects)).toBe(roleLabel);
      expect(podOf(cronJobs(objects)[0]).serviceAccountName).toBeUndefined();
    },
  );

  test("fields set in the spec win over the distribution's, one by one", () => {
    const objects = renderPolicy(
      policyOf({
        distribution: 'openshift',
        nodeRole: 'control-plane',
        certificates: { hostPath: '/srv/etcd-certs', caFile: 'ca.crt' },
      }),
    );
    expect(role(objects)).toBe('node-role.kubernetes.io/control-plane');
    expect(certs(objects)).toEqual([
      '/srv/etcd-certs',
      '/etc/etcd-backup/pki/ca.crt',
      '/etc/etcd-backup/pki/secrets/etcd-all-certs/etcd-peer-$(ETCD_BACKUP_NODE).crt',
      '/etc/etcd-backup/pki/secrets/etcd-all-certs/etcd-peer-$(ETCD_BACKUP_NODE).key',
    ]);
    expect(sccOf(objects)).toBeDefined();
  });

  test("$(ETCD_BACKUP_NODE) in a certificate path is the node's name on any distribution; any other $ stays as written", () => {
    const [cj] = cronJobs(
      renderPolicy(policyOf({ certificates: { certFile: 'peer-$(ETCD_BACKUP_NODE).crt', keyFile: 'k$(HOME)$$.key' } })),
    );
    const env = kubeletEnv(cj, 'snapshot', 'cp-1');
    expect([env.ETCDCTL_CERT, env.ETCDCTL_KEY]).toEqual([
      '/etc/etcd-backup/pki/peer-cp-1.crt',
      '/etc/etcd-backup/pki/k$(HOME)$$.key',
    ]);
  });
});

describe('what the profile refuses', () => {
  test('a ServiceAccount of the policy: the pods run under the one bound to the SCC', () => {
    expect(problems(openshiftPolicy({}, { defaults: { pod: { serviceAccountName: 'backup' } } }))).toEqual([
      'spec.defaults.pod.serviceAccountName: received "backup"; the engine runs these pods under its own ServiceAccount "etcd-sa", which it renders with the permissions they need: remove serviceAccountName',
    ]);
    expect(problems(openshiftPolicy({}, { defaults: { pod: { serviceAccountName: 'etcd-sa' } } }))).toEqual([]);
    // kubeadm pods run under the policy's ServiceAccount, if any
    expect(
      problems(openshiftPolicy({ distribution: 'kubeadm' }, { defaults: { pod: { serviceAccountName: 'backup' } } })),
    ).toEqual([]);
  });

  test('a certificate path leaving the host directory, and an unknown distribution', () => {
    expect(problems(openshiftPolicy({ certificates: { certFile: 'secrets/../../kubelet.crt' } }))).toEqual([
      'spec.etcd.certificates.certFile: received "secrets/../../kubelet.crt"; a file inside certificates.hostPath, without "." or ".." segments',
    ]);
    const bad = problems(openshiftPolicy({ distribution: 'eks' as EtcdSpec['distribution'] }));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/^spec\.etcd\.distribution: .*"eks".*kubeadm.*openshift.*k3s.*rke2/);
  });

  test('the policy is refused with paths, never a plain Error', () => {
    expect(() => renderPolicy(openshiftPolicy({}, { defaults: { pod: { serviceAccountName: 'x' } } }))).toThrow(
      PolicyError,
    );
  });
});
