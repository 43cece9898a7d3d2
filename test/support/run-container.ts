/**
 * runContainer(): run ONE container of a rendered Kubernetes pod spec for real on this machine, the way the
 * kubelet would start it, so tests execute the exact command/args/env from the manifest.
 *
 * CONTRACT FOR THE SCRIPTS WE RENDER (what makes them runnable here unmodified):
 *  - There is no container runtime: the container's argv runs directly on this machine (as the test user,
 *    no image, no mount namespace). argv[0] must exist here (our manifests use `/bin/sh`).
 *  - Volume mounts are simulated by PATH REWRITING. Every mountPath is mapped to a host dir, and then every
 *    occurrence of a mountPath in the container's env values and in argv[1..] (including the `sh -c` script
 *    text) is replaced by its host dir. A mountPath only matches at a path boundary: preceded by start of
 *    string or a char that cannot be part of a path ([A-Za-z0-9._~@+/-] can; `=` `:` `"` space etc. cannot),
 *    and followed by `/`, end of string or a non-path char. Longest mountPath wins. So `/backup/x`, `"/backup"`,
 *    `--dir=/backup` and `A:/backup` are rewritten; `/backups`, `/backup.tar`, `/data/backup`, `s3://b/backup`
 *    are not.
 *    Values substituted by `$(VAR)` are already rewritten, so `$(BACKUP_DIR)/x` works when BACKUP_DIR is under
 *    a mount, and so does `"$BACKUP_DIR/x"` in the shell (the env value was rewritten).
 *    => Scripts must take every absolute path from env vars/args, or write it literally as a whole mount path
 *       in the manifest. They must NEVER build a mount path from pieces at run time (`"/$NAME"`, `cd /; cd backup`)
 *       or read absolute paths from files/config. Paths outside all mounts are not rewritten (they are the
 *       image's own files: /bin/sh, /usr/bin/redis-cli ... must exist on this machine or come via pathPrepend).
 *  - Env: the base env is minimal (PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin,
 *    HOME=<temp dir>, LANG=C, HOSTNAME=<pod name>), NOT the test process env. Then `envFrom`, then `env` in
 *    order with Kubernetes `$(VAR)` expansion (only vars defined earlier in the container; `$$` -> `$`; an
 *    undefined `$(X)` stays literally), `valueFrom.secretKeyRef/configMapKeyRef` from opts.secrets/
 *    opts.configMaps, `fieldRef` with fake pod values (pod `test-pod`, namespace `default`, node `test-node`,
 *    podIP/hostIP 127.0.0.1; see opts.pod). `command`/`args` get the same `$(VAR)` expansion from the container
 *    env, as the kubelet does.
 *  - opts.env replaces the value of a same-named container env var IN PLACE (so later `$(VAR)` references see
 *    the override; the override is used verbatim: no expansion, no path rewriting); other names are appended.
 *    opts.pathPrepend dirs go first on PATH (stand-in binaries). AWS_CA_BUNDLE is removed unless it names a
 *    file under one of the container's mounts (a CA bundle the manifest mounts).
 *  - securityContext (runAsUser, readOnlyRootFilesystem, readOnly mounts), resources and probes are NOT
 *    enforced by default: the process runs as the test user (often root here). With
 *    opts.enforceSecurityContext (needs root, util-linux unshare and setpriv), the container runs in its own
 *    mount namespace where the root filesystem is read-only (readOnlyRootFilesystem) and only its volume
 *    dirs are writable (readOnly mounts read-only), as runAsUser/runAsGroup with fsGroup and
 *    supplementalGroups, and without capabilities (uid 0 included: capabilities.drop ALL); emptyDir dirs
 *    are 0777 and, with fsGroup, group-owned and setgid (emptyDir, ephemeral, secret and configMap
 *    volumes; hostPath and opts.volumes dirs stay as the test made them), as the kubelet makes them. Its
 *    HOME and cwd are then readable by anyone and read-only. Stand-ins that write outside the
 *    container's volumes do not work under it.
 *  - When argv[0]'s process exits, every process left in its process group is killed (like container
 *    teardown). A timeout kills the whole process group (TERM, KILL after 3 s) and sets timedOut.
 *    opts.onSpawn gets argv[0]'s PID (= its process group id): a test can signal the container's PID 1,
 *    as the kubelet does, or kill its whole group, as when the container is killed.
 *  - runPod() runs a whole pod: init containers one after the other, then all containers at once, sharing
 *    the pod's volumes (what two containers of one pod need to talk through an emptyDir, e.g. a named pipe).
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { V1Container, V1PodSpec, V1Volume } from '@kubernetes/client-node';
import { scriptFileText } from '../../lib/scripts/sourced';

export type KeyValues = Record<string, string | Buffer>;

export interface FakePodInfo {
  name?: string;
  namespace?: string;
  nodeName?: string;
  serviceAccountName?: string;
  uid?: string;
  podIP?: string;
  hostIP?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface RunContainerOptions {
  /** volume name -> host dir. Overrides the pod's volume of that name (required for hostPath/PVC volumes). */
  volumes?: Record<string, string>;
  /** secretName -> key -> value (plain text, NOT base64). */
  secrets?: Record<string, KeyValues>;
  /** configMapName -> key -> value. */
  configMaps?: Record<string, KeyValues>;
  /** Extra env / overrides (see the contract above). */
  env?: Record<string, string>;
  /** Dirs put first on PATH, for stand-in binaries. */
  pathPrepend?: string[];
  /** Default 30000. */
  timeoutMs?: number;
  /** Working dir (default: the container's workingDir, path-rewritten, else a fresh temp dir). */
  cwd?: string;
  /**
   * Cache of volume name -> host dir for emptyDir/ephemeral/secret/configMap volumes. Pass the same object to
   * several runContainer calls (e.g. initContainer, then main container) to share the dirs, as in one pod.
   */
  volumeDirs?: Record<string, string>;
  /** Fake downward-API values. */
  pod?: FakePodInfo;
  /** Enforce the securityContext (uid, groups, no capabilities, read-only root and mounts): see the contract above. */
  enforceSecurityContext?: boolean;
  /**
   * With enforceSecurityContext and a pod fsGroup: names of opts.volumes whose volume applies fsGroup (a CSI
   * driver with fsGroupPolicy File). At every container start their dir is given to the fsGroup as the
   * kubelet's SetVolumeOwnership does (pkg/volume/volume_linux.go, fsGroupChangePolicy Always): recursively
   * group-owned, files |= 0660, directories |= 0770 and setgid. Other opts.volumes stay as the test made them.
   */
  fsGroupVolumes?: string[];
  /** Data written to the container's stdin (default: no stdin, like a container without `stdin: true`). */
  stdin?: string | Buffer;
  /** Called with the PID of argv[0] (the container's PID 1; its process group has the same id) once it runs. */
  onSpawn?: (pid: number) => void;
}

