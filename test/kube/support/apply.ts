/** Sending rendered objects to the test API server, as a GitOps tool or `kubectl apply --server-side` would. */
import { ApiError, KubeApi, objectPath } from './api';

export interface ApiObject {
  readonly apiVersion?: unknown;
  readonly kind?: unknown;
  readonly metadata?: { readonly name?: unknown; readonly namespace?: unknown };
}

/** An object the API server refused: which, its HTTP status and the server's message. */
export interface Refusal {
  readonly object: string;
  readonly status: number;
  readonly message: string;
}

const describe = (o: ApiObject): string => {
  const ns = typeof o.metadata?.namespace === 'string' ? `${o.metadata.namespace}/` : '';
  return `${String(o.kind)} ${ns}${String(o.metadata?.name)}`;
};

/** Makes the namespace if it is not there yet (with labels on a new one). */
export async function ensureNamespace(api: KubeApi, name: string, labels: Record<string, string> = {}): Promise<void> {
  try {
    await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 409)) throw e;
  }
}

/**
 * Server-side applies each object (Strict field validation), making its namespace first. Returns
 * what the server refused; the rest was created (or, with `dryRun`, passed validation and admission).
 */
export async function applyObjects(
  api: KubeApi,
  objects: readonly ApiObject[],
  options: { dryRun?: boolean; fieldManager?: string; force?: boolean } = {},
): Promise<Refusal[]> {
  const refusals: Refusal[] = [];
  const namespaces = new Set<string>();
  for (const o of objects) {
    const ns = o.metadata?.namespace;
    if (typeof ns === 'string' && !namespaces.has(ns)) {
      await ensureNamespace(api, ns);
      namespaces.add(ns);
    }
    try {
      await api.apply(objectPath(o), o, options.dryRun, {
        fieldManager: options.fieldManager ?? 'backup-cronjobs-test',
        force: options.force ?? true,
      });
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      let message = e.body;
      try {
        message = (JSON.parse(e.body) as { message?: string }).message ?? e.body;
      } catch {
        /* not a Status */
      }
      refusals.push({ object: describe(o), status: e.status, message });
    }
  }
  return refusals;
}
