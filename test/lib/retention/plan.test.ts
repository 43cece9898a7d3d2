import {
  BackupEntry,
  RETENTION_RULE_NAMES,
  RetentionDestinationDefinition,
  RetentionRules,
  backupName,
  formatPlan,
  hasRetentionRules,
  isoWeek,
  parseBackupName,
  parseListing,
  periodKeys,
  planFromListing,
  planRetention,
  plannedDeletions,
  retentionDestinationEnv,
  retentionEnv,
  retentionRulesFromFlags,
  supportedRetentionRules,
  validateRetention,
  validateRetentionFor,
} from '../../../lib/retention';

const GiB = 1024 ** 3;
const utc = (iso: string): number => Date.parse(iso) / 1000;
const T0 = utc('2024-01-10T00:00:00Z');

function kept(entries: BackupEntry[], rules: RetentionRules | undefined, now = T0 + 86400, timeZone = 'UTC'): string[] {
  return planRetention(entries, rules, { now, timeZone })
    .entries.filter((e) => e.keep)
    .map((e) => e.name)
    .sort();
}

/** backup-1 … backup-n, one second apart (backup-n newest), as in OpenShift's prune_test.go. */
function numbered(n: number, size = 1, sameTime = false): BackupEntry[] {
  return Array.from({ length: n }, (_, i) => ({ name: `backup-${i + 1}`, time: sameTime ? T0 : T0 + i, size }));
}

describe('etcd §8.2 OpenShift prune vectors under our semantics', () => {
  test.each([
    [6, ['backup-1', 'backup-2', 'backup-3', 'backup-4', 'backup-5']],
    [5, ['backup-1', 'backup-2', 'backup-3', 'backup-4', 'backup-5']],
    [3, ['backup-3', 'backup-4', 'backup-5']],
    [1, ['backup-5']],
  ])(
    'keepLast %i keeps exactly N (OpenShift prunes BEFORE the backup, leaving N+1 on disk; we prune after it)',
    (n, expected) => {
      expect(kept(numbered(5), { keepLast: n })).toEqual(expected);
    },
  );

  test('keepLast 0 is a validation error, never "delete everything" (OpenShift reaches it by bypassing validation)', () => {
    expect(validateRetention({ keepLast: 0 }, 'spec.retention')).toEqual([
      'spec.retention.keepLast: must be an integer from 1 to 100000 (leave it unset to not use the rule), got 0',
    ]);
    expect(() => planRetention(numbered(5), { keepLast: 0 }, { now: T0, timeZone: 'UTC' })).toThrow(/keepLast/);
  });

  test.each([
    ['10Gi', ['backup-1', 'backup-2', 'backup-3', 'backup-4', 'backup-5']],
    ['5Gi', ['backup-1', 'backup-2', 'backup-3', 'backup-4', 'backup-5']], // equal to the budget is kept
    ['4Gi', ['backup-2', 'backup-3', 'backup-4', 'backup-5']],
    ['3Gi', ['backup-3', 'backup-4', 'backup-5']],
    ['2Gi', ['backup-4', 'backup-5']],
    ['1Gi', ['backup-5']],
  ])(
    'maxTotalSize %s over 5 × 1 GiB with equal times (ties by name descending) – same as OpenShift, but the unit is explicit (its "Gb" means GiB)',
    (budget, expected) => {
      expect(kept(numbered(5, GiB, true), { maxTotalSize: budget })).toEqual(expected);
    },
  );

  test('maxTotalSize 0 is rejected (OpenShift deletes everything)', () => {
    expect(validateRetention({ maxTotalSize: '0Gi' }, 'r')).toEqual([
      'r.maxTotalSize: received "0Gi"; is less than one byte',
    ]);
  });

  test('derived: new 1 GiB, old 1 byte, budget 1Gi → new kept, old deleted (same as OpenShift)', () => {
    const entries = [
      { name: 'new', time: T0 + 10, size: GiB },
      { name: 'old', time: T0, size: 1 },
    ];
    expect(kept(entries, { maxTotalSize: '1Gi' })).toEqual(['new']);
  });

  test('derived: 0.6 + 0.6 + 0.1 GiB, budget 1Gi → prefix semantics: the small old backup is deleted too (same as OpenShift, documented)', () => {
    const entries = [
      { name: 'new', time: T0 + 20, size: Math.round(0.6 * GiB) },
      { name: 'mid', time: T0 + 10, size: Math.round(0.6 * GiB) },
      { name: 'old', time: T0, size: Math.round(0.1 * GiB) },
    ];
    const plan = planRetention(entries, { maxTotalSize: '1Gi' }, { now: T0 + 30, timeZone: 'UTC' });
    expect(plannedDeletions(plan)).toEqual(['mid', 'old']);
    expect(plan.entries[0].reasons).toEqual(['newest', 'maxTotalSize']);
  });

  test('derived: new 2 GiB alone over a 1Gi budget → the newest is KEPT (OpenShift deletes everything)', () => {
    const entries = [
      { name: 'new', time: T0 + 10, size: 2 * GiB },
      { name: 'old', time: T0, size: Math.round(0.1 * GiB) },
    ];
    const plan = planRetention(entries, { maxTotalSize: '1Gi' }, { now: T0 + 30, timeZone: 'UTC' });
    expect(plan.entries.map((e) => [e.name, e.keep, e.reasons])).toEqual([
      ['new', true, ['newest']],
      ['old', false, []],
    ]);
  });

  test('equal times sort by name descending, byte-wise (TestDirectorySortingByName)', () => {
    const names = ['backup-name-2022-01-02_150405', 'backup-name-2026-01-02_150405', 'backup-name-2022-01-02_50405'];
    const plan = planRetention(
      names.map((name) => ({ name, time: T0, size: 1 })),
      { keepLast: 3 },
      { now: T0, timeZone: 'UTC' },
    );
    expect(plan.entries.map((e) => e.name)).toEqual([
      'backup-name-2026-01-02_150405',
      'backup-name-2022-01-02_50405',
      'backup-name-2022-01-02_150405',
    ]);
  });

  test('different mtimes sort newest first (TestDirectorySorting)', () => {
    const plan = planRetention(
      [
        { name: 'c', time: 5500, size: 0 },
        { name: 'a', time: 2500, size: 0 },
        { name: 'b', time: 3500, size: 0 },
      ],
      undefined,
      { now: 6000, timeZone: 'UTC' },
    );
    expect(plan.entries.map((e) => e.name)).toEqual(['c', 'b', 'a']);
  });
});

