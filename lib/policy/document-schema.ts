/** The JSON Schema of a BackupPolicy document, built around the engines' own schemas (`lib/registry.ts` passes them). */
import { CONTENT_CHECK_DEFAULTS, JOB_DEFAULTS, METRICS_DEFAULTS } from './defaults';
import { API_VERSION, KIND } from './types';
import {
  PATTERNS,
  Schema,
  arr,
  bool,
  caBundleRef,
  configMapKeyRef,
  cron,
  dnsLabel,
  duration,
  image,
  int,
  named,
  nonEmptyStr,
  obj,
  objectName,
  secretKeyRef,
  str,
  strEnum,
  stringMap,
  withMeta,
} from './schema-builders';
import { jobSettingsProperties, jobSettingsSchema, labelValues } from './schema-settings';
import { retentionSchema } from './retention-schema';

/** The document schema with one `spec.<key>` per engine (exactly one of them is set in a valid policy). */
export function documentSchema(engineSchemas: Readonly<Record<string, Schema>>): Schema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://backup-cronjobs.io/schemas/backup-policy-v1alpha1.json',
    title: 'BackupPolicy',
    ...obj(
      'A declarative backup policy rendered into Kubernetes CronJobs.',
      {
        apiVersion: { const: API_VERSION, description: `Always ${API_VERSION}.` },
        kind: { const: KIND, description: `Always ${KIND}.` },
        metadata: named(
          'PolicyMetadata',
          obj(
            'Policy identity.',
            {
              name: dnsLabel('Policy name; prefixes every object name.'),
              namespace: withMeta(dnsLabel('Namespace of every object.', { default: JOB_DEFAULTS.namespace }), {
                passThrough: 'name',
              }),
              labels: withMeta(labelValues('Labels added to every object.'), { defaultText: 'none' }),
              annotations: withMeta(stringMap('Annotations added to every object.'), { defaultText: 'none' }),
            },
            ['name'],
          ),
        ),
        spec: named(
          'BackupPolicySpec',
          obj(
            'What to back up and how.',
            {
              defaults: jobSettingsSchema,
              retention: retentionSchema,
              metrics: named(
                'MetricsOptions',
                obj('Metrics.', {
                  pushgatewayUrl: withMeta(
                    withMeta(str('Pushgateway base URL.', { pattern: PATTERNS.url }), {
                      passThrough: 'url',
                    }),
                    { defaultText: 'no metrics pushed' },
                  ),
                  basicAuthSecret: withMeta(
                    named(
                      'BasicAuthSecretRef',
                      obj(
                        'HTTP basic auth for the Pushgateway: a Secret with the username and the password (a kubernetes.io/basic-auth Secret by default); they reach the push through env vars, never its arguments or logs.',
                        {
                          name: objectName('Secret', 'Secret name.'),
                          usernameKey: nonEmptyStr('Key of the username.', {
                            pattern: PATTERNS.secretKey,
                            maxLength: 253,
                            default: METRICS_DEFAULTS.basicAuthUsernameKey,
                          }),
                          passwordKey: nonEmptyStr('Key of the password.', {
                            pattern: PATTERNS.secretKey,
                            maxLength: 253,
                            default: METRICS_DEFAULTS.basicAuthPasswordKey,
                          }),
                        },
                        ['name'],
                      ),
                    ),
                    { defaultText: 'no authentication' },
                  ),
                  bearerTokenSecret: withMeta(
                    secretKeyRef(
                      'A Secret key holding a bearer token for the Pushgateway (Authorization: Bearer); never in arguments or logs.',
                    ),
                    { defaultText: 'no authentication' },
                  ),
                  caBundle: withMeta(
                    caBundleRef(
                      "CA bundle (PEM) that signs an https pushgatewayUrl's certificate (default: the image's trusted CAs).",
                    ),
                    { defaultText: "the image's trusted CAs" },
                  ),
                  prometheusRule: withMeta(
                    named(
                      'PrometheusRuleOptions',
                      obj(
                        'A PrometheusRule (prometheus-operator) alerting on backups that are stale, never succeeded, failed or did not start, sized from each schedule; from kube-state-metrics, and the pushed metrics with pushgatewayUrl.',
                        {
                          labels: withMeta(labelValues('Labels of the PrometheusRule.'), { defaultText: 'none' }),
                          severity: str('severity label of the alerts.', {
                            pattern: '^[A-Za-z0-9._-]{1,63}$',
                            default: JOB_DEFAULTS.alertSeverity,
                          }),
                          staleAfterIntervals: int(
                            'A backup is stale after this many schedule intervals plus the run timeout.',
                            1,
                            100,
                            { default: JOB_DEFAULTS.staleAfterIntervals },
                          ),
                        },
                      ),
                    ),
                    { defaultText: 'no PrometheusRule' },
                  ),
                  grafanaDashboard: withMeta(
                    named(
                      'GrafanaDashboardOptions',
                      obj(
                        "A ConfigMap <policy>-grafana-dashboard holding the Grafana dashboard of this policy's pushed metrics, for Grafana's dashboard sidecar; needs pushgatewayUrl.",
                        {
                          labels: withMeta(
                            labelValues(
                              'Labels of the ConfigMap, which the sidecar selects (default grafana_dashboard: "1", kube-prometheus-stack\'s).',
                            ),
                            { defaultText: '`grafana_dashboard: "1"` (kube-prometheus-stack\'s)' },
                          ),
                        },
                      ),
                    ),
                    { defaultText: 'no dashboard ConfigMap' },
                  ),
                }),
              ),
              scripts: named(
                'ScriptsOptions',
                obj('How the containers get their shell scripts.', {
                  mode: strEnum(
                    "configMap: one immutable ConfigMap per policy (<policy>-scripts-<content hash>) holds every script file as written, mounted read-only at /scripts; each command keeps its entry's main and sources the rest (apply it with the CronJobs, prune old ones). inline: each container command holds the functions it runs, comments dropped (self-contained CronJobs).",
                    ['configMap', 'inline'],
                    { default: JOB_DEFAULTS.scriptsMode },
                  ),
                }),
              ),
              encryption: named(
                'EncryptionOptions',
                obj(
                  'Client-side encryption of every artifact while it is written (etcd, redis); stored as <name>.age.',
                  {
                    age: named(
                      'AgeEncryption',
                      obj(
                        'age (https://age-encryption.org): exactly one of recipients, recipientsSecret, recipientsConfigMap.',
                        {
                          recipients: withMeta(
                            arr(
                              'age recipients: X25519 public keys (age1…) or SSH public keys.',
                              str('A recipient.', { pattern: PATTERNS.ageRecipient }),
                              { minItems: 1, uniqueItems: true },
                            ),
                            { defaultText: 'none' },
                          ),
                          recipientsSecret: withMeta(
                            secretKeyRef('A Secret key holding a recipients file (one per line, # comments).'),
                            { defaultText: 'none' },
                          ),
                          recipientsConfigMap: withMeta(
                            configMapKeyRef('A ConfigMap key holding a recipients file (one per line, # comments).'),
                            { defaultText: 'none' },
                          ),
                          identitySecret: withMeta(
                            secretKeyRef(
                              'A Secret key holding the age identity file that restore drills decrypt with.',
                            ),
                            { defaultText: 'none: restore drills are refused' },
                          ),
                          image: image(
                            'An image with sh, POSIX tools and age on its PATH (e.g. FROM alpine:3.20, RUN apk add --no-cache age).',
                            { minLength: 1 },
                          ),
                        },
                        ['image'],
                      ),
                    ),
                  },
                  ['age'],
                ),
              ),
              drill: named(
                'DrillOptions',
                obj(
                  'Restore drills: CronJobs that restore the newest backup of each target into a throw-away instance and compare it with what the backup recorded (etcd, redis).',
                  {
                    ...jobSettingsProperties,
                    schedule: cron('When the drills run (5 fields or a macro; H fields are hashed per target).', {
                      minLength: 1,
                    }),
                    maxBackupAge: withMeta(duration('A drill fails when the newest backup is older than this.'), {
                      defaultText: 'any age: the age is pushed and alerted on, not checked',
                    }),
                  },
                  ['schedule'],
                ),
              ),
              contentChecks: named(
                'ContentCheckOptions',
                obj(
                  "Checks of what each backup holds before it is stored, against the newest earlier backup of the same target (its metadata's key count) (etcd, Redis).",
                  {
                    allowEmpty: bool('The source may be empty: a backup of no keys is stored (else its run fails).', {
                      default: CONTENT_CHECK_DEFAULTS.allowEmpty,
                    }),
                    shrinkBelowPercent: int(
                      "A backup holding fewer keys than this percentage of the newest earlier backup's has shrunk.",
                      1,
                      100,
                      { default: CONTENT_CHECK_DEFAULTS.shrinkBelowPercent },
                    ),
                    onShrink: strEnum(
                      "A shrunk backup, or one whose content could not be checked (its keys, or the earlier backup's, could not be counted or read): warn stores it with a warning (and the BackupContentShrank or BackupContentUnchecked alert), fail fails the run and stores nothing.",
                      ['warn', 'fail'],
                      { default: CONTENT_CHECK_DEFAULTS.onShrink },
                    ),
                  },
                ),
              ),
              ...engineSchemas,
            },
            [],
          ),
        ),
      },
      ['apiVersion', 'kind', 'metadata', 'spec'],
    ),
  };
}
