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

/** The namespace annotations OpenShift allocates (openshift.io/sa.scc.uid-range, openshift.io/sa.scc.mcs). */
export interface NamespaceAllocation {
  readonly uidRange: readonly [number, number];
  readonly mcs: string;
}

export const EXAMPLE_NAMESPACE: NamespaceAllocation = { uidRange: [1000680000, 1000689999], mcs: 's0:c26,c15' };

export interface Admission {
  readonly errors: string[];
  readonly pod: any;
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v ?? null));

function equalLevels(expected: string, actual: string): boolean {
  if (expected === actual) return true;
  const [es, ec] = expected.split(/:(.*)/s);
  const [as, ac] = actual.split(/:(.*)/s);
  if (ec === undefined || ac === undefined || es !== as) return false;
  return JSON.stringify(ec.split(',').sort()) === JSON.stringify(ac.split(',').sort());
}

/** util.go GetVolumeFSType: the VolumeSource field set (vsphereVolume is "vsphere"). */
function fsType(volume: any): string {
  const key = Object.keys(volume).find((k) => k !== 'name');
  if (key === undefined) throw new Error(`unknown volume type for volume: ${JSON.stringify(volume)}`);
  return key === 'vsphereVolume' ? 'vsphere' : key;
}

/** seccomp/strategy.go seccompAnnotationForField. */
function seccompAnnotation(profile: any): string {
  if (profile?.type === 'Unconfined') return 'unconfined';
  if (profile?.type === 'RuntimeDefault') return 'runtime/default';
  if (profile?.type === 'Localhost' && profile.localhostProfile) return `localhost/${profile.localhostProfile}`;
  return '';
}

