/**
 * Vitess: one CronJob per (schedule, keyspace, shard) running vtbackup, the
 * backup type decided at run time by vitess-backup.sh; for a schedule with
 * `incremental`, one incremental-backup CronJob per keyspace/shard too
 * (incremental.ts); with `spec.retention.schedule`, one retention-prune
 * CronJob per keyspace/shard.
 */
import type { PolicyPath } from '../../policy/errors';
import type { EngineContainer, EngineEnvVar, Volume, VolumeMount } from '../../kubernetes/objects';
import { labelValue, safeShard } from '../../kubernetes/names';
import { pruneEnv, prunesAfterBackup } from '../../policy/retention-options';
import { pickSettings } from '../../policy/settings';
import type { DestinationEnvVar } from '../../retention';
import { cronFromFrequency } from '../../schedule';
import { shellCommand } from '../../scripts';
import { STEP_RESOURCES, resolveResources, resourceOverrides } from '../../workload/resources';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../../workload/security';
import { ephemeralClaimVolume } from '../../workload/volumes';
import type { EnginePod, EngineTarget, PodContext, PolicyContext } from '../engine';
import { VITESS_DEFAULTS } from './defaults';
import { vitessRetentionEnv } from './retention';
import { SECRET_DIRS, shardArgs } from './flags';
import { storageParts } from './storage';
import { incrementalTarget } from './incremental';
import type { ResolvedVitess } from './resolve';
import type { VitessSchedule } from './types';
import { vtctldPod } from './vtctld-pod';

const LABEL_PREFIX = 'backup-cronjobs.io';
const VITESS_PATH = '/vt/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Expands schedules × strategies × shards into backup targets, in policy
 * order; then, when retention has its own schedule, one prune target per
 * keyspace/shard (its backups are shared by every schedule).
 */
export function vitessTargets(spec: ResolvedVitess, policy: PolicyContext): EngineTarget[] {
  const targets: EngineTarget[] = [];
  const shards = new Map<string, { keyspace: string; shard: string }>();
  const covered = coveredShards(spec);
  const parts = shardPodParts(spec);
  spec.schedules.forEach((sched, i) => {
    const sPath = [...policy.path, 'schedules', i];
    for (const strategy of sched.strategies) {
      for (const shard of strategy.shards) {
        targets.push(
          shardTarget(spec, parts, policy, sched, sPath, strategy.keyspace, shard, covered.get(strategy.keyspace)!),
        );
        const incremental = sched.incremental;
        if (incremental)
          targets.push(
            incrementalTarget(spec, { ...sched, incremental }, sPath, strategy.keyspace, shard, {
              labels: shardLabels(spec, strategy.keyspace, safeShard(shard)),
              path: VITESS_PATH,
            }),
          );
        shards.set(`${strategy.keyspace}/${shard}`, { keyspace: strategy.keyspace, shard });
      }
    }
  });
  const pruneSchedule = policy.retention?.schedule;
  if (pruneSchedule !== undefined) {
    for (const { keyspace, shard } of shards.values())
      targets.push(pruneTarget(spec, policy, keyspace, shard, pruneSchedule));
  }
  return targets;
}

/**
 * Per keyspace, the shards some CronJob of the policy backs up (under any
 * schedule, suspended or not), sorted and space-separated: what each run
 * compares with the keyspace's serving shards (coverage drift).
 */
function coveredShards(spec: ResolvedVitess): Map<string, string> {
  const byKeyspace = new Map<string, Set<string>>();
  for (const strategy of spec.schedules.flatMap((s) => s.strategies)) {
    const set = byKeyspace.get(strategy.keyspace) ?? new Set<string>();
    for (const shard of strategy.shards) set.add(shard);
    byKeyspace.set(strategy.keyspace, set);
  }
  return new Map([...byKeyspace].map(([keyspace, set]) => [keyspace, [...set].sort().join(' ')]));
}

function shardLabels(spec: ResolvedVitess, keyspace: string, safe: string): Record<string, string> {
  return {
    [`${LABEL_PREFIX}/keyspace`]: labelValue(keyspace),
    [`${LABEL_PREFIX}/shard`]: labelValue(safe),
    'planetscale.com/cluster': labelValue(spec.cluster),
    'planetscale.com/keyspace': labelValue(keyspace),
    'planetscale.com/shard': labelValue(safe),
  };
}

