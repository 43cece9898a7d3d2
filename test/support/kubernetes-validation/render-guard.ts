/**
 * Jest setup of every test (jest.config.js `setupFilesAfterEnv`): every object the core renders in
 * a test's process, through any front end (`renderPolicy`, `renderResolved`, `renderShared`, the
 * restore Job), goes through `assertAccepted`, the API-server oracle that guarded every render in
 * production until issue 34 took it out of the render path. A render the oracle refuses fails the
 * test with the oracle's message, as it used to fail the render.
 */
import type * as Render from '../../../lib/model/render';
import type * as Restore from '../../../lib/model/restore';
import type * as Accepted from './accepted';

jest.mock('../../../lib/model/render', () => {
  const actual = jest.requireActual<typeof Render>('../../../lib/model/render');
  const { assertAllAccepted } = jest.requireActual<typeof Accepted>('./accepted');
  const checked = <A extends unknown[]>(render: (...args: A) => ReturnType<typeof actual.renderShared>) =>
    function (...args: A) {
      const objects = render(...args);
      assertAllAccepted(objects);
      return objects;
    };
  return {
    __esModule: true,
    ...actual,
    renderPolicy: checked(actual.renderPolicy),
    renderResolved: checked(actual.renderResolved),
    renderShared: checked(actual.renderShared),
  };
});

jest.mock('../../../lib/model/restore', () => {
  const actual = jest.requireActual<typeof Restore>('../../../lib/model/restore');
  const { assertAccepted } = jest.requireActual<typeof Accepted>('./accepted');
  return {
    __esModule: true,
    ...actual,
    restoreJob(...args: Parameters<typeof actual.restoreJob>) {
      const outcome = actual.restoreJob(...args);
      if (outcome.kind === 'job') assertAccepted(outcome.job);
      return outcome;
    },
  };
});
