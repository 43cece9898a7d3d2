/**
 * A VitessCluster read the way vitess-operator reads it for a scheduled
 * vtbackup pod: its keyspaces and shards (from the partitionings), and per
 * shard what the pod takes from the shard template's first tablet pool
 * (reference vitess.md §2.6-§2.8).
 */
import type { ExtraEnvVar, ExtraVolume, ResourceRequirements, SecretKeyRef, Toleration } from '../policy/types';
import type { VitessScratch, VitessSpec, VitessStorage } from '../engines/vitess/types';
import { Notes, Obj, asArr, asBool, asInt, asObj, asStr, asStringMap, at } from './types';
import { compareKeyRanges, equalKeyRanges, globalEtcdName, vtctldServiceName } from './vitess-names';

/** vitess-operator's `DefaultImages` (pkg/apis/planetscale/v2/defaults.go) for a cluster that names none. */
const OPERATOR_DEFAULT_IMAGES = {
  vtbackup: 'vitess/lite:latest',
  mysqld: { mysql80Compatible: 'mysql:8.0.40' },
} as const;
/** The vtctld Service's gRPC port (`DefaultGrpcPort`). */
const VTCTLD_GRPC_PORT = 15999;
const FLAVORS = [
  ['mysql56Compatible', 'MySQL56'],
  ['mysql80Compatible', 'MySQL80'],
  ['mariadbCompatible', 'MariaDB'],
  ['mariadb103Compatible', 'MariaDB103'],
] as const;

type MysqlFlavor = NonNullable<VitessSpec['mysqlFlavor']>;

/** What a shard's scheduled vtbackup pod takes from the cluster, the keyspace and the shard template. */
export interface ShardBackupSettings {
  /** Policy-wide (`spec.vitess`): shards that differ here go to different policies. */
  readonly spec: {
    readonly images: { readonly vtbackup: string; readonly mysqld: string };
    readonly mysqlFlavor: MysqlFlavor;
    readonly storage: VitessStorage;
    readonly dbInitScriptSecret?: SecretKeyRef;
    readonly extraFlags: Readonly<Record<string, string>>;
  };
  /** Per run (a schedule's settings): shards that differ here go to different schedules. */
  readonly pod: {
    readonly resources?: ResourceRequirements;
    readonly tolerations?: readonly Toleration[];
    readonly env?: readonly ExtraEnvVar[];
    readonly volumes?: readonly ExtraVolume[];
  };
  readonly scratch?: VitessScratch;
  /** Path of the first tablet pool in the VitessCluster. */
  readonly poolPath: string;
}

interface ShardInfo {
  readonly keyspace: string;
  /** Raw key range (`-80`). */
  readonly shard: string;
  /** Path of its keyspace in the VitessCluster. */
  readonly keyspacePath: string;
  /** What its vtbackup pods take from the template; undefined when it cannot be backed up (an error says why). */
  readonly settings: () => ShardBackupSettings | undefined;
  readonly databaseName?: string;
}

export interface ClusterInfo {
  readonly name: string;
  readonly namespace: string;
  readonly object: string;
  readonly backupEngine: NonNullable<VitessSpec['backupEngine']>;
  readonly topology: VitessSpec['topology'];
  readonly vtctldServer: string;
  readonly imagePullSecrets?: readonly string[];
  /** Keyspace name → its shards, sorted as the operator sorts them. */
  readonly keyspaces: ReadonlyMap<string, readonly ShardInfo[]>;
}

