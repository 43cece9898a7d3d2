// One redis CronJob with every default, as a reviewer reads it (scripts by hash): a small snapshot
// beside the whole-example snapshots in test/__snapshots__.
import { renderPolicy, toYaml } from '../../../../lib';
import { abbreviateScripts } from '../../../support/snapshots';
import { redisPolicy } from './fixtures';

test('one CronJob (one shard) with every default', () => {
  const objects = renderPolicy(redisPolicy({ shards: ['shard01'] }));
  expect(objects.map((o) => o.kind)).toEqual(['CronJob']);
  expect(toYaml(abbreviateScripts(objects))).toMatchSnapshot();
});
