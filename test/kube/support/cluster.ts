/**
 * The test control plane, from a test: `testCluster()` connects to the one the kube project's global
 * setup started for this run (test/kube/global-setup.ts). Each test makes its own namespaces.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { CommandResult, cleanEnv, runCommand } from '../../support/services/commands';
import { KubeApi } from './api';
import type { ControlPlaneInfo } from './control-plane';

/** The environment variable naming the file in which the global setup describes the control plane. */
export const STATE_ENV = 'BACKUP_CRONJOBS_TEST_CLUSTER';

export interface TestCluster extends ControlPlaneInfo {
  /** An admin client of the API server (one per test file). */
  readonly api: KubeApi;
  /** kubectl with the admin kubeconfig; rejects on a non-zero exit with stdout and stderr in the message. */
  kubectl(args: readonly string[], opts?: { input?: string }): Promise<string>;
  /** The same, never rejecting for an exit code. */
  kubectlRaw(args: readonly string[], opts?: { input?: string }): Promise<CommandResult>;
  /** Creates a fresh namespace `<prefix>-<random>` (with labels) and returns its name. */
  createNamespace(prefix: string, labels?: Record<string, string>): Promise<string>;
}

let cluster: TestCluster | undefined;

export function testCluster(): Promise<TestCluster> {
  if (cluster) return Promise.resolve(cluster);
  const file = process.env[STATE_ENV];
  if (!file || !fs.existsSync(file)) {
    throw new Error(
      `No test control plane: ${STATE_ENV} is ${file ? `${file}, which does not exist` : 'unset'}. ` +
        'The tests under test/kube/ run in the jest project "kube", whose global setup starts it (npx jest --selectProjects kube).',
    );
  }
  const info = JSON.parse(fs.readFileSync(file, 'utf8')) as ControlPlaneInfo;
  const api = new KubeApi({ server: info.server, ca: info.ca, cert: info.adminCert, key: info.adminKey });
  const kubectlRaw = (args: readonly string[], opts: { input?: string } = {}): Promise<CommandResult> =>
    runCommand(path.join(info.binDir, 'kubectl'), [`--kubeconfig=${info.kubeconfig}`, ...args], {
      env: cleanEnv(),
      input: opts.input,
      timeoutMs: 120000,
    });
  const kubectl = async (args: readonly string[], opts: { input?: string } = {}): Promise<string> => {
    const r = await kubectlRaw(args, opts);
    if (r.code !== 0) {
      throw new Error(`kubectl ${args.join(' ')} exited with ${r.code ?? r.signal}\n${r.stdout.toString()}${r.stderr}`);
    }
    return r.stdout.toString('utf8');
  };
  cluster = {
    ...info,
    api,
    kubectl,
    kubectlRaw,
    createNamespace: async (prefix, labels = {}) => {
      const name = `${prefix}-${crypto.randomBytes(3).toString('hex')}`;
      await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
      return name;
    },
  };
  return Promise.resolve(cluster);
}