describe('etcd §8.5 k3s and §8.6 Gardener vectors under our semantics', () => {
  test('keepLast 2 over the scheduled snapshots of one node deletes the oldest; on-demand snapshots have another prefix and are never listed', () => {
    const files = [
      'etcd-snapshot-node1-2023-11-14T22:13:20Z',
      'etcd-snapshot-node1-2023-11-15T10:13:20Z.zip',
      'etcd-snapshot-node1-2023-11-15T22:13:20Z',
      'on-demand-node1-2023-11-15T23:13:20Z',
    ];
    // our names carry one fixed suffix per policy: list with suffix '' (the .zip file is not ours)
    const entries = files
      .map((name) => ({ name, time: parseBackupName(name, 'etcd-snapshot-node1-', ''), size: 1 }))
      .filter((e): e is BackupEntry => e.time !== undefined);
    expect(entries.map((e) => e.name)).toEqual([
      'etcd-snapshot-node1-2023-11-14T22:13:20Z',
      'etcd-snapshot-node1-2023-11-15T22:13:20Z',
    ]);
    const plan = planRetention(entries, { keepLast: 1 }, { now: utc('2023-11-16T00:00:00Z'), timeZone: 'UTC' });
    expect(plannedDeletions(plan)).toEqual(['etcd-snapshot-node1-2023-11-14T22:13:20Z']);
  });

  test('retention is per node prefix, not cluster-wide like k3s S3 (3 nodes × 2 snapshots, keepLast 1 keeps one per node)', () => {
    const all = ['a', 'b', 'c'].flatMap((node, i) => [
      `etcd-snapshot-${node}-${'2023-11-14T22:13:2' + i + 'Z'}`,
      `etcd-snapshot-${node}-${'2023-11-15T22:13:2' + i + 'Z'}`,
    ]);
    for (const node of ['a', 'b', 'c']) {
      const entries = all
        .map((name) => ({ name, time: parseBackupName(name, `etcd-snapshot-${node}-`), size: 1 }))
        .filter((e): e is BackupEntry => e.time !== undefined);
      expect(entries).toHaveLength(2);
      const plan = planRetention(entries, { keepLast: 1 }, { now: utc('2023-11-16T00:00:00Z'), timeZone: 'UTC' });
      expect(plan.entries.filter((e) => e.keep).map((e) => e.name)).toEqual([
        `etcd-snapshot-${node}-2023-11-15T22:13:2${['a', 'b', 'c'].indexOf(node)}Z`,
      ]);
    }
  });

  test('Gardener LimitBased maxBackups=2 ≙ keepLast 2 over full snapshots', () => {
    expect(kept(numbered(5), { keepLast: 2 })).toEqual(['backup-4', 'backup-5']);
  });
});

