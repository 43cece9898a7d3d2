/**
 * The schedules of one Vitess policy, from the operator's schedules and their
 * expanded targets: one policy schedule per operator schedule, split where its
 * shards need different crons (`frequency` hashes per shard) or different pod
 * settings (keyspaces with different tablet pools).
 */
import { isDnsLabel, sanitize } from '../../../kubernetes/names';
import { cronFromFrequency } from '../../../schedule';
import { formatDuration } from '../../../units';
import type { ClusterInfo, ShardBackupSettings } from './cluster';
import type { ExpandedTarget, OperatorSchedule } from './expand';
import { FieldComment, Notes, asArr, asInt, asObj, asStr, asStringMap, at } from '../../convert';
import { tolerations } from './pool';

/** vitess-operator's default `jobTimeoutMinute` (CRD default; 0 becomes 10 too). */
const OPERATOR_JOB_TIMEOUT_MINUTES = 10;

export interface PolicyTarget {
  readonly schedule: OperatorSchedule;
  readonly target: ExpandedTarget;
  readonly settings: ShardBackupSettings;
}

interface Group {
  readonly schedule: OperatorSchedule;
  /** `frequency` kept: the schedule is named after the strategy so that the engine hashes like the operator. */
  readonly strategyName?: string;
  readonly cron?: string;
  readonly targets: PolicyTarget[];
}

type Path = (string | number)[];

/** Builds `spec.vitess.schedules` and their comments (paths from the document root). */
export function policySchedules(
  cluster: ClusterInfo,
  targets: readonly PolicyTarget[],
  notes: Notes,
): { schedules: Record<string, unknown>[]; comments: FieldComment[] } {
  const groups = groupTargets(cluster, targets);
  const names = groupNames(groups);
  const comments: FieldComment[] = [];
  const schedules = groups.map((g, i) => {
    const base: Path = ['spec', 'vitess', 'schedules', i];
    const { settings, lines, fieldComments } = jobSettings(g.schedule, g.targets[0].settings, notes);
    const timing =
      g.strategyName !== undefined ? { frequency: asStr(g.schedule.template.frequency) } : { schedule: g.cron };
    const from = `From ${g.schedule.object} ${g.schedule.path} (schedule "${g.schedule.name}")${g.targets.length < countTargets(targets, g.schedule) ? `, the shards ${describe(g.targets)}` : ''}.`;
    comments.push({ path: base, text: [from, ...lines].join('\n') });
    if (g.strategyName !== undefined) {
      comments.push({
        path: [...base, 'frequency'],
        text: `Named after the strategy "${g.strategyName}", so this frequency becomes the same cron per shard as in the operator (sha256 of cluster|keyspace|shard|<strategy>-<keyspace>-<shard>).`,
      });
    } else if (asStr(g.schedule.template.frequency)) {
      const keys = g.targets
        .map(({ target: t }) => `"${cluster.name}|${t.keyspace}|${t.shard}|${t.expandedName}"`)
        .join(', ');
      comments.push({
        path: [...base, 'schedule'],
        text: `The operator's cron for frequency ${asStr(g.schedule.template.frequency)} of ${describe(g.targets)} (sha256 of ${keys}).`,
      });
    } else {
      comments.push({
        path: [...base, 'schedule'],
        text: "Evaluated by the operator in its own time zone (UTC in its image); a CronJob without timeZone uses the kube-controller-manager's (UTC almost everywhere).",
      });
    }
    for (const c of fieldComments) comments.push({ path: [...base, ...c.path], text: c.text });
    return { name: names[i], ...timing, strategies: strategiesOf(g.targets), ...settings };
  });
  return { schedules, comments };
}

function countTargets(targets: readonly PolicyTarget[], s: OperatorSchedule): number {
  return targets.filter((t) => t.schedule === s).length;
}

function describe(targets: readonly PolicyTarget[]): string {
  return targets.map((t) => `${t.target.keyspace}/${t.target.shard}`).join(', ');
}

function strategiesOf(targets: readonly PolicyTarget[]): { keyspace: string; shards: string[] }[] {
  const byKeyspace = new Map<string, string[]>();
  for (const { target } of targets)
    byKeyspace.set(target.keyspace, [...(byKeyspace.get(target.keyspace) ?? []), target.shard]);
  return [...byKeyspace].map(([keyspace, shards]) => ({ keyspace, shards }));
}

/** The pod settings a shard's runs get under schedule `s` (the schedule's tolerations replace the pool's when set). */
function podKey(s: OperatorSchedule, settings: ShardBackupSettings): string {
  return JSON.stringify({
    ...settings.pod,
    tolerations: Array.isArray(s.template.tolerations) ? undefined : settings.pod.tolerations,
  });
}

