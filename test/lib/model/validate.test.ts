// Bad input never produces manifests: it produces every error, each naming the path, the value and what is allowed.
import { PolicyError, loadPolicies, renderPolicy, validatePolicy } from '../../../lib';
import * as settings from '../../../lib/policy/settings';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { redisPolicy } from '../engines/redis/fixtures';
import { at, obj } from '../../support/json-paths';
import { policyIssues } from '../../support/policy-issues';

const withDefaults = (defaults: Record<string, unknown>) => vitessPolicy({}, { defaults });

describe('schema errors', () => {
  test('an unknown field is an error with a suggestion and the allowed fields', () => {
    const issues = policyIssues(() => validatePolicy(withDefaults({ schedul: '@daily' })));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(
      /^spec\.defaults\.schedul: unknown field \(did you mean "schedule"\?\); allowed fields: schedule, timeZone, stagger, suspend, /,
    );
  });

  test('all errors are reported at once', () => {
    const issues = policyIssues(() =>
      validatePolicy(
        withDefaults({
          concurrencyPolicy: 'Sometimes',
          successfulJobsHistoryLimit: '3',
          timeout: '10 minutes',
          suspend: 'no',
        }),
      ),
    );
    expect([...issues].sort()).toEqual(
      [
        'spec.defaults.concurrencyPolicy: received "Sometimes"; allowed: "Forbid", "Allow", "Replace"',
        'spec.defaults.successfulJobsHistoryLimit: expected integer, received string "3"',
        'spec.defaults.timeout: received "10 minutes"; must be a duration: whole numbers with units w, d, h, m, s, largest first and each once, e.g. "90s", "15m", "1h30m", "7d", "2w"',
        'spec.defaults.suspend: expected boolean, received string "no"',
      ].sort(),
    );
  });

  test('required fields, patterns and bounds', () => {
    const doc = vitessPolicy({ cluster: 'Example_Cluster', vtctldServer: 'vtctld' });
    delete at(obj(doc, 'the policy'), 'spec.vitess').topology;
    const issues = policyIssues(() => validatePolicy(doc));
    expect(issues).toContain('spec.vitess.topology: required field is missing');
    expect(issues).toContain(
      'spec.vitess.cluster: received "Example_Cluster"; must be a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit',
    );
    expect(issues.some((i) => i.startsWith('spec.vitess.vtctldServer: received "vtctld"'))).toBe(true);
  });

  test('exactly one storage kind', () => {
    const issues = policyIssues(() =>
      validatePolicy(vitessPolicy({ storage: { s3: { region: 'r', bucket: 'b' }, gcs: { bucket: 'g' } } })),
    );
    expect(issues).toEqual([
      'spec.vitess.storage: received ["s3","gcs"]; set exactly one of: s3, gcs, azblob, ceph, file',
    ]);
  });

  test('apiVersion and kind are fixed', () => {
    const issues = policyIssues(() => validatePolicy({ ...vitessPolicy(), apiVersion: 'v1', kind: 'Backup' }));
    expect(issues).toEqual([
      'apiVersion: received "v1"; must be "backup-cronjobs.io/v1alpha1"',
      'kind: received "Backup"; must be "BackupPolicy"',
    ]);
  });
});