describe('planRetention semantics', () => {
  test('no rule set keeps everything and says so', () => {
    const plan = planRetention(numbered(3), {}, { now: T0, timeZone: 'UTC' });
    expect(plan.entries.map((e) => e.reasons)).toEqual([['newest', 'noRules'], ['noRules'], ['noRules']]);
    expect(plan.deleteCount).toBe(0);
    expect(formatPlan(plan)).toContain('# rules: none (every backup is kept)\n');
    expect(hasRetentionRules({})).toBe(false);
    expect(hasRetentionRules({ daily: 1 })).toBe(true);
  });

  test('the newest backup is kept even when every rule would drop it', () => {
    const plan = planRetention(numbered(3), { maxAge: '1h' }, { now: T0 + 10 * 86400, timeZone: 'UTC' });
    expect(plan.entries.map((e) => [e.name, e.keep])).toEqual([
      ['backup-3', true],
      ['backup-2', false],
      ['backup-1', false],
    ]);
  });

  test('maxAge keeps now - time <= maxAge (boundary inclusive) and future-dated backups', () => {
    const entries = [
      { name: 'future', time: T0 + 100, size: 0 },
      { name: 'edge', time: T0 - 3600, size: 0 },
      { name: 'past-edge', time: T0 - 3601, size: 0 },
    ];
    expect(kept(entries, { maxAge: '1h' }, T0)).toEqual(['edge', 'future']);
  });

  test('a backup is kept if any rule keeps it; reasons name every rule', () => {
    const entries = [
      { name: 'd3', time: utc('2024-01-03T10:00:00Z'), size: 10 },
      { name: 'd3-early', time: utc('2024-01-03T01:00:00Z'), size: 10 },
      { name: 'd2', time: utc('2024-01-02T10:00:00Z'), size: 10 },
      { name: 'd1', time: utc('2024-01-01T10:00:00Z'), size: 10 },
    ];
    const plan = planRetention(
      entries,
      { keepLast: 2, daily: 2, maxTotalSize: '0.015k' },
      { now: utc('2024-01-04T00:00:00Z'), timeZone: 'UTC' },
    );
    expect(formatPlan(plan)).toBe(
      [
        '# retention plan at 2024-01-04T00:00:00Z (now=1704326400), time zone UTC',
        '# rules: keepLast=2 maxTotalSize=15B daily=2',
        '# backups: 4, keep: 3, delete: 1',
        'keep\t2024-01-03T10:00:00Z\t10\td3\tnewest,keepLast,maxTotalSize,daily:2024-01-03',
        'keep\t2024-01-03T01:00:00Z\t10\td3-early\tkeepLast',
        'keep\t2024-01-02T10:00:00Z\t10\td2\tdaily:2024-01-02',
        'delete\t2024-01-01T10:00:00Z\t10\td1\t-',
        '',
      ].join('\n'),
    );
  });

  test('bucket rules count periods THAT HAVE backups: a gap does not use up slots', () => {
    const entries = [
      { name: 'jan10', time: utc('2024-01-10T05:00:00Z'), size: 0 },
      { name: 'jan10-b', time: utc('2024-01-10T03:00:00Z'), size: 0 },
      { name: 'jan01', time: utc('2024-01-01T05:00:00Z'), size: 0 },
      { name: 'dec20', time: utc('2023-12-20T05:00:00Z'), size: 0 },
      { name: 'dec01', time: utc('2023-12-01T05:00:00Z'), size: 0 },
    ];
    expect(kept(entries, { daily: 3 })).toEqual(['dec20', 'jan01', 'jan10']);
    expect(kept(entries, { monthly: 2 })).toEqual(['dec20', 'jan10']);
    expect(kept(entries, { yearly: 5 })).toEqual(['dec20', 'jan10']);
  });

  test('weekly uses ISO weeks (Monday start, week-year): 2020-W53 spans the new year', () => {
    const entries = [
      { name: 'mon-2021-W01', time: utc('2021-01-04T12:00:00Z'), size: 0 },
      { name: 'sun-2020-W53', time: utc('2021-01-03T12:00:00Z'), size: 0 },
      { name: 'thu-2020-W53', time: utc('2020-12-31T12:00:00Z'), size: 0 },
      { name: 'mon-2020-W53', time: utc('2020-12-28T12:00:00Z'), size: 0 },
      { name: 'sun-2020-W52', time: utc('2020-12-27T12:00:00Z'), size: 0 },
    ];
    const plan = planRetention(entries, { weekly: 3 }, { now: utc('2021-01-05T00:00:00Z'), timeZone: 'UTC' });
    expect(plan.entries.map((e) => [e.name, e.keep, e.periods.weekly])).toEqual([
      ['mon-2021-W01', true, '2021-W01'],
      ['sun-2020-W53', true, '2020-W53'],
      ['thu-2020-W53', false, undefined],
      ['mon-2020-W53', false, undefined],
      ['sun-2020-W52', true, '2020-W52'],
    ]);
  });

  test('periods are computed in the policy time zone (Sunday 23:30 UTC is Monday in Berlin)', () => {
    const entries = [
      { name: 'sun-late', time: utc('2021-01-03T23:30:00Z'), size: 0 },
      { name: 'sun-noon', time: utc('2021-01-03T12:00:00Z'), size: 0 },
    ];
    const now = utc('2021-01-04T06:00:00Z');
    expect(kept(entries, { weekly: 5 }, now, 'UTC')).toEqual(['sun-late']);
    expect(kept(entries, { weekly: 5 }, now, 'Europe/Berlin')).toEqual(['sun-late', 'sun-noon']);
    expect(kept(entries, { daily: 5 }, now, 'America/New_York')).toEqual(['sun-late']);
  });

  test('DST fall-back: the repeated local hour is one hourly period (Berlin 2021-10-31 02:xx CEST and CET)', () => {
    const entries = [
      { name: 'cet-0230', time: utc('2021-10-31T01:30:00Z'), size: 0 },
      { name: 'cest-0230', time: utc('2021-10-31T00:30:00Z'), size: 0 },
      { name: 'cest-0130', time: utc('2021-10-30T23:30:00Z'), size: 0 },
    ];
    const plan = planRetention(
      entries,
      { hourly: 10 },
      { now: utc('2021-10-31T03:00:00Z'), timeZone: 'Europe/Berlin' },
    );
    expect(plan.entries.map((e) => [e.name, e.periods.hourly ?? null])).toEqual([
      ['cet-0230', '2021-10-31T02'],
      ['cest-0230', null],
      ['cest-0130', '2021-10-31T01'],
    ]);
  });

  test('Lord Howe 30-minute DST end: 01:30–02:00 local happens twice and stays one hourly period', () => {
    // 2021-04-04 02:00 LHDT (+11) -> 01:30 LHST (+10:30)
    const first = utc('2021-04-03T14:45:00Z'); // 01:45 LHDT
    const second = utc('2021-04-03T15:15:00Z'); // 01:45 LHST
    expect(periodKeys(first, 'Australia/Lord_Howe').hourly).toBe('2021-04-04T01');
    expect(periodKeys(second, 'Australia/Lord_Howe').hourly).toBe('2021-04-04T01');
    expect(
      kept(
        [
          { name: 'second', time: second, size: 0 },
          { name: 'first', time: first, size: 0 },
        ],
        { hourly: 5 },
        second + 60,
        'Australia/Lord_Howe',
      ),
    ).toEqual(['second']);
  });

  test('rejects bad entries and unknown time zones', () => {
    const opts = { now: T0, timeZone: 'UTC' };
    expect(() =>
      planRetention(
        [
          { name: 'a', time: 1, size: 0 },
          { name: 'a', time: 2, size: 0 },
        ],
        {},
        opts,
      ),
    ).toThrow(/duplicate/);
    expect(() => planRetention([{ name: 'a\tb', time: 1, size: 0 }], {}, opts)).toThrow(/tab/);
    expect(() => planRetention([{ name: 'a', time: 1.5, size: 0 }], {}, opts)).toThrow(/time/);
    expect(() => planRetention([{ name: 'a', time: 1, size: -1 }], {}, opts)).toThrow(/size/);
    expect(() => planRetention([], {}, { now: T0, timeZone: 'Mars/Olympus' })).toThrow(
      /unknown time zone "Mars\/Olympus"/,
    );
    expect(() => planRetention([], {}, { now: T0, timeZone: 'Local' })).toThrow(/unknown time zone/);
  });

  test('an empty listing plans nothing', () => {
    expect(formatPlan(planRetention([], { keepLast: 1 }, { now: 0, timeZone: 'UTC' }))).toBe(
      '# retention plan at 1970-01-01T00:00:00Z (now=0), time zone UTC\n# rules: keepLast=1\n# backups: 0, keep: 0, delete: 0\n',
    );
  });
});

