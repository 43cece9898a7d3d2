/** `spec.etcd` with every default applied, once. */
import type { PolicyPath } from '../../policy/errors';
import type { JobSettings, SerializationGroup } from '../../policy/types';
import { pickSettings } from '../../policy/settings';
import { parseDuration } from '../../units';
import { namedEntry } from '../../policy/named-entries';
import { ResolvedS3, resolveS3 } from '../s3';
import { ResolvedS3Copy, resolveS3Copies } from '../s3-copies';
import { DNS_LABEL_MAX, joinName } from '../../kubernetes/names';
import {
  DISTRIBUTIONS,
  ETCD_DEFAULTS,
  NODE_ROLES,
  defragMemberTimeout,
  etcdDistribution,
  etcdMode,
  etcdRetentionScope,
} from './defaults';
import type { EtcdDistribution, EtcdRestoreSpec, EtcdSpec } from './types';

export type ResolvedDestination =
  | { readonly kind: 'hostPath'; readonly path: string }
  | {
      readonly kind: 'persistentVolumeClaim';
      readonly claimName: string;
      readonly subPath?: string;
      readonly fsGroup?: number;
    }
  | { readonly kind: 's3'; readonly s3: ResolvedS3 };

export interface ResolvedNode {
  readonly name: string;
  /** The node's own settings (over spec.defaults). */
  readonly settings?: JobSettings;
  readonly path: PolicyPath;
}

/** `spec.etcd.defragmentation` with its defaults applied. */
export interface ResolvedDefragmentation {
  readonly thresholdPercent: number;
  readonly memberTimeoutSeconds: number;
  /** Its job settings (the schedule included), laid over `spec.defaults`. */
  readonly settings: JobSettings;
  /** `spec.etcd.defragmentation`, for messages. */
  readonly path: PolicyPath;
}

export interface ResolvedEtcd {
  readonly mode: 'cluster' | 'perNode';
  readonly distribution: EtcdDistribution;
  /** The ServiceAccount every pod runs under (OpenShift: bound to the policy's SecurityContextConstraints). @default - the namespace's default */
  readonly serviceAccountName?: string;
  readonly nodes: readonly ResolvedNode[];
  readonly role: (typeof NODE_ROLES)[keyof typeof NODE_ROLES];
  readonly tolerateAllTaints: boolean;
  readonly endpoint: string;
  /** The endpoint is https: client certificates are mounted. */
  readonly tls: boolean;
  readonly hostNetwork: boolean;
  /** The files are relative to hostPath and may name the node variable (NODE_VARIABLE). */
  readonly certificates: {
    readonly hostPath: string;
    readonly caFile: string;
    readonly certFile: string;
    readonly keyFile: string;
  };
  readonly destination: ResolvedDestination;
  /** Further copies of every snapshot. */
  readonly copies: readonly ResolvedS3Copy[];
  readonly namePrefix: string;
  readonly retentionScope: 'node' | 'cluster';
  readonly restoreCheck: boolean;
  /** Host directories archived with each snapshot (`controlPlaneFiles`). @default - none */
  readonly controlPlaneFiles?: readonly string[];
  /** The maintenance CronJob that defragments the members. @default - none */
  readonly defragmentation?: ResolvedDefragmentation;
  /** shell: the image of the hostPath/PVC finalize and prune steps. */
  readonly images: { readonly etcd: string; readonly busybox: string; readonly shell: string; readonly awsCli: string };
}

/** `spec.etcd.restore` with its defaults. */
export interface ResolvedRestore {
  readonly initialCluster?: string;
  /** The new member's peer URL (may name the node's variables). */
  readonly peerUrl: string;
  readonly hostPath: string;
  readonly bumpRevision?: number;
}

export function resolveRestore(restore: EtcdRestoreSpec = {}): ResolvedRestore {
  return {
    initialCluster: restore.initialCluster,
    peerUrl: restore.peerUrl ?? ETCD_DEFAULTS.restorePeerUrl,
    hostPath: restore.hostPath ?? ETCD_DEFAULTS.restoreHostPath,
    bumpRevision: restore.bumpRevision,
  };
}

/** The file name prefix of a policy's snapshots: `spec.etcd.namePrefix`, else `etcd-snapshot_<policy>_`. */
export function etcdNamePrefix(spec: EtcdSpec, policyName: string): string {
  return spec.namePrefix ?? `${ETCD_DEFAULTS.namePrefixBase}${policyName}_`;
}

