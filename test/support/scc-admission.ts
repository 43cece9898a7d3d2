/**
 * OpenShift's SecurityContextConstraints admission of one pod against one SCC, ported from
 * openshift/apiserver-library-go pkg/securitycontextconstraints (commit a8019f39):
 * sccmatching/matcher.go (CreateProviderFromConstraint: the namespace's uid range and MCS
 * level; AssignSecurityContext: create, then validate, the pod then each container),
 * sccmatching/provider.go (CreatePodSecurityContext, CreateContainerSecurityContext,
 * ValidatePodSecurityContext, ValidateContainerSecurityContext), user/ (MustRunAs,
 * MustRunAsRange, MustRunAsNonRoot, RunAsAny), group/ (MustRunAs, RunAsAny), selinux/
 * (MustRunAs, RunAsAny), seccomp/strategy.go, capabilities/mustrunas.go, util/util.go
 * (GetVolumeFSType). Not ported: flex volume drivers, sysctls, user namespaces, and the
 * projected service account token exception (the pods mount no token).
 *
 * Returns the errors in provider.go's field terms (empty: admitted) and the pod as admission
 * leaves it (what the SCC assigned).
 */
import type { V1Container, V1PodSpec, V1SELinuxOptions, V1SeccompProfile, V1Volume } from '@kubernetes/client-node';
import type { KubeObject } from './kube';

/** The namespace annotations OpenShift allocates (openshift.io/sa.scc.uid-range, openshift.io/sa.scc.mcs). */
export interface NamespaceAllocation {
  readonly uidRange: readonly [number, number];
  readonly mcs: string;
}

export const EXAMPLE_NAMESPACE: NamespaceAllocation = { uidRange: [1000680000, 1000689999], mcs: 's0:c26,c15' };

/** An IDRange of an SCC's group strategy (security.openshift.io/v1). */
export interface IdRange {
  min: number;
  max: number;
}

/** A group strategy of an SCC (fsGroup, supplementalGroups): MustRunAs or RunAsAny. */
export interface GroupStrategy {
  type?: string;
  ranges?: IdRange[] | null;
}

/**
 * A SecurityContextConstraints (security.openshift.io/v1): the fields admission reads, and the ones that only
 * grant use or order SCCs (priority, users, groups, allowHostDirVolumePlugin). Lists and the priority are
 * null where OpenShift prints a nil value (`defaultAddCapabilities: null`); admission fills in the
 * namespace's pre-allocated values, so the strategies are mutable.
 */
export interface SecurityContextConstraints {
  readonly apiVersion?: string;
  readonly kind?: unknown;
  readonly metadata?: { readonly name?: string };
  readonly priority?: number | null;
  readonly users?: readonly string[] | null;
  readonly groups?: readonly string[] | null;
  readonly allowHostDirVolumePlugin?: boolean;
  runAsUser?: { type?: string; uid?: number; uidRangeMin?: number; uidRangeMax?: number };
  seLinuxContext?: { type?: string; seLinuxOptions?: V1SELinuxOptions };
  fsGroup?: GroupStrategy;
  supplementalGroups?: GroupStrategy;
  seccompProfiles?: readonly string[] | null;
  volumes?: readonly string[] | null;
  requiredDropCapabilities?: readonly string[] | null;
  defaultAddCapabilities?: readonly string[] | null;
  allowedCapabilities?: readonly string[] | null;
  allowHostNetwork?: boolean;
  allowHostPID?: boolean;
  allowHostIPC?: boolean;
  allowHostPorts?: boolean;
  allowPrivilegedContainer?: boolean;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  defaultAllowPrivilegeEscalation?: boolean;
}

/** A rendered object (a `Manifest`, a fixture) as an SCC; throws if it is of another kind. */
export function asSecurityContextConstraints(o: KubeObject | undefined): SecurityContextConstraints {
  if (o?.kind !== 'SecurityContextConstraints')
    throw new Error(`expected a SecurityContextConstraints, got ${String(o?.kind)} ${String(o?.metadata?.name)}`);
  return o;
}