function groupTargets(cluster: ClusterInfo, targets: readonly PolicyTarget[]): Group[] {
  const strategyKey = (t: PolicyTarget) => `${t.schedule.object}\0${t.target.strategyPath}`;
  const byName = new Map<string, Set<string>>();
  for (const t of targets)
    byName.set(t.target.strategyName, (byName.get(t.target.strategyName) ?? new Set()).add(strategyKey(t)));
  const groups = new Map<string, Group>();
  for (const t of targets) {
    const frequency = asStr(t.schedule.template.frequency);
    const name = t.target.strategyName;
    // the engine hashes "<schedule name>-<keyspace>-<shard>": the operator's expanded name when the schedule is named after the strategy
    const keepFrequency =
      frequency !== undefined &&
      t.target.scope !== 'Shard' &&
      isDnsLabel(name) &&
      byName.get(name)!.size === 1 &&
      targets
        .filter((o) => strategyKey(o) === strategyKey(t))
        .every((o) => podKey(o.schedule, o.settings) === podKey(t.schedule, t.settings));
    const cron =
      frequency === undefined
        ? asStr(t.schedule.template.schedule)
        : keepFrequency
          ? undefined
          : cronFromFrequency(
              frequency,
              `${cluster.name}|${t.target.keyspace}|${t.target.shard}|${t.target.expandedName}`,
            );
    const key = JSON.stringify([
      t.schedule.object,
      t.schedule.path,
      keepFrequency ? strategyKey(t) : cron,
      podKey(t.schedule, t.settings),
    ]);
    const group = groups.get(key) ?? {
      schedule: t.schedule,
      strategyName: keepFrequency ? name : undefined,
      cron,
      targets: [],
    };
    group.targets.push(t);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/**
 * Schedule names: the strategy's for kept frequencies; for crons computed from a frequency, the
 * (sanitized) strategy's; else the operator schedule's; numbered from 2 when taken.
 */
function groupNames(groups: readonly Group[]): string[] {
  const taken = new Set(groups.filter((g) => g.strategyName !== undefined).map((g) => g.strategyName!));
  return groups.map((g) => {
    if (g.strategyName !== undefined) return g.strategyName;
    const strategy = asStr(g.schedule.template.frequency) ? sanitize(g.targets[0].target.strategyName) : '';
    const base = strategy || sanitize(g.schedule.name) || 'schedule';
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    taken.add(name);
    return name;
  });
}

/** The schedule's CronJob and pod settings, the comment lines saying what was chosen, and field comments. */
function jobSettings(
  s: OperatorSchedule,
  shard: ShardBackupSettings,
  notes: Notes,
): { settings: Record<string, unknown>; lines: string[]; fieldComments: { path: Path; text: string }[] } {
  const t = s.template;
  const out: Record<string, unknown> = {};
  const lines: string[] = [];
  const fieldComments: { path: Path; text: string }[] = [];
  if (t.suspend === true) out.suspend = true;
  const policy = asStr(t.concurrencyPolicy);
  if (policy && policy !== 'Forbid') out.concurrencyPolicy = policy;
  const deadline = asInt(t.startingDeadlineSeconds);
  if (deadline !== undefined && deadline > 0) out.startingDeadline = formatDuration(deadline);
  else
    lines.push(
      'No startingDeadlineSeconds: the operator starts a missed run however late; here a run may start at most 10m late (startingDeadline).',
    );
  const unlimited: string[] = [];
  for (const field of ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit'] as const) {
    const limit = asInt(t[field]);
    if (limit !== undefined) out[field] = limit;
    else unlimited.push(field);
  }
  if (unlimited.length > 0)
    lines.push(
      `No ${unlimited.join(' or ')}: the operator keeps every such Job (and its PVC); a CronJob keeps 3 here.`,
    );
  const minutes = asInt(t.jobTimeoutMinute);
  if (minutes === -1) {
    lines.push('jobTimeoutMinute -1 (no timeout): every run here has a deadline, the Vitess default 2h.');
  } else {
    out.timeout = formatDuration(60 * (minutes || OPERATOR_JOB_TIMEOUT_MINUTES));
    fieldComments.push({
      path: ['timeout'],
      text: `jobTimeoutMinute${minutes ? ` ${minutes}` : ` unset: the operator's default ${OPERATOR_JOB_TIMEOUT_MINUTES}`}; the operator counts from the scheduled time, activeDeadlineSeconds from the Job's start (as vitess-operator#818 does).`,
    });
  }
  const pod = podSettings(s, shard);
  if (pod.pod) out.pod = pod.pod;
  if (pod.placement) out.placement = pod.placement;
  if (shard.pod.resources) {
    fieldComments.push({
      path: ['pod', 'resources'],
      text: `${shard.poolPath}.mysqld.resources, as the operator gives vtbackup (the schedule's own resources apply only to backupMethod vtctldclient).`,
    });
  }
  if (asStringMap(t.annotations))
    fieldComments.push({
      path: ['pod', 'annotations'],
      text: "The schedule's annotations (the operator also puts them on the Job).",
    });
  noteUnmapped(s, notes);
  if (asStr(t.backupMethod) === 'vtctldclient')
    lines.push('backupMethod vtctldclient: converted to vtbackup, which takes no serving tablet out of the pool.');
  return { settings: out, lines, fieldComments };
}

function podSettings(
  s: OperatorSchedule,
  shard: ShardBackupSettings,
): { pod?: Record<string, unknown>; placement?: Record<string, unknown> } {
  const annotations = asStringMap(s.template.annotations);
  const pod: Record<string, unknown> = {
    ...(shard.pod.resources ? { resources: shard.pod.resources } : {}),
    ...(shard.pod.env ? { env: shard.pod.env } : {}),
    ...(shard.pod.volumes ? { volumes: shard.pod.volumes } : {}),
    ...(annotations ? { annotations } : {}),
  };
  const tols = Array.isArray(s.template.tolerations) ? tolerations(s.template.tolerations) : shard.pod.tolerations;
  return {
    pod: Object.keys(pod).length > 0 ? pod : undefined,
    placement: tols ? { tolerations: tols } : undefined,
  };
}

/**
 * Every field of a VitessBackupSchedule spec (vitess-operator HEAD, reference/vitess.md §1.2; a
 * VitessCluster's spec.backup.schedules[] items are the same template without cluster and image):
 * carried over into the policy, or noted with the reason by noteUnmapped. Any other field is noted as unknown.
 */
export const SCHEDULE_FIELDS = {
  carried: [
    'name',
    'cluster',
    'schedule',
    'frequency',
    'backupMethod',
    'strategies',
    'successfulJobsHistoryLimit',
    'failedJobsHistoryLimit',
    'suspend',
    'startingDeadlineSeconds',
    'concurrencyPolicy',
    'jobTimeoutMinute',
    'annotations',
    'tolerations',
  ],
  noted: ['resources', 'allowedMissedRun', 'affinity', 'image', 'imagePullPolicy'],
} as const;
/** Fields of a strategy (§1.3): carried over, or noted. */
export const STRATEGY_FIELDS = { carried: ['name', 'scope', 'keyspace', 'shard'], noted: ['extraFlags'] } as const;

const KNOWN_SCHEDULE_FIELDS = new Set<string>([...SCHEDULE_FIELDS.carried, ...SCHEDULE_FIELDS.noted]);
const KNOWN_STRATEGY_FIELDS = new Set<string>([...STRATEGY_FIELDS.carried, ...STRATEGY_FIELDS.noted]);

/** Template fields that have no equivalent here. */
function noteUnmapped(s: OperatorSchedule, notes: Notes): void {
  const t = s.template;
  const resources = asObj(t.resources);
  if (resources && Object.keys(resources).length > 0) {
    notes.note(
      s.object,
      at(s.path, 'resources'),
      "not carried over: the operator gives a schedule's resources only to the vtctldclient container; its vtbackup pods take the first tablet pool's mysqld.resources, and so do these (pod.resources, or the policy's defaults when the pool sets none)",
    );
  }
  if (asStr(t.image) || asStr(t.imagePullPolicy)) {
    notes.note(
      s.object,
      at(s.path, asStr(t.image) ? 'image' : 'imagePullPolicy'),
      "the vtctldclient image (backupMethod vtctldclient only): not carried over; the vtbackup pods use the keyspace's images (spec.vitess.images)",
    );
  }
  for (const key of Object.keys(t).filter((k) => !KNOWN_SCHEDULE_FIELDS.has(k))) {
    notes.note(
      s.object,
      at(s.path, key),
      'not a field of VitessBackupSchedule that convert knows (vitess-operator HEAD): not carried over',
    );
  }
  asArr(t.strategies).forEach((st, i) => {
    for (const key of Object.keys(asObj(st) ?? {}).filter((k) => !KNOWN_STRATEGY_FIELDS.has(k))) {
      notes.note(
        s.object,
        at(s.path, 'strategies', i, key),
        'not a field of a backup strategy that convert knows (vitess-operator HEAD): not carried over',
      );
    }
  });
  if (asStr(t.backupMethod) === 'vtctldclient') {
    notes.note(
      s.object,
      at(s.path, 'backupMethod'),
      "vtctldclient is not offered: the backups run vtbackup, with the same storage, so a serving tablet is no longer taken out of the pool (the pods need the tablet pool's resources)",
    );
  }
  if (asInt(t.allowedMissedRun) !== undefined) {
    notes.note(
      s.object,
      at(s.path, 'allowedMissedRun'),
      'no equivalent and not needed: with startingDeadline set, a CronJob never stops after 100 missed runs',
    );
  }
  if (asObj(t.affinity)) {
    notes.note(
      s.object,
      at(s.path, 'affinity'),
      'not converted: express it with spec.vitess.schedules[].placement (nodeSelector, nodeAffinity, podAffinity, podAntiAffinity)',
    );
  }
  asArr(t.strategies).forEach((st, i) => {
    if (asObj(asObj(st)?.extraFlags)) {
      notes.note(
        s.object,
        at(s.path, 'strategies', i, 'extraFlags'),
        'flags of vtctldclient BackupShard (backupMethod vtctldclient only); vtbackup flags go in spec.vitess.extraFlags',
      );
    }
  });
}
