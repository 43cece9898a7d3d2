/** `backup-cronjobs discover --vtctld ADDR --keyspace KEYSPACE`: the serving shards of a Vitess keyspace. */
import { DiscoverError, DiscoverUsageError } from '../discover';
import type { EngineDiscover } from '../discover';

export interface VitessShard {
  readonly name: string;
  /** `is_primary_serving`: the shard serves its key range (false for the source or target side of a reshard). */
  readonly serving: boolean;
}

/**
 * The shards of `vtctldclient FindAllShardsInKeyspace` output
 * (`{"shards": {"<name>": {"keyspace", "name", "shard": {..., "is_primary_serving"}}}}`),
 * sorted by name.
 */
export function vitessShards(json: string): VitessShard[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new DiscoverError(`vtctldclient printed no JSON: ${JSON.stringify(json.slice(0, 200))}`);
  }
  const shards = (parsed as { shards?: unknown }).shards;
  if (shards === null || typeof shards !== 'object' || Array.isArray(shards))
    throw new DiscoverError('vtctldclient printed no "shards" object');
  return Object.entries(shards as Record<string, { shard?: { is_primary_serving?: unknown } }>)
    .map(([name, value]) => {
      const serving = value?.shard?.is_primary_serving;
      if (typeof serving !== 'boolean')
        throw new DiscoverError(`vtctldclient printed shard ${name} without shard.is_primary_serving`);
      return { name, serving };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export const vitessDiscover: EngineDiscover = {
  flags: ['vtctld', 'keyspace'],
  usage: '--vtctld ADDR --keyspace KEYSPACE',
  what: 'Vitess keyspace',
  help: `  --vtctld ADDR --keyspace K   the serving shards of Vitess keyspace K, for a
                               strategy of spec.vitess.schedules; runs
                               vtctldclient --server ADDR FindAllShardsInKeyspace K
                               (vtctldclient must be on PATH)`,
  install: {
    vtctldclient: 'install it from a Vitess release (or copy /vt/bin/vtctldclient out of the vitess/lite image)',
  },
  discover: ({ vtctld, keyspace }, run) => {
    if (!keyspace)
      throw new DiscoverUsageError('--vtctld needs --keyspace KEYSPACE (FindAllShardsInKeyspace lists one keyspace)');
    const shards = vitessShards(
      run('vtctldclient', ['--server', vtctld!, '--action_timeout', '30s', 'FindAllShardsInKeyspace', keyspace]),
    );
    const left = shards.filter((s) => !s.serving).map((s) => s.name);
    return {
      comments: [
        `# Vitess keyspace ${keyspace}: its serving shards (vtctld ${vtctld}), for a strategy with keyspace: ${keyspace}`,
        ...(left.length > 0 ? [`# not serving, left out: ${left.join(' ')}`] : []),
      ],
      shards: shards.filter((s) => s.serving).map((s) => s.name),
    };
  },
};
