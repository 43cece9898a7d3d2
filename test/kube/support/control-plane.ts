/**
 * A real Kubernetes control plane on loopback: etcd 3.6, kube-apiserver (its own CA, client
 * certificates, RBAC, the default admission plugins with PodSecurity among them),
 * kube-controller-manager and kube-scheduler, all of one Kubernetes release built from the Go module
 * proxy by scripts/build-test-tools.sh. There is no kubelet: nodes are Node objects made Ready here
 * (the node-lifecycle controller is off, as in upstream's scheduler_perf), and test/kube/support/
 * fake-kubelet.ts moves bound pods through their phases.
 */
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as https from 'https';
import * as os from 'os';
import * as path from 'path';
import { execFileSync } from 'child_process';
import { cleanEnv, runCommand } from '../../support/services/commands';
import { BaseHandle, freePort, launch, makeTempDir, removeTempDir, waitReady } from '../../support/services/processes';
import { KubeApi } from './api';
import { ControlPlanePki, kubeconfigYaml, makeControlPlanePki } from './pki';
import { BASE_NODES, FakeNode, nodeObject } from './nodes';
import { parseAllDocuments } from 'yaml';

const REPO = path.resolve(__dirname, '../../..');

/** What a test process needs to reach the control plane (written to a file by the global setup). */
export interface ControlPlaneInfo {
  readonly server: string;
  readonly kubeconfig: string;
  readonly binDir: string;
  readonly ca: string;
  readonly adminCert: string;
  readonly adminKey: string;
  readonly version: string;
}

export interface ControlPlane extends ControlPlaneInfo {
  readonly dir: string;
  /** Each component's log so far. */
  logs(): Record<string, string>;
  stop(): Promise<void>;
}

/** The bin dir of a tools module built by scripts/build-test-tools.sh; throws saying how to build it. */
export function toolsBinDir(name: string): string {
  try {
    return execFileSync(path.join(REPO, 'scripts/build-test-tools.sh'), ['--dir', name], { encoding: 'utf8' }).trim();
  } catch (e) {
    const err = e as { stderr?: Buffer | string };
    throw new Error(
      `The ${name} binaries are missing: ${String(err.stderr ?? (e as Error).message).trim()}. ` +
        `Build them with scripts/build-test-tools.sh ${name} (scripts/install-test-deps.sh does it).`,
    );
  }
}

/** A non-loopback IPv4 address of this host: kube-apiserver advertises it (it never dials it). */
function advertiseAddress(): string {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  throw new Error(
    'kube-apiserver needs a non-loopback IPv4 address of this host for --advertise-address, and the host has none',
  );
}

function healthz(url: string, pki?: ControlPlanePki): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.get(
      url,
      pki
        ? {
            ca: fs.readFileSync(pki.ca.cert),
            cert: fs.readFileSync(pki.admin.cert),
            key: fs.readFileSync(pki.admin.key),
          }
        : { rejectUnauthorized: false },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('error', () => resolve(false));
    req.setTimeout(2000, () => req.destroy());
  });
}

async function startEtcd(etcdBin: string): Promise<{ base: BaseHandle; endpoint: string }> {
  const { base, params } = await launch({
    label: 'kube-etcd',
    binary: path.join(etcdBin, 'etcd'),
    prepare: async () => ({ client: await freePort(), peer: await freePort() }),
    argv: (p, tmp) => [
      '--name=kube-etcd',
      `--data-dir=${path.join(tmp, 'data')}`,
      `--listen-client-urls=http://127.0.0.1:${p.client}`,
      `--advertise-client-urls=http://127.0.0.1:${p.client}`,
      `--listen-peer-urls=http://127.0.0.1:${p.peer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${p.peer}`,
      `--initial-cluster=kube-etcd=http://127.0.0.1:${p.peer}`,
      '--unsafe-no-fsync',
      '--log-level=warn',
    ],
    ready: async (proc, p) => {
      await waitReady(proc, 'etcd /health', 30000, async () => (await fetch(`http://127.0.0.1:${p.client}/health`)).ok);
    },
  });
  return { base, endpoint: `http://127.0.0.1:${params.client}` };
}