export interface Admission {
  readonly errors: string[];
  readonly pod: V1PodSpec;
}

/** A deep copy through JSON (as the API server would see the object: no undefined fields). */
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v ?? null)) as T;

function equalLevels(expected: string, actual: string): boolean {
  if (expected === actual) return true;
  const [es, ec] = expected.split(/:(.*)/s);
  const [as, ac] = actual.split(/:(.*)/s);
  if (ec === undefined || ac === undefined || es !== as) return false;
  return JSON.stringify(ec.split(',').sort()) === JSON.stringify(ac.split(',').sort());
}

/** util.go GetVolumeFSType: the VolumeSource field set (vsphereVolume is "vsphere"). */
function fsType(volume: V1Volume): string {
  const key = Object.keys(volume).find((k) => k !== 'name');
  if (key === undefined) throw new Error(`unknown volume type for volume: ${JSON.stringify(volume)}`);
  return key === 'vsphereVolume' ? 'vsphere' : key;
}

/** seccomp/strategy.go seccompAnnotationForField. */
function seccompAnnotation(profile: V1SeccompProfile | undefined): string {
  if (profile?.type === 'Unconfined') return 'unconfined';
  if (profile?.type === 'RuntimeDefault') return 'runtime/default';
  if (profile?.type === 'Localhost' && profile.localhostProfile) return `localhost/${profile.localhostProfile}`;
  return '';
}

/** The fsGroup and supplementalGroups strategies (group/). */
const GROUP_FIELDS = ['fsGroup', 'supplementalGroups'] as const;
type GroupField = (typeof GROUP_FIELDS)[number];

/** NewSimpleProvider's user strategy (user/), built from a runAsUser with the namespace's range filled in. */
type UserStrategy =
  | { readonly type: 'MustRunAs'; readonly uid: number }
  | { readonly type: 'MustRunAsRange'; readonly min: number; readonly max: number }
  | { readonly type: 'MustRunAsNonRoot' | 'RunAsAny' };

/** The user strategy, or the error for one that cannot be built. */
function userStrategy(runAsUser: SecurityContextConstraints['runAsUser']): UserStrategy | { readonly error: string } {
  const type = runAsUser?.type;
  if (type === 'MustRunAs')
    return runAsUser?.uid === undefined ? { error: 'MustRunAs requires a UID' } : { type, uid: runAsUser.uid };
  if (type === 'MustRunAsRange')
    return runAsUser?.uidRangeMin === undefined || runAsUser.uidRangeMax === undefined
      ? { error: 'MustRunAsRange requires a range' }
      : { type, min: runAsUser.uidRangeMin, max: runAsUser.uidRangeMax };
  if (type === 'MustRunAsNonRoot' || type === 'RunAsAny') return { type };
  return { error: `Unrecognized RunAsUser strategy type ${String(type)}` };
}

