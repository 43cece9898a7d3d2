// One vitess CronJob with every default, as a reviewer reads it (scripts by hash): a small snapshot
// beside the whole-example snapshots in test/__snapshots__.
import { renderPolicy, toYaml } from '../../../../lib';
import { abbreviateScripts } from '../../../support/snapshots';
import { vitessPolicy } from './fixtures';

test('one CronJob with every default', () => {
  const objects = renderPolicy(vitessPolicy());
  expect(objects.map((o) => o.kind)).toEqual(['CronJob']);
  expect(toYaml(abbreviateScripts(objects))).toMatchSnapshot();
});
