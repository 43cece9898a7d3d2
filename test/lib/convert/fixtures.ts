// The anchors' own documented objects, written from the facts the reference files quote
// (section cited on each), and a helper that converts, prints, re-reads and renders them.
import { renderPolicy } from '../../../lib';
import { convertDocuments } from '../../../lib/convert';
import { convertedYaml } from '../../../lib/convert/command';
import type { Note } from '../../../lib/convert';
import { loadPolicies } from '../../../lib/model/load';
import type { Manifest } from '../../../lib/kubernetes/objects';

/** An operator object's fields beyond those typed here: plain JSON, as a test adds, overrides or deletes them. */
export type Fields = { [field: string]: unknown };

/** An operator object as these fixtures build it (one of the kinds `convert` reads). */
export interface OperatorObject<Spec extends Fields = Fields> {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec: Spec;
  status?: Fields;
}

/** A shard template (vitess.md §1): the tests change its first tablet pool. */
export interface ShardTemplate extends Fields {
  tabletPools: Fields[];
}

/** A keyspace partitioning: the fixtures' are `equal`; a test may write a `custom` one. */
export interface Partitioning extends Fields {
  equal?: { parts: number; hexWidth?: number; shardTemplate: ShardTemplate };
}

export interface Keyspace extends Fields {
  name: string;
  partitionings: Partitioning[];
}

/** A VitessCluster's spec.backup. */
export interface VitessBackup extends Fields {
  locations: unknown[];
  schedules?: Fields[];
}

/** The parts of a VitessCluster's spec the tests read or change after building one. */
export interface VitessClusterSpec extends Fields {
  backup?: VitessBackup;
  images?: Fields;
  keyspaces: Keyspace[];
}

export type VitessCluster = OperatorObject<VitessClusterSpec>;

/** A shard template as in 401_scheduled_backups.yaml (vitess.md §4.3): one replica pool, mysqld cpu 100m, a 10Gi data volume. */
export function shardTemplate(pool: Fields = {}, template: Fields = {}): ShardTemplate {
  return {
    databaseInitScriptSecret: { name: 'example-cluster-config', key: 'init_db.sql' },
    tabletPools: [
      {
        cell: 'zone1',
        type: 'replica',
        replicas: 3,
        vttablet: { extraFlags: { db_charset: 'utf8mb4' }, resources: { requests: { cpu: '100m', memory: '256Mi' } } },
        mysqld: { resources: { requests: { cpu: '100m', memory: '512Mi' } } },
        dataVolumeClaimTemplate: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } },
        ...pool,
      },
    ],
    ...template,
  };
}

const historyAndTimeout = {
  resources: { requests: { cpu: '100m', memory: '1024Mi' }, limits: { memory: '1024Mi' } },
  successfulJobsHistoryLimit: 2,
  failedJobsHistoryLimit: 3,
  jobTimeoutMinute: 5,
};

/** A VitessCluster with backup schedules of its own. */
export type ScheduledVitessCluster = VitessCluster & {
  spec: { backup: VitessBackup & { schedules: Fields[] } };
};

/** vitess.md §4.3: the HEAD e2e manifest 401_scheduled_backups.yaml (spec.backup and images as quoted; keyspaces from its summary). */
export function cluster401(): ScheduledVitessCluster {
  return {
    apiVersion: 'planetscale.com/v2',
    kind: 'VitessCluster',
    metadata: { name: 'example', namespace: 'example' },
    spec: {
      backup: {
        engine: 'xtrabackup',
        locations: [{ volume: { persistentVolumeClaim: { claimName: 'vitess-backups' } } }],
        schedules: [
          {
            name: 'commerce',
            schedule: '*/2 * * * *',
            ...historyAndTimeout,
            strategies: [{ name: 'commerce_x', keyspace: 'commerce', shard: '-' }],
          },
          {
            name: 'customer',
            schedule: '*/2 * * * *',
            ...historyAndTimeout,
            strategies: [
              { name: 'customer_80-x', keyspace: 'customer', shard: '8000-' },
              { name: 'customer_x-80', keyspace: 'customer', shard: '-8000' },
            ],
          },
          {
            name: 'cluster-daily',
            frequency: '24h',
            ...historyAndTimeout,
            strategies: [{ name: 'all', scope: 'Cluster' }],
          },
          {
            name: 'frequent-customer',
            frequency: '6h',
            ...historyAndTimeout,
            strategies: [{ name: 'customer-all', scope: 'Keyspace', keyspace: 'customer' }],
          },
        ],
      },
      images: {
        vtctld: 'vitess/lite:mysql80',
        vtgate: 'vitess/lite:mysql80',
        vttablet: 'vitess/lite:mysql80',
        vtorc: 'vitess/lite:mysql80',
        vtbackup: 'vitess/lite:mysql80',
        mysqld: { mysql80Compatible: 'vitess/lite:mysql80' },
        mysqldExporter: 'prom/mysqld-exporter:v0.18.0',
      },
      cells: [{ name: 'zone1' }],
      keyspaces: [
        {
          name: 'commerce',
          durabilityPolicy: 'semi_sync',
          partitionings: [{ equal: { parts: 1, shardTemplate: shardTemplate() } }],
        },
        {
          name: 'customer',
          durabilityPolicy: 'semi_sync',
          partitionings: [{ equal: { parts: 2, hexWidth: 4, shardTemplate: shardTemplate() } }],
        },
      ],
      updateStrategy: { type: 'Immediate' },
    },
  };
}

