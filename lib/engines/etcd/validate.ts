/** Checks of `spec.etcd` beyond the schema (the per-node settings levels included). */
import { IssueList, fieldText, show } from '../../policy/errors';
import type { PolicyPath } from '../../policy/errors';
import { namedEntry, validateNamedEntries } from '../../policy/named-entries';
import { retentionRules } from '../../policy/retention-options';
import { BUCKET_RULES } from '../../retention';
import type { Accepted, PolicyContext } from '../engine';
import { validateS3 } from '../s3';
import { validateS3Copies } from '../s3-copies';
import {
  DISTRIBUTIONS,
  ETCD_DEFAULTS,
  defragMemberTimeout,
  etcdDistribution,
  etcdMode,
  etcdRetentionScope,
} from './defaults';
import { destinationKind, isTls, snapshotGroup, stepsInAwsCli } from './resolve';
import type { EtcdSpec } from './types';
import { hostPathProblem, nodePinProblem, subPathProblem } from '../../kubernetes/validation';
import { checkedDuration, validateSettings } from '../../policy/settings';
import { durationProblem, formatDuration, parseDuration } from '../../units';

/** The nodes' own checks run when the schema accepted the nodes and the mode; the rest reads the spec as a whole. */
export function validateEtcd(spec: EtcdSpec, policy: PolicyContext, issues: IssueList, accepted: Accepted): void {
  const path = policy.path;
  const at = (field: string) => [...path, field];
  if (accepted(at('nodes')) && accepted(at('mode'))) validateNodes(spec, path, issues);
  if (!accepted(path)) return;
  const mode = etcdMode(spec);
  const nodes = (spec.nodes ?? []).map(namedEntry);
  const hostPaths: [PolicyPath, string | undefined][] = [
    [[...path, 'destination', 'hostPath', 'path'], spec.destination?.hostPath?.path],
    [[...path, 'certificates', 'hostPath'], spec.certificates?.hostPath],
    [[...path, 'restore', 'hostPath'], spec.restore?.hostPath],
  ];
  for (const [at, value] of hostPaths) if (value !== undefined) issues.addProblem(at, hostPathProblem(value));
  for (const field of ['caFile', 'certFile', 'keyFile'] as const) {
    const value = spec.certificates?.[field];
    if (value !== undefined && value.split('/').some((segment) => segment === '.' || segment === '..')) {
      issues.add(
        [...path, 'certificates', field],
        `received ${show(value)}; a file inside certificates.hostPath, without "." or ".." segments`,
      );
    }
  }
  const subPath = spec.destination?.persistentVolumeClaim?.subPath;
  if (subPath !== undefined)
    issues.addProblem([...path, 'destination', 'persistentVolumeClaim', 'subPath'], subPathProblem(subPath));

  validateControlPlaneFiles(spec, policy, issues);
  validateDefragmentation(spec, policy, issues);

  const kind = destinationKind(spec);
  if (etcdRetentionScope(spec) === 'cluster' && kind === 'hostPath') {
    issues.add(
      at('retentionScope'),
      'received "cluster"; a hostPath destination holds only its own node\'s snapshots, so retention can only count per node: use "node", or a PVC or S3 destination',
    );
  }
  const s3 = spec.destination?.s3;
  if (s3) validateS3(s3, [...at('destination'), 's3'], issues);
  if (spec.copies) validateS3Copies(spec.copies, s3, at('copies'), issues);
  if (spec.certificates !== undefined && !isTls(spec)) {
    issues.add(at('certificates'), `only used with an https endpoint; the endpoint is ${show(spec.endpoint)}`);
  }

  const retention = policy.retention;
  if (retention?.schedule !== undefined && kind === 'hostPath' && mode === 'cluster') {
    issues.add(
      ['spec', 'retention', 'schedule'],
      fieldText`a hostPath destination is pruned by one retention-prune CronJob per control-plane node (each node's directory is visible only there), and cluster mode names no nodes: use mode: perNode and list the control-plane nodes in ${[...policy.path, 'nodes']}, or a persistentVolumeClaim or s3 destination, or drop ${['spec', 'retention', 'schedule']} (each backup then prunes its own node's snapshots)`,
    );
  }
  if (policy.drill !== undefined && kind === 'hostPath' && mode === 'cluster') {
    issues.add(
      ['spec', 'drill'],
      fieldText`a hostPath destination keeps each snapshot on the node that took it, and cluster mode names no nodes, so no drill knows where the newest snapshot is: use mode: perNode and list the control-plane nodes in ${[...policy.path, 'nodes']} (one drill per node, on that node), or a persistentVolumeClaim or s3 destination`,
    );
  }
  const rules = retentionRules(retention);
  const usesBuckets = BUCKET_RULES.some((r) => rules?.[r] !== undefined);
  if (usesBuckets && kind !== 's3' && spec.images?.shell === undefined) {
    const zones = [policy.defaults?.timeZone, ...nodes.map((n) => n.settings?.timeZone)].filter(
      (z): z is string => z !== undefined && !/^(Etc\/)?UTC$/.test(z),
    );
    if (zones.length > 0) {
      issues.add(
        at('images'),
        `bucket retention rules in time zone ${show(zones[0])} need zoneinfo, which the default busybox image lacks: set images.shell to an image with tzdata (e.g. alpine) or use timeZone UTC`,
      );
    }
  }

  // the steps that push run the shell image unless they run the aws CLI image (which has curl)
  if (
    policy.metrics?.pushgatewayUrl !== undefined &&
    !stepsInAwsCli(kind, (spec.copies ?? []).length) &&
    spec.images?.shell === undefined
  ) {
    issues.add(
      at('images'),
      'metrics are pushed with curl, which the default busybox image lacks: set images.shell to an image with sh, curl and awk (e.g. curlimages/curl)',
    );
  }
}