/** The snapshots' serialization group: spec.defaults', else the engine's (`etcd-snapshot`, cluster-wide). */
export function snapshotGroup(defaults: JobSettings | undefined): SerializationGroup {
  return defaults?.placement?.serializationGroup ?? { name: ETCD_DEFAULTS.serializationGroup, scope: 'cluster' };
}

/**
 * The steps that push metrics and may talk to S3 (finalize, the defragmentation's report) run the aws CLI
 * image, which has curl, with an S3 destination or copies; else the shell image.
 */
export function stepsInAwsCli(kind: ResolvedDestination['kind'], copies: number): boolean {
  return kind === 's3' || copies > 0;
}

export function destinationKind(spec: EtcdSpec): ResolvedDestination['kind'] {
  const d = spec.destination;
  if (d?.s3) return 's3';
  if (d?.persistentVolumeClaim) return 'persistentVolumeClaim';
  return 'hostPath';
}

export function isTls(spec: EtcdSpec): boolean {
  return (spec.endpoint ?? ETCD_DEFAULTS.endpoint).startsWith('https://');
}

/** The ServiceAccount of an OpenShift policy's pods: `<policy>-sa` (never a namespace's `default`). */
export function etcdServiceAccountName(policyName: string): string {
  return joinName([policyName, 'sa'], DNS_LABEL_MAX);
}

export function resolveEtcd(spec: EtcdSpec, policyName: string, path: PolicyPath): ResolvedEtcd {
  const mode = etcdMode(spec);
  const distribution = etcdDistribution(spec);
  const profile = DISTRIBUTIONS[distribution];
  const nodes = (spec.nodes ?? []).map((entry, i) => ({
    ...namedEntry(entry),
    path: [...path, 'nodes', i],
  }));
  const c = spec.certificates ?? {};
  const d = spec.destination;
  const destination: ResolvedDestination = d?.s3
    ? { kind: 's3', s3: resolveS3(d.s3) }
    : d?.persistentVolumeClaim
      ? {
          kind: 'persistentVolumeClaim',
          claimName: d.persistentVolumeClaim.claimName,
          subPath: d.persistentVolumeClaim.subPath,
          fsGroup: d.persistentVolumeClaim.fsGroup,
        }
      : { kind: 'hostPath', path: d?.hostPath?.path ?? ETCD_DEFAULTS.hostPath };
  const busybox = spec.images?.busybox ?? ETCD_DEFAULTS.busyboxImage;
  const defrag = spec.defragmentation;
  return {
    mode,
    distribution,
    serviceAccountName: profile.openshiftSecurity ? etcdServiceAccountName(policyName) : undefined,
    nodes,
    role: NODE_ROLES[spec.nodeRole ?? profile.nodeRole],
    tolerateAllTaints: spec.tolerateAllTaints ?? ETCD_DEFAULTS.tolerateAllTaints,
    endpoint: spec.endpoint ?? ETCD_DEFAULTS.endpoint,
    tls: isTls(spec),
    hostNetwork: spec.hostNetwork ?? ETCD_DEFAULTS.hostNetwork,
    certificates: {
      hostPath: c.hostPath ?? profile.certificates.hostPath,
      caFile: c.caFile ?? profile.certificates.caFile,
      certFile: c.certFile ?? profile.certificates.certFile,
      keyFile: c.keyFile ?? profile.certificates.keyFile,
    },
    destination,
    copies: resolveS3Copies(spec.copies),
    namePrefix: etcdNamePrefix(spec, policyName),
    retentionScope: etcdRetentionScope(spec),
    restoreCheck: spec.restoreCheck ?? ETCD_DEFAULTS.restoreCheck,
    controlPlaneFiles: spec.controlPlaneFiles ? (spec.controlPlaneFiles.paths ?? profile.controlPlaneFiles) : undefined,
    defragmentation: defrag && {
      thresholdPercent: defrag.thresholdPercent ?? ETCD_DEFAULTS.defragThresholdPercent,
      memberTimeoutSeconds: parseDuration(defragMemberTimeout(defrag)),
      settings: pickSettings(defrag),
      path: [...path, 'defragmentation'],
    },
    images: {
      etcd: spec.images?.etcd ?? ETCD_DEFAULTS.etcdImage,
      busybox,
      shell: spec.images?.shell ?? busybox,
      awsCli: spec.images?.awsCli ?? ETCD_DEFAULTS.awsCliImage,
    },
  };
}
