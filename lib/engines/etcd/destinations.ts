/**
 * etcd's destination kinds, one row each: where a run writes and verifies its snapshot and what its pods
 * mount, and where the retention-prune and the restore drill run (a host directory lives on one node).
 */
import type { Volume, VolumeMount } from '../../kubernetes/objects';
import { restrictedPodSecurity, rootPodSecurity } from '../../workload/security';
import { ETCD_DEFAULTS, ETCD_PATHS as P } from './defaults';
import type { ResolvedDestination } from './resolve';

/** Paths and volumes of the destination. */
export interface Layout {
  /**
   * Where the clear snapshot (and files archive) is written and verified: the
   * destination directory (same filesystem as the final name: an atomic
   * rename), or scratch for S3 and for encrypted snapshots (the clear
   * snapshot never rests outside the pod's scratch).
   */
  readonly workDir: string;
  readonly volumes: Volume[];
  /** Mount of the destination (none for S3). */
  readonly mount?: VolumeMount;
}

/** One destination kind. */
interface DestinationKind<D> {
  /** Its paths and volumes (`encrypted`: the clear snapshot stays in scratch). */
  layout(destination: D, encrypted: boolean): Layout;
  /**
   * Where its pods that read the backups (the retention-prune, the drill) run: `node`, on each node
   * (its own directory: one prune per node); `role`, on the control-plane role's nodes (where the
   * backups mount the volume); `anywhere`.
   */
  readonly readers: 'node' | 'role' | 'anywhere';
  /**
   * The retention-prune pod's security: non-root where the destination allows it (S3, a PVC that honours
   * fsGroup), else uid 0 (the snapshots' owner, mode 0600).
   */
  pruneSecurity(destination: D): Record<string, unknown>;
}

type Kind = ResolvedDestination['kind'];

const DESTINATION_KINDS: { readonly [K in Kind]: DestinationKind<Extract<ResolvedDestination, { kind: K }>> } = {
  hostPath: {
    layout: (d, encrypted) => ({
      workDir: encrypted ? P.scratch : P.backup,
      volumes: [{ name: 'backup', hostPath: { path: d.path, type: 'DirectoryOrCreate' } }],
      mount: { name: 'backup', mountPath: P.backup },
    }),
    readers: 'node',
    pruneSecurity: () => rootPodSecurity(),
  },
  persistentVolumeClaim: {
    layout: (d, encrypted) => ({
      workDir: encrypted ? P.scratch : P.backup,
      volumes: [{ name: 'backup', persistentVolumeClaim: { claimName: d.claimName } }],
      mount: { name: 'backup', mountPath: P.backup, subPath: d.subPath },
    }),
    readers: 'role',
    pruneSecurity: (d) =>
      d.fsGroup !== undefined ? restrictedPodSecurity(ETCD_DEFAULTS.pvcPruneUid, d.fsGroup) : rootPodSecurity(),
  },
  s3: {
    layout: () => ({ workDir: P.scratch, volumes: [] }),
    readers: 'anywhere',
    pruneSecurity: () => restrictedPodSecurity(ETCD_DEFAULTS.s3PruneUid),
  },
};

/** The row of a destination's kind. */
export function destinationKind(d: ResolvedDestination): DestinationKind<ResolvedDestination> {
  return DESTINATION_KINDS[d.kind];
}