/**
 * `controlPlaneFiles`: host directories that exist as such on a node (none
 * inside another: its files would be archived twice), and never in the clear
 * unless the policy says so: the archive holds the cluster's private keys.
 */
function validateControlPlaneFiles(spec: EtcdSpec, policy: PolicyContext, issues: IssueList): void {
  const files = spec.controlPlaneFiles;
  if (!files) return;
  const at = [...policy.path, 'controlPlaneFiles'];
  const paths = files.paths ?? DISTRIBUTIONS[etcdDistribution(spec)].controlPlaneFiles;
  paths.forEach((p, i) => {
    const here = [...at, 'paths', i];
    issues.addProblem(here, hostPathProblem(p));
    const outer = paths.find((other) => other !== p && p.startsWith(`${other}/`));
    if (outer !== undefined)
      issues.add(
        here,
        `received ${show(p)}, which is inside ${show(outer)} (also listed): its files would be archived twice; list only ${show(outer)}`,
      );
  });
  if (!policy.encryption && files.allowUnencrypted !== true) {
    issues.add(
      at,
      fieldText`received paths ${paths.map((p) => show(p)).join(', ')} to archive without ${['spec', 'encryption']}; the archive holds the cluster's private keys: allowed with ${['spec', 'encryption', 'age']}, or stored in the clear with ${[...at, 'allowUnencrypted']}: true`,
    );
  }
}

/**
 * `defragmentation`: its job settings as at every level; a member's timeout
 * that ends before the run's deadline would (the Job's deadline would stop a
 * member's defragmentation midway, which etcd finishes alone while the run
 * reports nothing); and the snapshots' serialization group, which it must
 * keep (a defragmentation blocks the member a snapshot reads from).
 */
/** The longest Go `time.Duration`, in whole seconds (2^63 - 1 ns): what etcdctl's duration flags parse. */
const GO_DURATION_MAX_SECONDS = Math.floor(Number(2n ** 63n - 1n) / 1e9);

