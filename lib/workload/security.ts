/** Pod and container security contexts. */

/** Pod-level `restricted` Pod Security settings for a non-root uid. */
export function restrictedPodSecurity(uid: number, fsGroup: number = uid): Record<string, unknown> {
  return { runAsNonRoot: true, runAsUser: uid, runAsGroup: uid, fsGroup, seccompProfile: { type: 'RuntimeDefault' } };
}

/** Container-level `restricted` Pod Security settings, and a read-only root filesystem (every step writes only to its volumes). */
export function restrictedContainerSecurity(): Record<string, unknown> {
  return { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true };
}

/** uid 0 without capabilities (host files owned by root, e.g. kubeadm's etcd client key), RuntimeDefault seccomp. */
export function rootPodSecurity(): Record<string, unknown> {
  return { runAsUser: 0, runAsGroup: 0, runAsNonRoot: false, seccompProfile: { type: 'RuntimeDefault' } };
}
