/**
 * The test control plane's PKI, made with openssl: one CA, the API server's serving certificate, a
 * client certificate per identity (the admin in system:masters, the controller manager, the
 * scheduler) and the service-account signing key. EC P-256 keys: quick to make, and what kubeadm
 * accepts too.
 */
import * as crypto from 'crypto';
import * as fsp from 'fs/promises';
import * as path from 'path';
import { cleanEnv, requireCommands, runOk } from '../../support/services/commands';

export interface ClientCert {
  readonly cert: string;
  readonly key: string;
}

export interface ControlPlanePki {
  readonly dir: string;
  readonly ca: ClientCert;
  readonly apiserver: ClientCert;
  readonly admin: ClientCert;
  readonly controllerManager: ClientCert;
  readonly scheduler: ClientCert;
  /** The service-account token signing key (private) and its public half. */
  readonly serviceAccountKey: string;
  readonly serviceAccountPub: string;
}

export async function makeControlPlanePki(dir: string, apiserverIps: readonly string[]): Promise<ControlPlanePki> {
  const openssl = requireCommands('openssl').openssl;
  await fsp.mkdir(dir, { recursive: true });
  const f = (n: string): string => path.join(dir, n);
  const env = cleanEnv({ OPENSSL_CONF: '/dev/null', RANDFILE: f('.rnd') });
  const o = (args: string[]): Promise<string> => runOk(openssl, args, { env, cwd: dir });
  const serial = (): string => '0x' + crypto.randomBytes(8).toString('hex');
  const newKey = (name: string): Promise<string> =>
    o(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', f(name)]);

  await newKey('ca.key');
  await o([
    'req', '-x509', '-new', '-key', f('ca.key'), '-sha256', '-days', '7', '-out', f('ca.crt'),
    '-subj', '/CN=backup-cronjobs-test-ca',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]); // prettier-ignore

  const sign = async (name: string, subject: string, ext: string): Promise<ClientCert> => {
    await newKey(`${name}.key`);
    await o(['req', '-new', '-key', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', subject]);
    await fsp.writeFile(f(`${name}.ext`), ext);
    await o([
      'x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-set_serial', serial(),
      '-days', '7', '-sha256', '-extfile', f(`${name}.ext`), '-out', f(`${name}.crt`),
    ]); // prettier-ignore
    return { cert: f(`${name}.crt`), key: f(`${name}.key`) };
  };
  const client = 'keyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n';
  const sans = [
    'DNS:localhost',
    'DNS:kubernetes',
    'DNS:kubernetes.default.svc',
    ...apiserverIps.map((ip) => `IP:${ip}`),
  ];
  const apiserver = await sign(
    'apiserver',
    '/CN=kube-apiserver',
    `keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${sans.join(',')}\n`,
  );
  const admin = await sign('admin', '/O=system:masters/CN=backup-cronjobs-test-admin', client);
  const controllerManager = await sign('controller-manager', '/CN=system:kube-controller-manager', client);
  const scheduler = await sign('scheduler', '/CN=system:kube-scheduler', client);

  await newKey('sa.key');
  await o(['pkey', '-in', f('sa.key'), '-pubout', '-out', f('sa.pub')]);
  return {
    dir,
    ca: { cert: f('ca.crt'), key: f('ca.key') },
    apiserver,
    admin,
    controllerManager,
    scheduler,
    serviceAccountKey: f('sa.key'),
    serviceAccountPub: f('sa.pub'),
  };
}

/** A kubeconfig for one identity, with the certificate files referenced by path. */
export function kubeconfigYaml(server: string, caFile: string, identity: ClientCert, user: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: test',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority: ${caFile}`,
    'users:',
    `- name: ${user}`,
    '  user:',
    `    client-certificate: ${identity.cert}`,
    `    client-key: ${identity.key}`,
    'contexts:',
    '- name: test',
    '  context:',
    '    cluster: test',
    `    user: ${user}`,
    'current-context: test',
    '',
  ].join('\n');
}
