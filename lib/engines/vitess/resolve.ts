/** `spec.vitess` with every default applied, once. */
import type { SecretKeyRef } from '../../policy/types';
import { parseDuration } from '../../units';
import { VITESS_DEFAULTS, vitessBackupEngine } from './defaults';
import type { VitessIncremental, VitessSchedule, VitessSpec, VitessStorage } from './types';

/** `schedules[].incremental` with its defaults. */
export interface ResolvedIncremental extends VitessIncremental {
  readonly timeout: string;
  readonly allowPrimary: boolean;
}

/** A schedule with its incremental backups' defaults applied. */
export type ResolvedVitessSchedule = Omit<VitessSchedule, 'incremental'> & {
  readonly incremental?: ResolvedIncremental;
};

export interface ResolvedVitess {
  readonly cluster: string;
  readonly images: { readonly vtbackup: string; readonly mysqld: string };
  readonly mysqlFlavor: NonNullable<VitessSpec['mysqlFlavor']>;
  readonly backupEngine: NonNullable<VitessSpec['backupEngine']>;
  readonly topology: {
    readonly implementation: string;
    readonly globalServerAddress: string;
    readonly globalRoot: string;
  };
  readonly vtctldServer: string;
  readonly storage: VitessStorage;
  readonly dbInitScriptSecret?: SecretKeyRef;
  readonly scratch: {
    readonly size?: string;
    readonly storageClassName?: string;
    readonly accessModes: readonly string[];
  };
  readonly allowFirstBackup: boolean;
  readonly flagStyle: 'underscore' | 'dashed';
  readonly vtbackupRetention: {
    readonly minBackupIntervalSeconds: number;
    readonly minRetentionTimeSeconds: number;
    readonly minRetentionCount: number;
  };
  /** Extra flags by name without leading dashes. */
  readonly extraFlags: Readonly<Record<string, string>>;
  readonly schedules: readonly ResolvedVitessSchedule[];
}

export function resolveVitess(spec: VitessSpec): ResolvedVitess {
  const retention = spec.vtbackupRetention ?? {};
  return {
    cluster: spec.cluster,
    images: {
      vtbackup: spec.images?.vtbackup ?? VITESS_DEFAULTS.image,
      mysqld: spec.images?.mysqld ?? VITESS_DEFAULTS.image,
    },
    mysqlFlavor: spec.mysqlFlavor ?? VITESS_DEFAULTS.mysqlFlavor,
    backupEngine: vitessBackupEngine(spec),
    topology: {
      implementation: spec.topology.implementation ?? VITESS_DEFAULTS.topologyImplementation,
      globalServerAddress: spec.topology.globalServerAddress,
      globalRoot: spec.topology.globalRoot ?? `/vitess/${spec.cluster}/global`,
    },
    vtctldServer: spec.vtctldServer,
    storage: spec.storage.s3
      ? { s3: { ...spec.storage.s3, forcePathStyle: spec.storage.s3.forcePathStyle ?? VITESS_DEFAULTS.forcePathStyle } }
      : spec.storage,
    dbInitScriptSecret: spec.dbInitScriptSecret,
    scratch: {
      size: spec.scratch?.size,
      storageClassName: spec.scratch?.storageClassName,
      accessModes: spec.scratch?.accessModes ?? VITESS_DEFAULTS.scratchAccessModes,
    },
    allowFirstBackup: spec.allowFirstBackup ?? VITESS_DEFAULTS.allowFirstBackup,
    flagStyle: spec.flagStyle ?? VITESS_DEFAULTS.flagStyle,
    vtbackupRetention: {
      minBackupIntervalSeconds: parseDuration(retention.minBackupInterval ?? VITESS_DEFAULTS.minBackupInterval),
      minRetentionTimeSeconds: parseDuration(retention.minRetentionTime ?? VITESS_DEFAULTS.minRetentionTime),
      minRetentionCount: retention.minRetentionCount ?? VITESS_DEFAULTS.minRetentionCount,
    },
    extraFlags: Object.fromEntries(Object.entries(spec.extraFlags ?? {}).map(([k, v]) => [k.replace(/^-+/, ''), v])),
    schedules: spec.schedules.map(({ incremental, ...schedule }): ResolvedVitessSchedule =>
      incremental
        ? {
            ...schedule,
            incremental: {
              ...incremental,
              timeout: incremental.timeout ?? VITESS_DEFAULTS.incrementalTimeout,
              allowPrimary: incremental.allowPrimary ?? VITESS_DEFAULTS.incrementalAllowPrimary,
            },
          }
        : schedule,
    ),
  };
}
