// Property (issue 9, point 3): the kubelet expands `$(VAR)` in command, args
// and env values and turns `$$` into `$`; every free-text value of a policy
// that reaches a container must reach it exactly as written. Oracle: the
// kubelet's expansion as run-container.ts implements it (containerEnv,
// containerArgv), on a policy with `$` texts and on its twin with plain
// placeholders in the same fields: the container of the first must see what
// the container of the twin sees, with each placeholder replaced by its text.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import fc from 'fast-check';
import { PolicyError, renderPolicy, resolvePolicy } from '../../../../lib';
import { restoreJob } from '../../../../lib/model/restore';
import type { V1PodSpec } from '@kubernetes/client-node';
import type { Manifest } from '../../../../lib';
import {
  RunContainerOptions,
  cleanupContainerRuns,
  containerArgv,
  containerEnv,
  resolvePodSpec,
} from '../../../support/run-container';
import { Doc, EngineKey, dollarText, fuzzParameters } from './arbitraries';

/** A policy whose free-text fields take the texts `t(0)`, `t(1)`, ... */
type Template = (t: (i: number) => string) => Doc;

/**
 * The texts of an etcd restore's peerUrl and initialCluster may name the node variables, and the
 * certificate files the node's name, which the kubelet fills in (documented); every other `$`
 * reaches etcd as written.
 */
const RESTORE_NODE_VARIABLES = ['ETCD_RESTORE_HOST_IP', 'ETCD_RESTORE_NODE'];
const CERTIFICATE_NODE_VARIABLES = ['ETCD_BACKUP_NODE'];

const policy = (name: string, spec: Record<string, unknown>, t: (i: number) => string): Doc => ({
  apiVersion: 'backup-cronjobs.io/v1alpha1',
  kind: 'BackupPolicy',
  metadata: { name, namespace: 'ns' },
  spec: {
    defaults: { pod: { env: [{ name: 'USER_VALUE', value: t(0) }] } },
    retention: { keepLast: 3 },
    metrics: { pushgatewayUrl: `http://${t(1)}:9091` },
    ...spec,
  },
});

const etcdWithRestore: Template = (t) =>
  policy(
    'et',
    {
      etcd: {
        mode: 'perNode',
        nodes: ['cp-0', { name: 'cp-1', pod: { env: [{ name: 'NODE_VALUE', value: t(2) }] } }],
        endpoint: `https://${t(3)}:2379`,
        certificates: { caFile: t(4), certFile: t(5), keyFile: t(6) },
        images: { shell: 'alpine:3.20' },
        destination: {
          s3: {
            bucket: 'etcd-backups',
            path: t(7),
            region: t(8),
            endpoint: `https://${t(9)}`,
            credentialsSecret: { name: 'aws' },
            serverSideEncryption: 'aws:kms',
            kmsKeyId: t(10),
          },
        },
        // the --snapshot of `restore` names the Job too: fixed here, its escaping has a test of its own (etcd restore)
        restore: {
          snapshot: 'etcd-snapshot_et_2026-01-01T00:00:00Z_cp-0.db',
          initialCluster: `cp-0=https://${t(12)}:2380,cp-1=https://10.0.0.2:2380`,
          peerUrl: `https://${t(13)}:2380`,
        },
      },
    },
    t,
  );
/** Per template, the texts that may name node variables, and which. */
const NODE_VARIABLE_TEXTS: ReadonlyMap<Template, ReadonlyMap<number, readonly string[]>> = new Map([
  [
    etcdWithRestore,
    new Map([
      [4, CERTIFICATE_NODE_VARIABLES],
      [5, CERTIFICATE_NODE_VARIABLES],
      [6, CERTIFICATE_NODE_VARIABLES],
      [12, RESTORE_NODE_VARIABLES],
      [13, RESTORE_NODE_VARIABLES],
    ]),
  ],
]);

