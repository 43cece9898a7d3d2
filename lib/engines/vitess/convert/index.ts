/**
 * VitessCluster + VitessBackupSchedule → Vitess BackupPolicies. The cluster
 * gives storage, topology, images, keyspaces and tablet pools; its
 * `spec.backup.schedules` and the VitessBackupSchedules naming it give the
 * schedules. One policy per cluster, or one per group of keyspaces when their
 * storage, images or init script differ (a policy has one of each).
 */
import { canonicalFlag } from '../flags';
import type { VitessScratch, VitessSpec } from '../types';
import { reservedFlags } from '../validate';
import { API_VERSION, KIND } from '../../../policy/types';
import { parseSize } from '../../../units';
import { ClusterInfo, ShardBackupSettings, readCluster } from './cluster';
import { OperatorSchedule, checkSchedule, expandSchedule } from './expand';
import { PolicyTarget, policySchedules } from './schedules';
import { backupScheduleName } from './names';
import type { EngineConverter } from '../../convert';
import { Draft, Notes, Obj, asArr, asObj, asStr, at, objectName } from '../../convert';

export function convertVitess(clusters: readonly Obj[], schedules: readonly Obj[], notes: Notes): Draft[] {
  const joined = new Set<Obj>();
  const drafts = clusters.flatMap((doc) => {
    const object = objectName('VitessCluster', asObj(doc.metadata));
    const cluster = readCluster(doc, object, notes);
    if (!cluster) return [];
    const own = schedules.filter((s) => namesCluster(s, cluster));
    own.forEach((s) => joined.add(s));
    return clusterPolicies(doc, cluster, own, notes);
  });
  for (const s of schedules) {
    if (joined.has(s)) continue;
    const spec = asObj(s.spec);
    notes.error(
      objectName('VitessBackupSchedule', asObj(s.metadata)),
      'spec.cluster',
      `names VitessCluster "${asStr(spec?.cluster) ?? ''}", which is not in the input: give it too (storage, topology, images and keyspaces come from it)`,
    );
  }
  return drafts;
}

function namesCluster(schedule: Obj, cluster: ClusterInfo): boolean {
  const ns = asStr(asObj(schedule.metadata)?.namespace);
  return asStr(asObj(schedule.spec)?.cluster) === cluster.name && (ns === undefined || ns === cluster.namespace);
}

/** The cluster's schedule templates, then the VitessBackupSchedules not made from one of them. */
function operatorSchedules(doc: Obj, cluster: ClusterInfo, vbscs: readonly Obj[], notes: Notes): OperatorSchedule[] {
  const templates = asArr(asObj(asObj(doc.spec)?.backup)?.schedules).map((t, i): OperatorSchedule => ({
    name: asStr(asObj(t)?.name) ?? '',
    template: asObj(t) ?? {},
    object: cluster.object,
    path: at('spec.backup.schedules', i),
  }));
  const out = [...templates];
  for (const vbsc of vbscs) {
    const object = objectName('VitessBackupSchedule', asObj(vbsc.metadata));
    const spec = asObj(vbsc.spec) ?? {};
    const name = asStr(spec.name) ?? asStr(asObj(vbsc.metadata)?.name) ?? '';
    const template = templates.find((t) => t.name === name);
    if (!template) {
      out.push({ name, template: spec, object, path: 'spec' });
    } else if (JSON.stringify(withoutGenerated(spec)) !== JSON.stringify(withoutGenerated(template.template))) {
      notes.note(
        object,
        'spec',
        `made by the operator from ${cluster.object} ${template.path} (${backupScheduleName(cluster.name, name)}), which differs: the template is converted, as the operator will rewrite this object from it`,
      );
    }
  }
  return out;
}

/** The CRD's defaults (vitess.md §1.2), which the API server writes into a VitessBackupSchedule. */
const CRD_DEFAULTS: Readonly<Record<string, unknown>> = {
  concurrencyPolicy: 'Forbid',
  jobTimeoutMinute: 10,
  backupMethod: 'vtbackup',
};

/** A schedule's spec without what the operator and the API server add to a template (cluster, images, CRD defaults), keys sorted. */
function withoutGenerated(spec: Obj): unknown {
  const { cluster: _c, image: _i, imagePullPolicy: _p, ...all } = spec;
  const rest = Object.fromEntries(Object.entries(all).filter(([k, v]) => CRD_DEFAULTS[k] !== v));
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : asObj(v)
        ? Object.fromEntries(
            Object.keys(v as Obj)
              .sort()
              .map((k) => [k, sort((v as Obj)[k])]),
          )
        : v;
  return sort(rest);
}

