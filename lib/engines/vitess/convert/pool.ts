/**
 * What a VitessCluster's first tablet pool and its backup location give a shard's scheduled vtbackup pod
 * (storage, resources, tolerations, env, volumes, scratch), and the notes on what does not carry over.
 */
import type { ExtraEnvVar, ExtraVolume, ResourceRequirements, SecretKeyRef, Toleration } from '../../../policy/types';
import type { VitessScratch, VitessStorage } from '../types';
import { Notes, Obj, asArr, asBool, asInt, asObj, asStr, asStringMap, at } from '../../convert';

/**
 * Every field of a VitessCluster's spec.backup, of a backup location and of each storage kind
 * (vitess-operator HEAD: pkg/apis/planetscale/v2 vitesscluster_types.go ClusterBackupSpec, vitessbackupstorage_types.go VitessBackupLocation and its kinds; minPartSize since #702).
 */
export const VITESS_BACKUP_FIELDS = {
  backup: ['locations', 'engine', 'schedules', 'subcontroller'],
  location: ['name', 's3', 'gcs', 'azblob', 'ceph', 'volume', 'volumeSubPath', 'annotations'],
  s3: ['region', 'bucket', 'keyPrefix', 'endpoint', 'forcePathStyle', 'minPartSize', 'authSecret'],
  gcs: ['bucket', 'keyPrefix', 'authSecret'],
  azblob: ['account', 'container', 'keyPrefix', 'authSecret'],
  ceph: ['authSecret'],
} as const;
export const VITESS_SOURCE = 'VitessCluster (vitess-operator HEAD)';

/** The location's fields that are not carried over: unknown ones, and its pod annotations. */
export function noteLocationFields(location: Obj, path: string, object: string, notes: Notes): void {
  notes.unknownFields(object, path, location, VITESS_BACKUP_FIELDS.location, VITESS_SOURCE);
  for (const kind of ['s3', 'gcs', 'azblob', 'ceph'] as const) {
    notes.unknownFields(object, at(path, kind), asObj(location[kind]), VITESS_BACKUP_FIELDS[kind], VITESS_SOURCE);
  }
  if (Object.keys(asObj(location.annotations) ?? {}).length > 0) {
    notes.note(
      object,
      at(path, 'annotations'),
      "not carried over: the operator's scheduled vtbackup pods do not get them either; set spec.defaults.pod.annotations if the backup pods need them (e.g. for cloud credentials)",
    );
  }
}

/** `VitessBackupLocation` → the policy's storage (the operator's flags are the same per kind, §2.8). */
export function readStorage(location: Obj, path: string, object: string, notes: Notes): VitessStorage | undefined {
  const secret = (s: unknown, p: string): SecretKeyRef | undefined => {
    const o = asObj(s);
    if (!o) return undefined;
    if (asStr(o.volumeName))
      notes.note(
        object,
        at(p, 'volumeName'),
        "the operator mounts a volume of that name from the pool's extraVolumes; here the Secret is mounted by name and key",
      );
    return asStr(o.name) && asStr(o.key) ? { name: asStr(o.name)!, key: asStr(o.key)! } : undefined;
  };
  const s3 = asObj(location.s3);
  if (s3) {
    return {
      s3: {
        region: asStr(s3.region) ?? '',
        bucket: asStr(s3.bucket) ?? '',
        keyPrefix: asStr(s3.keyPrefix),
        endpoint: asStr(s3.endpoint),
        forcePathStyle: asBool(s3.forcePathStyle) ?? false,
        minPartSize: (asInt(s3.minPartSize) ?? 0) > 0 ? asInt(s3.minPartSize) : undefined,
        authSecret: secret(s3.authSecret, at(path, 's3', 'authSecret')),
      },
    };
  }
  const gcs = asObj(location.gcs);
  if (gcs)
    return {
      gcs: {
        bucket: asStr(gcs.bucket) ?? '',
        keyPrefix: asStr(gcs.keyPrefix),
        authSecret: secret(gcs.authSecret, at(path, 'gcs', 'authSecret')),
      },
    };
  const az = asObj(location.azblob);
  if (az) {
    const authSecret = secret(az.authSecret, at(path, 'azblob', 'authSecret'));
    if (authSecret)
      return {
        azblob: {
          account: asStr(az.account) ?? '',
          container: asStr(az.container) ?? '',
          keyPrefix: asStr(az.keyPrefix),
          authSecret,
        },
      };
    notes.error(object, at(path, 'azblob', 'authSecret'), 'needs name and key: the account key file');
    return undefined;
  }
  const ceph = asObj(location.ceph);
  if (ceph) {
    const authSecret = secret(ceph.authSecret, at(path, 'ceph', 'authSecret'));
    if (authSecret) return { ceph: { authSecret } };
    notes.error(object, at(path, 'ceph', 'authSecret'), 'needs name and key: the Ceph JSON configuration');
    return undefined;
  }
  const volume = asObj(location.volume);
  const claim = asStr(asObj(volume?.persistentVolumeClaim)?.claimName);
  if (claim) return { file: { claimName: claim, subPath: asStr(location.volumeSubPath) } };
  const kind = volume ? Object.keys(volume)[0] : undefined;
  notes.error(
    object,
    volume ? at(path, 'volume', kind ?? '') : path,
    volume
      ? `file storage here is a PersistentVolumeClaim shared by the backup pods; create a PersistentVolume for this ${kind} volume and a claim bound to it, then set volume.persistentVolumeClaim.claimName`
      : 'no storage kind: set one of s3, gcs, azblob, ceph, volume',
  );
  return undefined;
}