const TEMPLATES: Record<EngineKey, Template[]> = {
  vitess: [
    (t) =>
      policy(
        'vt',
        {
          vitess: {
            cluster: 'main',
            topology: { implementation: t(2), globalServerAddress: t(3), globalRoot: t(4) },
            vtctldServer: 'vtctld:15999',
            storage: {
              s3: {
                region: t(5),
                bucket: t(6),
                keyPrefix: t(7),
                endpoint: t(8),
                authSecret: { name: 'aws', key: 'creds' },
              },
            },
            extraFlags: { mysql_shutdown_timeout: t(9), 'grpc-max-message-size': t(10) },
            schedules: [
              {
                name: 'daily',
                strategies: [{ keyspace: 'commerce', shards: ['-'] }],
                pod: { env: [{ name: 'SCHEDULE_VALUE', value: t(11) }] },
              },
            ],
          },
        },
        t,
      ),
    (t) =>
      policy(
        'vt',
        {
          retention: { keepLast: 3, schedule: '@daily' },
          vitess: {
            cluster: 'main',
            topology: { globalServerAddress: t(2) },
            vtctldServer: 'vtctld:15999',
            storage: { gcs: { bucket: t(3), keyPrefix: t(4) } },
            schedules: [{ name: 'daily', strategies: [{ keyspace: 'commerce', shards: ['-80'] }] }],
          },
        },
        t,
      ),
    (t) =>
      policy(
        'vt',
        {
          vitess: {
            cluster: 'main',
            topology: { globalServerAddress: t(2) },
            vtctldServer: 'vtctld:15999',
            storage: {
              azblob: { account: t(3), container: t(4), keyPrefix: t(5), authSecret: { name: 'az', key: 'key' } },
            },
            schedules: [{ name: 'daily', strategies: [{ keyspace: 'commerce', shards: ['-'] }] }],
          },
        },
        t,
      ),
  ],
  redis: [
    (t) =>
      policy(
        'rd',
        {
          redis: {
            sentinel: {
              addresses: ['sentinel:26379'],
              username: t(2),
              passwordSecret: { name: 'sentinel', key: 'password' },
            },
            username: t(3),
            passwordSecret: { name: 'redis', key: 'password' },
            shards: ['shard01', { name: 'shard02', pod: { env: [{ name: 'SHARD_VALUE', value: t(4) }] } }],
            s3: {
              bucket: 'my-bucket',
              path: t(5),
              region: t(6),
              endpoint: `http://${t(7)}:9000`,
              credentialsSecret: { name: 'aws' },
              serverSideEncryption: 'aws:kms',
              kmsKeyId: t(8),
            },
          },
        },
        t,
      ),
  ],
  etcd: [
    etcdWithRestore,
    (t) =>
      policy(
        'et',
        {
          retention: { keepLast: 3, schedule: '@daily' },
          etcd: {
            mode: 'perNode',
            nodes: ['cp-0'],
            images: { shell: 'alpine:3.20' },
            destination: { persistentVolumeClaim: { claimName: 'backups' } },
            restore: { hostPath: `/var/lib/${t(2)}` },
          },
        },
        t,
      ),
  ],
};

/** A placeholder without `$` that no field transforms, distinct from every other one. */
const placeholder = (i: number) => `zq${i}q`;

/** Fake data for every Secret the pod reads (env refs and volumes), and a temp dir for every hostPath or PVC volume. */
function containerOptions(pod: V1PodSpec, dir: string, volumeDirs: Record<string, string>): RunContainerOptions {
  const secrets: Record<string, Record<string, string>> = {};
  const put = (secret: string | undefined, key: string) => {
    const name = String(secret);
    (secrets[name] ??= {})[key] = `secret:${name}/${key}`;
  };
  for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
    for (const e of c.env ?? [])
      if (e.valueFrom?.secretKeyRef) put(e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key);
  }
  const volumes: Record<string, string> = {};
  for (const v of pod.volumes ?? []) {
    if (v.secret) for (const item of v.secret.items ?? [{ key: 'data' }]) put(v.secret.secretName, item.key);
    if (v.hostPath || v.persistentVolumeClaim) volumes[v.name] = fs.mkdtempSync(path.join(dir, `${v.name}-`));
  }
  return { secrets, volumes, volumeDirs, pod: { nodeName: 'cp-0', hostIP: '10.0.0.1' } };
}

/**
 * What each container of each object sees: its env and its argv after the kubelet's expansion,
 * with the temp dirs that stand in for its mounts (and for HOME) named back by their mount paths.
 */