export function readCluster(cluster: Obj, object: string, notes: Notes): ClusterInfo | undefined {
  const meta = asObj(cluster.metadata);
  const name = asStr(meta?.name);
  if (!name) {
    notes.error(object, 'metadata.name', 'a VitessCluster needs a name (the cluster name in every vtbackup flag)');
    return undefined;
  }
  const namespace = asStr(meta?.namespace) ?? 'default';
  if (!asStr(meta?.namespace))
    notes.note(
      object,
      'metadata.namespace',
      'not set: assumed "default" (the namespace of the vtctld and etcd Services); set it if the cluster runs elsewhere',
    );
  const spec = asObj(cluster.spec) ?? {};
  const backup = asObj(spec.backup);
  notes.unknownFields(object, 'spec.backup', backup, VITESS_BACKUP_FIELDS.backup, VITESS_SOURCE);
  if (backup?.subcontroller !== undefined) {
    notes.note(
      object,
      'spec.backup.subcontroller',
      "the pod of the operator's backup-storage subcontroller, which lists backups for its status: not needed, nothing here runs it",
    );
  }
  const engine = asStr(backup?.engine) ?? 'builtin';
  if (engine !== 'builtin' && engine !== 'xtrabackup' && engine !== 'mysqlshell') {
    notes.error(
      object,
      'spec.backup.engine',
      `received "${engine}"; the operator knows builtin, xtrabackup and mysqlshell`,
    );
  }
  const keyspaces = new Map<string, ShardInfo[]>();
  const images = asObj(spec.images);
  const pullSecrets = asArr(spec.imagePullSecrets)
    .map((s) => asStr(asObj(s)?.name))
    .filter((s): s is string => s !== undefined);
  asArr(spec.keyspaces).forEach((ks, i) => {
    const k = asObj(ks);
    const ksName = asStr(k?.name);
    if (!k || !ksName) return;
    const ksImages = keyspaceImages(images, asObj(k.images));
    const settings = new Map<string, ShardBackupSettings | undefined>();
    const keyspacePath = at('spec.keyspaces', i);
    const shards = keyspaceShards(k, keyspacePath).map(({ shard, template, templatePath }) => ({
      keyspace: ksName,
      shard,
      keyspacePath,
      databaseName: asStr(k.databaseName),
      // read (and noted) only for shards a schedule backs up, once per template (equal partitionings share one)
      settings: () => {
        if (!settings.has(templatePath))
          settings.set(
            templatePath,
            readShardSettings(template, templatePath, ksImages, asArr(backup?.locations), object, notes),
          );
        return settings.get(templatePath);
      },
    }));
    keyspaces.set(ksName, shards);
  });
  return {
    name,
    namespace,
    object,
    backupEngine: engine as ClusterInfo['backupEngine'],
    topology: topology(asObj(spec.globalLockserver), name, namespace),
    vtctldServer: `${vtctldServiceName(name)}.${namespace}.svc:${VTCTLD_GRPC_PORT}`,
    imagePullSecrets: pullSecrets.length > 0 ? pullSecrets : undefined,
    keyspaces,
  };
}

/** `spec.globalLockserver`: the external one as given, or the operator's managed etcd. */
function topology(lockserver: Obj | undefined, cluster: string, namespace: string): VitessSpec['topology'] {
  const external = asObj(lockserver?.external);
  if (external) {
    return {
      implementation: asStr(external.implementation) ?? 'etcd2',
      globalServerAddress: asStr(external.address) ?? '',
      globalRoot: asStr(external.rootPath),
    };
  }
  return { globalServerAddress: `${globalEtcdName(cluster)}-client.${namespace}.svc:2379` };
}

/** `DefaultVitessKeyspaceImages` + `MergeVitessKeyspaceTemplateImages`, then `MysqldImage.Image()/Flavor()`. */
function keyspaceImages(
  cluster: Obj | undefined,
  keyspace: Obj | undefined,
): { vtbackup: string; mysqld: string; flavor: MysqlFlavor } {
  const mysqld: Record<string, string | undefined> = {
    ...(asObj(cluster?.mysqld) ?? OPERATOR_DEFAULT_IMAGES.mysqld),
  } as Record<string, string | undefined>;
  const override = asObj(keyspace?.mysqld);
  if (override) {
    mysqld.mysql56Compatible = asStr(override.mysql56Compatible);
    mysqld.mysql80Compatible = asStr(override.mysql80Compatible);
  }
  const flavor = FLAVORS.find(([field]) => asStr(mysqld[field]));
  return {
    vtbackup: asStr(keyspace?.vtbackup) ?? asStr(cluster?.vtbackup) ?? OPERATOR_DEFAULT_IMAGES.vtbackup,
    mysqld: flavor ? mysqld[flavor[0]]! : '',
    flavor: flavor ? flavor[1] : 'MySQL80',
  };
}