function shardTarget(
  spec: ResolvedVitess,
  parts: ShardPodParts,
  policy: PolicyContext,
  sched: VitessSchedule,
  sPath: PolicyPath,
  keyspace: string,
  shard: string,
  covered: string,
): EngineTarget {
  const safe = safeShard(shard);
  return {
    id: `vitess|${spec.cluster}|${sched.name}|${keyspace}|${shard}`,
    nameParts: [sched.name, keyspace, safe],
    key: `${sched.name}/${keyspace}/${shard}`,
    component: 'backup',
    labels: { [`${LABEL_PREFIX}/schedule`]: labelValue(sched.name), ...shardLabels(spec, keyspace, safe) },
    overrides: pickSettings(sched),
    settingsPath: sPath,
    schedule:
      sched.frequency !== undefined
        ? cronFromFrequency(sched.frequency, `${spec.cluster}|${keyspace}|${shard}|${sched.name}-${keyspace}-${safe}`)
        : undefined,
    defaults: { timeout: VITESS_DEFAULTS.timeout },
    restoresFirst: true,
    shard: `${spec.cluster}/${keyspace}/${shard}`,
    pod: (ctx) => vitessPod(spec, parts, policy, keyspace, shard, covered, ctx),
  };
}

function pruneTarget(
  spec: ResolvedVitess,
  policy: PolicyContext,
  keyspace: string,
  shard: string,
  schedule: string,
): EngineTarget {
  const safe = safeShard(shard);
  return {
    id: `vitess|${spec.cluster}|prune|${keyspace}|${shard}`,
    nameParts: ['prune', keyspace, safe],
    key: `${keyspace}/${shard}`,
    component: 'retention-prune',
    labels: shardLabels(spec, keyspace, safe),
    settingsPath: ['spec', 'retention'],
    schedule,
    defaults: { timeout: VITESS_DEFAULTS.pruneTimeout },
    pod: (ctx) => prunePod(spec, policy, keyspace, shard, ctx),
  };
}

/**
 * This shard's backups, in the retention contract's variables (vtctldclient GetBackups/RemoveBackup);
 * a shard that some schedule takes incremental backups of keeps its incremental chains whole.
 */
function destinationEnv(spec: ResolvedVitess, keyspace: string, shard: string): DestinationEnvVar[] {
  const incrementalChains = spec.schedules.some(
    (s) => s.incremental && s.strategies.some((st) => st.keyspace === keyspace && st.shards.includes(shard)),
  );
  return vitessRetentionEnv({ server: spec.vtctldServer, keyspace, shard, incrementalChains });
}

function prunePod(
  spec: ResolvedVitess,
  policy: PolicyContext,
  keyspace: string,
  shard: string,
  ctx: PodContext,
): EnginePod {
  return vtctldPod(spec, {
    name: 'retention-prune',
    command: shellCommand('prune.sh'),
    env: [
      ...ctx.env,
      { name: 'PATH', value: VITESS_PATH },
      ...destinationEnv(spec, keyspace, shard),
      ...pruneEnv(policy.retention, ctx.settings.zone),
    ],
  });
}

/** What the pod of every shard has in common: built once per policy, one copy in memory for 10,000 shards. */
interface ShardPodParts {
  readonly volumes: readonly Volume[];
  readonly mounts: readonly VolumeMount[];
  /** The env before the target's own. */
  readonly env: readonly EngineEnvVar[];
  readonly initMounts: readonly VolumeMount[];
  readonly containerSecurity: Record<string, unknown>;
  readonly podSecurity: Record<string, unknown>;
  /** vtbackup's args of a shard, for a cpu request (`shardArgs`, made once per request). */
  readonly args: (cpu: string | undefined, keyspace: string, shard: string) => string[];
}

