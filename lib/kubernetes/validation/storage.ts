/**
 * PVC access modes and storage class names as the Kubernetes 1.28 API server checks them: the
 * rules the Vitess checks apply to `scratch.accessModes` and `scratch.storageClassName`. The whole
 * PVC spec and generic ephemeral volume are the tests' oracle
 * (test/support/kubernetes-validation/storage.ts): the Vitess engine builds them.
 *
 * Sources (kubernetes v1.28.8, pkg/apis/core/validation/validation.go; same rules in v1.33.3):
 * ValidatePersistentVolumeClaimSpec: at least one access mode, each of ReadWriteOnce,
 * ReadOnlyMany, ReadWriteMany or ReadWriteOncePod (feature gate on by default since 1.27, GA in
 * 1.29), "may not use ReadWriteOncePod with other access modes"; storageClassName a DNS-1123
 * subdomain (ValidateClassName) when not empty.
 */
import { show } from '../../messages';
import { dns1123SubdomainProblem } from './names';

const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];

/** PVC `accessModes`: at least one, each supported, ReadWriteOncePod alone. */
export function accessModesProblem(modes: readonly unknown[]): string | undefined {
  if (modes.length === 0) return 'at least 1 access mode is required';
  const unknown = modes.filter((m) => typeof m !== 'string' || !ACCESS_MODES.includes(m));
  if (unknown.length > 0)
    return `received ${show(unknown)}; supported values: ${ACCESS_MODES.map((m) => show(m)).join(', ')}`;
  if (modes.includes('ReadWriteOncePod') && modes.some((m) => m !== 'ReadWriteOncePod')) {
    return `received ${show(modes)}; may not use ReadWriteOncePod with other access modes`;
  }
  return undefined;
}

/** PVC `storageClassName`: empty (no class) or a DNS-1123 subdomain. */
export function storageClassNameProblem(name: string): string | undefined {
  return name === '' ? undefined : dns1123SubdomainProblem(name);
}
