/**
 * OpenShift pod security: the SecurityContextConstraints (security.openshift.io/v1)
 * that admits exactly a set of pods, derived from the pods as rendered (so it
 * cannot drift from them), and the ServiceAccount, Role and RoleBinding that
 * let those pods, and only them, use it. Admission semantics are those of
 * openshift/apiserver-library-go pkg/securitycontextconstraints
 * (sccmatching/provider.go and the strategies it creates).
 */
import type { Manifest } from '../kubernetes/objects';

export const SCC_API_VERSION = 'security.openshift.io/v1';

/** What of a pod decides which SCC admits it: a rendered pod spec, or an engine's pod. */
export interface PodSecurityShape {
  readonly hostNetwork?: unknown;
  readonly hostPID?: unknown;
  readonly hostIPC?: unknown;
  readonly securityContext?: unknown;
  readonly volumes?: unknown;
  readonly initContainers?: unknown;
  readonly containers: unknown;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const sorted = <T extends string | number>(values: Iterable<T>): T[] =>
  [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** A volume's FSType: the VolumeSource field it sets (util.go GetVolumeFSType; only vsphereVolume is named differently). */
function volumeType(volume: unknown): string {
  const sources = Object.keys(rec(volume)).filter((k) => k !== 'name');
  if (sources.length !== 1) throw new Error(`a volume sets exactly one source; received ${JSON.stringify(volume)}`);
  return sources[0] === 'vsphereVolume' ? 'vsphere' : sources[0];
}

/** The seccomp profile as SCCs name it (seccomp/strategy.go seccompAnnotationForField). */
function seccompName(profile: unknown): string | undefined {
  const p = rec(profile);
  if (p.type === 'RuntimeDefault') return 'runtime/default';
  if (p.type === 'Unconfined') return 'unconfined';
  if (p.type === 'Localhost' && typeof p.localhostProfile === 'string') return `localhost/${p.localhostProfile}`;
  return undefined;
}

/** One container's effective security settings: its own over the pod's (securitycontext accessors). */
interface ContainerSecurity {
  readonly runAsUser?: number;
  readonly seccomp?: string;
  readonly seLinux: boolean;
  readonly privileged: boolean;
  readonly adds: readonly string[];
  readonly dropsAll: boolean;
  readonly noEscalation: boolean;
  readonly readOnlyRoot: boolean;
  readonly hostPort: boolean;
}

function containerSecurity(pod: Rec, container: unknown): ContainerSecurity {
  const c = rec(container);
  const own = rec(c.securityContext);
  const podLevel = rec(pod.securityContext);
  const caps = rec(own.capabilities);
  const runAsUser = own.runAsUser ?? podLevel.runAsUser;
  return {
    runAsUser: typeof runAsUser === 'number' ? runAsUser : undefined,
    seccomp: seccompName(own.seccompProfile ?? podLevel.seccompProfile),
    seLinux: own.seLinuxOptions !== undefined || podLevel.seLinuxOptions !== undefined,
    privileged: own.privileged === true,
    adds: list(caps.add).map(String),
    dropsAll: list(caps.drop).includes('ALL'),
    noEscalation: own.allowPrivilegeEscalation === false,
    readOnlyRoot: own.readOnlyRootFilesystem === true,
    hostPort: list(c.ports).some((p) => Number(rec(p).hostPort) > 0),
  };
}

/**
 * The body of the SCC that admits every pod of `pods` as it is, and allows
 * nothing they do not use. Throws (a bug of the caller) for pods whose
 * settings the SCC would have to assign: a container without a uid or a
 * seccomp profile, or SELinux options of their own.
 */
export function securityContextConstraints(name: string, pods: readonly PodSecurityShape[]): Manifest {
  const podRecs = pods.map((p) => p as unknown as Rec);
  const containers = podRecs.flatMap((pod) =>
    [...list(pod.initContainers), ...list(pod.containers)].map((c) => containerSecurity(pod, c)),
  );
  if (containers.length === 0) throw new Error('an SCC for no pods');
  const uids = sorted(containers.map((c) => c.runAsUser).filter((u): u is number => u !== undefined));
  if (containers.some((c) => c.runAsUser === undefined))
    throw new Error('every container must state its uid: the SCC would assign one');
  const podSeccomp = podRecs.map((pod) => seccompName(rec(pod.securityContext).seccompProfile));
  if ([...podSeccomp, ...containers.map((c) => c.seccomp)].includes(undefined))
    throw new Error('every pod and container must state its seccomp profile: the SCC would assign one');
  if (containers.some((c) => c.seLinux))
    throw new Error("pods must not set SELinux options: the SCC assigns the namespace's level");
  const volumes = sorted(podRecs.flatMap((pod) => list(pod.volumes).map(volumeType)));
  const hostDirectories = volumes.includes('hostPath');
  return {
    apiVersion: SCC_API_VERSION,
    kind: 'SecurityContextConstraints',
    metadata: { name },
    // required by the CRD; 0 is what an unset priority counts as (sort/bypriority.go getPriority), and a null would not survive cdk8s
    priority: 0,
    allowPrivilegedContainer: containers.some((c) => c.privileged),
    defaultAddCapabilities: [],
    requiredDropCapabilities: containers.every((c) => c.dropsAll) ? ['ALL'] : [],
    allowedCapabilities: sorted(containers.flatMap((c) => c.adds)),
    allowHostDirVolumePlugin: hostDirectories,
    volumes,
    allowHostNetwork: podRecs.some((pod) => pod.hostNetwork === true),
    allowHostPorts: containers.some((c) => c.hostPort),
    allowHostPID: podRecs.some((pod) => pod.hostPID === true),
    allowHostIPC: podRecs.some((pod) => pod.hostIPC === true),
    allowPrivilegeEscalation: !containers.every((c) => c.noEscalation),
    // MustRunAs takes the namespace's MCS level. container_t may neither read /etc/kubernetes
    // (kubernetes_file_t) nor write other host directories; spc_t may (container-selinux container.te)
    seLinuxContext: hostDirectories ? { type: 'MustRunAs', seLinuxOptions: { type: 'spc_t' } } : { type: 'MustRunAs' },
    // one uid: exactly it; several: the smallest range holding them (an SCC cannot list uids)
    runAsUser:
      uids.length === 1
        ? { type: 'MustRunAs', uid: uids[0] }
        : { type: 'MustRunAsRange', uidRangeMin: uids[0], uidRangeMax: uids[uids.length - 1] },
    // MustRunAs would give every pod that sets none a group, and the kubelet would hand the volumes to it
    supplementalGroups: { type: 'RunAsAny' },
    fsGroup: { type: 'RunAsAny' },
    readOnlyRootFilesystem: containers.every((c) => c.readOnlyRoot),
    // granted through RBAC `use` only
    users: [],
    groups: [],
    seccompProfiles: sorted([...podSeccomp, ...containers.map((c) => c.seccomp)] as string[]),
  };
}

/** Names of the objects that let a set of pods run under their own SCC. */
export interface PodSecurityNames {
  readonly namespace: string;
  readonly serviceAccount: string;
  /** Cluster-scoped: unique across namespaces. */
  readonly securityContextConstraints: string;
  /** The Role granting `use` of the SCC, and its RoleBinding. */
  readonly role: string;
}

/**
 * The ServiceAccount the pods run under (no API token), the SCC admitting
 * exactly `pods`, and a Role + RoleBinding in the namespace granting that
 * ServiceAccount `use` of that SCC, as OpenShift checks it
 * (sccmatching/matcher.go authorizedForSCC: verb use, group
 * security.openshift.io, resource securitycontextconstraints, the SCC's name,
 * in the pod's namespace).
 */
export function podSecurityObjects(names: PodSecurityNames, pods: readonly PodSecurityShape[]): Manifest[] {
  const { namespace } = names;
  return [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: names.serviceAccount, namespace },
      automountServiceAccountToken: false,
    },
    securityContextConstraints(names.securityContextConstraints, pods),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: names.role, namespace },
      rules: [
        {
          apiGroups: ['security.openshift.io'],
          resources: ['securitycontextconstraints'],
          resourceNames: [names.securityContextConstraints],
          verbs: ['use'],
        },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: names.role, namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: names.role },
      subjects: [{ kind: 'ServiceAccount', name: names.serviceAccount, namespace }],
    },
  ];
}