/** A cluster named `name` with keyspaces of `parts` equal shards each and no schedule of its own. */
export function cluster(name: string, keyspaces: Record<string, number>, spec: Fields = {}): VitessCluster {
  return {
    apiVersion: 'planetscale.com/v2',
    kind: 'VitessCluster',
    metadata: { name, namespace: 'example' },
    spec: {
      backup: { locations: [{ volume: { persistentVolumeClaim: { claimName: 'vitess-backups' } } }] },
      images: { vtbackup: 'vitess/lite:mysql80', mysqld: { mysql80Compatible: 'vitess/lite:mysql80' } },
      keyspaces: Object.entries(keyspaces).map(([ks, parts]) => ({
        name: ks,
        partitionings: [{ equal: { parts, shardTemplate: shardTemplate() } }],
      })),
      ...spec,
    },
  };
}

/** A VitessBackupSchedule object (vitess.md §1.2) of `cluster`. */
export function backupSchedule(name: string, clusterName: string, spec: Fields): OperatorObject {
  return {
    apiVersion: 'planetscale.com/v2',
    kind: 'VitessBackupSchedule',
    metadata: { name, namespace: 'example', labels: { 'planetscale.com/cluster': clusterName } },
    spec: { name, cluster: clusterName, resources: {}, ...spec },
  };
}

/** etcd.md §8.1: the `Backup` of periodicbackupcontroller_test.go. */
export function openshiftBackup(etcd: Fields = {}): OperatorObject {
  return {
    apiVersion: 'config.openshift.io/v1alpha1',
    kind: 'Backup',
    metadata: { name: 'test-backup' },
    spec: {
      etcd: {
        schedule: '20 4 * * *',
        timeZone: 'UTC',
        retentionPolicy: { retentionType: 'RetentionNumber', retentionNumber: { maxNumberOfBackups: 5 } },
        pvcName: 'backup-happy-path-pvc',
        ...etcd,
      },
    },
  };
}

/** The seed's ShardedRedisBackup (seeds/004, also redis-and-peers.md A.3's examples), with its status. */
export function shardedRedisBackup(spec: Fields = {}, withStatus = true): OperatorObject {
  return {
    apiVersion: 'saas.3scale.net/v1alpha1',
    kind: 'ShardedRedisBackup',
    metadata: { name: 'backup', namespace: 'default' },
    spec: {
      dbFile: '/data/dump.rdb',
      historyLimit: 2,
      pause: false,
      pollInterval: '10s',
      s3Options: {
        bucket: 'my-bucket',
        credentialsSecretRef: { name: 'aws-credentials' },
        path: 'backups',
        region: 'us-east-1',
        serviceEndpoint: 'http://minio.default.svc.cluster.local:9000',
      },
      schedule: '* * * * *',
      sentinelRef: 'sentinel',
      sshOptions: {
        port: 2222,
        privateKeySecretRef: { name: 'redis-backup-ssh-private-key' },
        sudo: true,
        user: 'docker',
      },
      timeout: '5m0s',
      ...spec,
    },
    ...(withStatus
      ? {
          status: {
            backups: [
              { message: 'backup scheduled', scheduledFor: '2023-09-20T08:33:00Z', shard: 'shard02', state: 'Pending' },
              { message: 'backup scheduled', scheduledFor: '2023-09-20T08:33:00Z', shard: 'shard01', state: 'Pending' },
            ],
          },
        }
      : {}),
  };
}

/** saas-operator's examples/backend/redis-v6/sentinel.yaml (the Sentinel the seed's sentinelRef names), in the backup's namespace. */
export function sentinel(spec: Fields = {}): OperatorObject {
  return {
    apiVersion: 'saas.3scale.net/v1alpha1',
    kind: 'Sentinel',
    metadata: { name: 'sentinel', namespace: 'default' },
    spec: {
      replicas: 3,
      config: {
        monitoredShards: {
          shard01: [
            'redis://redis-shard-shard01-0.redis-shard-shard01:6379',
            'redis://redis-shard-shard01-1.redis-shard-shard01:6379',
          ],
          shard02: [
            'redis://redis-shard-shard02-0.redis-shard-shard02:6379',
            'redis://redis-shard-shard02-1.redis-shard-shard02:6379',
          ],
        },
      },
      ...spec,
    },
  };
}

export interface Converted {
  readonly notes: Note[];
  /** The printed policies, read back as a user's file would be. */
  readonly yaml: string[];
  /** What `synth` renders from each printed policy, but its script ConfigMap (the same for any converted policy; test/lib/workload covers it). */
  readonly objects: Manifest[][];
}

const isScriptsConfigMap = (o: Manifest) => o.kind === 'ConfigMap' && /-scripts-[0-9a-f]{10}$/.test(o.metadata.name);

/** convert → YAML → load → render, as `convert` then `synth` would. */
export function convertAndRender(docs: unknown[]): Converted {
  const { policies, notes } = convertDocuments(docs, 'input.yaml');
  const yaml = policies.map(convertedYaml);
  return {
    notes,
    yaml,
    objects: yaml.map((text) =>
      loadPolicies(text, 'converted.yaml')
        .flatMap((p) => renderPolicy(p))
        .filter((o) => !isScriptsConfigMap(o)),
    ),
  };
}

export const byName = (objects: Manifest[]) => new Map(objects.map((o) => [o.metadata.name, o]));
export const errors = (notes: Note[]) => notes.filter((n) => n.level === 'error');

/** YAML with consecutive comment lines joined into one (undoes the wrapping of long comments). */
export const unwrapped = (yaml: string) => yaml.replace(/(?<=#[^\n]*)\n[ ]*# (?=[^ ])/g, ' ');
