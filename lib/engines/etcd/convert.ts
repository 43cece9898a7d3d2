/**
 * OpenShift's `Backup` (config.openshift.io/v1alpha1, cluster-etcd-operator's
 * AutomatedEtcdBackup) → an etcd BackupPolicy. What OpenShift renders is in
 * reference etcd.md §1.2-§1.6: a CronJob in openshift-etcd (Forbid, history
 * 5/10) on the masters tolerating every taint, pruning the PVC with
 * `prune-backups` before a Job (deadline 900 s) takes the snapshot.
 */
import { API_VERSION, KIND } from '../../policy/types';
import type { EngineConverter } from '../convert';
import { Draft, FieldComment, Notes, Obj, asInt, asObj, asStr, objectName, splitCronTimeZone } from '../convert';

/** Where OpenShift runs the backups and keeps the PVC. */
const OPENSHIFT_ETCD_NAMESPACE = 'openshift-etcd';
/** `setRetentionPolicyInitContainer` defaults (periodicbackupcontroller.go). */
const DEFAULT_MAX_NUMBER = 15;
const DEFAULT_MAX_SIZE_GB = 10;
/** Every field of Backup's spec (openshift/api config/v1alpha1 types_backup.go, reference etcd.md §1.1). */
export const BACKUP_FIELDS = {
  spec: ['etcd'],
  etcd: ['schedule', 'timeZone', 'retentionPolicy', 'pvcName'],
  retentionPolicy: ['retentionType', 'retentionNumber', 'retentionSize'],
  retentionNumber: ['maxNumberOfBackups'],
  retentionSize: ['maxSizeOfBackupsGb'],
} as const;
const BACKUP_SOURCE = 'Backup (config.openshift.io/v1alpha1)';

export function convertOpenShiftBackup(doc: Obj, notes: Notes): Draft | undefined {
  const meta = asObj(doc.metadata);
  const object = objectName('Backup', meta);
  const name = asStr(meta?.name);
  if (!name) {
    notes.error(object, 'metadata.name', 'a Backup needs a name (OpenShift names its CronJob after it)');
    return undefined;
  }
  const etcd = asObj(asObj(doc.spec)?.etcd) ?? {};
  const policy = asObj(etcd.retentionPolicy);
  notes.unknownFields(object, 'spec', asObj(doc.spec), BACKUP_FIELDS.spec, BACKUP_SOURCE);
  notes.unknownFields(object, 'spec.etcd', etcd, BACKUP_FIELDS.etcd, BACKUP_SOURCE);
  notes.unknownFields(object, 'spec.etcd.retentionPolicy', policy, BACKUP_FIELDS.retentionPolicy, BACKUP_SOURCE);
  notes.unknownFields(
    object,
    'spec.etcd.retentionPolicy.retentionNumber',
    asObj(policy?.retentionNumber),
    BACKUP_FIELDS.retentionNumber,
    BACKUP_SOURCE,
  );
  notes.unknownFields(
    object,
    'spec.etcd.retentionPolicy.retentionSize',
    asObj(policy?.retentionSize),
    BACKUP_FIELDS.retentionSize,
    BACKUP_SOURCE,
  );
  const comments: FieldComment[] = [{ path: [], text: `Converted from ${object} by backup-cronjobs convert.` }];
  const retention = retentionRules(asObj(etcd.retentionPolicy), object, notes, comments);
  if (!retention) return undefined;
  const defaults: Record<string, unknown> = {};
  const rawSchedule = asStr(etcd.schedule);
  const split = rawSchedule ? splitCronTimeZone(rawSchedule) : undefined;
  if (split) defaults.schedule = split.schedule;
  const timeZone = asStr(etcd.timeZone) ?? split?.timeZone;
  if (timeZone) defaults.timeZone = timeZone;
  if (split?.timeZone)
    comments.push({
      path: ['spec', 'defaults', 'timeZone'],
      text: `From the schedule's ${rawSchedule!.split('=')[0]}= prefix, which the CronJob API refuses in a schedule.`,
    });
  if (!rawSchedule) {
    defaults.suspend = true;
    comments.push({
      path: ['spec', 'defaults', 'suspend'],
      text: 'spec.etcd.schedule is empty ("no opinion"): OpenShift copies it into its CronJob, which the API server refuses, so it takes no backups. Suspended here: set a schedule and remove this.',
    });
    notes.note(
      object,
      'spec.etcd.schedule',
      'empty: OpenShift takes no backups; the policy is suspended with the default schedule (@daily) until you set one',
    );
  }
  if (!timeZone)
    comments.push({
      path: ['spec', 'defaults'],
      text: "No timeZone: the kube-controller-manager's, as OpenShift's CronJob.",
    });
  Object.assign(defaults, { successfulJobsHistoryLimit: 5, failedJobsHistoryLimit: 10, timeout: '15m' });
  comments.push(
    {
      path: ['spec', 'defaults', 'successfulJobsHistoryLimit'],
      text: "OpenShift's CronJob keeps 5 successful and 10 failed Jobs (concurrencyPolicy Forbid, the default here too).",
    },
    {
      path: ['spec', 'defaults', 'timeout'],
      text: "The deadline of OpenShift's backup Job (activeDeadlineSeconds 900).",
    },
  );
  const pvc = asStr(etcd.pvcName);
  const spec = {
    defaults,
    retention,
    etcd: {
      mode: 'cluster',
      nodeRole: 'master',
      tolerateAllTaints: true,
      ...(pvc ? { destination: { persistentVolumeClaim: { claimName: pvc } } } : {}),
    },
  };
  comments.push(
    { path: ['spec', 'etcd', 'mode'], text: 'One snapshot per run from any master, as OpenShift takes it.' },
    {
      path: ['spec', 'etcd', 'tolerateAllTaints'],
      text: "OpenShift's backup pods run on node-role.kubernetes.io/master nodes tolerating every taint (operator: Exists).",
    },
  );
  if (pvc) {
    comments.push({
      path: ['spec', 'etcd', 'destination'],
      text: "spec.etcd.pvcName: the claim must be in openshift-etcd; ReadWriteMany, or pinned to one master, when its volume is node-local (OpenShift's example is a hostPath PV without node affinity).",
    });
  } else {
    comments.push({
      path: ['spec', 'etcd'],
      text: 'No pvcName: OpenShift renders claimName "" and its CronJob is refused; here the snapshots go to /var/lib/etcd-backup on the master that takes them (the default hostPath destination).',
    });
    notes.note(
      object,
      'spec.etcd.pvcName',
      'not set: OpenShift cannot run such a Backup; the policy writes to the default hostPath /var/lib/etcd-backup on the master that runs the backup: set spec.etcd.destination for one place',
    );
  }
  notes.note(
    object,
    'spec.etcd',
    "OpenShift's backup Job reads the client certificate from the Secret openshift-etcd/etcd-client and the CA from the ConfigMap etcd-ca; this policy reads them from a host directory: set spec.etcd.certificates (hostPath, caFile, certFile, keyFile) to a client certificate on your masters, and images.etcd to your cluster's etcd version",
  );
  return {
    source: object,
    document: { apiVersion: API_VERSION, kind: KIND, metadata: { name, namespace: OPENSHIFT_ETCD_NAMESPACE }, spec },
    comments: [
      {
        path: ['metadata', 'namespace'],
        text: "OpenShift's own: where the PVC lives and the etcd pods run (privileged pods are allowed).",
      },
      ...comments,
    ],
    origins: {
      'spec.defaults.schedule': { object, path: 'spec.etcd.schedule' },
      'spec.defaults.timeZone': { object, path: 'spec.etcd.timeZone' },
      'spec.etcd.destination.persistentVolumeClaim.claimName': { object, path: 'spec.etcd.pvcName' },
    },
  };
}

