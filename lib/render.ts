/** Policy → ordered list of plain Kubernetes objects. */
import { prometheusRule } from './alerts';
import { buildCronJob } from './cronjob';
import type { EnvVar, Manifest } from './k8s';
import { joinName, labelValue } from './names';
import { JOB_DEFAULTS } from './policy/defaults';
import { IssueList, childPath, show } from './policy/errors';
import { validatePolicy } from './policy/load';
import type { BackupPolicy } from './policy/types';
import { ScheduleError, containsHash, parseDuration, resolveHashedSchedule, staggerSchedules, validateSchedule } from './schedule';
import type { Target } from './target';
import { ENGINES, EngineKey, enginesOf } from './engines/registry';

export const MANAGED_BY = 'backup-cronjobs';

/** The engine of a validated policy. */
export function policyEngine(policy: BackupPolicy): EngineKey {
  return enginesOf(policy)[0];
}

/** Expands a validated policy into its targets, in policy order. */
export function policyTargets(policy: BackupPolicy): Target[] {
  const engine = policyEngine(policy);
  return ENGINES[engine].targets(policy, `spec.${engine}`);
}

/**
 * Renders a policy document (validated first) into Kubernetes objects. Throws
 * PolicyError naming every problem; never returns a partial result.
 */
export function renderPolicy(doc: unknown, source?: string): Manifest[] {
  const policy = validatePolicy(doc, source);
  const targets = policyTargets(policy);
  const issues = new IssueList();
  const schedules = resolveSchedules(targets, issues);
  const namespace = policy.metadata.namespace ?? JOB_DEFAULTS.namespace;
  const engine = policyEngine(policy);
  const names = new Map<string, Target>();
  const out: Manifest[] = [];
  targets.forEach((target, i) => {
    const name = joinName([policy.metadata.name, ...target.nameParts]);
    const clash = names.get(name);
    if (clash) {
      issues.add(target.settingsPath, `targets ${show(clash.id)} and ${show(target.id)} both get the CronJob name ${show(name)}`);
      return;
    }
    names.set(name, target);
    const schedule = schedules[i];
    if (schedule === undefined) return;
    const commonLabels = {
      ...policy.metadata.labels,
      'app.kubernetes.io/name': MANAGED_BY,
      'app.kubernetes.io/instance': policy.metadata.name,
      'app.kubernetes.io/component': target.component,
      'app.kubernetes.io/managed-by': MANAGED_BY,
      'backup-cronjobs.io/policy': policy.metadata.name,
      'backup-cronjobs.io/engine': engine,
      'backup-cronjobs.io/target': labelValue(name),
    };
    const commonEnv: EnvVar[] = [
      { name: 'BACKUP_JOB', value: name },
      { name: 'BACKUP_POLICY', value: policy.metadata.name },
      { name: 'BACKUP_ENGINE', value: engine },
      { name: 'BACKUP_TARGET', value: name },
      ...(policy.spec.metrics?.pushgatewayUrl
        ? [
          { name: 'BACKUP_PUSHGATEWAY_URL', value: policy.spec.metrics.pushgatewayUrl },
          { name: 'BACKUP_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          { name: 'BACKUP_METRICS_PREFIX', value: ENGINES[engine].metricsPrefix },
        ]
        : []),
    ];
    const metrics = policy.spec.metrics?.pushgatewayUrl !== undefined;
    out.push(buildCronJob(target, schedule, { name, namespace, commonLabels, annotations: policy.metadata.annotations, commonEnv, metrics }));
    out.push(...(target.extraObjects ?? []));
  });
  issues.throwIfAny(source);
  const rule = prometheusRule(policy, out, ENGINES[engine].metricsPrefix, {
    ...policy.metadata.labels,
    'app.kubernetes.io/name': MANAGED_BY,
    'app.kubernetes.io/instance': policy.metadata.name,
    'app.kubernetes.io/component': 'alerts',
    'app.kubernetes.io/managed-by': MANAGED_BY,
    'backup-cronjobs.io/policy': policy.metadata.name,
    'backup-cronjobs.io/engine': engine,
  });
  return rule ? [...out, rule] : out;
}

/** Resolves every target's final schedule: engine schedule, hashed fields, stagger. */
export function resolveSchedules(targets: readonly Target[], issues: IssueList): (string | undefined)[] {
  const result: (string | undefined)[] = targets.map(() => undefined);
  const groups = new Map<string, number[]>();
  targets.forEach((t, i) => {
    const base = t.schedule ?? t.settings.schedule ?? JOB_DEFAULTS.schedule;
    if (t.settings.stagger) {
      const key = JSON.stringify([base, t.settings.stagger.window, t.settings.timeZone ?? '']);
      groups.set(key, [...(groups.get(key) ?? []), i]);
      return;
    }
    result[i] = checked(containsHash(base) ? resolveHashedSchedule(base, t.id) : base, t, issues);
  });
  for (const [key, members] of groups) {
    const [base, window] = JSON.parse(key) as [string, string];
    try {
      const spread = staggerSchedules(base, members.map((i) => targets[i].id), parseDuration(window) / 60);
      members.forEach((i, k) => (result[i] = checked(spread[k], targets[i], issues)));
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
      issues.add(childPath(targets[members[0]].settingsPath, 'stagger'), `cannot stagger ${members.length} target(s) of schedule ${show(base)} over ${show(window)}: ${e.message}`);
    }
  }
  return result;
}

function checked(schedule: string, target: Target, issues: IssueList): string | undefined {
  const problem = validateSchedule(schedule);
  if (!problem) return schedule;
  issues.add(childPath(target.settingsPath, 'schedule'), `resolved to ${show(schedule)}; ${problem}`);
  return undefined;
}
