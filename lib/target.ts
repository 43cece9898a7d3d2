import type { Container, EnvVar, Manifest, Volume } from './k8s';
import type { JobSettings, Placement } from './policy/types';

/** What an engine contributes to one CronJob's pod. */
export interface EnginePod {
  readonly initContainers?: readonly Container[];
  readonly containers: readonly Container[];
  /** Containers that receive the policy's extra env, volumes and resources. */
  readonly mainContainers: readonly string[];
  readonly volumes?: readonly Volume[];
  readonly securityContext?: Record<string, unknown>;
  readonly hostNetwork?: boolean;
  /** Engine placement, merged before the policy's own. */
  readonly placement?: Placement;
  /** Engine default priority class (the policy's wins). */
  readonly priorityClassName?: string;
  /** Time the containers' TERM handlers need to clean up (the kubelet's default is 30 s). */
  readonly terminationGracePeriodSeconds?: number;
}

/** What every pod builder receives from the renderer. */
export interface PodContext {
  /** Env every container script receives (job identity, Pushgateway URL). */
  readonly env: readonly EnvVar[];
  /** The policy pushes metrics: scripts that push them need the metrics module (see `scriptModules`). */
  readonly metrics: boolean;
}

/** One backup target: becomes one CronJob. */
export interface Target {
  /** Stable identity; hashed schedule fields and stagger order derive from it. */
  readonly id: string;
  /** Name parts after the policy name. */
  readonly nameParts: readonly string[];
  /** Component label value: `backup` or `retention-prune`. */
  readonly component: 'backup' | 'retention-prune';
  /** Target labels (besides the common ones). */
  readonly labels: Readonly<Record<string, string>>;
  /** Settings after merging spec.defaults and every override level. */
  readonly settings: JobSettings;
  /** Path of the most specific settings level, for error messages. */
  readonly settingsPath: string;
  /** A schedule the engine computed (e.g. from a frequency), used instead of settings.schedule. */
  readonly schedule?: string;
  /** Engine default timeout. */
  readonly defaultTimeout: string;
  /** Builds the pod from the common part: `env` (job identity, metrics) and whether metrics are pushed. */
  readonly pod: (common: PodContext) => EnginePod;
  /** Extra objects that belong to this target (rendered after its CronJob). */
  readonly extraObjects?: readonly Manifest[];
}

/** Field-by-field merge of settings levels; later levels win; placement and pod merge per field. */
export function mergeSettings(...levels: readonly (JobSettings | undefined)[]): JobSettings {
  let out: JobSettings = {};
  for (const level of levels) {
    if (!level) continue;
    const picked = pickSettings(level);
    out = {
      ...out,
      ...picked,
      placement: out.placement || picked.placement ? { ...out.placement, ...picked.placement } : undefined,
      pod: out.pod || picked.pod ? { ...out.pod, ...picked.pod } : undefined,
    };
  }
  return out;
}

const SETTING_KEYS: readonly (keyof JobSettings)[] = [
  'schedule', 'timeZone', 'stagger', 'suspend', 'concurrencyPolicy', 'startingDeadline', 'successfulJobsHistoryLimit',
  'failedJobsHistoryLimit', 'timeout', 'backoffLimit', 'ttlAfterFinished', 'placement', 'pod',
];

/** Only the JobSettings fields of an object that also holds other fields (a schedule, a target). */
export function pickSettings(source: JobSettings): JobSettings {
  const out: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) if (source[key] !== undefined) out[key] = source[key];
  return out as JobSettings;
}