/** `setRetentionPolicyInitContainer`: the prune arguments OpenShift derives, as retention rules. */
function retentionRules(
  policy: Obj | undefined,
  object: string,
  notes: Notes,
  comments: FieldComment[],
): Record<string, unknown> | undefined {
  const type = asStr(policy?.retentionType) ?? '';
  const number = asInt(asObj(policy?.retentionNumber)?.maxNumberOfBackups);
  const size = asInt(asObj(policy?.retentionSize)?.maxSizeOfBackupsGb);
  if (type === 'RetentionSize') {
    const gb = size ?? DEFAULT_MAX_SIZE_GB;
    if (number !== undefined)
      notes.note(
        object,
        'spec.etcd.retentionPolicy.retentionNumber',
        'ignored by OpenShift with retentionType: RetentionSize; not carried over',
      );
    comments.push({
      path: ['spec', 'retention', 'maxTotalSize'],
      text: `maxSizeOfBackupsGb ${size ?? `unset: OpenShift's default ${DEFAULT_MAX_SIZE_GB}`}; OpenShift's "Gb" is GiB (x 1024^3 bytes). It deletes every backup past the budget, newest first, even the newest when it alone is over; here the newest is always kept.`,
    });
    return { maxTotalSize: `${gb}Gi` };
  }
  if (type !== '' && type !== 'RetentionNumber') {
    notes.error(
      object,
      'spec.etcd.retentionPolicy.retentionType',
      `received "${type}"; OpenShift fails with "unknown retention type" (it knows RetentionNumber and RetentionSize)`,
    );
    return undefined;
  }
  const keep = number ?? DEFAULT_MAX_NUMBER;
  const why = !policy
    ? `retentionPolicy unset: OpenShift's default, RetentionNumber with ${DEFAULT_MAX_NUMBER}`
    : `maxNumberOfBackups ${number ?? `unset: OpenShift's default ${DEFAULT_MAX_NUMBER}`}`;
  if (type === 'RetentionNumber' && size !== undefined) {
    notes.note(
      object,
      'spec.etcd.retentionPolicy.retentionSize',
      'ignored by OpenShift with retentionType: RetentionNumber; not carried over',
    );
  }
  if (type === '' && size !== undefined) {
    notes.note(
      object,
      'spec.etcd.retentionPolicy.retentionSize',
      `ignored by OpenShift without retentionType: RetentionSize (it keeps ${keep} backups); converted the same way: set retention.maxTotalSize: ${size}Gi instead of keepLast if you meant the size`,
    );
  }
  comments.push({
    path: ['spec', 'retention', 'keepLast'],
    text: `${why}. OpenShift prunes before each backup (${keep + 1} remain after a run); here pruning follows the verified backup and ${keep} remain, as its API documents.`,
  });
  return { keepLast: keep };
}

/** `convert` for OpenShift's etcd Backup objects: one etcd policy each. */
export const openShiftBackupConverter: EngineConverter = {
  kinds: [{ apiVersion: 'config.openshift.io/v1alpha1', kind: 'Backup' }],
  convert: (of, notes) => of('Backup').map((d) => convertOpenShiftBackup(d, notes)),
};