export function admitPod(
  sccIn: SecurityContextConstraints,
  podSpec: V1PodSpec,
  ns: NamespaceAllocation = EXAMPLE_NAMESPACE,
): Admission {
  const scc = clone(sccIn);
  const pod = clone(podSpec);
  const errors: string[] = [];
  // CreateProviderFromConstraint: pre-allocated values from the namespace
  if (
    scc.runAsUser?.type === 'MustRunAsRange' &&
    scc.runAsUser.uidRangeMin === undefined &&
    scc.runAsUser.uidRangeMax === undefined
  ) {
    [scc.runAsUser.uidRangeMin, scc.runAsUser.uidRangeMax] = ns.uidRange;
  }
  if (scc.seLinuxContext?.type === 'MustRunAs' && !scc.seLinuxContext.seLinuxOptions?.level) {
    scc.seLinuxContext.seLinuxOptions = { ...scc.seLinuxContext.seLinuxOptions, level: ns.mcs };
  }
  for (const field of GROUP_FIELDS) {
    const strategy = scc[field];
    if (strategy?.type === 'MustRunAs' && !((strategy.ranges?.length ?? 0) > 0))
      strategy.ranges = [{ min: ns.uidRange[0], max: ns.uidRange[0] }];
  }
  // NewSimpleProvider: strategies that cannot be built
  const user = userStrategy(scc.runAsUser);
  if ('error' in user) return { errors: [user.error], pod };
  const seLinuxType = scc.seLinuxContext?.type;
  if (seLinuxType !== 'MustRunAs' && seLinuxType !== 'RunAsAny')
    return { errors: [`Unrecognized SELinuxContext strategy type ${String(seLinuxType)}`], pod };
  // selinux/mustrunas.go: the options every pod and container must have (the level filled in above)
  const requiredSeLinux = seLinuxType === 'MustRunAs' ? (scc.seLinuxContext?.seLinuxOptions ?? {}) : undefined;
  for (const field of GROUP_FIELDS) {
    const type = scc[field]?.type ?? 'RunAsAny'; // sccdefaults SetDefaults_SCC
    if (!['MustRunAs', 'RunAsAny'].includes(type))
      return { errors: [`Unrecognized ${field} strategy type ${type}`], pod };
  }
  /** The ranges of a MustRunAs group strategy (never empty: filled in above), undefined for RunAsAny. */
  const groupRanges = (field: GroupField): IdRange[] | undefined =>
    scc[field]?.type === 'MustRunAs' ? (scc[field]?.ranges ?? []) : undefined;
  const profiles: string[] = (scc.seccompProfiles ?? []).filter((p) => p !== '*');
  const anyProfile = (scc.seccompProfiles ?? []).includes('*');
  const runtimeDefaultAllowed = profiles.some((p) => p === 'runtime/default' || p === 'docker/default');
  const seccompProblem = (at: string, profile: string): void => {
    if (!anyProfile && profiles.length === 0 && profile !== '') errors.push(`${at}: Forbidden: seccomp may not be set`);
    if ((profiles.length === 0 && profile === '') || anyProfile) return;
    if (
      profiles.includes(profile) ||
      (runtimeDefaultAllowed && (profile === 'runtime/default' || profile === 'docker/default'))
    )
      return;
    errors.push(
      `${at}: Forbidden: ${profile} is not an allowed seccomp profile. Valid values are ${JSON.stringify(profiles)}`,
    );
  };
  const groupValidate = (field: GroupField, groups: number[]): void => {
    const ranges = groupRanges(field);
    if (ranges === undefined) return;
    if (groups.length === 0)
      errors.push(`spec.securityContext.${field}: unable to validate empty groups against required ranges`);
    for (const g of groups)
      if (!ranges.some((r) => g >= r.min && g <= r.max))
        errors.push(`spec.securityContext.${field}: ${g} is not an allowed group`);
  };
  const seLinuxValidate = (at: string, options: V1SELinuxOptions | undefined): void => {
    if (requiredSeLinux === undefined) return;
    if (!options) {
      errors.push(`${at}: Required value`);
      return;
    }
    const want = requiredSeLinux;
    if (!equalLevels(want.level ?? '', options.level ?? '')) errors.push(`${at}.level: must be ${want.level}`);
    for (const key of ['role', 'type', 'user'] as const)
      if ((options[key] ?? '') !== (want[key] ?? '')) errors.push(`${at}.${key}: must be ${want[key] ?? ''}`);
  };

  // CreatePodSecurityContext
  const psc = (pod.securityContext = pod.securityContext ?? {});
  const supplementalRanges = groupRanges('supplementalGroups');
  if (psc.supplementalGroups === undefined && supplementalRanges) psc.supplementalGroups = [supplementalRanges[0].min];
  const fsGroupRanges = groupRanges('fsGroup');
  if (psc.fsGroup === undefined && fsGroupRanges) psc.fsGroup = fsGroupRanges[0].min;
  if (psc.seLinuxOptions === undefined && requiredSeLinux) psc.seLinuxOptions = { ...requiredSeLinux };
  if (psc.seccompProfile === undefined && profiles.length > 0) {
    const p = profiles[0];
    psc.seccompProfile =
      p === 'unconfined'
        ? { type: 'Unconfined' }
        : p === 'runtime/default' || p === 'docker/default'
          ? { type: 'RuntimeDefault' }
          : { type: 'Localhost', localhostProfile: p.replace(/^localhost\//, '') };
  }
  // ValidatePodSecurityContext
  groupValidate('fsGroup', psc.fsGroup === undefined ? [] : [psc.fsGroup]);
  groupValidate('supplementalGroups', psc.supplementalGroups ?? []);
  seccompProblem(
    'pod.metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]',
    seccompAnnotation(psc.seccompProfile),
  );
  seLinuxValidate('spec.securityContext.seLinuxOptions', psc.seLinuxOptions);
  if (!scc.allowHostNetwork && pod.hostNetwork)
    errors.push('spec.securityContext.hostNetwork: Invalid value: true: Host network is not allowed to be used');
  if (!scc.allowHostPID && pod.hostPID)
    errors.push('spec.securityContext.hostPID: Invalid value: true: Host PID is not allowed to be used');
  if (!scc.allowHostIPC && pod.hostIPC)
    errors.push('spec.securityContext.hostIPC: Invalid value: true: Host IPC is not allowed to be used');
  const allowed: readonly string[] = scc.volumes ?? [];
  if (!allowed.includes('*')) {
    (pod.volumes ?? []).forEach((v, i) => {
      const type = fsType(v);
      if (!allowed.includes(type))
        errors.push(`spec.volumes[${i}]: Invalid value: "${type}": ${type} volumes are not allowed to be used`);
    });
  }

  const requiredDrop: readonly string[] = scc.requiredDropCapabilities ?? [];
  const defaultAdd: readonly string[] = scc.defaultAddCapabilities ?? [];
  const allowedCaps: readonly string[] = scc.allowedCapabilities ?? [];
  const containers: [V1Container, string][] = [
    ...(pod.initContainers ?? []).map((c, i): [V1Container, string] => [c, `spec.initContainers[${i}]`]),
    ...(pod.containers ?? []).map((c, i): [V1Container, string] => [c, `spec.containers[${i}]`]),
  ];
  for (const [c, at] of containers) {
    // CreateContainerSecurityContext (effective values: the container's over the pod's)
    const sc = (c.securityContext = c.securityContext ?? {});
    const effective = <K extends 'runAsUser' | 'runAsNonRoot' | 'seLinuxOptions'>(key: K) =>
      sc[key] !== undefined ? sc[key] : psc[key];
    if (effective('runAsUser') === undefined) {
      const generated = user.type === 'MustRunAs' ? user.uid : user.type === 'MustRunAsRange' ? user.min : undefined;
      if (generated !== undefined) sc.runAsUser = generated;
    }
    if (effective('seLinuxOptions') === undefined && requiredSeLinux) sc.seLinuxOptions = { ...requiredSeLinux };
    if (effective('runAsNonRoot') === undefined) {
      const uid = effective('runAsUser');
      if ((uid === undefined && user.type === 'MustRunAsNonRoot') || (uid !== undefined && uid > 0))
        sc.runAsNonRoot = true;
    }
    const add = new Set<string>(sc.capabilities?.add ?? []);
    const drop = new Set<string>(sc.capabilities?.drop ?? []);
    const combinedAdd = new Set([...defaultAdd.filter((a) => !drop.has(a)), ...add]);
    const combinedDrop = new Set([...requiredDrop, ...drop]);
    if (combinedAdd.size !== add.size || combinedDrop.size !== drop.size) {
      // capabilityFromStringSlice: an empty list is nil
      sc.capabilities = {
        ...(combinedAdd.size > 0 ? { add: [...combinedAdd].sort() } : {}),
        ...(combinedDrop.size > 0 ? { drop: [...combinedDrop].sort() } : {}),
      };
    }
    if (scc.readOnlyRootFilesystem && sc.readOnlyRootFilesystem === undefined) sc.readOnlyRootFilesystem = true;
    if (
      scc.defaultAllowPrivilegeEscalation !== undefined &&
      sc.allowPrivilegeEscalation === undefined &&
      sc.privileged !== true &&
      !add.has('CAP_SYS_ADMIN')
    )
      sc.allowPrivilegeEscalation = scc.defaultAllowPrivilegeEscalation;
    if (scc.allowPrivilegeEscalation === false && sc.allowPrivilegeEscalation === undefined)
      sc.allowPrivilegeEscalation = false;
    // ValidateContainerSecurityContext
    const uid = effective('runAsUser');
    const nonRoot = effective('runAsNonRoot');
    if (user.type === 'MustRunAs') {
      if (uid === undefined) errors.push(`${at}.runAsUser: Required value`);
      else if (uid !== user.uid) errors.push(`${at}.runAsUser: Invalid value: ${uid}: must be: ${user.uid}`);
    } else if (user.type === 'MustRunAsRange') {
      if (uid === undefined) errors.push(`${at}.runAsUser: Required value`);
      else if (uid < user.min || uid > user.max)
        errors.push(`${at}.runAsUser: Invalid value: ${uid}: must be in the ranges: [${user.min}, ${user.max}]`);
    } else if (user.type === 'MustRunAsNonRoot') {
      if (nonRoot === undefined && uid === undefined) errors.push(`${at}.runAsNonRoot: Required value: must be true`);
      else if (nonRoot === false) errors.push(`${at}.runAsNonRoot: Invalid value: false: must be true`);
      else if (uid === 0) errors.push(`${at}.runAsUser: Invalid value: 0: running with the root UID is forbidden`);
    }
    seLinuxValidate(`${at}.seLinuxOptions`, effective('seLinuxOptions'));
    seccompProblem(
      `pod.metadata.annotations[container.seccomp.security.alpha.kubernetes.io/${c.name}]`,
      seccompAnnotation(sc.seccompProfile ?? psc.seccompProfile),
    );
    if (!scc.allowPrivilegedContainer && sc.privileged === true)
      errors.push(`${at}.privileged: Invalid value: true: Privileged containers are not allowed`);
    const caps = sc.capabilities;
    if (caps === undefined) {
      if (defaultAdd.length > 0 || requiredDrop.length > 0)
        errors.push(`${at}.capabilities: required capabilities are not set on the securityContext`);
    } else if (!allowedCaps.includes('*')) {
      for (const cap of caps.add ?? [])
        if (!defaultAdd.includes(cap) && !allowedCaps.includes(cap))
          errors.push(`${at}.capabilities.add: Invalid value: "${cap}": capability may not be added`);
      for (const d of requiredDrop)
        if (!(caps.drop ?? []).includes(d))
          errors.push(`${at}.capabilities.drop: ${d} is required to be dropped but was not found`);
    }
    if (!scc.allowHostPorts && (c.ports ?? []).some((p) => (p.hostPort ?? 0) > 0))
      errors.push(`${at}.hostPort: Host ports are not allowed to be used`);
    if (scc.readOnlyRootFilesystem && sc.readOnlyRootFilesystem !== true)
      errors.push(`${at}.readOnlyRootFilesystem: ReadOnlyRootFilesystem must be set to true`);
    if (scc.allowPrivilegeEscalation === false && sc.allowPrivilegeEscalation !== false)
      errors.push(`${at}.allowPrivilegeEscalation: Allowing privilege escalation for containers is not allowed`);
  }
  return { errors, pod };
}
