/** Vitess: one CronJob per (schedule, keyspace, shard), vtbackup with a run-time backup type. */
import type { Container, EnvVar, Volume, VolumeMount } from '../../k8s';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../../cronjob';
import { labelValue, safeShard } from '../../names';
import { IssueList, childPath, show } from '../../policy/errors';
import { checkedDuration } from '../../policy/validate';
import type { BackupPolicy, JobSettings } from '../../policy/types';
import { cronFromFrequency, ScheduleError } from '../../schedule';
import { pruneEnv, prunesAfterBackup } from '../../policy/retention-options';
import { retentionDestinationEnv } from '../../retention';
import { shellCommand } from '../../scripts';
import type { EnginePod, PodContext, Target } from '../../target';
import { mergeSettings, pickSettings } from '../../target';
import { VITESS_DEFAULTS } from './defaults';
import { OVERRIDABLE_DEFAULTS, RUNTIME_FLAGS, SECRET_DIRS, canonicalFlag, renderFlags, requiredFlags } from './flags';
import type { VitessSchedule, VitessSpec } from './types';

export * from './types';
export { VITESS_DEFAULTS } from './defaults';
export { renderFlags, requiredFlags, storageFlags, storageRoot, goDuration, mysqlServerVersion } from './flags';

const LABEL_PREFIX = 'backup-cronjobs.io';

/** Checks beyond the schema. */
export function validateVitess(spec: VitessSpec, path: string, issues: IssueList): void {
  const names = new Map<string, number>();
  spec.schedules.forEach((sched, i) => {
    const sPath = childPath(childPath(path, 'schedules'), i);
    const prev = names.get(sched.name);
    if (prev !== undefined) issues.add(childPath(sPath, 'name'), `received ${show(sched.name)}; schedule names must be unique (also used by schedules[${prev}])`);
    names.set(sched.name, i);
    if (sched.frequency !== undefined && sched.schedule !== undefined) {
      issues.add(childPath(sPath, 'frequency'), 'set either frequency or schedule, not both');
    }
    if (sched.frequency !== undefined) {
      try {
        cronFromFrequency(sched.frequency, 'check');
      } catch (e) {
        if (!(e instanceof ScheduleError)) throw e;
        issues.add(childPath(sPath, 'frequency'), `received ${show(sched.frequency)}; ${e.message}`);
      }
    }
    const seen = new Map<string, string>();
    sched.strategies.forEach((strategy, j) => {
      strategy.shards.forEach((shard, k) => {
        const key = `${strategy.keyspace}/${shard}`;
        const shardPath = childPath(childPath(childPath(childPath(sPath, 'strategies'), j), 'shards'), k);
        const other = seen.get(key);
        if (other) issues.add(shardPath, `received ${show(shard)}; ${key} is already listed at ${other}: each keyspace/shard once per schedule`);
        else seen.set(key, shardPath);
        if (!/^([0-9a-f]*)-([0-9a-f]*)$/.test(shard)) return;
        const [start, end] = shard.split('-');
        if (start && end && start >= end.padEnd(start.length, '0')) {
          issues.add(shardPath, `received ${show(shard)}; the key range start must be below its end`);
        }
      });
    });
  });
  for (const field of ['minBackupInterval', 'minRetentionTime'] as const) {
    checkedDuration(spec.vtbackupRetention?.[field], childPath(childPath(path, 'vtbackupRetention'), field), issues);
  }
  // the flag names only: durations are checked above
  const required = new Set([...Object.keys(requiredFlags({ ...spec, vtbackupRetention: undefined }, 'k', '-', undefined)), ...RUNTIME_FLAGS, 'init_db_sql_file', 'mysql_server_version']);
  for (const key of Object.keys(spec.extraFlags ?? {})) {
    const flagPath = childPath(childPath(path, 'extraFlags'), key);
    if (required.has(canonicalFlag(key))) {
      issues.add(flagPath, `--${key} is set by backup-cronjobs (${RUNTIME_FLAGS.includes(canonicalFlag(key) as never) ? 'decided at run time by the entry script' : 'derived from the policy'}) and may not be overridden`);
    } else if (!/^-{0,2}[a-zA-Z0-9][-_a-zA-Z0-9.]*$/.test(key)) {
      issues.add(flagPath, `received ${show(key)}; a flag name is letters, digits, "-", "_" and "."`);
    }
  }
}