export interface RunContainerResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** volume name -> host dir actually used (the same object as opts.volumeDirs when given). */
  volumeDirs: Record<string, string>;
  /** mountPath -> host path. */
  mounts: Record<string, string>;
  /** The argv that was executed (after expansion and rewriting). */
  argv: string[];
  /** The env the process got. */
  env: Record<string, string>;
  cwd: string;
  durationMs: number;
}

// ---------------------------------------------------------------------------------------------
// temp dirs (removed by cleanupContainerRuns(), registered as jest afterAll automatically)

const createdDirs = new Set<string>();

function tempDir(prefix: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `bcj-ctr-${prefix}-`));
  createdDirs.add(d);
  return d;
}

/** Removes every temp dir created by runContainer/containerEnv so far (HOME dirs, emptyDirs, secret dirs). */
export function cleanupContainerRuns(): void {
  for (const d of createdDirs) fs.rmSync(d, { recursive: true, force: true });
  createdDirs.clear();
}

declare const afterAll: ((fn: () => void) => void) | undefined;
try {
  if (typeof afterAll === 'function') afterAll(() => cleanupContainerRuns());
} catch {
  /* imported inside a test */
}

// ---------------------------------------------------------------------------------------------
// pod spec lookup

/** Accepts a PodSpec, a Pod, a PodTemplateSpec, a Job or a CronJob and returns the PodSpec. */
/**
 * The ConfigMaps among rendered objects as `opts.configMaps` takes them (e.g. the policy's script
 * ConfigMap of `spec.scripts.mode: configMap`, mounted by the containers that run a script).
 */
export function configMapsOf(objects: readonly unknown[]): Record<string, KeyValues> {
  const out: Record<string, KeyValues> = {};
  for (const o of objects as { kind?: string; metadata?: { name?: string }; data?: Record<string, string> }[]) {
    if (o.kind === 'ConfigMap' && o.metadata?.name) out[o.metadata.name] = { ...o.data };
  }
  return out;
}

/** Where a pod spec is found: a CronJob, a Job, a Pod or pod template, a job spec, or the pod spec itself. */
interface PodSpecSource {
  readonly kind?: unknown;
  readonly containers?: unknown;
  readonly template?: { readonly spec?: V1PodSpec };
  readonly spec?: {
    readonly containers?: unknown;
    readonly template?: { readonly spec?: V1PodSpec };
    readonly jobTemplate?: { readonly spec?: { readonly template?: { readonly spec?: V1PodSpec } } };
  };
}

export function resolvePodSpec(obj: unknown): V1PodSpec {
  if (!obj || typeof obj !== 'object') throw new Error('runContainer: podSpec must be an object');
  const o = obj as PodSpecSource;
  const found =
    o.kind === 'CronJob'
      ? o.spec?.jobTemplate?.spec?.template?.spec
      : o.kind === 'Job'
        ? o.spec?.template?.spec
        : Array.isArray(o.containers)
          ? (o as V1PodSpec)
          : o.spec && Array.isArray(o.spec.containers)
            ? (o.spec as V1PodSpec) // Pod, PodTemplateSpec
            : (o.template?.spec ?? o.spec?.template?.spec); // JobSpec, an object holding a pod template
  if (!found) throw new Error('runContainer: cannot find a pod spec (no containers) in the given object');
  return found;
}

