// render-guard.ts, the jest setup that puts every object rendered in a test through the API-server oracle.
import { readFileSync } from 'fs';
import { join } from 'path';
import * as lib from '../../../lib';
import * as internal from '../../../lib/internal';
import * as render from '../../../lib/model/render';
import * as restore from '../../../lib/model/restore';
import type { Manifest } from '../../../lib';
import { assertAllAccepted } from './accepted';
import * as object from './object';

type Render = typeof import('../../../lib/model/render');
type Restore = typeof import('../../../lib/model/restore');

test('every render entry point and the restore Job, however imported, are the guarded ones', () => {
  const actual = jest.requireActual<Render>('../../../lib/model/render');
  for (const name of ['renderPolicy', 'renderResolved', 'renderShared'] as const)
    expect({ name, guarded: render[name] !== actual[name] }).toEqual({ name, guarded: true });
  expect(lib.renderPolicy).toBe(render.renderPolicy);
  expect(internal.renderResolved).toBe(render.renderResolved);
  expect(internal.renderShared).toBe(render.renderShared);
  expect(restore.restoreJob).not.toBe(jest.requireActual<Restore>('../../../lib/model/restore').restoreJob);
  expect(lib.restoreJob).toBe(restore.restoreJob);
});

test('a guarded render checks each object it returns with validateObject, and returns what the render returns', () => {
  const file = join(__dirname, '..', '..', '..', 'examples', 'policies', 'redis-sharded.yaml');
  const [doc] = lib.loadPolicies(readFileSync(file, 'utf8'), file);
  const actual = jest.requireActual<Render>('../../../lib/model/render');
  const validate = jest.spyOn(object, 'validateObject');
  const objects = render.renderPolicy(doc);
  expect(validate.mock.calls.map(([o]) => o)).toEqual(objects);
  expect(objects).toEqual(actual.renderPolicy(doc));
  validate.mockRestore();
});

test('an object the API server would refuse fails the guard, naming it and the rule', () => {
  const cronJob: Manifest = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'Backup', namespace: 'ns' },
    spec: {},
  };
  expect(() => assertAllAccepted([cronJob])).toThrow(
    /backup-cronjobs rendered CronJob Backup, which the API server would refuse \(a bug: please report it with the policy\):\n {2}metadata\.name: /,
  );
});
