// One vitess CronJob with every default and its script ConfigMap, as a reviewer reads them (scripts by hash): a small snapshot
// beside the whole-example snapshots in test/__snapshots__.
import { renderPolicy, toYaml } from '../../../../lib';
import { abbreviateScripts } from '../../../support/snapshots';
import { vitessPolicy } from './fixtures';

test('one CronJob with every default, after its script ConfigMap', () => {
  const objects = renderPolicy(vitessPolicy());
  expect(objects.map((o) => o.kind)).toEqual(['ConfigMap', 'CronJob']);
  expect(toYaml(abbreviateScripts(objects))).toMatchSnapshot();
});

test('an incremental-backup CronJob with every default, beside its shard full backup, after their script ConfigMap', () => {
  const objects = renderPolicy(
    vitessPolicy({
      schedules: [
        {
          name: 'daily',
          schedule: '0 2 * * *',
          strategies: [{ keyspace: 'commerce', shards: ['-'] }],
          incremental: { schedule: '*/15 * * * *' },
        },
      ],
    }),
  );
  expect(objects.map((o) => o.kind)).toEqual(['ConfigMap', 'CronJob', 'CronJob']);
  expect(toYaml(abbreviateScripts([objects[0], objects[2]]))).toMatchSnapshot();
});
