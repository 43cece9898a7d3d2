/**
 * Script commands as the workload builder renders them: the entry's `main`
 * sourcing the script files from the policy's ConfigMap, mounted read-only
 * (the default), or the whole composition inline in the container.
 */
import { createHash } from 'crypto';
import type { EngineContainer, EngineEnvVar, Manifest, Volume, VolumeMount } from '../kubernetes/objects';
import { CONFIGMAP_MAX_SIZE_BYTES } from '../kubernetes/validation/configmap';
import { RETENTION_ENV } from '../retention/env';
import { ScriptCommand, ScriptFeatures, inlineCommand, isScriptCommand, stem } from '../scripts';
import { sourcedFiles, sourcingText } from '../scripts/sourced';

/** How the policy's containers get their scripts. */
export type ScriptsRendering = { readonly mode: 'inline' } | { readonly mode: 'configMap'; readonly configMap: string };

export const INLINE_SCRIPTS: ScriptsRendering = { mode: 'inline' };
/** The volume and the directory the script ConfigMap is mounted at. */
export const SCRIPTS_VOLUME = 'scripts';
export const SCRIPTS_DIR = '/scripts';

/**
 * The script of a container, its features completed with the retention
 * destination its env names (`BACKUP_DEST_KIND` → module `retention-<kind>.sh`).
 */
export function containerScript(c: EngineContainer): ScriptCommand | undefined {
  if (!isScriptCommand(c.command)) return undefined;
  const kind = c.env?.find((e: EngineEnvVar) => e.name === RETENTION_ENV.destKind)?.value;
  const destination: ScriptFeatures = typeof kind === 'string' ? { [`retention-${kind}`]: true } : {};
  // Object.assign rather than spread: this runs for every container of every target, twice
  return Object.assign({}, c.command, { features: Object.assign(destination, c.command.features) });
}

/** The container's command: its script rendered, or its own command. */
export function renderCommand(c: EngineContainer, scripts: ScriptsRendering): readonly string[] | undefined {
  const script = containerScript(c);
  if (!script) return c.command as readonly string[] | undefined;
  if (scripts.mode === 'inline') return inlineCommand(script);
  return [
    script.shell ?? '/bin/sh',
    '-c',
    sourcingText(script.entry, script.features ?? {}, SCRIPTS_DIR),
    stem(script.entry),
  ];
}

/** The mount a container gets in configMap mode (containers that run a script only). */
export function scriptMounts(c: EngineContainer, scripts: ScriptsRendering): VolumeMount[] {
  return scripts.mode === 'configMap' && isScriptCommand(c.command)
    ? [{ name: SCRIPTS_VOLUME, mountPath: SCRIPTS_DIR, readOnly: true }]
    : [];
}

/** The volume a pod gets in configMap mode, when one of its containers runs a script. */
export function scriptVolumes(containers: readonly EngineContainer[], scripts: ScriptsRendering): Volume[] {
  if (scripts.mode !== 'configMap' || !containers.some((c) => isScriptCommand(c.command))) return [];
  return [{ name: SCRIPTS_VOLUME, configMap: { name: scripts.configMap } }];
}

/**
 * The policy's script ConfigMap: every file its containers source, each once
 * and as written (see sourcedFiles), named `<policy>-scripts-<hash of the
 * data>` so that a change of any script is a new ConfigMap that every CronJob
 * switches to at once. Immutable: a ConfigMap of that name always holds those
 * bytes. Refused when the files exceed what a ConfigMap holds (1 MiB).
 */
export function scriptsConfigMap(
  policy: string,
  namespace: string,
  labels: Readonly<Record<string, string>>,
  containers: readonly EngineContainer[],
): Manifest | undefined {
  const data: Record<string, string> = {};
  for (const c of containers) {
    const script = containerScript(c);
    if (script) for (const f of sourcedFiles(script.entry, script.features)) data[f.file] = f.text;
  }
  const keys = Object.keys(data).sort();
  if (keys.length === 0) return undefined;
  const sorted = Object.fromEntries(keys.map((k) => [k, data[k]]));
  checkScriptsSize(policy, sorted);
  const hash = createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 10);
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${policy}-scripts-${hash}`, namespace, labels: { ...labels } },
    immutable: true,
    data: sorted,
  };
}

/** Fails when script files total more than `limit` bytes (what a ConfigMap holds: 1 MiB), naming the way out. */
export function checkScriptsSize(
  policy: string,
  data: Readonly<Record<string, string>>,
  limit = CONFIGMAP_MAX_SIZE_BYTES,
): void {
  const size = Object.values(data).reduce((n, text) => n + Buffer.byteLength(text, 'utf8'), 0);
  if (size > limit) {
    throw new Error(
      `the scripts of policy ${policy} total ${size} bytes, more than the ${limit} bytes (1 MiB) a ConfigMap holds: set spec.scripts.mode: inline`,
    );
  }
}
