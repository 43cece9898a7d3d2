/**
 * kube-state-metrics (tools/kube-state-metrics, built from the Go module proxy by
 * scripts/build-test-tools.sh) against the test control plane, on 127.0.0.1 with free ports. It is a
 * managed process of test/support/services: stopAll() and the watchdog end it with the test file.
 */
import * as path from 'path';
import { httpGetText } from '../../support/services/pushgateway';
import { BaseHandle, freePort, launch, waitReady } from '../../support/services/processes';
import { toolsBinDir } from './control-plane';

export interface KubeStateMetricsHandle extends BaseHandle {
  /** host:port of its /metrics, for a scrape config. */
  readonly address: string;
  /** GET /metrics: the exposition text. */
  metrics(): Promise<string>;
}

/**
 * Starts kube-state-metrics with the admin kubeconfig, exporting `resources` (plural names) of
 * `namespaces` only. A missing binary throws, naming `scripts/build-test-tools.sh kube-state-metrics`.
 */
export async function startKubeStateMetrics(
  kubeconfig: string,
  namespaces: readonly string[],
  resources: readonly string[] = ['cronjobs', 'jobs'],
): Promise<KubeStateMetricsHandle> {
  const binary = path.join(toolsBinDir('kube-state-metrics'), 'kube-state-metrics');
  const { params, base } = await launch({
    label: 'kube-state-metrics',
    binary,
    prepare: async () => ({ port: await freePort(), telemetryPort: await freePort() }),
    argv: ({ port, telemetryPort }) => [
      `--kubeconfig=${kubeconfig}`,
      '--host=127.0.0.1',
      `--port=${port}`,
      '--telemetry-host=127.0.0.1',
      `--telemetry-port=${telemetryPort}`,
      `--resources=${resources.join(',')}`,
      `--namespaces=${namespaces.join(',')}`,
    ],
    ready: async (p, { port }) => {
      await waitReady(
        p,
        'GET /metrics',
        30000,
        async () => (await httpGetText(`http://127.0.0.1:${port}/metrics`, { timeoutMs: 2000 })).status === 200,
      );
    },
  });
  const address = `127.0.0.1:${params.port}`;
  return {
    ...base,
    address,
    metrics: async () => (await httpGetText(`http://${address}/metrics`, { timeoutMs: 10000 })).body,
  };
}
