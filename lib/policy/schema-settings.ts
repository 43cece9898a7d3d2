/** Job settings shared by every level of a policy. */
import { JOB_DEFAULTS } from './defaults';
import {
  PATTERNS,
  Schema,
  arr,
  bool,
  cron,
  dnsLabel,
  duration,
  int,
  named,
  nonEmptyStr,
  obj,
  objectName,
  quantity,
  secretKeyRef,
  size,
  str,
  strEnum,
  stringMap,
  withMeta,
} from './schema-builders';

export const labelValues = (description: string): Schema =>
  stringMap(description, { additionalProperties: { type: 'string', maxLength: 63 } });

const nodeRequirement = named(
  'NodeRequirement',
  obj(
    'A node label requirement; hard without weight, preferred with it.',
    {
      key: nonEmptyStr('Node label key.'),
      operator: strEnum('Label operator.', ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'], {
        default: JOB_DEFAULTS.nodeRequirementOperator,
      }),
      values: arr(
        'Label values (In, NotIn: one or more; Gt, Lt: exactly one integer; Exists, DoesNotExist: none).',
        nonEmptyStr('A label value.', { maxLength: 63 }),
      ),
      weight: int('Preference weight; omit for a hard requirement.', 1, 100),
    },
    ['key'],
  ),
);