function validateDefragmentation(spec: EtcdSpec, policy: PolicyContext, issues: IssueList): void {
  const d = spec.defragmentation;
  if (!d) return;
  const at = [...policy.path, 'defragmentation'];
  validateSettings(d, at, issues);
  const memberPath = [...at, 'memberTimeout'];
  // undefined when written and not a duration (reported)
  const member = checkedDuration(defragMemberTimeout(d), memberPath, issues);
  if (member === 0) issues.add(memberPath, `received ${show(d.memberTimeout)}; must be longer than 0s`);
  if (member !== undefined && member > GO_DURATION_MAX_SECONDS) {
    issues.add(
      memberPath,
      `received ${show(d.memberTimeout)}; etcdctl's --command-timeout is a Go duration (int64 nanoseconds): at most ${formatDuration(GO_DURATION_MAX_SECONDS)}`,
    );
    return;
  }
  const [timeoutSource, timeout]: [string | PolicyPath, string] =
    d.timeout !== undefined
      ? [[...at, 'timeout'], d.timeout]
      : policy.defaults?.timeout !== undefined
        ? [['spec', 'defaults', 'timeout'], policy.defaults.timeout]
        : ['the default timeout', ETCD_DEFAULTS.defragTimeout];
  if (member && durationProblem(timeout) === undefined && member >= parseDuration(timeout)) {
    issues.add(
      memberPath,
      fieldText`received ${show(defragMemberTimeout(d))}; must be shorter than the run's timeout (${timeoutSource}: ${show(timeout)}), or the Job's deadline stops a member's defragmentation midway: at most ${formatDuration(Math.max(parseDuration(timeout) - 1, 1))}, or raise ${[...at, 'timeout']}`,
    );
  }
  if (d.placement?.serializationGroup !== undefined) {
    issues.add(
      [...at, 'placement', 'serializationGroup'],
      fieldText`received ${show(d.placement.serializationGroup)}; the defragmentation runs in the snapshots' serialization group (${show(ETCD_DEFAULTS.serializationGroup)}, or ${['spec', 'defaults', 'placement', 'serializationGroup']}), so that it never blocks a member while a snapshot reads from it: remove it here`,
    );
  }
  // a node's own group would take its snapshots out of the defragmentation's
  const group = snapshotGroup(policy.defaults).name;
  (spec.nodes ?? []).forEach((entry, i) => {
    const own = typeof entry === 'string' ? undefined : entry.placement?.serializationGroup;
    if (own === undefined || own.name === group) return;
    issues.add(
      [...policy.path, 'nodes', i, 'placement', 'serializationGroup'],
      fieldText`received ${show(own)}; with ${at} every snapshot is in the defragmentation's serialization group (${show(group)}), so that the defragmentation never blocks a member while a snapshot reads from it: remove it here, or name ${show(group)}`,
    );
  });
}

/** perNode mode names its nodes (each once, each a node name); cluster mode names none. */
function validateNodes(spec: EtcdSpec, path: PolicyPath, issues: IssueList): void {
  const at = (field: string) => [...path, field];
  const mode = etcdMode(spec);
  const nodes = (spec.nodes ?? []).map(namedEntry);
  if (mode === 'perNode' && nodes.length === 0) {
    issues.add(at('nodes'), 'perNode mode needs the control-plane nodes to back up (one CronJob each)');
  }
  if (mode === 'cluster' && spec.nodes !== undefined) {
    issues.add(
      at('nodes'),
      'only valid with mode: perNode (cluster mode runs on any node with the control-plane role)',
    );
  }
  validateNamedEntries(spec.nodes ?? [], path, 'nodes', 'node', issues);
  // a node name pins pods through the kubernetes.io/hostname label: a label value
  (spec.nodes ?? []).forEach((entry, i) => {
    const at = [...path, 'nodes', i];
    const problem = nodePinProblem(namedEntry(entry).name);
    if (problem) issues.add(typeof entry === 'string' ? at : [...at, 'name'], problem);
  });
}