export function admitPod(sccIn: any, podSpec: any, ns: NamespaceAllocation = EXAMPLE_NAMESPACE): Admission {
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
  for (const field of ['fsGroup', 'supplementalGroups']) {
    if (scc[field]?.type === 'MustRunAs' && !(scc[field].ranges?.length > 0))
      scc[field].ranges = [{ min: ns.uidRange[0], max: ns.uidRange[0] }];
  }
  // NewSimpleProvider: strategies that cannot be built
  const userType = scc.runAsUser?.type;
  if (userType === 'MustRunAs' && scc.runAsUser.uid === undefined) return { errors: ['MustRunAs requires a UID'], pod };
  if (
    userType === 'MustRunAsRange' &&
    (scc.runAsUser.uidRangeMin === undefined || scc.runAsUser.uidRangeMax === undefined)
  )
    return { errors: ['MustRunAsRange requires a range'], pod };
  if (!['MustRunAs', 'MustRunAsRange', 'MustRunAsNonRoot', 'RunAsAny'].includes(userType))
    return { errors: [`Unrecognized RunAsUser strategy type ${userType}`], pod };
  if (!['MustRunAs', 'RunAsAny'].includes(scc.seLinuxContext?.type))
    return { errors: [`Unrecognized SELinuxContext strategy type ${scc.seLinuxContext?.type}`], pod };
  for (const field of ['fsGroup', 'supplementalGroups']) {
    const type = scc[field]?.type ?? 'RunAsAny'; // sccdefaults SetDefaults_SCC
    if (!['MustRunAs', 'RunAsAny'].includes(type))
      return { errors: [`Unrecognized ${field} strategy type ${type}`], pod };
  }
  const profiles: string[] = (scc.seccompProfiles ?? []).filter((p: string) => p !== '*');
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
  const groupValidate = (field: string, groups: number[]): void => {
    if ((scc[field]?.type ?? 'RunAsAny') !== 'MustRunAs') return;
    if (groups.length === 0)
      errors.push(`spec.securityContext.${field}: unable to validate empty groups against required ranges`);
    for (const g of groups)
      if (!scc[field].ranges.some((r: any) => g >= r.min && g <= r.max))
        errors.push(`spec.securityContext.${field}: ${g} is not an allowed group`);
  };
  const seLinuxValidate = (at: string, options: any): void => {
    if (scc.seLinuxContext.type !== 'MustRunAs') return;
    if (!options) {
      errors.push(`${at}: Required value`);
      return;
    }
    const want = scc.seLinuxContext.seLinuxOptions;
    if (!equalLevels(want.level ?? '', options.level ?? '')) errors.push(`${at}.level: must be ${want.level}`);
    for (const key of ['role', 'type', 'user'])
      if ((options[key] ?? '') !== (want[key] ?? '')) errors.push(`${at}.${key}: must be ${want[key] ?? ''}`);
  };

  // CreatePodSecurityContext
  const psc = (pod.securityContext = pod.securityContext ?? {});
  if (psc.supplementalGroups === undefined && scc.supplementalGroups?.type === 'MustRunAs')
    psc.supplementalGroups = [scc.supplementalGroups.ranges[0].min];
  if (psc.fsGroup === undefined && scc.fsGroup?.type === 'MustRunAs') psc.fsGroup = scc.fsGroup.ranges[0].min;
  if (psc.seLinuxOptions === undefined && scc.seLinuxContext.type === 'MustRunAs')
    psc.seLinuxOptions = { ...scc.seLinuxContext.seLinuxOptions };
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
  const allowed: string[] = scc.volumes ?? [];
  if (!allowed.includes('*')) {
    (pod.volumes ?? []).forEach((v: any, i: number) => {
      const type = fsType(v);
      if (!allowed.includes(type))
        errors.push(`spec.volumes[${i}]: Invalid value: "${type}": ${type} volumes are not allowed to be used`);
    });
  }

  const requiredDrop: string[] = scc.requiredDropCapabilities ?? [];
  const defaultAdd: string[] = scc.defaultAddCapabilities ?? [];
  const allowedCaps: string[] = scc.allowedCapabilities ?? [];
  const containers = [
    ...(pod.initContainers ?? []).map((c: any, i: number) => [c, `spec.initContainers[${i}]`]),
    ...(pod.containers ?? []).map((c: any, i: number) => [c, `spec.containers[${i}]`]),
  ];
  for (const [c, at] of containers as [any, string][]) {
    // CreateContainerSecurityContext (effective values: the container's over the pod's)
    const sc = (c.securityContext = c.securityContext ?? {});
    const effective = (key: string) => (sc[key] !== undefined ? sc[key] : psc[key]);
    if (effective('runAsUser') === undefined) {
      const generated =
        userType === 'MustRunAs'
          ? scc.runAsUser.uid
          : userType === 'MustRunAsRange'
            ? scc.runAsUser.uidRangeMin
            : undefined;
      if (generated !== undefined) sc.runAsUser = generated;
    }
    if (effective('seLinuxOptions') === undefined && scc.seLinuxContext.type === 'MustRunAs')
      sc.seLinuxOptions = { ...scc.seLinuxContext.seLinuxOptions };
    if (effective('runAsNonRoot') === undefined) {
      const uid = effective('runAsUser');
      if ((uid === undefined && userType === 'MustRunAsNonRoot') || uid > 0) sc.runAsNonRoot = true;
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
    if (userType === 'MustRunAs') {
      if (uid === undefined) errors.push(`${at}.runAsUser: Required value`);
      else if (uid !== scc.runAsUser.uid)
        errors.push(`${at}.runAsUser: Invalid value: ${uid}: must be: ${scc.runAsUser.uid}`);
    } else if (userType === 'MustRunAsRange') {
      if (uid === undefined) errors.push(`${at}.runAsUser: Required value`);
      else if (uid < scc.runAsUser.uidRangeMin || uid > scc.runAsUser.uidRangeMax)
        errors.push(
          `${at}.runAsUser: Invalid value: ${uid}: must be in the ranges: [${scc.runAsUser.uidRangeMin}, ${scc.runAsUser.uidRangeMax}]`,
        );
    } else if (userType === 'MustRunAsNonRoot') {
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
    if (!scc.allowHostPorts && (c.ports ?? []).some((p: any) => p.hostPort > 0))
      errors.push(`${at}.hostPort: Host ports are not allowed to be used`);
    if (scc.readOnlyRootFilesystem && sc.readOnlyRootFilesystem !== true)
      errors.push(`${at}.readOnlyRootFilesystem: ReadOnlyRootFilesystem must be set to true`);
    if (scc.allowPrivilegeEscalation === false && sc.allowPrivilegeEscalation !== false)
      errors.push(`${at}.allowPrivilegeEscalation: Allowing privilege escalation for containers is not allowed`);
  }
  return { errors, pod };
}
