/**
 * Vitess's backup storage kinds, one row each: the vtbackup flags vitess-operator renders for it, and what
 * its pods mount (its Secret, a CA bundle, the shared volume of `file`). A policy sets exactly one kind.
 */
import type { EnvVar, Volume, VolumeMount } from '../../kubernetes/objects';
import type { SecretKeyRef } from '../../policy/types';
import { caBundleParts } from '../../workload/ca-bundle';
import { VITESS_DEFAULTS } from './defaults';
import type { VitessStorage } from './types';

/** The secret directories vitess-operator mounts per storage kind. */
export const SECRET_DIRS = {
  s3: '/vt/secrets/s3-backup-auth',
  gcs: '/vt/secrets/gcs-backup-auth',
  azblob: '/vt/secrets/azblob-backup-auth',
  ceph: '/vt/secrets/ceph-backup-auth',
  dbInit: '/vt/secrets/db-init-script',
} as const;

/** `root(prefix, cluster)` of vitess-operator: `<prefix>/<cluster>` or `<cluster>`. */
export function storageRoot(prefix: string | undefined, cluster: string): string {
  const p = (prefix ?? '').replace(/\/+$/, '');
  return p ? `${p}/${cluster}` : cluster;
}

/** What a storage kind adds to the vtbackup container. */
export interface StorageParts {
  readonly volumes: Volume[];
  readonly mounts: VolumeMount[];
  readonly env: EnvVar[];
}

const noParts = (): StorageParts => ({ volumes: [], mounts: [], env: [] });

type StorageKey = keyof VitessStorage;

/** One storage kind: its flags and its pod parts, from its own configuration. */
interface StorageKind<C> {
  flags(config: C, cluster: string): Record<string, string>;
  parts(config: C): StorageParts;
}

const secretVolume = (name: string, ref: SecretKeyRef): Volume => ({
  name,
  secret: { secretName: ref.name, items: [{ key: ref.key, path: ref.key }], defaultMode: 0o444 },
});

/** A kind's Secret, mounted read-only at its secret directory (`<kind>-backup-auth-secret`). */
function secretParts(kind: 'gcs' | 'azblob' | 'ceph', ref: SecretKeyRef, env: EnvVar[]): StorageParts {
  const name = `${kind}-backup-auth-secret`;
  return { volumes: [secretVolume(name, ref)], mounts: [{ name, mountPath: SECRET_DIRS[kind], readOnly: true }], env };
}

/** Every storage kind, in the order they are looked for. */
const STORAGE_KINDS: { readonly [K in StorageKey]-?: StorageKind<NonNullable<VitessStorage[K]>> } = {
  s3: {
    flags: (s3, cluster) => ({
      backup_storage_implementation: 's3',
      s3_backup_aws_region: s3.region,
      s3_backup_storage_bucket: s3.bucket,
      s3_backup_storage_root: storageRoot(s3.keyPrefix, cluster),
      s3_backup_force_path_style: String(s3.forcePathStyle),
      ...(s3.endpoint ? { s3_backup_aws_endpoint: s3.endpoint } : {}),
      ...(s3.minPartSize ? { s3_backup_aws_min_partsize: String(s3.minPartSize) } : {}),
    }),
    parts: (s3) => {
      const auth = s3.authSecret;
      // vtbackup's S3 client (aws-sdk-go-v2 with its own *http.Client) fails with
      // AWS_CA_BUNDLE set; Go's TLS roots take extra directories from SSL_CERT_DIR,
      // besides the image's bundle file.
      const ca = s3.caBundle && caBundleParts(s3.caBundle, 's3');
      return {
        volumes: [...(auth ? [secretVolume('s3-backup-auth-secret', auth)] : []), ...(ca ? [ca.volume] : [])],
        mounts: [
          ...(auth ? [{ name: 's3-backup-auth-secret', mountPath: SECRET_DIRS.s3, readOnly: true }] : []),
          ...(ca ? [ca.mount] : []),
        ],
        env: [
          ...(auth ? [{ name: 'AWS_SHARED_CREDENTIALS_FILE', value: `${SECRET_DIRS.s3}/${auth.key}` }] : []),
          ...(ca ? [{ name: 'SSL_CERT_DIR', value: `${VITESS_DEFAULTS.systemCertDir}:${ca.dir}` }] : []),
        ],
      };
    },
  },
  gcs: {
    flags: (gcs, cluster) => ({
      backup_storage_implementation: 'gcs',
      gcs_backup_storage_bucket: gcs.bucket,
      gcs_backup_storage_root: storageRoot(gcs.keyPrefix, cluster),
    }),
    parts: (gcs) =>
      gcs.authSecret
        ? secretParts('gcs', gcs.authSecret, [
            { name: 'GOOGLE_APPLICATION_CREDENTIALS', value: `${SECRET_DIRS.gcs}/${gcs.authSecret.key}` },
          ])
        : noParts(),
  },
  azblob: {
    flags: (az, cluster) => ({
      backup_storage_implementation: 'azblob',
      azblob_backup_account_name: az.account,
      azblob_backup_account_key_file: `${SECRET_DIRS.azblob}/${az.authSecret.key}`,
      azblob_backup_container_name: az.container,
      azblob_backup_storage_root: storageRoot(az.keyPrefix, cluster),
    }),
    parts: (az) => secretParts('azblob', az.authSecret, []),
  },
  ceph: {
    flags: (ceph) => ({
      backup_storage_implementation: 'ceph',
      ceph_backup_storage_config: `${SECRET_DIRS.ceph}/${ceph.authSecret.key}`,
    }),
    parts: (ceph) =>
      secretParts('ceph', ceph.authSecret, [
        { name: 'CEPH_CREDENTIALS_FILE', value: `${SECRET_DIRS.ceph}/${ceph.authSecret.key}` },
      ]),
  },
  file: {
    flags: (_file, cluster) => fileFlags(cluster),
    parts: (file) => ({
      volumes: [{ name: 'vitess-backups', persistentVolumeClaim: { claimName: file.claimName } }],
      mounts: [{ name: 'vitess-backups', mountPath: '/vt/backups', subPath: file.subPath }],
      env: [],
    }),
  },
};

/** `file`'s flags, also vtbackup's when no kind is set (the schema requires one). */
function fileFlags(cluster: string): Record<string, string> {
  return { backup_storage_implementation: 'file', file_backup_storage_root: `/vt/backups/${cluster}` };
}

/** The storage's kind and its row, or none. */
function storageKind(storage: VitessStorage): { kind: StorageKind<unknown>; config: unknown } | undefined {
  const key = (Object.keys(STORAGE_KINDS) as StorageKey[]).find((k) => storage[k] !== undefined);
  return key && { kind: STORAGE_KINDS[key], config: storage[key] };
}

/** vtbackup's storage flags. */
export function storageFlags(storage: VitessStorage, cluster: string): Record<string, string> {
  const found = storageKind(storage);
  return found ? found.kind.flags(found.config, cluster) : fileFlags(cluster);
}

/** What the vtbackup container mounts for its storage. */
export function storageParts(storage: VitessStorage): StorageParts {
  const found = storageKind(storage);
  return found ? found.kind.parts(found.config) : noParts();
}