/**
 * Expands schedules × strategies × shards into backup targets, in policy
 * order; then, when retention has its own schedule, one prune target per
 * keyspace/shard (its backups are shared by every schedule).
 */
export function vitessTargets(policy: BackupPolicy, spec: VitessSpec, path: string): Target[] {
  const targets: Target[] = [];
  const shards = new Map<string, { keyspace: string; shard: string }>();
  spec.schedules.forEach((sched, i) => {
    const sPath = childPath(childPath(path, 'schedules'), i);
    for (const strategy of sched.strategies) {
      for (const shard of strategy.shards) {
        targets.push(shardTarget(policy, spec, sched, sPath, strategy.keyspace, shard));
        shards.set(`${strategy.keyspace}/${shard}`, { keyspace: strategy.keyspace, shard });
      }
    }
  });
  const pruneSchedule = policy.spec.retention?.schedule;
  if (pruneSchedule !== undefined) {
    for (const { keyspace, shard } of shards.values()) targets.push(pruneTarget(policy, spec, keyspace, shard, pruneSchedule));
  }
  return targets;
}

function pruneTarget(policy: BackupPolicy, spec: VitessSpec, keyspace: string, shard: string, schedule: string): Target {
  const safe = safeShard(shard);
  const settings = mergeSettings(policy.spec.defaults);
  return {
    id: `vitess|${spec.cluster}|prune|${keyspace}|${shard}`,
    nameParts: ['prune', keyspace, safe],
    component: 'retention-prune',
    labels: shardLabels(spec, keyspace, safe),
    settings,
    settingsPath: 'spec.retention',
    schedule,
    defaultTimeout: VITESS_DEFAULTS.pruneTimeout,
    pod: (ctx) => prunePod(policy, spec, keyspace, shard, settings.timeZone, ctx),
  };
}

function prunePod(policy: BackupPolicy, spec: VitessSpec, keyspace: string, shard: string, timeZone: string | undefined, ctx: PodContext): EnginePod {
  return {
    containers: [{
      name: 'retention-prune',
      image: spec.images?.vtbackup ?? VITESS_DEFAULTS.image,
      command: shellCommand('prune.sh'),
      env: [
        ...ctx.env,
        { name: 'PATH', value: VITESS_PATH },
        ...destinationEnv(spec, keyspace, shard),
        ...pruneEnv(policy.spec.retention, timeZone),
      ],
      securityContext: restrictedContainerSecurity(),
      volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
    }],
    mainContainers: ['retention-prune'],
    volumes: [{ name: 'tmp', emptyDir: {} }],
    securityContext: restrictedPodSecurity(VITESS_DEFAULTS.vitessUid),
  };
}

/** This shard's backups, in the retention contract's variables (vtctldclient GetBackups/RemoveBackup). */
function destinationEnv(spec: VitessSpec, keyspace: string, shard: string): EnvVar[] {
  return retentionDestinationEnv({ kind: 'vitess', server: spec.vtctldServer, keyspace, shard });
}

function shardLabels(spec: VitessSpec, keyspace: string, safe: string): Record<string, string> {
  return {
    [`${LABEL_PREFIX}/keyspace`]: labelValue(keyspace),
    [`${LABEL_PREFIX}/shard`]: labelValue(safe),
    'planetscale.com/cluster': labelValue(spec.cluster),
    'planetscale.com/keyspace': labelValue(keyspace),
    'planetscale.com/shard': labelValue(safe),
  };
}

