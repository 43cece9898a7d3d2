// The SCC derived from pods (lib/workload/openshift.ts): whatever the pods are, OpenShift's admission
// (test/support/scc-admission.ts) admits each one unchanged but for the SELinux options it assigns, and
// the SCC allows no more than some pod uses; pods whose settings the SCC would have to assign are a bug.
// (OpenShift would also set runAsNonRoot on a container whose uid is not 0: the pods here state it.)
import type { V1Container, V1PodSpec, V1SecurityContext } from '@kubernetes/client-node';
import type { Manifest } from '../../../lib';
import { securityContextConstraints } from '../../../lib/workload/openshift';
import { admitPod } from '../../support/scc-admission';
import { expectValidManifests } from '../../support/k8s-validate';

const container = (name: string, securityContext: V1SecurityContext = {}): V1Container => ({
  name,
  image: 'img',
  securityContext: {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    readOnlyRootFilesystem: true,
    ...securityContext,
  },
});
const pod = (extra: Partial<V1PodSpec> = {}, containers: V1Container[] = [container('main')]): V1PodSpec => ({
  securityContext: { runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } },
  volumes: [{ name: 'scratch', emptyDir: {} }],
  containers,
  ...extra,
});

function expectAdmittedUnchanged(scc: Manifest, p: V1PodSpec): void {
  // the pod it was given, with what admission assigns
  const admission: { readonly errors: string[]; readonly pod: V1PodSpec } = admitPod(scc, p);
  const admitted = admission.pod;
  expect(admission.errors).toEqual([]);
  expect({ ...admitted, securityContext: { ...admitted.securityContext, seLinuxOptions: undefined } }).toEqual({
    ...p,
    securityContext: { ...p.securityContext, seLinuxOptions: undefined },
  });
}

test.each<[string, V1PodSpec[], Record<string, unknown>]>([
  [
    'one root pod',
    [pod()],
    {
      runAsUser: { type: 'MustRunAs', uid: 0 },
      volumes: ['emptyDir'],
      allowHostDirVolumePlugin: false,
      seLinuxContext: { type: 'MustRunAs' },
    },
  ],
  [
    'a hostPath volume: spc_t',
    [pod({ volumes: [{ name: 'h', hostPath: { path: '/x' } }] })],
    {
      volumes: ['hostPath'],
      allowHostDirVolumePlugin: true,
      seLinuxContext: { type: 'MustRunAs', seLinuxOptions: { type: 'spc_t' } },
    },
  ],
  [
    'two uids: the range between them',
    [
      pod(),
      pod({ securityContext: { runAsUser: 65534, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } }),
    ],
    { runAsUser: { type: 'MustRunAsRange', uidRangeMin: 0, uidRangeMax: 65534 } },
  ],
  [
    "a container uid over the pod's",
    [pod({}, [container('a'), container('b', { runAsUser: 1000, runAsNonRoot: true })])],
    { runAsUser: { type: 'MustRunAsRange', uidRangeMin: 0, uidRangeMax: 1000 } },
  ],
  [
    'an added capability',
    [pod({}, [container('a', { capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] } })])],
    { allowedCapabilities: ['NET_BIND_SERVICE'], requiredDropCapabilities: ['ALL'] },
  ],
  [
    'a container keeping its capabilities',
    [pod({}, [container('a'), container('b', { capabilities: undefined })])],
    { requiredDropCapabilities: [] },
  ],
  [
    'a writable root filesystem',
    [pod({}, [container('a', { readOnlyRootFilesystem: false })])],
    { readOnlyRootFilesystem: false },
  ],
  [
    'escalation not refused',
    [pod({}, [container('a', { allowPrivilegeEscalation: undefined })])],
    { allowPrivilegeEscalation: true },
  ],
  [
    'a privileged container',
    [pod({}, [container('a', { privileged: true, allowPrivilegeEscalation: undefined })])],
    { allowPrivilegedContainer: true },
  ],
  [
    'host namespaces and ports',
    [
      pod({ hostNetwork: true, hostPID: true, hostIPC: true }, [
        { ...container('a'), ports: [{ containerPort: 1, hostPort: 1 }] },
      ]),
    ],
    { allowHostNetwork: true, allowHostPID: true, allowHostIPC: true, allowHostPorts: true },
  ],
  [
    'several seccomp profiles',
    [
      pod(),
      pod({ securityContext: { runAsUser: 0, seccompProfile: { type: 'Localhost', localhostProfile: 'etcd.json' } } }),
    ],
    { seccompProfiles: ['localhost/etcd.json', 'runtime/default'] },
  ],
  [
    'several volume types, once each, sorted',
    [
      pod({
        volumes: [
          { name: 's', secret: { secretName: 'x' } },
          { name: 'e', emptyDir: {} },
        ],
      }),
      pod({
        volumes: [
          { name: 'c', configMap: { name: 'x' } },
          { name: 'v', vsphereVolume: { volumePath: 'x' } },
        ],
      }),
    ],
    { volumes: ['configMap', 'emptyDir', 'secret', 'vsphere'] },
  ],
])('%s', (_what, pods, fields) => {
  const scc = securityContextConstraints('test', pods);
  expect(scc).toMatchObject(fields);
  expectValidManifests([scc]);
  for (const p of pods) expectAdmittedUnchanged(scc, p);
});

test.each<[string, V1PodSpec, string]>([
  [
    'no uid',
    pod({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }),
    'every container must state its uid',
  ],
  ['no seccomp profile', pod({ securityContext: { runAsUser: 0 } }), 'must state its seccomp profile'],
  [
    'SELinux options of its own',
    pod({
      securityContext: { runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' }, seLinuxOptions: { type: 'spc_t' } },
    }),
    'must not set SELinux options',
  ],
  [
    'a volume with two sources',
    pod({ volumes: [{ name: 'x', emptyDir: {}, secret: { secretName: 'x' } }] }),
    'exactly one source',
  ],
])('a pod with %s is a bug of the caller', (_what, p, message) => {
  expect(() => securityContextConstraints('test', [p])).toThrow(message);
});
