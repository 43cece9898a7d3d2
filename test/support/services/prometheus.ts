/** A real Prometheus (Debian's `prometheus`) scraping given targets every second, for queries (and alerting rules) in tests. */
import * as fs from 'fs';
import * as path from 'path';
import { BaseHandle, freePort, launch, waitReady } from './processes';
import { httpGetText } from './pushgateway';

export interface PrometheusHandle extends BaseHandle {
  url: string;
  /** GET /api/v1/query: the result vector of an instant query (throws on an error status). */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** Waits until a scrape of every target has happened after this call (up == 1 with a newer timestamp). */
  scraped(timeoutMs?: number): Promise<void>;
  /** GET /api/v1/alerts: the alerts of the rule files, pending and firing. */
  alerts(): Promise<PrometheusAlert[]>;
  /** Waits until every rule group has been evaluated after this call (GET /api/v1/rules, lastEvaluation). */
  evaluated(timeoutMs?: number): Promise<void>;
}

/** An alert as GET /api/v1/alerts lists it. */
export interface PrometheusAlert {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly state: 'pending' | 'firing';
  readonly activeAt: string;
  readonly value: string;
}

export interface PrometheusOptions {
  /** The scrape job's name (the `job` label). @default 'pushgateway' */
  readonly job?: string;
  /** Rule files to load (evaluated every second). @default none */
  readonly ruleFiles?: readonly string[];
}

/**
 * Prometheus with one scrape job (`pushgateway` unless `options.job`; honor_labels, as the
 * Pushgateway's docs ask and kube-prometheus-stack sets for kube-state-metrics) over `targets`
 * (host:port), scraped and evaluated every second.
 */
export async function startPrometheus(
  targets: readonly string[],
  options: PrometheusOptions = {},
): Promise<PrometheusHandle> {
  const job = options.job ?? 'pushgateway';
  const { params, base } = await launch({
    label: 'prometheus',
    binary: 'prometheus',
    prepare: async (dir) => {
      const config = [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        ...(options.ruleFiles?.length
          ? ['rule_files:', ...options.ruleFiles.map((f) => `  - ${JSON.stringify(f)}`)]
          : []),
        'scrape_configs:',
        `  - job_name: ${job}`,
        '    honor_labels: true',
        '    static_configs:',
        `      - targets: [${targets.map((t) => JSON.stringify(t)).join(', ')}]`,
        '',
      ].join('\n');
      fs.writeFileSync(path.join(dir, 'prometheus.yml'), config);
      return { port: await freePort() };
    },
    argv: ({ port }, dir) => [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    ready: async (p, { port }) => {
      await waitReady(
        p,
        'GET /-/ready',
        30000,
        async () => (await httpGetText(`http://127.0.0.1:${port}/-/ready`, { timeoutMs: 2000 })).status === 200,
      );
    },
  });
  const url = `http://127.0.0.1:${params.port}`;
  const getJson = async <T>(p: string): Promise<T> => {
    const r = await httpGetText(`${url}${p}`, { timeoutMs: 10000 });
    const body = JSON.parse(r.body) as { status: string; error?: string; data?: T };
    if (r.status !== 200 || body.status !== 'success')
      throw new Error(`GET ${p}: HTTP ${r.status} ${body.error ?? r.body}`);
    return body.data!;
  };
  const query = async (expr: string) => {
    const r = await httpGetText(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`, { timeoutMs: 10000 });
    const body = JSON.parse(r.body) as {
      status: string;
      error?: string;
      data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    if (r.status !== 200 || body.status !== 'success')
      throw new Error(`query ${expr}: HTTP ${r.status} ${body.error ?? r.body}`);
    if (body.data!.resultType !== 'vector') throw new Error(`query ${expr}: a ${body.data!.resultType}, not a vector`);
    return body.data!.result;
  };
  return {
    ...base,
    url,
    query,
    scraped: async (timeoutMs = 30000) => {
      const since = Date.now() / 1000;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const up = await query(`timestamp(up{job=${JSON.stringify(job)}})`);
        if (up.length === targets.length && up.every((s) => Number(s.value[1]) > since)) return;
        if (Date.now() > deadline)
          throw new Error(`prometheus: no scrape of ${targets.join(', ')} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    alerts: async () => (await getJson<{ alerts: PrometheusAlert[] }>('/api/v1/alerts')).alerts,
    evaluated: async (timeoutMs = 30000) => {
      const since = Date.now();
      const deadline = since + timeoutMs;
      for (;;) {
        const { groups } = await getJson<{ groups: { name: string; lastEvaluation: string }[] }>('/api/v1/rules');
        if (groups.length > 0 && groups.every((g) => Date.parse(g.lastEvaluation) > since)) return;
        if (Date.now() > deadline)
          throw new Error(`prometheus: no evaluation of every rule group within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
  };
}
