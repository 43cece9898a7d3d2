/**
 * A stand-in for the kubelet of the fake nodes. No container runs: the scripts are tested for real
 * against real services elsewhere. It posts the pod statuses a kubelet would post, on the test's
 * command (run, succeed, fail) or, with `autoRunMs`, by itself (bound pods start, and succeed after
 * that long). Like a kubelet it ends a pod that is being deleted (the Job controller deletes the pods
 * of a Job past its activeDeadlineSeconds) and then removes it. It watches only its namespaces.
 */
import { ApiError, KubeApi, KubeItem } from './api';

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

export interface PodView extends KubeItem {
  readonly spec: {
    readonly nodeName?: string;
    readonly containers: readonly { name: string; image: string }[];
    readonly initContainers?: readonly { name: string; image: string }[];
    readonly volumes?: readonly Record<string, unknown>[];
    readonly [k: string]: unknown;
  };
  readonly status: { readonly phase?: PodPhase; readonly reason?: string; readonly [k: string]: unknown };
}

/** What the kubelet saw of one pod, in ms since the epoch. */
export interface PodHistory {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly created: number;
  node?: string;
  boundSeen?: number;
  running?: number;
  ended?: number;
  phase?: PodPhase;
}

export interface FakeKubeletOptions {
  /** Start bound pods by themselves, and end each in Succeeded this long after it started. */
  readonly autoRunMs?: number;
  /** @default 200 */
  readonly pollMs?: number;
  /** Poll only the pods not yet ended (field selector on the phase): small lists with many finished pods. @default false */
  readonly activeOnly?: boolean;
}

const podsPath = (ns: string): string => `/api/v1/namespaces/${ns}/pods`;

export class FakeKubelet {
  readonly history = new Map<string, PodHistory>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  private lastError: Error | undefined;

  constructor(
    private readonly api: KubeApi,
    private readonly namespaces: readonly string[],
    private readonly options: FakeKubeletOptions = {},
  ) {}

  start(): this {
    const loop = (): void => {
      if (this.stopped) return;
      this.ticking = this.tick()
        .catch((e: Error) => {
          this.lastError = e;
        })
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(loop, this.options.pollMs ?? 200);
        });
    };
    loop();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
  }

  /** The error of the last failed poll, if the last poll failed. */
  get error(): Error | undefined {
    return this.lastError;
  }

  async pods(ns: string, labelSelector?: string): Promise<PodView[]> {
    const q = labelSelector ? `?labelSelector=${encodeURIComponent(labelSelector)}` : '';
    return this.api.list<PodView>(`${podsPath(ns)}${q}`);
  }

  /** Starts a bound pod's containers: phase Running, Ready. */
  async run(ns: string, name: string): Promise<void> {
    const pod = await this.api.get<PodView>(`${podsPath(ns)}/${name}`);
    if (!pod.spec.nodeName) throw new Error(`pod ${ns}/${name} is not bound to a node`);
    await this.postStatus(pod, 'Running');
  }

  async succeed(ns: string, name: string): Promise<void> {
    await this.postStatus(await this.api.get<PodView>(`${podsPath(ns)}/${name}`), 'Succeeded');
  }

  async fail(ns: string, name: string, exitCode = 1): Promise<void> {
    await this.postStatus(await this.api.get<PodView>(`${podsPath(ns)}/${name}`), 'Failed', exitCode);
  }

  private async tick(): Promise<void> {
    const now = Date.now();
    const active = this.options.activeOnly
      ? `?fieldSelector=${encodeURIComponent('status.phase!=Succeeded,status.phase!=Failed')}`
      : '';
    for (const ns of this.namespaces) {
      for (const pod of await this.api.list<PodView>(`${podsPath(ns)}${active}`)) {
        const h = this.record(pod, now);
        const phase = pod.status.phase;
        if (pod.metadata.deletionTimestamp) {
          // A kubelet stops the containers of a pod being deleted, reports it, and removes it.
          if (phase !== 'Succeeded' && phase !== 'Failed' && pod.spec.nodeName)
            await this.postStatus(pod, 'Failed', 137);
          await this.api
            .delete(`${podsPath(ns)}/${pod.metadata.name}`, {
              kind: 'DeleteOptions',
              apiVersion: 'v1',
              gracePeriodSeconds: 0,
            })
            .catch(ignoreNotFound);
          continue;
        }
        if (this.options.autoRunMs === undefined || !pod.spec.nodeName) continue;
        if (phase === 'Pending') await this.postStatus(pod, 'Running');
        else if (phase === 'Running' && h.running !== undefined && now - h.running >= this.options.autoRunMs)
          await this.postStatus(pod, 'Succeeded');
      }
    }
  }

  /** The pod's history entry, made on first sight; notes the binding when first seen bound. */
  private record(pod: PodView, now: number): PodHistory {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    let h = this.history.get(key);
    if (!h) {
      h = {
        namespace: pod.metadata.namespace!,
        name: pod.metadata.name,
        labels: pod.metadata.labels ?? {},
        created: Date.parse(pod.metadata.creationTimestamp ?? new Date(now).toISOString()),
      };
      this.history.set(key, h);
    }
    if (pod.spec.nodeName && h.boundSeen === undefined) {
      h.node = pod.spec.nodeName;
      h.boundSeen = now;
    }
    return h;
  }

  private async postStatus(pod: PodView, phase: PodPhase, exitCode = 0): Promise<void> {
    const ns = pod.metadata.namespace!;
    const now = new Date();
    const at = now.toISOString().replace(/\.\d+Z$/, 'Z');
    const startTime = (pod.status.startTime as string | undefined) ?? at;
    const running = phase === 'Running';
    const ended = phase === 'Succeeded' || phase === 'Failed';
    const state = running
      ? { running: { startedAt: startTime } }
      : ended
        ? {
            terminated: {
              exitCode,
              reason: exitCode === 0 ? 'Completed' : 'Error',
              startedAt: startTime,
              finishedAt: at,
            },
          }
        : { waiting: { reason: 'ContainerCreating' } };
    const condition = (type: string, ok: boolean): Record<string, string> => ({
      type,
      status: ok ? 'True' : 'False',
      lastTransitionTime: at,
    });
    const status = {
      phase,
      startTime,
      hostIP: '192.0.2.10',
      podIP: '10.244.0.10',
      conditions: [
        condition('PodScheduled', true),
        condition('Initialized', true),
        condition('ContainersReady', running),
        condition('Ready', running),
      ],
      initContainerStatuses: (pod.spec.initContainers ?? []).map((c) => ({
        name: c.name,
        image: c.image,
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: startTime, finishedAt: startTime } },
      })),
      containerStatuses: pod.spec.containers.map((c) => ({
        name: c.name,
        image: c.image,
        imageID: '',
        ready: running,
        started: running,
        restartCount: 0,
        state,
      })),
    };
    await this.api.request(
      'PATCH',
      `${podsPath(ns)}/${pod.metadata.name}/status`,
      { status },
      'application/merge-patch+json',
    );
    const h = this.record(pod, now.getTime());
    h.phase = phase;
    if (running) h.running = now.getTime();
    if (ended) h.ended = now.getTime();
  }
}

function ignoreNotFound(e: unknown): void {
  if (e instanceof ApiError && e.status === 404) return;
  throw e;
}
