import fc from 'fast-check';
import { OVERRIDABLE_DEFAULTS, renderFlags, requiredFlags, shardArgs } from '../../../../lib/engines/vitess/flags';
import { resolveVitess } from '../../../../lib/engines/vitess/resolve';
import type { VitessSpec } from '../../../../lib/engines/vitess/types';

const spec = (flagStyle: 'underscore' | 'dashed', backupEngine: 'builtin' | 'xtrabackup'): VitessSpec => ({
  cluster: 'main',
  topology: { globalServerAddress: 'etcd:2379' },
  vtctldServer: 'vtctld:15999',
  storage: { s3: { region: 'us-east-1', bucket: 'backups' } },
  flagStyle,
  backupEngine,
  dbInitScriptSecret: { name: 'init', key: 'init.sql' },
  extraFlags: { '--builtinbackup-incremental-restore-path': '/data', backup_storage_block_size: '250000' },
  schedules: [],
});

describe('shardArgs', () => {
  test('gives each shard exactly the args of its whole flag set, rendered and sorted alone', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('underscore' as const, 'dashed' as const),
        fc.constantFrom('builtin' as const, 'xtrabackup' as const),
        fc.constantFrom(undefined, '500m', '3'),
        fc.array(
          fc.tuple(
            fc.stringMatching(/^[a-z_$][a-z0-9_$-]{0,12}$/),
            fc.stringMatching(/^(-|[0-9a-f]{0,4}-[0-9a-f]{0,4})$/),
          ),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        (style, engine, cpu, shards) => {
          const resolved = resolveVitess(spec(style, engine));
          const args = shardArgs(resolved, cpu);
          for (const [keyspace, shard] of shards) {
            const whole = {
              ...OVERRIDABLE_DEFAULTS,
              ...resolved.extraFlags,
              ...requiredFlags(resolved, keyspace, shard, cpu),
            };
            expect(args(keyspace, shard)).toEqual(renderFlags(whole, style));
          }
        },
      ),
    );
  });
});
