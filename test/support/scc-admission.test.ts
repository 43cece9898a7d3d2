// The SCC admission port (scc-admission.ts) against what OpenShift does with its own restricted-v2:
// what it assigns to a pod that sets nothing, and the refusals users quote from OpenShift's events
// (e.g. "provider restricted-v2: .containers[0].runAsUser: Invalid value: 1001: must be in the ranges:
// [1000850000, 1000859999]", "fsGroup: Invalid value: []int64{1001}: 1001 is not an allowed group").
import type { V1PodSpec, V1Volume } from '@kubernetes/client-node';
import { EXAMPLE_NAMESPACE, admitPod } from './scc-admission';
import { validSecurityContextConstraints } from './k8s-validate/fixtures';

/** A pod spec with its volumes (the cases add to them). */
type PodWithVolumes = V1PodSpec & { volumes: V1Volume[] };

const plainPod = (): PodWithVolumes => ({
  containers: [{ name: 'app', image: 'app' }],
  volumes: [{ name: 'data', emptyDir: {} }],
});
const [uidMin, uidMax] = EXAMPLE_NAMESPACE.uidRange;

test('a pod that sets nothing is admitted and gets the namespace uid, group, MCS level, RuntimeDefault, no capabilities', () => {
  const { errors, pod } = admitPod(validSecurityContextConstraints(), plainPod());
  expect(errors).toEqual([]);
  expect(pod.securityContext).toEqual({
    fsGroup: uidMin,
    seLinuxOptions: { level: EXAMPLE_NAMESPACE.mcs },
    seccompProfile: { type: 'RuntimeDefault' },
  });
  expect(pod.containers[0].securityContext).toEqual({
    runAsUser: uidMin,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
    allowPrivilegeEscalation: false,
  });
});

test.each<[string, (pod: PodWithVolumes) => void, string]>([
  [
    'a uid outside the namespace range',
    (p) => (p.containers[0].securityContext = { runAsUser: 1001 }),
    `spec.containers[0].runAsUser: Invalid value: 1001: must be in the ranges: [${uidMin}, ${uidMax}]`,
  ],
  [
    'root',
    (p) => (p.securityContext = { runAsUser: 0 }),
    'spec.containers[0].runAsUser: Invalid value: 0: must be in the ranges',
  ],
  [
    'a foreign fsGroup',
    (p) => (p.securityContext = { fsGroup: 1001 }),
    'spec.securityContext.fsGroup: 1001 is not an allowed group',
  ],
  [
    'the host network',
    (p) => (p.hostNetwork = true),
    'spec.securityContext.hostNetwork: Invalid value: true: Host network is not allowed to be used',
  ],
  [
    'a hostPath volume',
    (p) => p.volumes.push({ name: 'host', hostPath: { path: '/etc' } }),
    'spec.volumes[1]: Invalid value: "hostPath": hostPath volumes are not allowed to be used',
  ],
  [
    'a capability',
    (p) => (p.containers[0].securityContext = { capabilities: { add: ['SYS_ADMIN'] } }),
    'spec.containers[0].capabilities.add: Invalid value: "SYS_ADMIN": capability may not be added',
  ],
  [
    'privileged',
    (p) => (p.containers[0].securityContext = { privileged: true }),
    'spec.containers[0].privileged: Invalid value: true: Privileged containers are not allowed',
  ],
  [
    'privilege escalation',
    (p) => (p.containers[0].securityContext = { allowPrivilegeEscalation: true }),
    'spec.containers[0].allowPrivilegeEscalation: Allowing privilege escalation',
  ],
  [
    'an unconfined seccomp profile',
    (p) => (p.securityContext = { seccompProfile: { type: 'Unconfined' } }),
    'Forbidden: unconfined is not an allowed seccomp profile',
  ],
  [
    'another SELinux type',
    (p) => (p.securityContext = { seLinuxOptions: { type: 'spc_t', level: EXAMPLE_NAMESPACE.mcs } }),
    'spec.securityContext.seLinuxOptions.type: must be ',
  ],
])('%s is refused', (_what, change, expected) => {
  const pod = plainPod();
  change(pod);
  const { errors } = admitPod(validSecurityContextConstraints(), pod);
  expect(errors.some((e) => e.startsWith(expected) || e.includes(expected))).toBe(true);
});

test('levels compare as sets of categories (selinux/mustrunas.go equalLevels)', () => {
  const pod = { ...plainPod(), securityContext: { seLinuxOptions: { level: 's0:c15,c26' } } };
  expect(admitPod(validSecurityContextConstraints(), pod).errors).toEqual([]);
});
