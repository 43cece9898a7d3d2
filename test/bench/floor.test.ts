// The synthesis benchmark's floor (bench/floor.js) must build exactly the core's objects, or the
// benchmark compares the core with less (or other) work than it does.
import * as core from '../../lib/internal';

const { floorObjects } = require('../../bench/floor') as { floorObjects: (c: typeof core, n: number) => unknown[] };
const { benchPolicy } = require('../../bench/policy') as { benchPolicy: (n: number) => unknown };

test.each([1, 2, 7, 100, 101, 230])(
  '%i shards: the floor builds the objects the core renders, in its order',
  (shards) => {
    const floor = JSON.parse(JSON.stringify(floorObjects(core, shards))) as unknown[];
    const rendered = JSON.parse(JSON.stringify(core.renderPolicy(benchPolicy(shards)))) as unknown[];
    expect(floor).toHaveLength(rendered.length);
    expect(floor).toEqual(rendered);
  },
);