export function resources(r: Obj | undefined): ResourceRequirements | undefined {
  const requests = asStringMap(r?.requests);
  const limits = asStringMap(r?.limits);
  return requests || limits ? { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } : undefined;
}

export function tolerations(value: unknown): Toleration[] | undefined {
  const list = asArr(value)
    .map(asObj)
    .filter((t): t is Obj => t !== undefined)
    .map((t) => {
      const out: Record<string, unknown> = {};
      for (const key of ['key', 'operator', 'value', 'effect'] as const) if (asStr(t[key])) out[key] = t[key];
      if (asInt(t.tolerationSeconds) !== undefined) out.tolerationSeconds = t.tolerationSeconds;
      return out;
    });
  return list.length > 0 ? list : undefined;
}

export function extraEnv(value: unknown, path: string, object: string, notes: Notes): ExtraEnvVar[] | undefined {
  const out: ExtraEnvVar[] = [];
  asArr(value).forEach((e, i) => {
    const env = asObj(e);
    const name = asStr(env?.name);
    const ref = asObj(asObj(env?.valueFrom)?.secretKeyRef);
    if (name && typeof env?.value === 'string') out.push({ name, value: env.value });
    else if (name && asStr(ref?.name) && asStr(ref?.key))
      out.push({ name, secretKeyRef: { name: asStr(ref!.name)!, key: asStr(ref!.key)! } });
    else
      notes.note(
        object,
        at(path, i),
        'only env with a value or a secretKeyRef carries over (spec.defaults.pod.env); add this one by hand',
      );
  });
  return out.length > 0 ? out : undefined;
}

/** The pool's extraVolumes mounted by its extraVolumeMounts, as the policy's `pod.volumes` (secret, configMap, PVC, emptyDir). */
export function extraVolumes(pool: Obj, poolPath: string, object: string, notes: Notes): ExtraVolume[] | undefined {
  const volumes = new Map(asArr(pool.extraVolumes).map((v) => [asStr(asObj(v)?.name), asObj(v)] as const));
  const out: ExtraVolume[] = [];
  asArr(pool.extraVolumeMounts).forEach((m, i) => {
    const mount = asObj(m);
    const name = asStr(mount?.name);
    const volume = volumes.get(name);
    const mountPath = asStr(mount?.mountPath);
    const base = {
      name: name ?? '',
      mountPath: mountPath ?? '',
      ...(mount?.readOnly === true ? { readOnly: true } : {}),
    };
    const secretName = asStr(asObj(volume?.secret)?.secretName);
    const configMap = asStr(asObj(volume?.configMap)?.name);
    const claim = asStr(asObj(volume?.persistentVolumeClaim)?.claimName);
    const emptyDir = asObj(volume?.emptyDir);
    const simple = name && mountPath && !asStr(mount?.subPath);
    if (simple && secretName) out.push({ ...base, secret: { secretName } });
    else if (simple && configMap) out.push({ ...base, configMap: { name: configMap } });
    else if (simple && claim) out.push({ ...base, persistentVolumeClaim: { claimName: claim } });
    else if (simple && emptyDir)
      out.push({ ...base, emptyDir: asStr(emptyDir.sizeLimit) ? { sizeLimit: asStr(emptyDir.sizeLimit) } : {} });
    else
      notes.note(
        object,
        at(poolPath, 'extraVolumeMounts', i),
        'only whole secret, configMap, persistentVolumeClaim and emptyDir volumes carry over (spec.defaults.pod.volumes); add this mount by hand',
      );
  });
  return out.length > 0 ? out : undefined;
}

/** The operator's per-Job PVC from `dataVolumeClaimTemplate`, here a per-pod ephemeral volume of the same size. */
export function scratch(claim: Obj | undefined, path: string, object: string, notes: Notes): VitessScratch | undefined {
  if (!claim) return undefined;
  const size = asStr(asStringMap(asObj(claim.resources)?.requests)?.storage);
  if (!size) {
    notes.note(
      object,
      at(path, 'resources', 'requests', 'storage'),
      'no size: the scratch data directory is an emptyDir',
    );
    return undefined;
  }
  const modes = asArr(claim.accessModes)
    .map(asStr)
    .filter((m): m is string => m !== undefined);
  // the operator's modes as written: the policy's schema names one it does not know
  const accessModes = modes.length > 0 ? (modes as VitessScratch['accessModes']) : undefined;
  return { size, storageClassName: asStr(claim.storageClassName), accessModes };
}

export function notePoolFields(pool: Obj, poolPath: string, object: string, notes: Notes): void {
  if (asArr(pool.initContainers).length > 0 || asArr(pool.sidecarContainers).length > 0) {
    notes.note(
      object,
      at(poolPath, asArr(pool.initContainers).length > 0 ? 'initContainers' : 'sidecarContainers'),
      "the operator adds the pool's init and sidecar containers to vtbackup pods; backup-cronjobs runs only its own containers",
    );
  }
  if (asStr(asObj(pool.mysqld)?.configOverrides)) {
    notes.note(
      object,
      at(poolPath, 'mysqld', 'configOverrides'),
      "not carried over; the operator's scheduled vtbackup pods do not get it either (their /pod-config/mysqld-config-overrides file is empty)",
    );
  }
}