describe('semantic errors', () => {
  test.each([
    ['TZ prefix', 'TZ=UTC 0 2 * * *', /^spec\.defaults\.schedule: received "TZ=UTC 0 2 \* \* \*"; .*timeZone/],
    ['seconds field', '0 0 2 * * *', /^spec\.defaults\.schedule: received "0 0 2 \* \* \*"; .*6/],
    ['out of range', '0 24 * * *', /^spec\.defaults\.schedule: received "0 24 \* \* \*"; .*hour.*0-23/],
    ['unknown macro', '@hourli', /^spec\.defaults\.schedule: received "@hourli"; .*@hourly/],
  ])('schedule: %s', (_name, schedule, expected) => {
    const issues = policyIssues(() => validatePolicy(withDefaults({ schedule })));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(expected);
  });

  test('a zero timeout or starting deadline is refused (ttlAfterFinished 0s is allowed: delete at once)', () => {
    expect(policyIssues(() => validatePolicy(withDefaults({ timeout: '0s', startingDeadline: '0m' })))).toEqual([
      'spec.defaults.startingDeadline: received "0m"; must be longer than 0s',
      'spec.defaults.timeout: received "0s"; must be longer than 0s',
    ]);
    expect(() => validatePolicy(withDefaults({ ttlAfterFinished: '0s' }))).not.toThrow();
  });

  test('durations the parser refuses are reported by path, never thrown', () => {
    const issues = policyIssues(() =>
      renderPolicy(
        vitessPolicy(
          { vtbackupRetention: { minRetentionTime: '30m1h' } },
          { defaults: { timeout: '30m1h', stagger: { window: '1h1h' } } },
        ),
      ),
    );
    const grammar =
      'must be a duration: whole numbers with units w, d, h, m, s, largest first and each once, e.g. "90s", "15m", "1h30m", "7d", "2w" (units go from largest to smallest, each at most once)';
    expect([...issues].sort()).toEqual(
      [
        `spec.defaults.timeout: received "30m1h"; ${grammar}`,
        `spec.defaults.stagger.window: received "1h1h"; ${grammar}`,
        `spec.vitess.vtbackupRetention.minRetentionTime: received "30m1h"; ${grammar}`,
      ].sort(),
    );
  });

  test('time zone as the API server checks it', () => {
    expect(policyIssues(() => validatePolicy(withDefaults({ timeZone: 'Local' })))[0]).toMatch(
      /^spec\.defaults\.timeZone: received "Local"; /,
    );
    expect(policyIssues(() => validatePolicy(withDefaults({ timeZone: 'Mars/Olympus' })))[0]).toMatch(
      /^spec\.defaults\.timeZone: received "Mars\/Olympus"; /,
    );
    expect(() => validatePolicy(withDefaults({ timeZone: 'America/Argentina/Catamarca' }))).not.toThrow();
  });

  test('no engine, or two', () => {
    const doc = vitessPolicy();
    const noEngine = { ...doc, spec: {} };
    const issues = policyIssues(() => validatePolicy(noEngine));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^spec: received no engine; set exactly one of: vitess(, [a-z]+)*$/);
  });

  test('duplicate keyspace/shard in one schedule, and duplicate schedule names', () => {
    const issues = policyIssues(() =>
      validatePolicy(
        vitessPolicy({
          schedules: [
            {
              name: 'a',
              strategies: [
                { keyspace: 'ks', shards: ['-80', '80-'] },
                { keyspace: 'ks', shards: ['80-'] },
              ],
            },
            { name: 'a', strategies: [{ keyspace: 'ks', shards: ['-'] }] },
          ],
        }),
      ),
    );
    expect(issues).toEqual([
      'spec.vitess.schedules[0].strategies[1].shards[0]: received "80-"; ks/80- is already listed at spec.vitess.schedules[0].strategies[0].shards[1]: each keyspace/shard once per schedule',
      'spec.vitess.schedules[1].name: received "a"; schedule names must be unique (also used by schedules[0])',
    ]);
  });

  test('frequency and schedule are exclusive; frequency must be one the operator accepts', () => {
    const issues = policyIssues(() =>
      validatePolicy(
        vitessPolicy({
          schedules: [
            { name: 'a', frequency: '6h', schedule: '@daily', strategies: [{ keyspace: 'ks', shards: ['-'] }] },
            { name: 'b', frequency: '7h', strategies: [{ keyspace: 'ks', shards: ['-'] }] },
          ],
        }),
      ),
    );
    expect(issues[0]).toBe('spec.vitess.schedules[0].frequency: set either frequency or schedule, not both');
    expect(issues[1]).toMatch(/^spec\.vitess\.schedules\[1\]\.frequency: received "7h"; /);
  });

  test('placement rules', () => {
    const issues = policyIssues(() =>
      validatePolicy(
        withDefaults({
          placement: {
            nodeAffinity: [
              { key: 'a', operator: 'In' },
              { key: 'b', operator: 'Exists', values: ['x'] },
            ],
            tolerations: [{ operator: 'Equal', value: 'x' }],
          },
        }),
      ),
    );
    expect(issues).toEqual([
      'spec.defaults.placement.nodeAffinity[0].values: operator In needs at least one value',
      'spec.defaults.placement.nodeAffinity[1].values: received ["x"]; operator Exists takes no values',
      'spec.defaults.placement.tolerations[0].key: an empty key tolerates every taint and needs operator Exists',
    ]);
  });

  test('stagger needs room: a window longer than the schedule interval is refused', () => {
    const issues = policyIssues(() =>
      renderPolicy(
        vitessPolicy({
          schedules: [
            {
              name: 'a',
              schedule: '0 * * * *',
              stagger: { window: '2h' },
              strategies: [{ keyspace: 'ks', shards: ['-80', '80-'] }],
            },
          ],
        }),
      ),
    );
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(
      /^spec\.vitess\.schedules\[0\]\.stagger: cannot stagger 2 target\(s\) of schedule "0 \* \* \* \*" over "2h": /,
    );
  });
});

