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
      values: withMeta(
        arr(
          'Label values (In, NotIn: one or more; Gt, Lt: exactly one integer; Exists, DoesNotExist: none).',
          nonEmptyStr('A label value.', { maxLength: 63 }),
        ),
        { defaultText: 'none (required for In, NotIn, Gt, Lt)' },
      ),
      weight: withMeta(int('Preference weight; omit for a hard requirement.', 1, 100), {
        defaultText: 'a hard requirement',
      }),
    },
    ['key'],
  ),
);

const toleration = named(
  'Toleration',
  obj('A toleration.', {
    key: withMeta(str('Taint key; omit with operator Exists to tolerate every taint.'), {
      defaultText: 'every taint key (only with operator Exists)',
    }),
    operator: strEnum('Toleration operator.', ['Equal', 'Exists'], { default: JOB_DEFAULTS.tolerationOperator }),
    value: withMeta(str('Taint value (operator Equal).'), { defaultText: 'none' }),
    effect: withMeta(strEnum('Taint effect; omit for all effects.', ['NoSchedule', 'PreferNoSchedule', 'NoExecute']), {
      defaultText: 'every effect',
    }),
    // int64 in the API; larger integers than 2^53 - 1 are not exact in JSON numbers
    tolerationSeconds: withMeta(int('Seconds a NoExecute taint is tolerated.', 0, Number.MAX_SAFE_INTEGER), {
      defaultText: 'tolerate forever',
    }),
  }),
);

const podAffinityTerm = named(
  'PodAffinityTerm',
  obj(
    'Pods selected by labels, within a topology domain.',
    {
      labels: labelValues('Labels the other pods carry.'),
      topologyKey: nonEmptyStr('Node label that defines the domain.', { default: JOB_DEFAULTS.nodeTopologyKey }),
      weight: withMeta(int('Preference weight; omit for a hard rule.', 1, 100), { defaultText: 'a hard requirement' }),
      namespaces: withMeta(
        arr('Namespaces of the other pods (default: the policy namespace).', dnsLabel('Namespace.')),
        { defaultText: "the policy's namespace" },
      ),
    },
    ['labels'],
  ),
);

const placement = named(
  'Placement',
  obj('Where backup pods run.', {
    nodeSelector: withMeta(labelValues('Node labels the pod requires.'), { defaultText: 'none' }),
    nodeAffinity: withMeta(arr('Node affinity terms.', nodeRequirement), { defaultText: 'none' }),
    tolerations: withMeta(arr('Tolerations.', toleration), {
      defaultText: 'none (engines may add their own, e.g. etcd control-plane taints)',
    }),
    podAffinity: withMeta(arr('Run near these pods.', podAffinityTerm), { defaultText: 'none' }),
    podAntiAffinity: withMeta(arr('Run away from these pods.', podAffinityTerm), { defaultText: 'none' }),
    serializationGroup: withMeta(
      named(
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
      { defaultText: 'none: backups of different targets may overlap' },
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
      requests: withMeta(
        stringMap('Requests, e.g. {cpu: 100m, memory: 256Mi}.', {
          additionalProperties: quantity('Quantity.'),
        }),
        { defaultText: 'none' },
      ),
      limits: withMeta(stringMap('Limits, e.g. {memory: 1Gi}.', { additionalProperties: quantity('Quantity.') }), {
        defaultText: 'none',
      }),
    }),
  );
}

const pod = named(
  'PodOptions',
  obj('Pod settings.', {
    resources: withMeta(
      resourceRequirements(
        "Requests and limits of the engine's main containers, each resource over the container's default (docs/operations/resources.md).",
      ),
      { defaultText: 'per container and step: docs/operations/resources.md' },
    ),
    containerResources: withMeta(
      stringMap(
        'Requests and limits per container name (init containers included), over resources and the defaults, each resource on its own.',
        {
          additionalProperties: resourceRequirements('Requests and limits of one container.'),
        },
      ),
      { defaultText: 'none' },
    ),
    imagePullSecrets: withMeta(
      arr(
        'Names of image pull Secrets, each once (the API server keys the list by name: server-side apply refuses a duplicate).',
        objectName('Secret', 'Secret name.'),
        { uniqueItems: true },
      ),
      { defaultText: 'none' },
    ),
    priorityClassName: withMeta(str('PriorityClass name.', { pattern: PATTERNS.dnsSubdomain, maxLength: 253 }), {
      defaultText: "none (etcd: 'system-node-critical')",
    }),
    serviceAccountName: withMeta(
      withMeta(
        str('ServiceAccount name (default: the namespace default, no API token mounted).', {
          pattern: PATTERNS.dnsSubdomain,
          maxLength: 253,
        }),
        { passThrough: 'name' },
      ),
      { defaultText: "the namespace's default ServiceAccount, with no API token mounted" },
    ),
    imagePullPolicy: strEnum('Image pull policy.', ['Always', 'IfNotPresent', 'Never'], {
      default: JOB_DEFAULTS.imagePullPolicy,
    }),
    env: withMeta(
      arr(
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
      { defaultText: 'none' },
    ),
    volumes: withMeta(arr('Extra volumes.', extraVolume), { defaultText: 'none' }),
    labels: withMeta(labelValues('Extra pod labels.'), { defaultText: 'none' }),
    annotations: withMeta(stringMap('Extra pod annotations.'), { defaultText: 'none' }),
  }),
);

/** Job settings: every field optional, valid at spec.defaults and at every schedule or target. */
export const jobSettingsProperties: Record<string, Schema> = {
  schedule: cron('Cron schedule (5 fields or a macro such as @daily); H fields are hashed per target.', {
    minLength: 1,
    default: JOB_DEFAULTS.schedule,
  }),
  timeZone: withMeta(nonEmptyStr('IANA time zone of the schedule (not Local).'), {
    defaultText: "the kube-controller-manager's zone (UTC almost everywhere)",
  }),
  stagger: withMeta(
    named(
      'StaggerOptions',
      obj('Spread targets sharing a schedule evenly over a window.', { window: duration('Window, e.g. 2h.') }, [
        'window',
      ]),
    ),
    { defaultText: "no stagger: every target starts at the schedule's time" },
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
  timeout: withMeta(duration('Run deadline (activeDeadlineSeconds); engine default.'), {
    defaultText: "per engine: vitess '2h', etcd '15m', redis '10m'",
  }),
  backoffLimit: int('Retries of a failed run.', 0, 100, { default: JOB_DEFAULTS.backoffLimit }),
  ttlAfterFinished: withMeta(
    duration('Delete finished Jobs after this long (default: keep, bounded by the history limits).'),
    { defaultText: 'kept by the history limits' },
  ),
  placement: withMeta(placement, { defaultText: "no constraints beyond the engine's" }),
  pod: withMeta(pod, { defaultText: 'engine defaults' }),
};

export const jobSettingsSchema = named('JobSettings', obj('CronJob and pod settings.', jobSettingsProperties));
