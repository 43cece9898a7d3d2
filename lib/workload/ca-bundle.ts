/**
 * A CA bundle from a ConfigMap or Secret key (`CaBundleRef`), as the pods that
 * talk to a private endpoint get it: one read-only volume holding the key as
 * `ca.crt` in a directory of its own, and where the file is.
 */
import type { Volume, VolumeMount } from '../kubernetes/objects';
import type { CaBundleRef } from '../policy/types';

/** The file name of the bundle inside its mount directory. */
export const CA_BUNDLE_FILE = 'ca.crt';

/** The endpoints a pod may need a CA bundle for: volume name and mount directory of each. */
export const CA_BUNDLE_MOUNTS = {
  s3: { volume: 's3-ca-bundle', dir: '/etc/backup-cronjobs/s3-ca' },
  pushgateway: { volume: 'pushgateway-ca-bundle', dir: '/etc/backup-cronjobs/pushgateway-ca' },
} as const;

export type CaBundleEndpoint = keyof typeof CA_BUNDLE_MOUNTS;

/** The bundle's volume, its mount and the path of the file in the container. */
export interface CaBundleParts {
  readonly file: string;
  readonly dir: string;
  readonly volume: Volume;
  readonly mount: VolumeMount;
}

export function caBundleParts(ref: CaBundleRef, endpoint: CaBundleEndpoint): CaBundleParts {
  const { volume, dir } = CA_BUNDLE_MOUNTS[endpoint];
  const source = ref.secret ?? ref.configMap;
  if (!source)
    throw new Error(`${endpoint} caBundle: neither configMap nor secret (validation lets no such policy through)`);
  const items = [{ key: source.key, path: CA_BUNDLE_FILE }];
  return {
    file: `${dir}/${CA_BUNDLE_FILE}`,
    dir,
    volume: ref.secret
      ? { name: volume, secret: { secretName: ref.secret.name, items } }
      : { name: volume, configMap: { name: source.name, items } },
    mount: { name: volume, mountPath: dir, readOnly: true },
  };
}