function findContainer(spec: V1PodSpec, name: string): { container: V1Container; init: boolean } {
  const main = spec.containers ?? [];
  const init = spec.initContainers ?? [];
  const c = main.find((x) => x.name === name);
  if (c) return { container: c, init: false };
  const i = init.find((x) => x.name === name);
  if (i) return { container: i, init: true };
  throw new Error(
    `runContainer: no container named ${JSON.stringify(name)}; containers: [${main.map((x) => x.name).join(', ')}], ` +
      `initContainers: [${init.map((x) => x.name).join(', ')}]`,
  );
}

// ---------------------------------------------------------------------------------------------
// $(VAR) expansion (k8s.io/kubernetes third_party/forked/golang/expansion semantics)

interface Part {
  text: string;
  literal: boolean;
}

/**
 * Kubernetes $(VAR) expansion, returned as parts so literal text and substituted values can be treated
 * differently (only literal text is path-rewritten; substituted values already are).
 */
export function expandParts(input: string, lookup: (name: string) => string | undefined): Part[] {
  const parts: Part[] = [];
  const push = (text: string, literal: boolean) => {
    if (!text) return;
    const last = parts[parts.length - 1];
    if (literal && last?.literal) last.text += text;
    else parts.push({ text, literal });
  };
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] === '$' && cursor + 1 < input.length) {
      push(input.slice(checkpoint, cursor), true);
      const rest = input.slice(cursor + 1);
      let advance = 1;
      if (rest[0] === '$') {
        push('$', true);
      } else if (rest[0] === '(') {
        const close = rest.indexOf(')', 1);
        if (close >= 1) {
          const name = rest.slice(1, close);
          const v = lookup(name);
          if (v === undefined) push(`$(${name})`, true);
          else push(v, false);
          advance = close + 1;
        } else {
          push('$(', true);
        }
      } else {
        push('$' + rest[0], true);
      }
      cursor += advance;
      checkpoint = cursor + 1;
    }
  }
  push(input.slice(checkpoint), true);
  return parts;
}

/** Kubernetes $(VAR) expansion as a string. */
export function expandK8s(input: string, vars: Record<string, string> | Map<string, string>): string {
  const get = (n: string) =>
    vars instanceof Map ? vars.get(n) : Object.prototype.hasOwnProperty.call(vars, n) ? vars[n] : undefined;
  return expandParts(input, get)
    .map((p) => p.text)
    .join('');
}

// ---------------------------------------------------------------------------------------------
// mount path rewriting

const PATH_CHAR = 'A-Za-z0-9._~@+\\-';

export interface PathRewriter {
  /** Rewrites a whole string. */
  rewrite(s: string): string;
  /** Rewrites `text` that sits between the chars `prev` and `next` of a bigger string. */
  segment(text: string, prev: string, next: string): string;
}