const VITESS_PATH = '/vt/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function shardTarget(policy: BackupPolicy, spec: VitessSpec, sched: VitessSchedule, sPath: string, keyspace: string, shard: string): Target {
  const safe = safeShard(shard);
  const settings = mergeSettings(policy.spec.defaults, pickSettings(sched));
  return {
    id: `vitess|${spec.cluster}|${sched.name}|${keyspace}|${shard}`,
    nameParts: [sched.name, keyspace, safe],
    component: 'backup',
    labels: { [`${LABEL_PREFIX}/schedule`]: labelValue(sched.name), ...shardLabels(spec, keyspace, safe) },
    settings,
    settingsPath: sPath,
    schedule: sched.frequency !== undefined ? cronFromFrequency(sched.frequency, `${spec.cluster}|${keyspace}|${shard}|${sched.name}-${keyspace}-${safe}`) : undefined,
    defaultTimeout: VITESS_DEFAULTS.timeout,
    pod: (ctx) => vitessPod(policy, spec, keyspace, shard, settings, ctx),
  };
}

function vitessPod(policy: BackupPolicy, spec: VitessSpec, keyspace: string, shard: string, settings: JobSettings, ctx: PodContext): EnginePod {
  const commonEnv = ctx.env;
  const cpu = settings.pod?.resources?.requests?.cpu;
  const prunes = prunesAfterBackup(policy.spec.retention);
  const style = spec.flagStyle ?? VITESS_DEFAULTS.flagStyle;
  const flags: Record<string, string> = { ...OVERRIDABLE_DEFAULTS };
  for (const [k, v] of Object.entries(spec.extraFlags ?? {})) flags[k.replace(/^-+/, '')] = v;
  Object.assign(flags, requiredFlags(spec, keyspace, shard, cpu));
  const storage = storageParts(spec);
  const uid = VITESS_DEFAULTS.vitessUid;
  const vtbackupImage = spec.images?.vtbackup ?? VITESS_DEFAULTS.image;
  const scratch = spec.scratch;

  const volumes: Volume[] = [
    ...storage.volumes,
    { name: 'vt-root', emptyDir: {} },
    scratch?.size
      ? {
        name: 'persistent-volume-claim',
        ephemeral: {
          volumeClaimTemplate: {
            metadata: { labels: { 'app.kubernetes.io/managed-by': 'backup-cronjobs' } },
            spec: {
              accessModes: [...(scratch.accessModes ?? VITESS_DEFAULTS.scratchAccessModes)],
              storageClassName: scratch.storageClassName,
              resources: { requests: { storage: scratch.size } },
            },
          },
        },
      }
      : undefined,
    spec.dbInitScriptSecret
      ? { name: 'db-init-script-secret', secret: { secretName: spec.dbInitScriptSecret.name, items: [{ key: spec.dbInitScriptSecret.key, path: spec.dbInitScriptSecret.key }], defaultMode: 0o444 } }
      : undefined,
  ].filter((v): v is Volume => v !== undefined);

  const mounts: VolumeMount[] = [
    { name: 'vt-root', mountPath: '/etc/ssl/certs', subPath: 'certs', readOnly: true },
    { name: 'vt-root', mountPath: '/vt/bin', subPath: 'bin', readOnly: true },
    { name: 'vt-root', mountPath: '/vt/config', subPath: 'config', readOnly: true },
    { name: 'vt-root', mountPath: '/vt/socket', subPath: 'socket' },
    scratch?.size
      ? { name: 'persistent-volume-claim', mountPath: '/vt/vtdataroot', subPath: 'vtdataroot' }
      : { name: 'vt-root', mountPath: '/vt/vtdataroot', subPath: 'vtdataroot' },
    ...(spec.dbInitScriptSecret ? [{ name: 'db-init-script-secret', mountPath: SECRET_DIRS.dbInit, readOnly: true }] : []),
    ...storage.mounts,
  ];

  const env: EnvVar[] = [
    ...storage.env,
    { name: 'VTROOT', value: '/vt' },
    { name: 'VTDATAROOT', value: '/vt/vtdataroot' },
    { name: 'VT_MYSQL_ROOT', value: '/usr' },
    { name: 'MYSQL_FLAVOR', value: spec.mysqlFlavor ?? VITESS_DEFAULTS.mysqlFlavor },
    { name: 'EXTRA_MY_CNF', value: '/vt/config/mycnf/rbr.cnf:/vt/config/mycnf/log-error.cnf:/vt/config/mycnf/socket.cnf' },
    { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
    { name: 'HOME', value: '/home/vitess' },
    { name: 'PATH', value: VITESS_PATH },
    ...commonEnv,
    ...destinationEnv(spec, keyspace, shard),
    { name: 'VITESS_ALLOW_FIRST_BACKUP', value: String(spec.allowFirstBackup ?? VITESS_DEFAULTS.allowFirstBackup) },
    { name: 'VITESS_FLAG_STYLE', value: style },
    ...(prunes ? pruneEnv(policy.spec.retention, settings.timeZone) : []),
  ];

  const init: Container = {
    name: 'init-vt-root',
    image: vtbackupImage,
    command: shellCommand('vitess-init-vt-root.sh'),
    env: [...commonEnv, { name: 'VT_ROOT_MOUNT', value: '/mnt/vt' }],
    volumeMounts: [{ name: 'vt-root', mountPath: '/mnt/vt' }],
    securityContext: restrictedContainerSecurity(),
  };
  const main: Container = {
    name: 'vtbackup',
    image: spec.images?.mysqld ?? VITESS_DEFAULTS.image,
    command: shellCommand('vitess-backup.sh', { metrics: ctx.metrics, retention: prunes }),
    args: renderFlags(flags, style),
    env,
    volumeMounts: mounts,
    securityContext: restrictedContainerSecurity(false),
  };
  return {
    initContainers: [init],
    containers: [main],
    mainContainers: ['vtbackup'],
    volumes,
    securityContext: restrictedPodSecurity(uid),
  };
}

function storageParts(spec: VitessSpec): { volumes: Volume[]; mounts: VolumeMount[]; env: EnvVar[] } {
  const st = spec.storage;
  const secretVolume = (name: string, ref: { name: string; key: string }): Volume =>
    ({ name, secret: { secretName: ref.name, items: [{ key: ref.key, path: ref.key }], defaultMode: 0o444 } });
  if (st.s3?.authSecret) {
    return {
      volumes: [secretVolume('s3-backup-auth-secret', st.s3.authSecret)],
      mounts: [{ name: 's3-backup-auth-secret', mountPath: SECRET_DIRS.s3, readOnly: true }],
      env: [{ name: 'AWS_SHARED_CREDENTIALS_FILE', value: `${SECRET_DIRS.s3}/${st.s3.authSecret.key}` }],
    };
  }
  if (st.gcs?.authSecret) {
    return {
      volumes: [secretVolume('gcs-backup-auth-secret', st.gcs.authSecret)],
      mounts: [{ name: 'gcs-backup-auth-secret', mountPath: SECRET_DIRS.gcs, readOnly: true }],
      env: [{ name: 'GOOGLE_APPLICATION_CREDENTIALS', value: `${SECRET_DIRS.gcs}/${st.gcs.authSecret.key}` }],
    };
  }
  if (st.azblob) {
    return {
      volumes: [secretVolume('azblob-backup-auth-secret', st.azblob.authSecret)],
      mounts: [{ name: 'azblob-backup-auth-secret', mountPath: SECRET_DIRS.azblob, readOnly: true }],
      env: [],
    };
  }
  if (st.ceph) {
    return {
      volumes: [secretVolume('ceph-backup-auth-secret', st.ceph.authSecret)],
      mounts: [{ name: 'ceph-backup-auth-secret', mountPath: SECRET_DIRS.ceph, readOnly: true }],
      env: [{ name: 'CEPH_CREDENTIALS_FILE', value: `${SECRET_DIRS.ceph}/${st.ceph.authSecret.key}` }],
    };
  }
  if (st.file) {
    return {
      volumes: [{ name: 'vitess-backups', persistentVolumeClaim: { claimName: st.file.claimName } }],
      mounts: [{ name: 'vitess-backups', mountPath: '/vt/backups', subPath: st.file.subPath }],
      env: [],
    };
  }
  return { volumes: [], mounts: [], env: [] };
}
