/**
 * Fake nodes: Node objects with the labels, taints and capacity a kubelet would register, made Ready
 * by the test (no kubelet, and the node-lifecycle controller is off).
 */

export interface FakeNode {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }[];
  /** @default '8' */
  readonly cpu?: string;
  /** @default '32Gi' */
  readonly memory?: string;
  /** @default '110' */
  readonly pods?: string;
}

export const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';
/** The database nodes' label and taint of the Vitess example (examples/policies/vitess-commerce-customer.yaml). */
export const DATABASE_LABEL = 'node-role.example.com/database';

const controlPlane = (name: string): FakeNode => ({
  name,
  labels: { [CONTROL_PLANE_LABEL]: '' },
  taints: [{ key: CONTROL_PLANE_LABEL, effect: 'NoSchedule' }],
});
const database = (name: string): FakeNode => ({
  name,
  labels: { [DATABASE_LABEL]: 'true' },
  taints: [{ key: 'dedicated', value: 'database', effect: 'NoSchedule' }],
});

/**
 * The nodes every test run starts with: three kubeadm control-plane nodes (the etcd example's cp-1..3,
 * with the control-plane label and its NoSchedule taint), two database nodes (labelled and tainted as
 * the Vitess example expects) and two plain workers.
 */
export const BASE_NODES: readonly FakeNode[] = [
  controlPlane('cp-1'),
  controlPlane('cp-2'),
  controlPlane('cp-3'),
  database('db-1'),
  database('db-2'),
  { name: 'worker-1' },
  { name: 'worker-2' },
];

export function nodeObject(n: FakeNode): {
  metadata: Record<string, unknown>;
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
} {
  const resources = {
    cpu: n.cpu ?? '8',
    memory: n.memory ?? '32Gi',
    pods: n.pods ?? '110',
    'ephemeral-storage': '100Gi',
  };
  const now = new Date().toISOString();
  return {
    metadata: {
      name: n.name,
      labels: {
        'kubernetes.io/hostname': n.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'backup-cronjobs.io/fake-node': 'true',
        ...n.labels,
      },
    },
    spec: n.taints?.length ? { taints: n.taints } : {},
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'fake node',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
        ...['MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => ({
          type,
          status: 'False',
          reason: 'KubeletHasSufficient',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        })),
      ],
      nodeInfo: {
        architecture: 'amd64',
        operatingSystem: 'linux',
        kubeletVersion: 'v0.0.0-fake',
        containerRuntimeVersion: 'fake://0',
        kernelVersion: '',
        osImage: 'fake',
        bootID: '',
        machineID: '',
        systemUUID: '',
        kubeProxyVersion: '',
      },
    },
  };
}