describe('calendar', () => {
  test.each([
    ['2021-01-03', 2020, 53],
    ['2021-01-04', 2021, 1],
    ['2019-12-30', 2020, 1],
    ['2016-01-03', 2015, 53],
    ['2027-01-01', 2026, 53],
    ['2024-12-30', 2025, 1],
    ['2024-02-29', 2024, 9],
  ])('ISO week of %s is %i-W%i', (date, year, week) => {
    const [y, m, d] = date.split('-').map(Number);
    expect(isoWeek(y, m, d)).toEqual({ year, week });
  });

  test('period keys', () => {
    expect(periodKeys(utc('2020-12-31T23:30:00Z'), 'Europe/Berlin')).toEqual({
      hourly: '2021-01-01T00',
      daily: '2021-01-01',
      weekly: '2020-W53',
      monthly: '2021-01',
      yearly: '2021',
    });
    expect(periodKeys(utc('2021-03-14T07:30:00Z'), 'America/New_York').hourly).toBe('2021-03-14T03');
  });
});

describe('validation and conversions', () => {
  test('validateRetention names path.field, the value and what is allowed', () => {
    expect(
      validateRetention(
        { keepLast: 1.5, daily: '7', maxAge: '30', maxTotalSize: '10Gb', hourly: 0, bogus: true },
        'spec.targets[0].retention',
      ),
    ).toEqual([
      'spec.targets[0].retention.bogus: unknown retention rule (value true); allowed: keepLast, maxAge, maxTotalSize, hourly, daily, weekly, monthly, yearly',
      'spec.targets[0].retention.keepLast: must be an integer from 1 to 100000 (leave it unset to not use the rule), got 1.5',
      'spec.targets[0].retention.maxAge: received "30"; must be a duration: whole numbers with units w, d, h, m, s, largest first and each once, e.g. "90s", "15m", "1h30m", "7d", "2w" (a unit is required)',
      'spec.targets[0].retention.maxTotalSize: received "10Gb"; must be a size: a number and a unit, binary Ki, Mi, Gi, Ti, Pi, Ei or decimal k, M, G, T, P, E, e.g. "10Gi" or "500M" (bits or bytes? write Ki, Mi, Gi, ... or k, M, G, ...)',
      'spec.targets[0].retention.hourly: must be an integer from 1 to 100000 (leave it unset to not use the rule), got 0',
      'spec.targets[0].retention.daily: must be an integer from 1 to 100000 (leave it unset to not use the rule), got "7"',
    ]);
    expect(validateRetention([], 'r')).toEqual([
      'r: must be an object with the rules keepLast, maxAge, maxTotalSize, hourly, daily, weekly, monthly, yearly, got []',
    ]);
    expect(validateRetention(undefined, 'r')).toEqual([]);
    expect(
      validateRetention(
        { keepLast: 3, maxAge: '30d', maxTotalSize: '50Gi', daily: 7, weekly: 4, monthly: 12, yearly: 2, hourly: 24 },
        'r',
      ),
    ).toEqual([]);
  });

  test('a destination refuses the rules it cannot apply, saying why (the generic ones apply every rule)', () => {
    expect(supportedRetentionRules('s3')).toContain('maxTotalSize');
    expect(supportedRetentionRules('dir')).toEqual(RETENTION_RULE_NAMES);
    expect(validateRetentionFor({ maxTotalSize: '1Gi' }, 'dir', 'r')).toEqual([]);
    const sizeless = { kind: 'tape', unsupported: { maxTotalSize: 'the tape lists no sizes' } };
    expect(supportedRetentionRules(sizeless)).not.toContain('maxTotalSize');
    expect(validateRetentionFor({ maxTotalSize: '1Gi', keepLast: 2 }, sizeless, 'spec.retention')).toEqual([
      'spec.retention.maxTotalSize: not supported for tape destinations (the tape lists no sizes); supported there: keepLast, maxAge, hourly, daily, weekly, monthly, yearly',
    ]);
  });

  test('retentionEnv: sorted, only the rules set, seconds and bytes', () => {
    expect(retentionEnv({ weekly: 4, maxAge: '2d', keepLast: 3, maxTotalSize: '1Ki' }, 'Europe/Berlin', false)).toEqual(
      [
        { name: 'RETENTION_DRY_RUN', value: 'false' },
        { name: 'RETENTION_KEEP_LAST', value: '3' },
        { name: 'RETENTION_MAX_AGE_SECONDS', value: '172800' },
        { name: 'RETENTION_MAX_TOTAL_BYTES', value: '1024' },
        { name: 'RETENTION_TIME_ZONE', value: 'Europe/Berlin' },
        { name: 'RETENTION_WEEKLY', value: '4' },
      ],
    );
    expect(retentionEnv(undefined, 'UTC', true)).toEqual([
      { name: 'RETENTION_DRY_RUN', value: 'true' },
      { name: 'RETENTION_TIME_ZONE', value: 'UTC' },
    ]);
    expect(() => retentionEnv({ keepLast: 0 }, 'UTC', false)).toThrow(/keepLast/);
  });

  test('retentionDestinationEnv', () => {
    expect(
      retentionDestinationEnv({
        kind: 's3',
        bucket: 'b',
        prefix: 'redis/',
        namePrefix: 'redis-backup_rs0_',
        nameSuffix: '.rdb.gz',
        forcePathStyle: true,
        endpoint: 'http://minio:9000',
      }),
    ).toEqual([
      { name: 'BACKUP_DEST_KIND', value: 's3' },
      { name: 'BACKUP_NAME_PREFIX', value: 'redis-backup_rs0_' },
      { name: 'BACKUP_NAME_SUFFIX', value: '.rdb.gz' },
      { name: 'S3_BUCKET', value: 'b' },
      { name: 'S3_ENDPOINT', value: 'http://minio:9000' },
      { name: 'S3_FORCE_PATH_STYLE', value: 'true' },
      { name: 'S3_PREFIX', value: 'redis/' },
    ]);
    expect(
      retentionDestinationEnv({
        kind: 'dir',
        dir: '/backup',
        namePrefix: 'etcd-n1-',
        nameSuffix: '.db',
        sidecarSuffixes: ['.json', '.sha256'],
      }),
    ).toEqual([
      { name: 'BACKUP_DEST_KIND', value: 'dir' },
      { name: 'BACKUP_DIR', value: '/backup' },
      { name: 'BACKUP_NAME_PREFIX', value: 'etcd-n1-' },
      { name: 'BACKUP_NAME_SUFFIX', value: '.db' },
      { name: 'BACKUP_SIDECAR_SUFFIXES', value: '.json .sha256' },
    ]);
    // a kind of an engine's own (Vitess's: test/lib/engines/vitess/retention.test.ts), with its definition
    const tape: RetentionDestinationDefinition<{ readonly kind: 'tape'; readonly drive: string }> = {
      kind: 'tape',
      script: 'retention-tape.sh',
      envNames: { drive: 'TAPE_DRIVE' },
      unsupported: {},
      check: (dest, _path, req) => req('drive', dest.drive),
      env: (dest, add) => add('TAPE_DRIVE', dest.drive),
    };
    expect(retentionDestinationEnv({ kind: 'tape', drive: '/dev/st0' }, tape)).toEqual([
      { name: 'BACKUP_DEST_KIND', value: 'tape' },
      { name: 'TAPE_DRIVE', value: '/dev/st0' },
    ]);
    expect(() => retentionDestinationEnv({ kind: 'tape', drive: '' }, tape)).toThrow('destination.drive: required');
    expect(() => retentionDestinationEnv({ kind: 'tape' } as never)).toThrow(
      'a retention destination of kind "tape" needs its definition (a bug)',
    );
    expect(() => retentionDestinationEnv({ kind: 'dir', dir: '/b', namePrefix: '' })).toThrow(
      'destination.namePrefix: required',
    );
    expect(() => retentionDestinationEnv({ kind: 'dir', dir: '/b', namePrefix: 'a/b' })).toThrow(
      /must not contain "\/"/,
    );
  });
});