/** `ShardTemplates()`: every partitioning's shards, later partitionings winning on the same key range, sorted. */
function keyspaceShards(
  keyspace: Obj,
  path: string,
): { shard: string; template: Obj | undefined; templatePath: string }[] {
  const byRange = new Map<string, { template: Obj | undefined; templatePath: string }>();
  asArr(keyspace.partitionings).forEach((p, i) => {
    const pPath = at(path, 'partitionings', i);
    const equal = asObj(asObj(p)?.equal);
    const custom = asObj(asObj(p)?.custom);
    if (equal) {
      for (const range of equalKeyRanges(asInt(equal.parts) ?? 1, asInt(equal.hexWidth) ?? 0)) {
        byRange.set(range, { template: asObj(equal.shardTemplate), templatePath: at(pPath, 'equal', 'shardTemplate') });
      }
    } else if (custom) {
      asArr(custom.shards).forEach((s, j) => {
        const range = asObj(asObj(s)?.keyRange);
        byRange.set(`${asStr(range?.start) ?? ''}-${asStr(range?.end) ?? ''}`, {
          template: asObj(s),
          templatePath: at(pPath, 'custom', 'shards', j),
        });
      });
    }
  });
  return [...byRange.keys()].sort(compareKeyRanges).map((shard) => ({ shard, ...byRange.get(shard)! }));
}

function readShardSettings(
  template: Obj | undefined,
  path: string,
  images: ReturnType<typeof keyspaceImages>,
  locations: readonly unknown[],
  object: string,
  notes: Notes,
): ShardBackupSettings | undefined {
  const pool = asObj(asArr(template?.tabletPools)[0]);
  const poolPath = at(path, 'tabletPools', 0);
  if (!pool) {
    notes.error(
      object,
      at(path, 'tabletPools'),
      'no tablet pool: the operator builds the vtbackup pod from the first pool (and makes none without it)',
    );
    return undefined;
  }
  if (!images.mysqld)
    notes.error(
      object,
      'spec.images.mysqld',
      'no mysqld image: set one of mysql56Compatible, mysql80Compatible, mariadbCompatible, mariadb103Compatible',
    );
  const locationName = asStr(pool.backupLocationName) ?? '';
  const location = locations.map(asObj).find((l) => (asStr(l?.name) ?? '') === locationName);
  if (!location) {
    notes.error(
      object,
      at(poolPath, 'backupLocationName'),
      `no entry of spec.backup.locations is named "${locationName}": the operator takes no backup without it`,
    );
    return undefined;
  }
  const locationPath = `spec.backup.locations[${locations.map(asObj).indexOf(location)}]`;
  noteLocationFields(location, locationPath, object, notes);
  const storage = readStorage(location, locationPath, object, notes);
  const initScript = asObj(template?.databaseInitScriptSecret);
  const vttablet = asObj(pool.vttablet);
  notePoolFields(pool, poolPath, object, notes);
  if (!storage || !images.mysqld) return undefined;
  return {
    spec: {
      images: { vtbackup: images.vtbackup, mysqld: images.mysqld },
      mysqlFlavor: images.flavor,
      storage,
      dbInitScriptSecret:
        asStr(initScript?.name) && asStr(initScript?.key)
          ? { name: asStr(initScript!.name)!, key: asStr(initScript!.key)! }
          : undefined,
      extraFlags: Object.fromEntries(
        Object.entries(asStringMap(vttablet?.vtbackupExtraFlags) ?? {}).map(([k, v]) => [k.replace(/^-+/, ''), v]),
      ),
    },
    pod: {
      resources: resources(asObj(asObj(pool.mysqld)?.resources)),
      tolerations: tolerations(pool.tolerations),
      env: extraEnv(pool.extraEnv, at(poolPath, 'extraEnv'), object, notes),
      volumes: extraVolumes(pool, poolPath, object, notes),
    },
    scratch: scratch(asObj(pool.dataVolumeClaimTemplate), at(poolPath, 'dataVolumeClaimTemplate'), object, notes),
    poolPath,
  };
}

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
const VITESS_SOURCE = 'VitessCluster (vitess-operator HEAD)';

/** The location's fields that are not carried over: unknown ones, and its pod annotations. */
function noteLocationFields(location: Obj, path: string, object: string, notes: Notes): void {
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
function readStorage(location: Obj, path: string, object: string, notes: Notes): VitessStorage | undefined {
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

function resources(r: Obj | undefined): ResourceRequirements | undefined {
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

function extraEnv(value: unknown, path: string, object: string, notes: Notes): ExtraEnvVar[] | undefined {
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
function extraVolumes(pool: Obj, poolPath: string, object: string, notes: Notes): ExtraVolume[] | undefined {
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
function scratch(claim: Obj | undefined, path: string, object: string, notes: Notes): VitessScratch | undefined {
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
  return { size, storageClassName: asStr(claim.storageClassName), accessModes: modes.length > 0 ? modes : undefined };
}

function notePoolFields(pool: Obj, poolPath: string, object: string, notes: Notes): void {
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
