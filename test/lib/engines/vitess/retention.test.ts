// Vitess's own retention destination (lib/engines/vitess/retention.ts): the `vitess` kind that reaches
// the core through the registry, its env, the rule it cannot apply, its script, and its backups' names.
import {
  GENERIC_RETENTION_DESTINATIONS,
  retentionDestinationEnv,
  supportedRetentionRules,
  validateRetentionFor,
} from '../../../../lib/retention';
import {
  VITESS_RETENTION_DESTINATION,
  parseVitessBackupName,
  vitessRetentionEnv,
} from '../../../../lib/engines/vitess/retention';
import { RETENTION_DESTINATIONS, retentionDestinationOf } from '../../../../lib/registry';
import { scriptAlternatives, scriptModule } from '../../../../lib/scripts';

const utc = (iso: string): number => Date.parse(iso) / 1000;

describe('the vitess retention destination', () => {
  test('reaches the core through the registry, next to the generic kinds', () => {
    expect(Object.keys(RETENTION_DESTINATIONS)).toEqual(['dir', 's3', 'vitess']);
    expect(RETENTION_DESTINATIONS.vitess).toBe(VITESS_RETENTION_DESTINATION);
    expect(retentionDestinationOf('vitess', {})).toBe(VITESS_RETENTION_DESTINATION);
    expect(retentionDestinationOf('redis', {})).toBe(GENERIC_RETENTION_DESTINATIONS.s3);
    expect(retentionDestinationOf('etcd', {})).toBeUndefined();
  });

  test("its script is the engine's own retention-vitess.sh, one of retention.sh's destination modules", () => {
    expect(VITESS_RETENTION_DESTINATION.script).toBe('retention-vitess.sh');
    expect(scriptModule('retention-vitess.sh').path).toBe('lib/engines/vitess/scripts/retention-vitess.sh');
    expect(scriptAlternatives(scriptModule('retention.sh'))).toContain('retention-vitess.sh');
  });

  test('cannot apply maxTotalSize (vtctldclient lists no sizes)', () => {
    expect(supportedRetentionRules(VITESS_RETENTION_DESTINATION)).not.toContain('maxTotalSize');
    expect(
      validateRetentionFor({ maxTotalSize: '1Gi', keepLast: 2 }, VITESS_RETENTION_DESTINATION, 'spec.retention'),
    ).toEqual([
      'spec.retention.maxTotalSize: not supported for vitess destinations (vtctldclient GetBackups reports no backup sizes); supported there: keepLast, maxAge, hourly, daily, weekly, monthly, yearly',
    ]);
  });

  test('its env: the shard as vtctld names it, the incremental chains when the shard has them', () => {
    const env = [
      { name: 'BACKUP_DEST_KIND', value: 'vitess' },
      { name: 'VITESS_KEYSPACE', value: 'commerce' },
      { name: 'VITESS_SHARD', value: '-80' },
      { name: 'VTCTLD_SERVER', value: 'vtctld:15999' },
    ];
    expect(vitessRetentionEnv({ server: 'vtctld:15999', keyspace: 'commerce', shard: '-80' })).toEqual(env);
    expect(
      retentionDestinationEnv(
        { kind: 'vitess', server: 'vtctld:15999', keyspace: 'commerce', shard: '-80' },
        VITESS_RETENTION_DESTINATION,
      ),
    ).toEqual(env);
    expect(
      vitessRetentionEnv({ server: 'vtctld:15999', keyspace: 'commerce', shard: '-80', incrementalChains: true }),
    ).toEqual([...env.slice(0, 1), { name: 'VITESS_INCREMENTAL_CHAINS', value: 'true' }, ...env.slice(1)]);
    expect(() => vitessRetentionEnv({ server: 'vtctld:15999', keyspace: '', shard: '-80' })).toThrow(
      'destination.keyspace: required',
    );
  });
});

test('vitess names', () => {
  expect(parseVitessBackupName('2025-02-25.220602.zone1-0000000101')).toBe(utc('2025-02-25T22:06:02Z'));
  expect(parseVitessBackupName('2025-02-25.220602.vtbackup-1234')).toBe(utc('2025-02-25T22:06:02Z'));
  expect(parseVitessBackupName('2025-02-25.220602.')).toBeUndefined();
  expect(parseVitessBackupName('2025-02-25.250602.zone1-1')).toBeUndefined();
  expect(parseVitessBackupName('MANIFEST')).toBeUndefined();
});