function shardPodParts(spec: ResolvedVitess): ShardPodParts {
  const storage = storageParts(spec.storage);
  const scratch = spec.scratch;
  const volumes: Volume[] = [
    ...storage.volumes,
    { name: 'vt-root', emptyDir: {} },
    // the root filesystem is read-only: vitess-backup.sh's mktemp and anything else vtbackup writes outside its data dir
    { name: 'tmp', emptyDir: {} },
    scratch.size
      ? ephemeralClaimVolume('persistent-volume-claim', {
          size: scratch.size,
          storageClassName: scratch.storageClassName,
          accessModes: scratch.accessModes,
        })
      : undefined,
    spec.dbInitScriptSecret
      ? {
          name: 'db-init-script-secret',
          secret: {
            secretName: spec.dbInitScriptSecret.name,
            items: [{ key: spec.dbInitScriptSecret.key, path: spec.dbInitScriptSecret.key }],
            defaultMode: 0o444,
          },
        }
      : undefined,
  ].filter((v): v is Volume => v !== undefined);

  const mounts: VolumeMount[] = [
    { name: 'vt-root', mountPath: '/etc/ssl/certs', subPath: 'certs', readOnly: true },
    { name: 'vt-root', mountPath: '/vt/bin', subPath: 'bin', readOnly: true },
    { name: 'vt-root', mountPath: '/vt/config', subPath: 'config', readOnly: true },
    { name: 'vt-root', mountPath: '/vt/socket', subPath: 'socket' },
    { name: 'tmp', mountPath: '/tmp' },
    scratch.size
      ? { name: 'persistent-volume-claim', mountPath: '/vt/vtdataroot', subPath: 'vtdataroot' }
      : { name: 'vt-root', mountPath: '/vt/vtdataroot', subPath: 'vtdataroot' },
    ...(spec.dbInitScriptSecret
      ? [{ name: 'db-init-script-secret', mountPath: SECRET_DIRS.dbInit, readOnly: true }]
      : []),
    ...storage.mounts,
  ];

  const env: EngineEnvVar[] = [
    ...storage.env,
    { name: 'VTROOT', value: '/vt' },
    { name: 'VTDATAROOT', value: '/vt/vtdataroot' },
    { name: 'VT_MYSQL_ROOT', value: '/usr' },
    { name: 'MYSQL_FLAVOR', value: spec.mysqlFlavor },
    {
      name: 'EXTRA_MY_CNF',
      value: '/vt/config/mycnf/rbr.cnf:/vt/config/mycnf/log-error.cnf:/vt/config/mycnf/socket.cnf',
    },
    { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
    { name: 'HOME', value: '/home/vitess' },
    { name: 'PATH', value: VITESS_PATH },
  ];
  const argsByCpu = new Map<string | undefined, (keyspace: string, shard: string) => string[]>();
  const args = (cpu: string | undefined, keyspace: string, shard: string) => {
    let forCpu = argsByCpu.get(cpu);
    if (forCpu === undefined) argsByCpu.set(cpu, (forCpu = shardArgs(spec, cpu)));
    return forCpu(keyspace, shard);
  };
  return {
    volumes,
    mounts,
    env,
    args,
    initMounts: [{ name: 'vt-root', mountPath: '/mnt/vt' }],
    containerSecurity: restrictedContainerSecurity(),
    podSecurity: restrictedPodSecurity(VITESS_DEFAULTS.vitessUid),
  };
}

function vitessPod(
  spec: ResolvedVitess,
  parts: ShardPodParts,
  policy: PolicyContext,
  keyspace: string,
  shard: string,
  covered: string,
  ctx: PodContext,
): EnginePod {
  // xtrabackup's parallelism follows vtbackup's cpu request, as the operator's does
  const cpu = resolveResources(STEP_RESOURCES.vtbackup, resourceOverrides(ctx.settings.pod, 'vtbackup', true)).resources
    .requests.cpu;
  const prunes = prunesAfterBackup(policy.retention);
  const env = [
    ...parts.env,
    ...ctx.env,
    ...destinationEnv(spec, keyspace, shard),
    { name: 'VITESS_ALLOW_FIRST_BACKUP', value: String(spec.allowFirstBackup) },
    { name: 'BACKUP_POLICY_SHARDS', value: covered },
    ...(prunes ? pruneEnv(policy.retention, ctx.settings.zone) : []),
  ];

  const init: EngineContainer = {
    name: 'init-vt-root',
    image: spec.images.vtbackup,
    command: shellCommand('vitess-init-vt-root.sh'),
    // It pushes no metrics; the job's name prefixes its log lines.
    env: ctx.env.filter((e) => e.name === 'BACKUP_JOB'),
    volumeMounts: parts.initMounts,
    resources: STEP_RESOURCES.shell,
    securityContext: parts.containerSecurity,
  };
  const main: EngineContainer = {
    name: 'vtbackup',
    image: spec.images.mysqld,
    command: shellCommand('vitess-backup.sh', { metrics: ctx.metrics, retention: prunes }),
    args: parts.args(cpu, keyspace, shard),
    env,
    volumeMounts: parts.mounts,
    resources: STEP_RESOURCES.vtbackup,
    securityContext: parts.containerSecurity,
  };
  return {
    initContainers: [init],
    containers: [main],
    mainContainers: ['vtbackup'],
    volumes: parts.volumes,
    securityContext: parts.podSecurity,
    terminationGracePeriodSeconds: VITESS_DEFAULTS.terminationGracePeriodSeconds,
  };
}