function containerViews(
  objects: Manifest[],
  dir: string,
): Map<string, { env: Record<string, string>; argv: string[] }> {
  const views = new Map<string, { env: Record<string, string>; argv: string[] }>();
  for (const o of objects) {
    if (o.kind !== 'CronJob' && o.kind !== 'Job') continue;
    const pod = resolvePodSpec(o);
    const opts = containerOptions(pod, dir, {});
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      const env = containerEnv(o, c.name, opts);
      const { argv, mounts } = containerArgv(o, c.name, opts);
      const hosts = Object.entries(mounts).sort(([, a], [, b]) => b.length - a.length);
      const named = (v: string) =>
        hosts
          .reduce((text, [mountPath, host]) => text.split(host).join(mountPath), v)
          .replace(/\/[^\s:]*bcj-ctr-home-[A-Za-z0-9]+/g, '<home>');
      views.set(`${o.kind}/${o.metadata.name}/${c.name}`, {
        env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, named(v)])),
        argv: argv.map(named),
      });
    }
  }
  return views;
}

/** The part of a template's policy that render takes apart: an etcd restore's snapshot. */
interface WithRestoreSnapshot {
  readonly spec: { readonly etcd?: { readonly restore?: { snapshot?: string } } };
}

/**
 * The CronJobs, and for an etcd template with `restore.snapshot` (not a policy field: the
 * `restore` command's --snapshot) the Job `backup-cronjobs restore --target cp-0` prints.
 */
const render = (doc: Doc): Manifest[] | undefined => {
  const copy = JSON.parse(JSON.stringify(doc)) as WithRestoreSnapshot;
  const snapshot = copy.spec.etcd?.restore?.snapshot;
  if (snapshot !== undefined) delete copy.spec.etcd?.restore?.snapshot;
  try {
    const objects = renderPolicy(copy);
    if (snapshot === undefined) return objects;
    const outcome = restoreJob(resolvePolicy(copy), { target: 'cp-0', snapshot });
    return outcome.kind === 'job' ? [...objects, outcome.job] : undefined;
  } catch (e) {
    if (e instanceof PolicyError) return undefined;
    throw e;
  }
};

/** The run-container temp dirs live in os.tmpdir(); the hostPath and PVC stand-ins here. */
let dir: string;
beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-escaping-'))));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe.each(Object.keys(TEMPLATES) as EngineKey[])('%s', (engine) => {
  test('every free-text value reaches every container exactly as written', () => {
    let compared = 0;
    let refused = 0;
    const texts = fc.array(dollarText, { minLength: 14, maxLength: 14 });
    fc.assert(
      fc.property(fc.constantFrom(...TEMPLATES[engine]), texts, (template, written) => {
        const withText = render(template((i) => written[i]));
        const twin = render(template(placeholder));
        expect(twin).toBeDefined();
        if (!withText) {
          refused++;
          return;
        }
        const seen = containerViews(withText, dir);
        const expected = containerViews(twin!, dir);
        expect([...seen.keys()]).toEqual([...expected.keys()]);
        const nodeVariableTexts = NODE_VARIABLE_TEXTS.get(template) ?? new Map<number, readonly string[]>();
        for (const [key, view] of expected) {
          const { env, argv } = seen.get(key)!;
          const filled = (text: string, names: readonly string[]) =>
            names.reduce((t, name) => (env[name] === undefined ? t : t.split(`$(${name})`).join(env[name])), text);
          const restore = (value: string) =>
            written.reduce(
              (v, text, i) => v.split(placeholder(i)).join(filled(text, nodeVariableTexts.get(i) ?? [])),
              value,
            );
          expect({ key, env }).toEqual({
            key,
            env: Object.fromEntries(Object.entries(view.env).map(([k, v]) => [k, restore(v)])),
          });
          expect({ key, argv }).toEqual({ key, argv: view.argv.map(restore) });
        }
        compared++;
        cleanupContainerRuns();
      }),
      fuzzParameters(25),
    );
    // `$` texts are valid in every one of these fields: almost every case is compared
    expect(compared).toBeGreaterThan(3 * refused);
  }, 600_000);
});

test('issue 9: s3.path "$(AWS_SECRET_ACCESS_KEY)" reaches the container literally, not as the secret', () => {
  const objects = render(TEMPLATES.redis[0]((i) => (i === 5 ? '$(AWS_SECRET_ACCESS_KEY)' : `text${i}`)))!;
  const views = [...containerViews(objects, dir).values()];
  const withPrefix = views.filter((v) => v.env.S3_PREFIX !== undefined);
  expect(withPrefix.length).toBeGreaterThan(0);
  for (const { env } of withPrefix) {
    expect(env.AWS_SECRET_ACCESS_KEY).toBe('secret:aws/AWS_SECRET_ACCESS_KEY');
    expect(env.S3_PREFIX).toBe('$(AWS_SECRET_ACCESS_KEY)/');
  }
  cleanupContainerRuns();
});
