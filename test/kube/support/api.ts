/**
 * A small client of the test API server over HTTPS with the admin's client certificate: what the
 * fake kubelet and the tests' polling need, without a kubectl process per call.
 */
import * as fs from 'fs';
import * as https from 'https';

export interface ApiCredentials {
  readonly server: string;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    message: string,
  ) {
    super(message);
  }
}

/** A Kubernetes object as the API returns it (the fields the tests read). */
export interface KubeItem {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
    readonly creationTimestamp?: string;
    readonly deletionTimestamp?: string;
    readonly ownerReferences?: readonly { kind: string; name: string; uid: string }[];
    readonly resourceVersion?: string;
  };
  readonly spec?: Record<string, unknown>;
  readonly status?: Record<string, unknown>;
}

export interface KubeList<T = KubeItem> {
  readonly items: T[];
  readonly metadata: { readonly resourceVersion?: string };
}

export class KubeApi {
  private readonly agent: https.Agent;
  private readonly url: URL;

  constructor(creds: ApiCredentials) {
    this.url = new URL(creds.server);
    this.agent = new https.Agent({
      ca: fs.readFileSync(creds.ca),
      cert: fs.readFileSync(creds.cert),
      key: fs.readFileSync(creds.key),
      // No keep-alive: an idle socket would hold a test worker open after its tests.
      keepAlive: false,
    });
  }

  request<T = unknown>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise<T>((resolve, reject) => {
      const req = https.request(
        {
          agent: this.agent,
          host: this.url.hostname,
          port: this.url.port,
          method,
          path,
          headers: {
            accept: 'application/json',
            ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve((text ? JSON.parse(text) : undefined) as T);
            else reject(new ApiError(status, text, `${method} ${path}: HTTP ${status}: ${text.slice(0, 2000)}`));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  get<T = KubeItem>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  list<T = KubeItem>(path: string): Promise<T[]> {
    return this.request<KubeList<T>>('GET', path).then((l) => l.items);
  }

  /** A merge patch (`application/merge-patch+json`). */
  patch<T = KubeItem>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, body, 'application/merge-patch+json');
  }

  /**
   * Server-side apply of one object, refusing unknown and duplicate fields as kubectl does
   * (`fieldValidation=Strict`). By default as field manager `backup-cronjobs-test`, forcing conflicts.
   */
  apply<T = KubeItem>(
    path: string,
    body: unknown,
    dryRun = false,
    manager: { fieldManager: string; force: boolean } = { fieldManager: 'backup-cronjobs-test', force: true },
  ): Promise<T> {
    const q = `fieldManager=${manager.fieldManager}&force=${manager.force}&fieldValidation=Strict${dryRun ? '&dryRun=All' : ''}`;
    return this.request<T>('PATCH', `${path}?${q}`, body, 'application/apply-patch+yaml');
  }

  post<T = KubeItem>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  delete(path: string, body?: unknown): Promise<unknown> {
    return this.request('DELETE', path, body);
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The REST path of a namespaced or cluster object of the kinds the package emits (and the tests make). */
export function objectPath(o: {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown };
}): string {
  const apiVersion = String(o.apiVersion);
  const kind = String(o.kind);
  const plural = PLURALS[kind];
  if (!plural) throw new Error(`objectPath: no REST resource known for kind ${kind}`);
  const group = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const namespace = typeof o.metadata?.namespace === 'string' ? o.metadata.namespace : 'default';
  const ns = CLUSTER_SCOPED.has(kind) ? '' : `/namespaces/${namespace}`;
  return `${group}${ns}/${plural}/${String(o.metadata?.name)}`;
}

const PLURALS: Readonly<Record<string, string>> = {
  ConfigMap: 'configmaps',
  CronJob: 'cronjobs',
  Job: 'jobs',
  Pod: 'pods',
  Secret: 'secrets',
  ServiceAccount: 'serviceaccounts',
  Role: 'roles',
  RoleBinding: 'rolebindings',
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
  PersistentVolumeClaim: 'persistentvolumeclaims',
  PersistentVolume: 'persistentvolumes',
  StorageClass: 'storageclasses',
  Namespace: 'namespaces',
  Node: 'nodes',
  PrometheusRule: 'prometheusrules',
  SecurityContextConstraints: 'securitycontextconstraints',
  CustomResourceDefinition: 'customresourcedefinitions',
  NetworkPolicy: 'networkpolicies',
  Service: 'services',
};
const CLUSTER_SCOPED = new Set([
  'ClusterRole',
  'ClusterRoleBinding',
  'PersistentVolume',
  'StorageClass',
  'Namespace',
  'Node',
  'SecurityContextConstraints',
  'CustomResourceDefinition',
]);