function clusterPolicies(doc: Obj, cluster: ClusterInfo, vbscs: readonly Obj[], notes: Notes): Draft[] {
  if (!asObj(asObj(doc.spec)?.backup)) {
    notes.error(
      cluster.object,
      'spec.backup',
      'not set: the operator takes no backups of this cluster (there is no storage location)',
    );
    return [];
  }
  const schedules = operatorSchedules(doc, cluster, vbscs, notes);
  if (schedules.length === 0) {
    notes.error(
      cluster.object,
      'spec.backup.schedules',
      'no schedule, and no VitessBackupSchedule of this cluster in the input: nothing to convert',
    );
    return [];
  }
  const targets: PolicyTarget[] = [];
  for (const s of schedules) {
    let refused = false;
    checkSchedule(s, (path, message) => {
      refused = true;
      notes.error(s.object, path, message);
    });
    if (refused) continue;
    const expansion = expandSchedule(s, cluster, schedules);
    if ('problem' in expansion) {
      notes.error(s.object, ...expansion.problem);
      continue;
    }
    for (const target of expansion.targets) {
      const shard = cluster.keyspaces.get(target.keyspace)?.find((sh) => sh.shard === target.shard);
      if (!shard) {
        notes.error(
          s.object,
          target.strategyPath,
          `${target.keyspace}/${target.shard} is not a shard of a keyspace in ${cluster.object} spec.keyspaces: the operator fails with "unable to find shard"`,
        );
      } else if (shard.databaseName) {
        notes.error(
          cluster.object,
          at(shard.keyspacePath, 'databaseName'),
          `"${shard.databaseName}": the operator passes it as --init_db_name_override; backup-cronjobs always uses vt_<keyspace> and cannot back up this keyspace the same way`,
        );
      } else {
        const settings = shard.settings();
        if (settings) targets.push({ schedule: s, target, settings });
      }
    }
  }
  const byProfile = new Map<string, PolicyTarget[]>();
  for (const t of targets) {
    const key = JSON.stringify(t.settings.spec);
    byProfile.set(key, [...(byProfile.get(key) ?? []), t]);
  }
  const sources = [cluster.object, ...vbscs.map((v) => objectName('VitessBackupSchedule', asObj(v.metadata)))].join(
    ', ',
  );
  const names = new Set<string>();
  return [...byProfile.values()].map((group) => {
    let name = byProfile.size === 1 ? cluster.name : `${cluster.name}-${group[0].target.keyspace}`;
    for (let n = 2; names.has(name); n++) name = `${cluster.name}-${group[0].target.keyspace}-${n}`;
    names.add(name);
    return policy(name, cluster, group, byProfile.size > 1, sources, notes);
  });
}

function policy(
  name: string,
  cluster: ClusterInfo,
  targets: readonly PolicyTarget[],
  split: boolean,
  source: string,
  notes: Notes,
): Draft {
  const spec = targets[0].settings.spec;
  const { extraFlags, allowFirstBackup } = flags(spec.extraFlags, cluster, targets[0].settings, notes);
  const { schedules, comments } = policySchedules(cluster, targets, notes);
  const vitess: Record<string, unknown> = {
    cluster: cluster.name,
    images: spec.images,
    mysqlFlavor: spec.mysqlFlavor,
    backupEngine: cluster.backupEngine,
    topology: cluster.topology,
    vtctldServer: cluster.vtctldServer,
    storage: spec.storage,
    ...(spec.dbInitScriptSecret ? { dbInitScriptSecret: spec.dbInitScriptSecret } : {}),
    ...scratch(targets, cluster, notes),
    allowFirstBackup,
    ...(Object.keys(extraFlags).length > 0 ? { extraFlags } : {}),
    schedules,
  };
  const keyspaces = [...new Set(targets.map((t) => t.target.keyspace))].join(', ');
  const document = {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name, namespace: cluster.namespace },
    spec: {
      ...(cluster.imagePullSecrets ? { defaults: { pod: { imagePullSecrets: cluster.imagePullSecrets } } } : {}),
      vitess,
    },
  };
  const v = (...path: (string | number)[]) => ['spec', 'vitess', ...path];
  return {
    source,
    document,
    comments: [
      {
        path: [],
        text: `Converted from ${source} by backup-cronjobs convert.${split ? `\nThe keyspaces ${keyspaces} only: keyspaces with other storage, images or init script are in another policy.` : ''}`,
      },
      {
        path: ['spec'],
        text: "No spec.retention: the operator's scheduled vtbackup runs never prune (--min_retention_time=0s); add rules (keepLast, daily, ...) to prune here.",
      },
      {
        path: v('images'),
        text: "The keyspace's images as the operator resolves them (cluster images, keyspace overrides, then the operator's own defaults).",
      },
      {
        path: v('topology'),
        text: cluster.topology.implementation
          ? 'spec.globalLockserver.external.'
          : 'The operator-managed global etcd (spec.globalLockserver.etcd): its client Service.',
      },
      {
        path: v('vtctldServer'),
        text: "The operator's vtctld Service, gRPC port 15999: asked before each run whether the shard has a backup and a primary.",
      },
      {
        path: v('storage'),
        text: `The location named by ${targets[0].settings.poolPath}.backupLocationName, the only one the operator uses.`,
      },
      {
        path: v('allowFirstBackup'),
        text: `${allowFirstBackup ? `From ${targets[0].settings.poolPath}.vttablet.vtbackupExtraFlags.allow_first_backup. ` : ''}The operator runs --initial_backup=false and waits for the shard's first backup; here the entry script asks vtctld: an initial backup of a shard with neither backups nor primary, ${allowFirstBackup ? 'a first backup (--allow_first_backup)' : 'nothing (exit 1, with the reason)'} for a shard with a primary but no backup.`,
      },
      ...comments,
    ],
  };
}

