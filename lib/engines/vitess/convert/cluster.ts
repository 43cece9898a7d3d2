/**
 * A VitessCluster read the way vitess-operator reads it for a scheduled
 * vtbackup pod: its keyspaces and shards (from the partitionings), and per
 * shard what the pod takes from the shard template's first tablet pool
 * (reference vitess.md §2.6-§2.8).
 */
import type { ExtraEnvVar, ExtraVolume, ResourceRequirements, SecretKeyRef, Toleration } from '../../../policy/types';
import type { VitessScratch, VitessSpec, VitessStorage } from '../types';
import { Notes, Obj, asArr, asInt, asObj, asStr, asStringMap, at } from '../../convert';
import { compareKeyRanges, equalKeyRanges, globalEtcdName, vtctldServiceName } from './names';
import {
  VITESS_BACKUP_FIELDS,
  VITESS_SOURCE,
  extraEnv,
  extraVolumes,
  noteLocationFields,
  notePoolFields,
  readStorage,
  resources,
  scratch,
  tolerations,
} from './pool';

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