describe('names and listings', () => {
  test('backup names carry a UTC RFC 3339 timestamp and parse back exactly', () => {
    const t = utc('2025-02-25T22:06:02Z');
    const name = backupName('redis-backup_rs0_', t, '.rdb.gz');
    expect(name).toBe('redis-backup_rs0_2025-02-25T22:06:02Z.rdb.gz');
    expect(parseBackupName(name, 'redis-backup_rs0_', '.rdb.gz')).toBe(t);
    // encrypted (spec.encryption): the same backup with ".age" appended
    expect(parseBackupName(`${name}.age`, 'redis-backup_rs0_', '.rdb.gz')).toBe(t);
    expect(parseBackupName('etcd_2025-02-25T22:06:02Z.age', 'etcd_', '')).toBe(t);
  });

  test.each([
    'redis-backup_rs01_2025-02-25T22:06:02Z.rdb.gz', // another shard whose name extends ours
    'redis-backup_rs0_2025-02-25T22:06:02Z.rdb.gz.partial',
    'redis-backup_rs0_2025-02-25T22:06:02Z.rdb.gz.json',
    'redis-backup_rs0_2025-02-25T22:06:02Z.rdb',
    'redis-backup_rs0_2025-02-30T22:06:02Z.rdb.gz', // no such day
    'redis-backup_rs0_1969-12-31T23:59:59Z.rdb.gz',
    'redis-backup_rs0_2025-02-25T24:00:00Z.rdb.gz',
    'redis-backup_rs0_2025-02-25 22:06:02Z.rdb.gz',
    'redis-backup_rs0_x_2025-02-25T22:06:02Z.rdb.gz',
    'redis-backup_rs0_2025-02-25T22:06:02Z.age', // the suffix missing
    'redis-backup_rs0_2025-02-25T22:06:02Z.rdb.gz.age.json',
    'redis-backup_rs0_2025-02-25T22:06:02Z.rdb.gz.agex',
  ])('%s is not a backup of prefix redis-backup_rs0_ / suffix .rdb.gz', (name) => {
    expect(parseBackupName(name, 'redis-backup_rs0_', '.rdb.gz')).toBeUndefined();
  });

  test('planFromListing parses <epoch>\\t<size>\\t<name> lines (the CLI helper)', () => {
    const plan = planFromListing('100\t5\ta\n\n200\t7\tb c\n', { keepLast: 1 }, { now: 300, timeZone: 'UTC' });
    expect(plan.entries.map((e) => [e.name, e.keep])).toEqual([
      ['b c', true],
      ['a', false],
    ]);
  });

  test.each([
    ['1\t2\n', /line 1: 2 tab-separated fields/],
    ['01\t2\ta\n', /line 1: bad epoch seconds "01"/],
    ['1\t-2\ta\n', /bad size/],
    ['1\t2\ta\n3\t4\ta\n', /line 2: duplicate backup name "a"/],
    ['1\t2\t\n', /empty name/],
    ['253402300800\t2\ta\n', /bad epoch seconds/],
    ['1\t9007199254740992\ta\n', /bad size/],
  ])('parseListing rejects %j', (text, message) => {
    expect(() => parseListing(text)).toThrow(message);
  });
});

describe('CLI flags', () => {
  test('retentionRulesFromFlags maps kebab-case flags to rules', () => {
    expect(
      retentionRulesFromFlags({
        'keep-last': '3',
        'max-age': '30d',
        'max-total-size': '10Gi',
        daily: '7',
        weekly: undefined,
      }),
    ).toEqual({
      keepLast: 3,
      maxAge: '30d',
      maxTotalSize: '10Gi',
      daily: 7,
    });
    expect(() => retentionRulesFromFlags({ 'keep-lats': '3' })).toThrow(
      /unknown retention flag --keep-lats; allowed: --keep-last/,
    );
    expect(() => retentionRulesFromFlags({ daily: 'seven' })).toThrow('--daily must be a whole number, got "seven"');
  });
});