/** Starts the control plane and the base nodes; throws (naming the build command) when a binary is missing. */
export async function startControlPlane(): Promise<ControlPlane> {
  const kubeBin = toolsBinDir('kube');
  const etcdBin = toolsBinDir('etcd-3.6');
  const version = (await runCommand(path.join(kubeBin, 'kubectl'), ['version', '--client', '-o', 'json'])).stdout
    .toString()
    .match(/"gitVersion":\s*"([^"]+)"/)?.[1];
  if (!version) throw new Error(`kubectl in ${kubeBin} reports no version`);

  const dir = await makeTempDir('kube');
  const handles: BaseHandle[] = [];
  const logs: Record<string, () => string> = {};
  const stop = async (): Promise<void> => {
    for (const h of [...handles].reverse()) await h.stop().catch(() => undefined);
    await removeTempDir(dir);
  };
  try {
    const advertise = advertiseAddress();
    const pki = await makeControlPlanePki(path.join(dir, 'pki'), ['127.0.0.1']);
    const etcd = await startEtcd(etcdBin);
    handles.push(etcd.base);
    logs.etcd = () => etcd.base.logs();

    const apiserver = await launch({
      label: 'kube-apiserver',
      binary: path.join(kubeBin, 'kube-apiserver'),
      prepare: async () => ({ port: await freePort() }),
      argv: (p) => [
        `--etcd-servers=${etcd.endpoint}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${p.port}`,
        // No default route is needed: the address is only advertised, and no reconciler writes it.
        `--advertise-address=${advertise}`,
        '--endpoint-reconciler-type=none',
        `--tls-cert-file=${pki.apiserver.cert}`,
        `--tls-private-key-file=${pki.apiserver.key}`,
        `--client-ca-file=${pki.ca.cert}`,
        '--authorization-mode=RBAC',
        `--service-account-issuer=https://kubernetes.default.svc`,
        `--service-account-key-file=${pki.serviceAccountPub}`,
        `--service-account-signing-key-file=${pki.serviceAccountKey}`,
        '--service-cluster-ip-range=10.96.0.0/16',
        '--allow-privileged=true',
        '--profiling=false',
        `--cert-dir=${path.join(dir, 'apiserver-certs')}`,
      ],
      env: () => cleanEnv({ HOME: dir }),
      ready: async (proc, p) => {
        await waitReady(
          proc,
          'kube-apiserver /readyz',
          90000,
          () => healthz(`https://127.0.0.1:${p.port}/readyz`, pki),
          250,
        );
      },
    });
    handles.push(apiserver.base);
    logs['kube-apiserver'] = () => apiserver.base.logs();
    const server = `https://127.0.0.1:${apiserver.params.port}`;

    const kubeconfig = path.join(dir, 'admin.kubeconfig');
    await fsp.writeFile(kubeconfig, kubeconfigYaml(server, pki.ca.cert, pki.admin, 'admin'));
    const kcmConfig = path.join(dir, 'controller-manager.kubeconfig');
    await fsp.writeFile(
      kcmConfig,
      kubeconfigYaml(server, pki.ca.cert, pki.controllerManager, 'kube-controller-manager'),
    );
    const schedConfig = path.join(dir, 'scheduler.kubeconfig');
    await fsp.writeFile(schedConfig, kubeconfigYaml(server, pki.ca.cert, pki.scheduler, 'kube-scheduler'));

    const kcm = await launch({
      label: 'kube-controller-manager',
      binary: path.join(kubeBin, 'kube-controller-manager'),
      prepare: async () => ({ port: await freePort() }),
      argv: (p) => [
        `--kubeconfig=${kcmConfig}`,
        `--authentication-kubeconfig=${kcmConfig}`,
        `--authorization-kubeconfig=${kcmConfig}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${p.port}`,
        // Every default controller but the node lifecycle's: no kubelet heartbeats these nodes.
        '--controllers=*,-node-lifecycle-controller,-cloud-node-lifecycle-controller,-node-route-controller,-service-lb-controller,-node-ipam-controller',
        '--use-service-account-credentials=true',
        `--service-account-private-key-file=${pki.serviceAccountKey}`,
        `--root-ca-file=${pki.ca.cert}`,
        '--leader-elect=false',
        // The default 1 minute would leave deleted PVCs' volumes and finished pods around longer than a test.
        '--terminated-pod-gc-threshold=1000',
      ],
      env: () => cleanEnv({ HOME: dir }),
      ready: async (proc, p) => {
        await waitReady(
          proc,
          'kube-controller-manager /healthz',
          60000,
          () => healthz(`https://127.0.0.1:${p.port}/healthz`),
          250,
        );
      },
    });
    handles.push(kcm.base);
    logs['kube-controller-manager'] = () => kcm.base.logs();

    const scheduler = await launch({
      label: 'kube-scheduler',
      binary: path.join(kubeBin, 'kube-scheduler'),
      prepare: async () => ({ port: await freePort() }),
      argv: (p) => [
        `--kubeconfig=${schedConfig}`,
        `--authentication-kubeconfig=${schedConfig}`,
        `--authorization-kubeconfig=${schedConfig}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${p.port}`,
        '--leader-elect=false',
      ],
      env: () => cleanEnv({ HOME: dir }),
      ready: async (proc, p) => {
        await waitReady(
          proc,
          'kube-scheduler /healthz',
          60000,
          () => healthz(`https://127.0.0.1:${p.port}/healthz`),
          250,
        );
      },
    });
    handles.push(scheduler.base);
    logs['kube-scheduler'] = () => scheduler.base.logs();

    const info: ControlPlaneInfo = {
      server,
      kubeconfig,
      binDir: kubeBin,
      ca: pki.ca.cert,
      adminCert: pki.admin.cert,
      adminKey: pki.admin.key,
      version,
    };
    const api = new KubeApi({ server, ca: pki.ca.cert, cert: pki.admin.cert, key: pki.admin.key });
    try {
      await waitForDefaultServiceAccount(api);
      for (const n of BASE_NODES) await createNode(api, n);
      await createScratchStorage(api);
      await installCrds(api, path.join(toolsBinDir('crds'), 'share'));
    } finally {
      api.close();
    }
    return {
      ...info,
      dir,
      logs: () => Object.fromEntries(Object.entries(logs).map(([k, f]) => [k, f()])),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

async function waitForDefaultServiceAccount(api: KubeApi): Promise<void> {
  const deadline = Date.now() + 60000;
  for (;;) {
    try {
      await api.get('/api/v1/namespaces/default/serviceaccounts/default');
      return;
    } catch (e) {
      if (Date.now() > deadline)
        throw new Error(`the serviceaccount controller made no default ServiceAccount: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** Creates a Node and makes it Ready with its capacity (the status a kubelet would post). */
export async function createNode(api: KubeApi, node: FakeNode): Promise<void> {
  const obj = nodeObject(node);
  await api.post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: obj.metadata, spec: obj.spec });
  await api.request(
    'PATCH',
    `/api/v1/nodes/${node.name}/status`,
    { status: obj.status },
    'application/merge-patch+json',
  );
  // The TaintNodesByCondition admission plugin taints every new node not-ready:NoSchedule, and the
  // node-lifecycle controller (off here) would lift it once the node is Ready: lift it as it would.
  await api.patch(`/api/v1/nodes/${node.name}`, { spec: { taints: node.taints?.length ? node.taints : null } });
}

/**
 * The default StorageClass of the test cluster: no provisioner and WaitForFirstConsumer, so a
 * generic ephemeral volume's claim binds to a PersistentVolume the test made (static provisioning).
 */
export const SCRATCH_STORAGE_CLASS = 'scratch';

/** Statically provisioned volumes of the default StorageClass, for generic ephemeral volumes' claims. */
export async function provisionScratch(api: KubeApi, prefix: string, count: number, size: string): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
  for (const name of names) {
    await api.post('/api/v1/persistentvolumes', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name },
      spec: {
        capacity: { storage: size },
        accessModes: ['ReadWriteOnce'],
        storageClassName: SCRATCH_STORAGE_CLASS,
        persistentVolumeReclaimPolicy: 'Retain',
        hostPath: { path: `/var/lib/fake-volumes/${name}` },
      },
    });
  }
  return names;
}

async function createScratchStorage(api: KubeApi): Promise<void> {
  await api.post('/apis/storage.k8s.io/v1/storageclasses', {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: SCRATCH_STORAGE_CLASS, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'kubernetes.io/no-provisioner',
    volumeBindingMode: 'WaitForFirstConsumer',
    reclaimPolicy: 'Retain',
  });
}

/**
 * Installs the CRDs of the custom kinds the package emits (PrometheusRule, OpenShift's
 * SecurityContextConstraints), as their projects publish them, and waits until they serve.
 */
async function installCrds(api: KubeApi, dir: string): Promise<void> {
  const names: string[] = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    for (const doc of parseAllDocuments(fs.readFileSync(path.join(dir, file), 'utf8'))) {
      const crd = doc.toJSON() as { metadata: { name: string } } | null;
      if (!crd) continue;
      await api.apply(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, crd);
      names.push(crd.metadata.name);
    }
  }
  const deadline = Date.now() + 30000;
  for (const name of names) {
    for (;;) {
      const crd = await api.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
      );
      if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} is not Established after 30 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
