// The alarms an etcd cluster raises reach the metrics: the rendered backup pod runs for real against a real
// etcd (MAIN_ETCD_VERSION, mutual TLS on loopback) whose small backend quota the test fills until etcd raises
// NOSPACE, and pushes to a real Pushgateway. The snapshot is still taken; the run warns and pushes
// etcd_backup_source_alarm{alarm="NOSPACE"} 1 (CORRUPT 0); a healthy cluster pushes 0 for both.
import { renderPolicy } from '../../../../../lib';
import { requireCommands, startEtcdTls, startPushgateway, stopAll } from '../../../../support/services';
import type { EtcdTlsHandle, PushgatewayHandle } from '../../../../support/services';
import { cronJobOf, etcdPolicy, filesOf, removeTempDirs, runPod, tempDir } from '../fixtures';

jest.setTimeout(120000);

let gateway: PushgatewayHandle;

beforeAll(async () => {
  requireCommands('etcd', 'etcdctl', 'busybox', 'openssl', 'curl');
  gateway = await startPushgateway();
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

/** The pushed `etcd_backup_source_alarm` values of `target`, by alarm. */
async function alarmGauges(target: string): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const line of (await gateway.metrics()).split('\n')) {
    const m = /^etcd_backup_source_alarm\{(.*)\} (\S+)$/.exec(line);
    if (!m || !m[1].includes(`target="${target}"`)) continue;
    const alarm = /alarm="([A-Z]+)"/.exec(m[1]);
    if (alarm) found[alarm[1]] = Number(m[2]);
  }
  return found;
}

/** Backs up `etcd` with the rendered pod (metrics to the gateway); returns the run and the CronJob's name. */
async function backUp(etcd: EtcdTlsHandle, policyName: string) {
  // curl for the metrics push comes with images.shell (the default busybox has none)
  const policy = etcdPolicy(
    { endpoint: etcd.endpoint, images: { shell: 'curlimages/curl:8.10.1' } },
    { metrics: { pushgatewayUrl: gateway.url } },
    policyName,
  );
  renderPolicy(policy); // valid
  const cj = cronJobOf(policy);
  const dest = tempDir('dest');
  const run = await runPod(cj, { volumes: { backup: dest, 'etcd-certs': etcd.pkiDir } });
  return { run, target: cj.metadata.name, dest };
}

test('a cluster that raised NOSPACE: the snapshot is taken, the run warns, and pushes NOSPACE 1 and CORRUPT 0', async () => {
  const etcd = await startEtcdTls({ quotaBackendBytes: 2 * 1024 * 1024 });
  const value = 'x'.repeat(100_000);
  let refused = '';
  for (let i = 0; i < 60 && !refused; i++) {
    const r = await etcd.etcdctlRaw(['put', `/registry/big-${i}`, value]);
    if (r.code !== 0) refused = r.stderr;
  }
  expect(refused).toContain('database space exceeded');
  expect(await etcd.etcdctl(['alarm', 'list'])).toMatch(/alarm:NOSPACE/);

  const { run, target, dest } = await backUp(etcd, 'etcd-full');
  expect(run.failed).toBeUndefined();
  expect(filesOf(dest).filter((f) => f.endsWith('.db'))).toHaveLength(1);
  expect(run.log).toMatch(
    /the etcd cluster has raised the alarm\(s\) NOSPACE \(etcdctl alarm list; .*\): taking the snapshot all the same/,
  );
  expect(await alarmGauges(target)).toEqual({ NOSPACE: 1, CORRUPT: 0 });
});

test('a healthy cluster: no warning, and both alarms pushed as 0 (a cleared alarm stops the alert)', async () => {
  const etcd = await startEtcdTls();
  await etcd.etcdctl(['put', '/registry/k', 'v']);
  const { run, target } = await backUp(etcd, 'etcd-healthy');
  expect(run.failed).toBeUndefined();
  expect(run.log).not.toContain('alarm');
  expect(await alarmGauges(target)).toEqual({ NOSPACE: 0, CORRUPT: 0 });
});