const toleration = named(
  'Toleration',
  obj('A toleration.', {
    key: str('Taint key; omit with operator Exists to tolerate every taint.'),
    operator: strEnum('Toleration operator.', ['Equal', 'Exists'], { default: JOB_DEFAULTS.tolerationOperator }),
    value: str('Taint value (operator Equal).'),
    effect: strEnum('Taint effect; omit for all effects.', ['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
    // int64 in the API; larger integers than 2^53 - 1 are not exact in JSON numbers
    tolerationSeconds: int('Seconds a NoExecute taint is tolerated.', 0, Number.MAX_SAFE_INTEGER),
  }),
);

const podAffinityTerm = named(
  'PodAffinityTerm',
  obj(
    'Pods selected by labels, within a topology domain.',
    {
      labels: labelValues('Labels the other pods carry.'),
      topologyKey: nonEmptyStr('Node label that defines the domain.', { default: JOB_DEFAULTS.nodeTopologyKey }),
      weight: int('Preference weight; omit for a hard rule.', 1, 100),
      namespaces: arr('Namespaces of the other pods (default: the policy namespace).', dnsLabel('Namespace.')),
    },
    ['labels'],
  ),
);

const placement = named(
  'Placement',
  obj('Where backup pods run.', {
    nodeSelector: labelValues('Node labels the pod requires.'),
    nodeAffinity: arr('Node affinity terms.', nodeRequirement),
    tolerations: arr('Tolerations.', toleration),
    podAffinity: arr('Run near these pods.', podAffinityTerm),
    podAntiAffinity: arr('Run away from these pods.', podAffinityTerm),
    serializationGroup: named(
      'SerializationGroup',
      obj(
        'Backups of one group never run at the same time.',
        {
          name: dnsLabel('Group name (a label value).'),
          scope: strEnum('node: one per node at a time; cluster: one in the whole cluster.', ['node', 'cluster'], {
            default: JOB_DEFAULTS.serializationScope,
          }),
          clusterTopologyKey: nonEmptyStr(
            'For scope cluster: a node label with the same value on every eligible node.',
            {
              default: JOB_DEFAULTS.clusterTopologyKey,
            },
          ),
        },
        ['name'],
      ),
    ),
  }),
);

const extraVolume = named(
  'ExtraVolume',
  obj(
    'An extra volume mounted into the backup container; exactly one source.',
    {
      name: dnsLabel('Volume name.'),
      mountPath: str('Mount path.', { pattern: PATTERNS.absolutePath }),
      readOnly: bool('Mount read-only.', { default: false }),
      secret: obj('Secret source.', { secretName: objectName('Secret', 'Secret name.') }, ['secretName']),
      configMap: obj('ConfigMap source.', { name: objectName('ConfigMap', 'ConfigMap name.') }, ['name']),
      persistentVolumeClaim: obj('PVC source.', { claimName: objectName('PersistentVolumeClaim', 'Claim name.') }, [
        'claimName',
      ]),
      emptyDir: obj('emptyDir source.', { sizeLimit: size('Size limit.') }),
    },
    ['name', 'mountPath'],
    { minProperties: 3, maxProperties: 4 },
  ),
);

function resourceRequirements(description: string): Schema {
  return named(
    'ResourceRequirements',
    obj(description, {
      requests: stringMap('Requests, e.g. {cpu: 100m, memory: 256Mi}.', {
        additionalProperties: quantity('Quantity.'),
      }),
      limits: stringMap('Limits, e.g. {memory: 1Gi}.', { additionalProperties: quantity('Quantity.') }),
    }),
  );
}

const pod = named(
  'PodOptions',
  obj('Pod settings.', {
    resources: resourceRequirements(
      "Requests and limits of the engine's main containers, each resource over the container's default (docs/operations/resources.md).",
    ),
    containerResources: stringMap(
      'Requests and limits per container name (init containers included), over resources and the defaults, each resource on its own.',
      {
        additionalProperties: resourceRequirements('Requests and limits of one container.'),
      },
    ),
    imagePullSecrets: arr(
      'Names of image pull Secrets, each once (the API server keys the list by name: server-side apply refuses a duplicate).',
      objectName('Secret', 'Secret name.'),
      { uniqueItems: true },
    ),
    priorityClassName: str('PriorityClass name.', { pattern: PATTERNS.dnsSubdomain, maxLength: 253 }),
    serviceAccountName: withMeta(
      str('ServiceAccount name (default: the namespace default, no API token mounted).', {
        pattern: PATTERNS.dnsSubdomain,
        maxLength: 253,
      }),
      { passThrough: 'name' },
    ),
    imagePullPolicy: strEnum('Image pull policy.', ['Always', 'IfNotPresent', 'Never'], {
      default: JOB_DEFAULTS.imagePullPolicy,
    }),
    env: arr(
      'Extra environment variables; exactly one of value and secretKeyRef.',
      named(
        'ExtraEnvVar',
        obj(
          'An env var.',
          {
            name: str('Name.', { pattern: PATTERNS.envName }),
            value: str('Literal value.'),
            secretKeyRef: secretKeyRef('Secret key holding the value.'),
          },
          ['name'],
          { minProperties: 2, maxProperties: 2 },
        ),
      ),
    ),
    volumes: arr('Extra volumes.', extraVolume),
    labels: labelValues('Extra pod labels.'),
    annotations: stringMap('Extra pod annotations.'),
  }),
);

/** Job settings: every field optional, valid at spec.defaults and at every schedule or target. */
export const jobSettingsProperties: Record<string, Schema> = {
  schedule: cron('Cron schedule (5 fields or a macro such as @daily); H fields are hashed per target.', {
    minLength: 1,
    default: JOB_DEFAULTS.schedule,
  }),
  timeZone: nonEmptyStr('IANA time zone of the schedule (not Local).'),
  stagger: named(
    'StaggerOptions',
    obj('Spread targets sharing a schedule evenly over a window.', { window: duration('Window, e.g. 2h.') }, [
      'window',
    ]),
  ),
  suspend: bool('Pause the schedule.', { default: JOB_DEFAULTS.suspend }),
  concurrencyPolicy: strEnum('What to do when the previous run is still going.', ['Forbid', 'Allow', 'Replace'], {
    default: JOB_DEFAULTS.concurrencyPolicy,
  }),
  startingDeadline: duration('How late a run may start (startingDeadlineSeconds).', {
    default: JOB_DEFAULTS.startingDeadline,
  }),
  successfulJobsHistoryLimit: int('Finished Jobs kept.', 0, 1000, { default: JOB_DEFAULTS.successfulJobsHistoryLimit }),
  failedJobsHistoryLimit: int('Failed Jobs kept.', 0, 1000, { default: JOB_DEFAULTS.failedJobsHistoryLimit }),
  timeout: duration('Run deadline (activeDeadlineSeconds); engine default.'),
  backoffLimit: int('Retries of a failed run.', 0, 100, { default: JOB_DEFAULTS.backoffLimit }),
  ttlAfterFinished: duration('Delete finished Jobs after this long (default: keep, bounded by the history limits).'),
  placement,
  pod,
};

export const jobSettingsSchema = named('JobSettings', obj('CronJob and pod settings.', jobSettingsProperties));
