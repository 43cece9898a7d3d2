// The Prometheus Pushgateway receives what curl pushes.
import { PushgatewayHandle, runCommand, startPushgateway, stopAll } from '.';

let pushgw: PushgatewayHandle;

beforeAll(async () => {
  pushgw = await startPushgateway();
});

afterAll(() => stopAll());

describe('pushgateway', () => {
  test('a push with curl shows up in metrics()', async () => {
    expect(pushgw.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const r = await runCommand(
      'curl',
      ['-sS', '--fail-with-body', '--data-binary', '@-', `${pushgw.url}/metrics/job/redis_backup/instance/redis-main`],
      { input: '# TYPE backup_last_success_timestamp_seconds gauge\nbackup_last_success_timestamp_seconds 42\n' },
    );
    expect(r.code).toBe(0);
    expect(await pushgw.metrics()).toMatch(
      /^backup_last_success_timestamp_seconds\{instance="redis-main",job="redis_backup"\} 42$/m,
    );
  });
});