/** The pool's vtbackupExtraFlags without those the operator overrides anyway; `allow_first_backup` becomes `allowFirstBackup`. */
function flags(
  extra: Readonly<Record<string, string>>,
  cluster: ClusterInfo,
  settings: ShardBackupSettings,
  notes: Notes,
): { extraFlags: Record<string, string>; allowFirstBackup: boolean } {
  const spec: VitessSpec = {
    cluster: cluster.name,
    backupEngine: cluster.backupEngine,
    storage: settings.spec.storage,
    topology: cluster.topology,
    vtctldServer: cluster.vtctldServer,
    schedules: [],
  };
  const reserved = reservedFlags(spec);
  const path = at(settings.poolPath, 'vttablet', 'vtbackupExtraFlags');
  const extraFlags: Record<string, string> = {};
  let allowFirstBackup = false;
  for (const [key, value] of Object.entries(extra)) {
    if (canonicalFlag(key) === 'allow_first_backup') allowFirstBackup = value === 'true';
    else if (reserved.has(canonicalFlag(key))) {
      notes.note(
        cluster.object,
        at(path, key),
        'dropped: the operator overrides this flag with its own value, and so does backup-cronjobs',
      );
    } else extraFlags[key] = value;
  }
  return { extraFlags, allowFirstBackup };
}

/** One scratch volume for the policy: the largest claim of its shards' first pools. */
function scratch(targets: readonly PolicyTarget[], cluster: ClusterInfo, notes: Notes): { scratch?: VitessScratch } {
  const claims = targets.map((t) => t.settings.scratch).filter((s): s is VitessScratch => s !== undefined);
  if (claims.length === 0) return {};
  const bytes = (s: VitessScratch) => {
    try {
      return parseSize(s.size!);
    } catch {
      return Number.NaN;
    }
  };
  const largest = claims.reduce((a, b) => (bytes(b) > bytes(a) ? b : a));
  if (claims.some((c) => JSON.stringify(c) !== JSON.stringify(largest))) {
    notes.note(
      cluster.object,
      'spec.keyspaces',
      `the tablet pools' dataVolumeClaimTemplates differ: every run here gets the largest (${largest.size}${largest.storageClassName ? `, ${largest.storageClassName}` : ''})`,
    );
  }
  if (claims.length < targets.length)
    notes.note(
      cluster.object,
      'spec.keyspaces',
      'some first tablet pools have no dataVolumeClaimTemplate: their runs get the same scratch volume as the others',
    );
  return { scratch: largest };
}

/** `convert` for vitess-operator's objects: a VitessCluster (with the VitessBackupSchedules naming it) gives its policies. */
export const vitessConverter: EngineConverter = {
  kinds: [
    { apiVersion: 'planetscale.com/v2', kind: 'VitessCluster' },
    { apiVersion: 'planetscale.com/v2', kind: 'VitessBackupSchedule' },
  ],
  convert: (of, notes) => convertVitess(of('VitessCluster'), of('VitessBackupSchedule'), notes),
};