/** Builds the mountPath -> host path rewriter (longest mountPath first, only at path boundaries). */
export function makePathRewriter(mounts: Record<string, string>): PathRewriter {
  const entries = Object.entries(mounts).filter(([m]) => m !== '/' && m !== '');
  if (entries.length === 0) return { rewrite: (s) => s, segment: (t) => t };
  entries.sort((a, b) => b[0].length - a[0].length);
  const map = new Map(entries);
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(?<![${PATH_CHAR}/])(?:${entries.map(([m]) => esc(m)).join('|')})(?![${PATH_CHAR}])`, 'g');
  const segment = (text: string, prev: string, next: string): string => {
    const s = prev + text + next;
    const lo = prev.length;
    const hi = prev.length + text.length;
    const out = s.replace(re, (m: string, offset: number) => (offset < lo || offset + m.length > hi ? m : map.get(m)!));
    return out.slice(lo, out.length - next.length);
  };
  return { rewrite: (s) => segment(s, '', ''), segment };
}

function joinParts(parts: Part[], rw: PathRewriter): string {
  let out = '';
  parts.forEach((p, i) => {
    if (!p.literal) {
      out += p.text;
      return;
    }
    const prev = i > 0 ? parts[i - 1].text.slice(-1) : '';
    const next = i + 1 < parts.length ? parts[i + 1].text.slice(0, 1) : '';
    out += rw.segment(p.text, prev, next);
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// volumes

function normMountPath(p: string): string {
  if (!p || !p.startsWith('/')) throw new Error(`runContainer: mountPath must be absolute: ${JSON.stringify(p)}`);
  const n = path.posix.normalize(p);
  return n.length > 1 ? n.replace(/\/+$/, '') : n;
}

function toBuffer(v: string | Buffer): Buffer {
  return Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8');
}

/** A policy's script ConfigMap (`<policy>-scripts-<hash>`, spec.scripts.mode configMap, the default). */
const SCRIPTS_CONFIGMAP = /-scripts-[0-9a-f]{10}$/;

/**
 * The script ConfigMaps a pod's volumes name, with the files its containers source (the sourcing line of
 * each `sh -c` command: `. /scripts/common.sh; ...`), taken from lib/scripts as the renderer takes them:
 * each module as written, the entry without main. Used when a test gives no such ConfigMap in
 * opts.configMaps (the tests that do pass the rendered one; scripts-as-written.test.ts checks that the
 * rendered ConfigMap holds exactly these bytes).
 */
function scriptConfigMapsOf(spec: V1PodSpec): Record<string, KeyValues> {
  const out: Record<string, KeyValues> = {};
  const names = (spec.volumes ?? [])
    .map((v) => v.configMap?.name)
    .filter((n): n is string => n !== undefined && SCRIPTS_CONFIGMAP.test(n));
  if (names.length === 0) return out;
  const data: Record<string, string> = {};
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
    const script = c.command?.find((s) => s.startsWith('# backup-cronjobs: main of '));
    if (!script) continue;
    const files = script
      .split('\n')[1]
      .split('; ')
      .map((s) => s.replace(/^\. \/scripts\//, ''));
    files.forEach((file, i) => (data[file] = scriptFileText(file, i === files.length - 1)));
  }
  for (const name of names) out[name] = data;
  return out;
}

interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

function writeProjection(
  dir: string,
  kind: 'Secret' | 'ConfigMap',
  name: string | undefined,
  data: KeyValues | undefined,
  items: KeyToPath[] | undefined,
  defaultMode: number,
  optional: boolean,
): void {
  if (!data) {
    if (optional) return;
    throw new Error(
      `runContainer: ${kind} ${JSON.stringify(name)} is used by a volume but not given in opts.${kind === 'Secret' ? 'secrets' : 'configMaps'}`,
    );
  }
  const list: KeyToPath[] = items?.length ? items : Object.keys(data).map((k) => ({ key: k, path: k }));
  for (const it of list) {
    if (!Object.prototype.hasOwnProperty.call(data, it.key)) {
      if (optional) continue;
      throw new Error(`runContainer: ${kind} ${JSON.stringify(name)} has no key ${JSON.stringify(it.key)}`);
    }
    if (path.posix.isAbsolute(it.path) || it.path.split('/').includes('..')) {
      throw new Error(`runContainer: invalid item path ${JSON.stringify(it.path)} in ${kind} volume ${name}`);
    }
    const file = path.join(dir, it.path);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, toBuffer(data[it.key]));
    fs.chmodSync(file, it.mode ?? defaultMode);
  }
}

// ---------------------------------------------------------------------------------------------
// preparation (shared by runContainer and containerEnv)

interface Prepared {
  argv: string[];
  /** With enforceSecurityContext: the command that sets the container up and then runs argv. */
  wrapper?: string[];
  env: Record<string, string>;
  cwd: string;
  volumeDirs: Record<string, string>;
  mounts: Record<string, string>;
}

const BASE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function prepare(podSpecOrObject: unknown, containerName: string, opts: RunContainerOptions): Prepared {
  const spec = resolvePodSpec(podSpecOrObject);
  const { container } = findContainer(spec, containerName);
  const pod: Required<Omit<FakePodInfo, 'labels' | 'annotations'>> & Pick<FakePodInfo, 'labels' | 'annotations'> = {
    name: 'test-pod',
    namespace: 'default',
    nodeName: 'test-node',
    serviceAccountName: spec.serviceAccountName ?? 'default',
    uid: '00000000-0000-4000-8000-000000000000',
    podIP: '127.0.0.1',
    hostIP: '127.0.0.1',
    ...opts.pod,
  };
  const secrets = opts.secrets ?? {};
  const configMaps = { ...scriptConfigMapsOf(spec), ...opts.configMaps };
  const overrides = opts.env ?? {};
  const dataOf = (src: Record<string, KeyValues>, name: string | undefined) =>
    name === undefined ? undefined : src[name];

  const lookupRef = (
    kind: 'Secret' | 'ConfigMap',
    ref: { name?: string; key: string; optional?: boolean },
    envName: string,
  ): string | undefined => {
    const src = kind === 'Secret' ? secrets : configMaps;
    const data = ref.name !== undefined ? src[ref.name] : undefined;
    if (!data || !Object.prototype.hasOwnProperty.call(data, ref.key)) {
      if (ref.optional) return undefined;
      throw new Error(
        `runContainer: env ${envName} needs ${kind} ${JSON.stringify(ref.name)} key ${JSON.stringify(ref.key)}, ` +
          `not given in opts.${kind === 'Secret' ? 'secrets' : 'configMaps'}`,
      );
    }
    return toBuffer(data[ref.key]).toString('utf8');
  };
  const fieldValue = (fieldPath: string): string => {
    const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
    if (m) return (m[1] === 'labels' ? pod.labels : pod.annotations)?.[m[2]] ?? '';
    switch (fieldPath) {
      case 'metadata.name':
        return pod.name;
      case 'metadata.namespace':
        return pod.namespace;
      case 'metadata.uid':
        return pod.uid;
      case 'spec.nodeName':
        return pod.nodeName;
      case 'spec.serviceAccountName':
        return pod.serviceAccountName;
      case 'status.podIP':
      case 'status.podIPs':
        return pod.podIP;
      case 'status.hostIP':
      case 'status.hostIPs':
        return pod.hostIP;
      default:
        throw new Error(`runContainer: unsupported fieldRef.fieldPath ${JSON.stringify(fieldPath)}`);
    }
  };

  // ---- volumes first (the env rewriting needs the mounts), but subPathExpr needs the env: two passes.
  const volumeDirs = opts.volumeDirs ?? {};
  const podVolumes = new Map<string, V1Volume>((spec.volumes ?? []).map((v) => [v.name, v]));
  const volumeHostDir = (volName: string): { dir: string; projected: boolean } => {
    const vol = podVolumes.get(volName);
    const projected = !!(vol && (vol.secret || vol.configMap || vol.projected));
    if (opts.volumes?.[volName] !== undefined) return { dir: path.resolve(opts.volumes[volName]), projected: false };
    if (volumeDirs[volName] !== undefined) return { dir: volumeDirs[volName], projected };
    if (!vol)
      throw new Error(
        `runContainer: volumeMount refers to volume ${JSON.stringify(volName)}, which the pod spec does not define`,
      );
    let dir: string;
    if (vol.secret) {
      dir = tempDir(`secret-${volName}`);
      writeProjection(
        dir,
        'Secret',
        vol.secret.secretName,
        dataOf(secrets, vol.secret.secretName),
        vol.secret.items,
        vol.secret.defaultMode ?? 0o644,
        !!vol.secret.optional,
      );
    } else if (vol.configMap) {
      dir = tempDir(`cm-${volName}`);
      writeProjection(
        dir,
        'ConfigMap',
        vol.configMap.name,
        dataOf(configMaps, vol.configMap.name),
        vol.configMap.items,
        vol.configMap.defaultMode ?? 0o644,
        !!vol.configMap.optional,
      );
    } else if (vol.projected) {
      dir = tempDir(`projected-${volName}`);
      const mode = vol.projected.defaultMode ?? 0o644;
      for (const src of vol.projected.sources ?? []) {
        if (src.secret)
          writeProjection(
            dir,
            'Secret',
            src.secret.name,
            dataOf(secrets, src.secret.name),
            src.secret.items,
            mode,
            !!src.secret.optional,
          );
        else if (src.configMap)
          writeProjection(
            dir,
            'ConfigMap',
            src.configMap.name,
            dataOf(configMaps, src.configMap.name),
            src.configMap.items,
            mode,
            !!src.configMap.optional,
          );
        else
          throw new Error(
            `runContainer: unsupported projected source in volume ${volName}: ${Object.keys(src).join(',')}`,
          );
      }
    } else if (vol.emptyDir !== undefined || vol.ephemeral !== undefined) {
      dir = tempDir(`empty-${volName}`);
    } else if (vol.hostPath) {
      throw new Error(
        `runContainer: hostPath volume ${JSON.stringify(volName)} (${vol.hostPath.path}) must be mapped explicitly via opts.volumes`,
      );
    } else {
      throw new Error(
        `runContainer: volume ${JSON.stringify(volName)} (${Object.keys(vol)
          .filter((k) => k !== 'name')
          .join(',')}) must be mapped via opts.volumes`,
      );
    }
    volumeDirs[volName] = dir;
    return { dir, projected };
  };

  // ---- env, pass 1: values without path rewriting (needed by subPathExpr); pass 2 with rewriting.
  const buildEnv = (rw: PathRewriter): Map<string, string> => {
    const env = new Map<string, string>(); // container-defined vars, in order (for $(VAR) lookups)
    for (const ef of container.envFrom ?? []) {
      const prefix = ef.prefix ?? '';
      const kind = ef.secretRef ? 'Secret' : ef.configMapRef ? 'ConfigMap' : undefined;
      const ref = ef.secretRef ?? ef.configMapRef;
      if (!kind || !ref) throw new Error('runContainer: envFrom entry without secretRef/configMapRef');
      const data = dataOf(kind === 'Secret' ? secrets : configMaps, ref.name);
      if (!data) {
        if (ref.optional) continue;
        throw new Error(`runContainer: envFrom needs ${kind} ${JSON.stringify(ref.name)}, not given in opts`);
      }
      for (const [k, v] of Object.entries(data)) {
        const n = prefix + k;
        env.set(
          n,
          Object.prototype.hasOwnProperty.call(overrides, n) ? overrides[n] : rw.rewrite(toBuffer(v).toString('utf8')),
        );
      }
    }
    for (const e of container.env ?? []) {
      const name = e.name;
      if (Object.prototype.hasOwnProperty.call(overrides, name)) {
        env.set(name, overrides[name]);
        continue;
      }
      let value: string | undefined;
      if (e.value !== undefined && e.value !== null) {
        value = joinParts(
          expandParts(String(e.value), (n) => env.get(n)),
          rw,
        );
      } else if (e.valueFrom) {
        const vf = e.valueFrom;
        if (vf.secretKeyRef) value = lookupRef('Secret', vf.secretKeyRef, name);
        else if (vf.configMapKeyRef) value = lookupRef('ConfigMap', vf.configMapKeyRef, name);
        else if (vf.fieldRef) value = fieldValue(vf.fieldRef.fieldPath);
        else throw new Error(`runContainer: unsupported valueFrom for env ${name}: ${Object.keys(vf).join(',')}`);
        if (value !== undefined && (vf.secretKeyRef || vf.configMapKeyRef)) value = rw.rewrite(value);
        if (value === undefined) continue; // optional and missing: not set
      } else {
        value = '';
      }
      env.set(name, value);
    }
    for (const [k, v] of Object.entries(overrides)) if (!env.has(k)) env.set(k, v);
    return env;
  };

  const identity: PathRewriter = { rewrite: (s) => s, segment: (t) => t };
  const rawEnv = buildEnv(identity);

  const mounts: Record<string, string> = {};
  const readOnlyMounts = new Set<string>();
  for (const vm of container.volumeMounts ?? []) {
    const mp = normMountPath(vm.mountPath);
    const { dir, projected } = volumeHostDir(vm.name);
    let sub: string | undefined = vm.subPath;
    if (vm.subPathExpr) sub = expandK8s(vm.subPathExpr, rawEnv);
    if (sub && (path.posix.isAbsolute(sub) || sub.split('/').includes('..'))) {
      throw new Error(`runContainer: invalid subPath ${JSON.stringify(sub)} for mount ${mp}`);
    }
    const host = sub ? path.join(dir, sub) : dir;
    if (!projected && !fs.existsSync(host)) fs.mkdirSync(host, { recursive: true });
    if (mounts[mp] !== undefined) throw new Error(`runContainer: mountPath ${mp} is mounted twice`);
    mounts[mp] = host;
    if (vm.readOnly) readOnlyMounts.add(mp);
  }
  const rw = makePathRewriter(mounts);
  const cenv = buildEnv(rw);

  // ---- argv
  const command = container.command;
  if (!Array.isArray(command) || command.length === 0) {
    throw new Error(
      `runContainer: container ${containerName} has no command (our manifests must always set it; image entrypoints are not known here)`,
    );
  }
  const args = container.args ?? [];
  const argvParts = [...command, ...args].map((a) => expandParts(String(a), (n) => cenv.get(n)));
  const argv = argvParts.map((parts, i) => (i === 0 ? parts.map((p) => p.text).join('') : joinParts(parts, rw)));

  // ---- final env
  const home = tempDir('home');
  const env: Record<string, string> = { PATH: BASE_PATH, HOME: home, LANG: 'C', HOSTNAME: pod.name };
  for (const [k, v] of cenv) env[k] = v;
  if (opts.pathPrepend?.length) env.PATH = [...opts.pathPrepend.map((p) => path.resolve(p)), env.PATH].join(':');
  // this machine's own bundle never reaches a container; one the manifest mounts does
  if (env.AWS_CA_BUNDLE !== undefined && !mountedFile(env.AWS_CA_BUNDLE, mounts)) delete env.AWS_CA_BUNDLE;

  // ---- cwd
  let cwd = opts.cwd;
  if (!cwd && container.workingDir) {
    cwd = rw.rewrite(normMountPath(container.workingDir));
    if (!fs.existsSync(cwd)) {
      throw new Error(
        `runContainer: workingDir ${container.workingDir} is not under a mapped volume (-> ${cwd} does not exist); pass opts.cwd`,
      );
    }
  }
  const fsGroupDirs = (opts.fsGroupVolumes ?? []).map((name) => {
    if (opts.volumes?.[name] === undefined)
      throw new Error(`runContainer: fsGroupVolumes names ${JSON.stringify(name)}, which opts.volumes does not map`);
    return path.resolve(opts.volumes[name]);
  });
  const wrapper = opts.enforceSecurityContext
    ? securityWrapper(
        spec,
        container,
        podVolumes,
        volumeDirs,
        mounts,
        readOnlyMounts,
        [home, ...(opts.pathPrepend ?? []).map((p) => path.resolve(p))],
        fsGroupDirs,
      )
    : undefined;
  return { argv, wrapper, env, cwd: cwd ?? home, volumeDirs, mounts };
}

/** Volume dirs already set up as the kubelet does when a pod starts. */
const preparedVolumes = new Set<string>();

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The kubelet's part of a securityContext, emulated: volume dir modes and groups, then a command
 * (`unshare -m sh -c <setup> sh <argv...>`) that binds each volume dir onto itself (read-only for
 * readOnly mounts), remounts / read-only (readOnlyRootFilesystem) and execs argv through setpriv with
 * the container's uid, gid and groups and no capabilities. Every exec keeps the PID (onSpawn's).
 */
function securityWrapper(
  spec: V1PodSpec,
  container: V1Container,
  podVolumes: Map<string, V1Volume>,
  volumeDirs: Record<string, string>,
  mounts: Record<string, string>,
  readOnlyMounts: Set<string>,
  readable: string[],
  fsGroupDirs: readonly string[] = [],
): string[] {
  if (process.getuid?.() !== 0)
    throw new Error('runContainer: enforceSecurityContext needs root (to change uid and mount)');
  const podSc = spec.securityContext ?? {};
  const sc = container.securityContext ?? {};
  const uid = sc.runAsUser ?? podSc.runAsUser ?? 0;
  const gid = sc.runAsGroup ?? podSc.runAsGroup ?? 0;
  if ((sc.runAsNonRoot ?? podSc.runAsNonRoot) === true && uid === 0)
    throw new Error(
      `runContainer: ${container.name} has runAsNonRoot and runs as uid 0: the kubelet refuses to start it`,
    );
  const fsGroup = podSc.fsGroup;
  const groups = [...new Set([...(fsGroup !== undefined ? [fsGroup] : []), ...(podSc.supplementalGroups ?? [])])];
  // volume dirs as the kubelet makes them, once, when the pod starts: emptyDir 0777 (subPath dirs take
  // the volume's mode); fsGroup: the group's, setgid, group-writable, recursively
  for (const [name, vol] of podVolumes) {
    const dir = volumeDirs[name];
    if (dir === undefined || preparedVolumes.has(dir)) continue;
    const empty = vol.emptyDir !== undefined || vol.ephemeral !== undefined;
    if (!empty && !vol.secret && !vol.configMap && !vol.projected) continue;
    preparedVolumes.add(dir);
    for (const d of walkDirs(dir)) fs.chmodSync(d, empty ? 0o777 : 0o755);
    if (fsGroup !== undefined) giveToGroup(dir, fsGroup, 0o2070, 0o040);
  }
  // a volume that applies fsGroup, as SetVolumeOwnership: group rw for files, rwx and setgid for directories
  if (fsGroup !== undefined) for (const dir of fsGroupDirs) giveToGroup(dir, fsGroup, 0o2770, 0o660);
  for (const [mp, host] of Object.entries(mounts)) {
    const name = (container.volumeMounts ?? []).find((m) => normMountPath(m.mountPath) === mp)?.name;
    const vol = name !== undefined ? podVolumes.get(name) : undefined;
    if (
      name !== undefined &&
      vol &&
      (vol.emptyDir !== undefined || vol.ephemeral !== undefined) &&
      host !== volumeDirs[name]
    )
      fs.chmodSync(host, fs.statSync(volumeDirs[name]).mode & 0o7777);
  }
  for (const d of readable) fs.chmodSync(d, 0o755);
  const byDepth = Object.entries(mounts).sort(([, a], [, b]) => a.length - b.length);
  const setup = ['set -e'];
  for (const [mp, host] of byDepth) {
    setup.push(`/usr/bin/mount --bind ${shellQuote(host)} ${shellQuote(host)}`);
    if (readOnlyMounts.has(mp)) setup.push(`/usr/bin/mount -o remount,bind,ro ${shellQuote(host)}`);
  }
  if (sc.readOnlyRootFilesystem === true) setup.push('/usr/bin/mount -o remount,bind,ro /');
  const ids = [
    `--reuid=${uid}`,
    `--regid=${gid}`,
    groups.length > 0 ? `--groups=${groups.join(',')}` : '--clear-groups',
  ];
  // no capabilities, for uid 0 too (capabilities.drop: ALL); nothing regains them (allowPrivilegeEscalation: false)
  // util-linux by path: the container's PATH may put busybox applets of the same names first (the etcd tools step links them all)
  setup.push(`exec /usr/bin/setpriv ${ids.join(' ')} --inh-caps=-all --bounding-set=-all --no-new-privs -- "$@"`);
  return ['/usr/bin/unshare', '--mount', '--propagation', 'private', '--', '/bin/sh', '-c', setup.join('\n'), 'sh'];
}

/** Every directory and file under `dir` (itself included) group-owned by `gid`, with these mode bits added. */
function giveToGroup(dir: string, gid: number, dirBits: number, fileBits: number): void {
  for (const d of walkDirs(dir)) {
    fs.chownSync(d, fs.statSync(d).uid, gid);
    fs.chmodSync(d, (fs.statSync(d).mode & 0o7777) | dirBits);
  }
  for (const f of walkFiles(dir)) {
    fs.chownSync(f, fs.statSync(f).uid, gid);
    fs.chmodSync(f, (fs.statSync(f).mode & 0o7777) | fileBits);
  }
}

function walkDirs(dir: string): string[] {
  return [
    dir,
    ...fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.isSymbolicLink())
      .flatMap((e) => walkDirs(path.join(dir, e.name))),
  ];
}

function walkFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return walkFiles(p);
    return e.isFile() ? [p] : [];
  });
}

/** The env a container would get (same resolution as runContainer, including path rewriting). */
export function containerEnv(
  podSpec: unknown,
  containerName: string,
  opts: RunContainerOptions = {},
): Record<string, string> {
  return prepare(podSpec, containerName, opts).env;
}

/** The argv a container would run (after $(VAR) expansion and path rewriting), plus mounts. */
export function containerArgv(
  podSpec: unknown,
  containerName: string,
  opts: RunContainerOptions = {},
): { argv: string[]; mounts: Record<string, string> } {
  const p = prepare(podSpec, containerName, opts);
  return { argv: p.argv, mounts: p.mounts };
}

/** Runs one container of the pod spec for real (see the contract at the top of this file). */
export async function runContainer(
  podSpec: unknown,
  containerName: string,
  opts: RunContainerOptions = {},
): Promise<RunContainerResult> {
  const p = prepare(podSpec, containerName, opts);
  const timeoutMs = opts.timeoutMs ?? 30000;
  const started = Date.now();
  return new Promise<RunContainerResult>((resolve, reject) => {
    const full = [...(p.wrapper ?? []), ...p.argv];
    const child = spawn(full[0], full.slice(1), {
      env: p.env,
      cwd: p.cwd,
      detached: true, // own process group, so a timeout / teardown can kill everything it started
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    if (child.pid !== undefined) opts.onSpawn?.(child.pid);
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    child.stderr!.on('data', (b: Buffer) => err.push(b));
    if (opts.stdin !== undefined) {
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(opts.stdin);
    }
    let timedOut = false;
    let code: number | null = null;
    let signal: string | null = null;
    let finished = false;
    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        /* group already gone */
      }
    };
    let killTimer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), 3000);
    }, timeoutMs);
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        timedOut,
        volumeDirs: p.volumeDirs,
        mounts: p.mounts,
        argv: p.argv,
        env: p.env,
        cwd: p.cwd,
        durationMs: Date.now() - started,
      });
    };
    child.on('error', (e) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      finished = true;
      reject(new Error(`runContainer: cannot start ${p.argv[0]}: ${e.message}`));
    });
    child.on('exit', (c, s) => {
      code = c;
      signal = s;
      // container teardown: nothing the script left behind survives it
      killGroup('SIGKILL');
      // the pipes close once every holder is gone; don't wait forever for stragglers
      setTimeout(finish, 2000).unref();
    });
    child.on('close', finish);
  });
}

export interface RunPodOptions extends RunContainerOptions {
  /** Per-container options, laid over the pod-wide ones (`env` merged, other fields replaced). */
  containers?: Record<string, RunContainerOptions>;
}

export interface RunPodResult {
  /** Results by container name, of the containers that ran. */
  results: Record<string, RunContainerResult>;
  /** The failed init container that stopped the pod before its containers started, if any. */
  failedInit?: string;
  volumeDirs: Record<string, string>;
}

/**
 * Runs a pod as the kubelet does with restartPolicy Never: the init containers one after the other
 * (a failed one fails the pod: nothing after it runs), then all containers at the same time. All
 * share the pod's volumes.
 */
export async function runPod(podSpecOrObject: unknown, opts: RunPodOptions = {}): Promise<RunPodResult> {
  const spec = resolvePodSpec(podSpecOrObject);
  const { containers: perContainer = {}, ...common } = opts;
  const volumeDirs = opts.volumeDirs ?? {};
  const optionsOf = (name: string): RunContainerOptions => {
    const own = perContainer[name] ?? {};
    return { ...common, ...own, env: { ...common.env, ...own.env }, volumeDirs };
  };
  const results: Record<string, RunContainerResult> = {};
  for (const c of spec.initContainers ?? []) {
    results[c.name] = await runContainer(spec, c.name, optionsOf(c.name));
    if (results[c.name].code !== 0) return { results, failedInit: c.name, volumeDirs };
  }
  const names = spec.containers.map((c) => c.name);
  const ran = await Promise.all(names.map((name) => runContainer(spec, name, optionsOf(name))));
  names.forEach((name, i) => (results[name] = ran[i]));
  return { results, volumeDirs };
}

/** `file` (already rewritten to the host) lies under one of the container's mounts. */
function mountedFile(file: string, mounts: Record<string, string>): boolean {
  return Object.values(mounts).some((host) => file.startsWith(`${host}/`));
}
