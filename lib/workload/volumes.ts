/** Volumes every engine builds the same way. */
import type { Volume } from '../kubernetes/objects';

/** Labels of the PVCs that generic ephemeral volumes create. */
const EPHEMERAL_CLAIM_LABELS = { 'app.kubernetes.io/managed-by': 'backup-cronjobs' };

/** A per-run PVC, created and deleted with the pod (generic ephemeral volume). */
export function ephemeralClaimVolume(
  name: string,
  claim: { readonly size: string; readonly storageClassName?: string; readonly accessModes: readonly string[] },
): Volume {
  return {
    name,
    ephemeral: {
      volumeClaimTemplate: {
        metadata: { labels: { ...EPHEMERAL_CLAIM_LABELS } },
        spec: {
          accessModes: [...claim.accessModes],
          storageClassName: claim.storageClassName,
          resources: { requests: { storage: claim.size } },
        },
      },
    },
  };
}

/** An emptyDir, with a size limit when given. */
export function emptyDirVolume(name: string, sizeLimit?: string): Volume {
  return { name, emptyDir: sizeLimit ? { sizeLimit } : {} };
}
