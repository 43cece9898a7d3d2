// metrics.sh against a real Pushgateway: push_gauges shares push_metrics' grouping key and never fails a run.
import { execFileSync } from 'child_process';
import { readFileSync } from 'fs';
import { join } from 'path';
import { PushgatewayHandle, startPushgateway, stopAll } from '../../support/services';

let gateway: PushgatewayHandle;
beforeAll(async () => {
  gateway = await startPushgateway();
}, 60_000);
afterAll(() => stopAll());

const SCRIPTS = join(__dirname, '..', '..', '..', 'lib', 'scripts');

/** Runs `body` after common.sh and metrics.sh, whole, with the run's identity in the env. */
function run(body: string, env: Record<string, string>): { code: number; stderr: string } {
  const script = [
    readFileSync(join(SCRIPTS, 'common.sh'), 'utf8'),
    readFileSync(join(SCRIPTS, 'metrics.sh'), 'utf8'),
    body,
  ].join('\n');
  try {
    execFileSync('/bin/sh', ['-c', script, 'test'], {
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, stderr: '' };
  } catch (e) {
    const err = e as { status: number; stderr: string };
    return { code: err.status, stderr: err.stderr };
  }
}

const identity = (url: string) => ({
  BACKUP_PUSHGATEWAY_URL: url,
  BACKUP_METRICS_PREFIX: 'example_backup',
  BACKUP_NAMESPACE: 'db',
  BACKUP_POLICY: 'shop',
  BACKUP_TARGET: 'shop-orders',
});

test('push_gauges pushes into the group of push_metrics, keeping the metrics it does not name', async () => {
  expect(
    run(
      'push_metrics success 12 3456; push_gauges uncovered_shards 2 "Shards no CronJob covers." restore_drill_success 1 "1 after a good drill."',
      identity(gateway.url),
    ).code,
  ).toBe(0);
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  const group = 'instance="",job="backup-cronjobs",namespace="db",policy="shop",target="shop-orders"';
  expect(text).toContain(`example_backup_uncovered_shards{${group}} 2`);
  expect(text).toContain(`example_backup_restore_drill_success{${group}} 1`);
  expect(text).toContain(`example_backup_size_bytes{${group}} 3456`);
  expect(text).toContain('# HELP example_backup_uncovered_shards Shards no CronJob covers.');
});

test('a bad gauge or an unreachable gateway is a warning, never a failed run', () => {
  for (const body of ['push_gauges "bad name" 1 "x"', 'push_gauges ok NaNish "x"']) {
    const r = run(`${body}; exit 0`, identity(gateway.url));
    expect(r.code).toBe(0);
  }
  expect(run('push_gauges ok 1 "x"', identity('http://127.0.0.1:9')).code).toBe(0);
});

describe('drill.sh', () => {
  const withDrill = (body: string) => `${readFileSync(join(SCRIPTS, 'drill.sh'), 'utf8')}\n${body}`;
  const group = 'instance="",job="backup-cronjobs",namespace="db",policy="shop",target="shop-orders-drill"';
  const env = (extra: Record<string, string> = {}) => ({
    ...identity(gateway.url),
    BACKUP_TARGET: 'shop-orders-drill',
    ...extra,
  });
  const gauge = async (name: string) => {
    const line = (await (await fetch(`${gateway.url}/metrics`)).text())
      .split('\n')
      .find((l) => l.startsWith(`example_backup_${name}{${group}} `));
    return line === undefined ? undefined : Number(line.split(' ').pop());
  };

  test('a good drill pushes success, duration, the backup age and the time of the success; a failed one keeps that time', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(run(withDrill(`drill_result success $(($(now_epoch) - 42)) $(($(now_epoch) - 3600))`), env()).code).toBe(0);
    expect(await gauge('restore_drill_success')).toBe(1);
    expect(await gauge('restore_drill_duration_seconds')).toBeGreaterThanOrEqual(42);
    expect(await gauge('restore_drill_backup_age_seconds')).toBeGreaterThanOrEqual(3600);
    const succeededAt = (await gauge('restore_drill_last_success_timestamp_seconds'))!;
    expect(succeededAt).toBeGreaterThanOrEqual(now);
    expect(run(withDrill('drill_result failure $(($(now_epoch) - 5))'), env()).code).toBe(0);
    expect(await gauge('restore_drill_success')).toBe(0);
    expect(await gauge('restore_drill_last_success_timestamp_seconds')).toBe(succeededAt);
  });

  test("the drilled backup's name is pushed as the label of restore_drill_backup_info, other characters than [A-Za-z0-9._:-] as _", async () => {
    const infoLines = async () =>
      (await (await fetch(`${gateway.url}/metrics`)).text())
        .split('\n')
        .filter(
          (l) => l.startsWith('example_backup_restore_drill_backup_info{') && l.includes('target="shop-orders-drill"'),
        );
    const name = '2026-01-01.030000.zone1-0000000101';
    expect(
      run(withDrill(`drill_result success $(($(now_epoch) - 5)) $(($(now_epoch) - 60)) ${name}`), env()).code,
    ).toBe(0);
    expect(await infoLines()).toEqual([`example_backup_restore_drill_backup_info{backup="${name}",${group}} 1`]);
    // the next drill's backup replaces it (the group's samples of one name are replaced together)
    expect(
      run(
        withDrill(
          'drill_result failure $(($(now_epoch) - 5)) $(($(now_epoch) - 60)) redis-backup_shard01_2026-01-02T03:00:00Z.rdb.gz.age',
        ),
        env(),
      ).code,
    ).toBe(0);
    expect(await infoLines()).toEqual([
      `example_backup_restore_drill_backup_info{backup="redis-backup_shard01_2026-01-02T03:00:00Z.rdb.gz.age",${group}} 1`,
    ]);
    // (run() returns stderr with a non-zero exit: `exit 3` after the call)
    const odd = run(
      withDrill("drill_result success $(($(now_epoch) - 5)) $(($(now_epoch) - 60)) 'a\"b c\\d'; exit 3"),
      env(),
    );
    expect(odd.code).toBe(3);
    expect(odd.stderr).not.toMatch(/ warn /);
    expect(await infoLines()).toEqual([`example_backup_restore_drill_backup_info{backup="a_b_c_d",${group}} 1`]);
    expect(await gauge('restore_drill_success')).toBe(1);
    // push_gauges itself refuses a label it cannot write safely, with a warning, and pushes nothing
    for (const bad of ['x{backup="a b"}', 'x{Backup="a"}', 'x{backup="a"', 'x{backup="a",b="c"}', 'x{backup=a}']) {
      const r = run(`push_gauges '${bad}' 1 "h"; exit 3`, identity(gateway.url));
      expect({ bad, code: r.code, stderr: r.stderr }).toEqual({
        bad,
        code: 3,
        stderr: expect.stringMatching(/ warn metrics not pushed: bad gauge label in /) as unknown,
      });
    }
  });

  test('drill_check_age fails the drill only beyond BACKUP_DRILL_MAX_AGE_SECONDS', () => {
    expect(
      run(withDrill('drill_check_age $(($(now_epoch) - 100)) b1'), env({ BACKUP_DRILL_MAX_AGE_SECONDS: '3600' })).code,
    ).toBe(0);
    expect(run(withDrill('drill_check_age $(($(now_epoch) - 100)) b1'), env()).code).toBe(0);
    const old = run(
      withDrill('drill_check_age $(($(now_epoch) - 7200)) b1'),
      env({ BACKUP_DRILL_MAX_AGE_SECONDS: '3600' }),
    );
    expect(old.code).toBe(1);
    expect(old.stderr).toMatch(/error the newest backup b1 is 720\ds old; spec\.drill\.maxBackupAge allows 3600s\n$/);
  });
});
