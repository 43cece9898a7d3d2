/**
 * `backup-cronjobs restore`: the one-off Job an engine describes to restore one
 * backup, built by the workload builder with the settings of the CronJob it
 * belongs to (so the policy's pod settings apply to it too). It is printed to
 * be applied by hand, never rendered with the CronJobs: a Job's pod template
 * cannot change once created, so a Job kept in Git could never name another
 * snapshot.
 */
import type { EnvVar, Manifest } from '../kubernetes/objects';
import { DNS_LABEL_MAX, joinName } from '../kubernetes/names';
import { IssueList } from '../policy/errors';
import { mergeSettings } from '../policy/settings';
import { resolvePodPlacement, resolveSettings } from '../policy/resolve-settings';
import type { PointInTimeRequest, RestoreRequest } from '../engines/engine';
import { engineDefinition } from '../registry';
import { buildJob } from '../workload/jobs';
import { DEFAULTS_PATH, ResolvedPolicy, checkPodAgainstEngine, commonLabels } from './resolve';
import { policyContext } from './validate';
import { provenance } from './provenance';

export type { PointInTimeRequest, RestoreRequest } from '../engines/engine';

/** RFC 3339 with seconds and a zone (Z or ±hh:mm), as Vitess' ParseRFC3339 (time.RFC3339) reads it. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export type PointInTimeOutcome =
  /** The procedure, to print. */
  | { readonly kind: 'procedure'; readonly text: string }
  /** The request does not fit the policy: one line per flag. */
  | { readonly kind: 'refused'; readonly problems: readonly string[] };

/** The point-in-time restore procedure of a resolved policy (`restore --time`). */
export function pointInTimeRestore(r: ResolvedPolicy, request: PointInTimeRequest): PointInTimeOutcome {
  if (!RFC3339.test(request.time) || Number.isNaN(Date.parse(request.time)))
    return {
      kind: 'refused',
      problems: [`--time: received ${JSON.stringify(request.time)}; an RFC 3339 time such as 2025-02-26T02:20:00Z`],
    };
  const definition = engineDefinition(r.engine);
  if (!definition.pointInTime)
    return {
      kind: 'refused',
      problems: [`--time: the ${r.engine} engine has no point-in-time restore; restore a backup with --snapshot`],
    };
  const answer = definition.pointInTime(r.policy.spec[r.engine], policyContext(r.policy, r.engine), request);
  return 'problems' in answer
    ? { kind: 'refused', problems: answer.problems }
    : { kind: 'procedure', text: answer.text };
}

/** What `restoreJob` answers: the Job, why the request does not fit, or how the engine's backups are restored. */
export type RestoreOutcome =
  /** The Job, and notes for the person applying it. */
  | { readonly kind: 'job'; readonly job: Manifest; readonly notes: readonly string[] }
  /** The request does not fit the policy: one line per flag. */
  | { readonly kind: 'refused'; readonly problems: readonly string[] }
  /** The engine has no restore Job: how its backups are restored instead. */
  | { readonly kind: 'unsupported'; readonly help: string };

/**
 * The restore Job of a resolved policy for `request`. Throws PolicyError when
 * the policy's pod settings clash with the restore pod (named at their path).
 */
export function restoreJob(r: ResolvedPolicy, request: RestoreRequest, source?: string): RestoreOutcome {
  const definition = engineDefinition(r.engine);
  if (!definition.restoreJob) {
    return { kind: 'unsupported', help: definition.restoreHelp ?? `the ${r.engine} engine has no restore Job` };
  }
  const answer = definition.restoreJob(r.policy.spec[r.engine], policyContext(r.policy, r.engine), request);
  if ('problems' in answer) return { kind: 'refused', problems: answer.problems };
  const { job, notes } = answer;
  const name = joinName([r.name, ...job.nameParts], DNS_LABEL_MAX);
  const settings = resolveSettings(mergeSettings(r.policy.spec.defaults, job.overrides), job.defaults);
  const env: EnvVar[] = [
    { name: 'BACKUP_JOB', value: name },
    { name: 'BACKUP_POLICY', value: r.name },
    { name: 'BACKUP_ENGINE', value: r.engine },
  ];
  const pod = resolvePodPlacement(job.pod({ env, settings, metrics: false }), settings);
  const issues = new IssueList();
  // a Job applied by hand carries its scripts inline: it needs no ConfigMap of the policy
  checkPodAgainstEngine(
    pod,
    settings,
    job.overrides?.pod ? job.settingsPath : DEFAULTS_PATH,
    { ...r.annotations, ...job.annotations },
    'inline',
    issues,
  );
  issues.throwIfAny(source);
  const labels = { ...commonLabels(r.policy, r.engine, job.component), ...job.labels };
  const annotations = { ...r.annotations, ...job.annotations };
  const built = buildJob(
    { name, namespace: r.namespace, labels, annotations },
    { ...settings, backoffLimit: job.backoffLimit ?? settings.backoffLimit },
    pod,
  );
  // provenance on the Job itself, as on every rendered object (not on its pod template)
  const manifest = {
    ...built,
    metadata: { ...built.metadata, annotations: { ...built.metadata.annotations, ...provenance(r.name) } },
  };
  return { kind: 'job', job: manifest, notes };
}