describe('YAML loading', () => {
  test('syntax errors, duplicate keys and multi-document files', () => {
    expect(policyIssues(() => loadPolicies('apiVersion: [unclosed', 'bad.yaml'))[0]).toMatch(
      /^\(document\): YAML syntax: /,
    );
    expect(policyIssues(() => loadPolicies('a: 1\na: 2\n'))).toEqual([
      '(document): duplicate key "a" (first at line 1); a key appears once per map',
    ]);
    const one = JSON.stringify(vitessPolicy());
    const two = JSON.stringify({ ...vitessPolicy(), metadata: { name: 'other' } });
    expect(loadPolicies(`${one}\n---\n${two}\n`).map((p) => p.metadata.name)).toEqual(['example', 'other']);
    const issues = policyIssues(() =>
      loadPolicies(`${one}\n---\n${JSON.stringify({ ...vitessPolicy(), metadata: {} })}\n`),
    );
    expect(issues).toEqual(['document 2: metadata.name: required field is missing']);
  });

  test('an empty file is an error', () => {
    expect(policyIssues(() => loadPolicies('# nothing\n'))).toEqual(['(document): no BackupPolicy document found']);
  });
});

describe('checks beyond the schema', () => {
  afterEach(() => jest.restoreAllMocks());

  test('a check that throws on a policy the schema accepts is a bug, reported as one with its own error and stack', () => {
    const error = new TypeError('Cannot read properties of undefined');
    jest.spyOn(settings, 'validateSettings').mockImplementation(() => {
      throw error;
    });
    let thrown: unknown;
    try {
      validatePolicy(withDefaults({ schedule: '@daily' }));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(PolicyError);
    const bug = thrown as Error;
    expect(bug.message).toMatch(/a bug in backup-cronjobs/);
    expect(bug.message).toContain('spec.defaults');
    expect(bug.message).toContain('TypeError: Cannot read properties of undefined');
    expect(bug.cause).toBe(error);
    expect(bug.stack).toContain(error.stack);
  });

  test('a check that throws on a policy the schema refuses is a bug too, not swallowed', () => {
    jest.spyOn(settings, 'validateSettings').mockImplementation(() => {
      throw new TypeError('a check tripped');
    });
    // the schema refuses spec.metrics.pushgatewayUrl only: spec.defaults is accepted, so its check runs
    const doc = vitessPolicy({}, { defaults: { schedule: '@daily' }, metrics: { pushgatewayUrl: 'ftp://x' } });
    expect(() => validatePolicy(doc)).toThrow(/a bug in backup-cronjobs.*TypeError: a check tripped/);
  });

  test('a part the schema refuses and that cannot be taken out keeps the checks that read it from running, and the others report', () => {
    // a null volume would trip the pod checks (v.name of null); the metrics check still runs
    const doc = vitessPolicy(
      {},
      {
        defaults: { pod: { volumes: [null] } },
        metrics: { basicAuthSecret: { name: 'push-auth' } },
      },
    );
    const issues = policyIssues(() => validatePolicy(doc));
    expect(issues.some((i) => i.startsWith('spec.defaults.pod.volumes[0]: expected object'))).toBe(true);
    expect(issues).toContain(
      'spec.metrics.basicAuthSecret: applies to the Pushgateway only: set spec.metrics.pushgatewayUrl too, or remove it',
    );
  });

  test("an engine's checks run part by part: a refused part of the engine's spec keeps only its own checks from running", () => {
    // the bucket name is refused (so s3 lacks its required bucket once it is taken out): the S3 checks do not run,
    // the shard and Sentinel checks still report
    const doc = redisPolicy({
      shards: ['shard01', 'shard01'],
      sentinel: { addresses: ['a:26379', 'a:26379'], passwordSecret: { name: 'sentinel-auth', key: 'password' } },
      s3: { bucket: 'Cache', region: 'us-east-1', credentialsSecret: { name: 'aws-credentials' } },
    });
    expect(policyIssues(() => validatePolicy(doc))).toEqual([
      'spec.redis.s3.bucket: received "Cache"; must be a string matching ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$',
      'spec.redis.shards[1]: received "shard01"; shard names must be unique (also at shards[0])',
      'spec.redis.sentinel.addresses[1]: received "a:26379"; already listed at addresses[0]',
    ]);
  });
});
