/** Issue 20.7: every field convert does not carry over gets a note with the reason, unknown fields included. */
import { convertDocuments, Note } from '../../../lib/convert';
import { BACKUP_FIELDS } from '../../../lib/convert/openshift';
import { SRB_FIELDS } from '../../../lib/convert/redis';
import { VITESS_BACKUP_FIELDS } from '../../../lib/convert/vitess-pool';
import { cluster, openshiftBackup, sentinel, shardedRedisBackup } from './fixtures';

const notesOf = (docs: unknown[]): Note[] => convertDocuments(docs, 'test.yaml').notes;
const unknownPaths = (notes: Note[]) =>
  notes.filter((n) => n.message.includes('that convert knows')).map((n) => n.path);

describe('ShardedRedisBackup', () => {
  test('a field of the spec or of s3Options that the operator does not have is noted; no error', () => {
    const srb = shardedRedisBackup({
      retention: '7d',
      s3Options: { bucket: 'backups', path: 'p', region: 'eu-west-1', storageClass: 'GLACIER' },
    });
    const notes = notesOf([srb, sentinel()]);
    expect(notes.filter((n) => n.level === 'error')).toEqual([]);
    expect(unknownPaths(notes)).toEqual(['spec.retention', 'spec.s3Options.storageClass']);
    expect(notes.find((n) => n.path === 'spec.retention')!.message).toBe(
      'not a field of ShardedRedisBackup (saas-operator a10ed06) that convert knows: not carried over',
    );
  });

  test('every field the operator has is either carried over or noted with its own reason', () => {
    const srb = shardedRedisBackup({
      pause: false,
      pollInterval: '10s',
      dbFile: '/data/dump.rdb',
      sshOptions: { user: 'root', privateKeySecretRef: { name: 'ssh' }, port: 22 },
      s3Options: {
        bucket: 'backups',
        path: 'p',
        region: 'eu-west-1',
        serviceEndpoint: 'http://minio:9000',
        credentialsSecretRef: { name: 's' },
      },
    });
    const spec = srb.spec as Record<string, Record<string, unknown>>;
    expect(Object.keys(spec).sort()).toEqual([...SRB_FIELDS.spec].sort());
    expect(Object.keys(spec.s3Options).sort()).toEqual([...SRB_FIELDS.s3Options].sort());
    expect(unknownPaths(notesOf([srb, sentinel()]))).toEqual([]);
  });
});

describe('OpenShift Backup', () => {
  test('unknown fields at every level are noted', () => {
    const backup = openshiftBackup({
      compression: 'gzip',
      retentionPolicy: { retentionType: 'RetentionNumber', retentionNumber: { maxNumberOfBackups: 3, minAge: '1d' } },
    });
    (backup.spec as Record<string, unknown>).apiserver = {};
    expect(unknownPaths(notesOf([backup]))).toEqual([
      'spec.apiserver',
      'spec.etcd.compression',
      'spec.etcd.retentionPolicy.retentionNumber.minAge',
    ]);
  });

  test('the member of the retention union that OpenShift ignores is noted, for either type', () => {
    const both = { retentionNumber: { maxNumberOfBackups: 3 }, retentionSize: { maxSizeOfBackupsGb: 5 } };
    const bySize = notesOf([openshiftBackup({ retentionPolicy: { retentionType: 'RetentionSize', ...both } })]);
    expect(bySize).toContainEqual(
      expect.objectContaining({
        path: 'spec.etcd.retentionPolicy.retentionNumber',
        message: 'ignored by OpenShift with retentionType: RetentionSize; not carried over',
      }),
    );
    const byNumber = notesOf([openshiftBackup({ retentionPolicy: { retentionType: 'RetentionNumber', ...both } })]);
    expect(byNumber).toContainEqual(
      expect.objectContaining({
        path: 'spec.etcd.retentionPolicy.retentionSize',
        message: 'ignored by OpenShift with retentionType: RetentionNumber; not carried over',
      }),
    );
  });

  test("the known field lists are the API's", () => {
    expect(BACKUP_FIELDS.etcd).toEqual(['schedule', 'timeZone', 'retentionPolicy', 'pvcName']);
  });
});

describe('VitessCluster spec.backup', () => {
  const withBackup = (backup: Record<string, unknown>) => [
    cluster('example', { commerce: 1 }, { backup }),
    {
      apiVersion: 'planetscale.com/v2',
      kind: 'VitessBackupSchedule',
      metadata: { name: 'daily', namespace: 'example' },
      spec: {
        name: 'daily',
        cluster: 'example',
        schedule: '0 1 * * *',
        strategies: [{ name: 'all', scope: 'Cluster' }],
      },
    },
  ];

  test("the subcontroller, a location's annotations and unknown storage fields are noted", () => {
    const notes = notesOf(
      withBackup({
        subcontroller: { serviceAccountName: 'backup' },
        retries: 3,
        locations: [
          {
            annotations: { 'iam.example.com/role': 'backup' },
            s3: { region: 'eu-west-1', bucket: 'b', serverSideEncryption: 'AES256' },
          },
        ],
      }),
    );
    expect(notes.filter((n) => n.level === 'error')).toEqual([]);
    expect(unknownPaths(notes)).toEqual(['spec.backup.retries', 'spec.backup.locations[0].s3.serverSideEncryption']);
    const paths = notes.map((n) => n.path);
    expect(paths).toContain('spec.backup.subcontroller');
    expect(paths).toContain('spec.backup.locations[0].annotations');
  });

  test('a location using every known S3 field has no unknown-field note', () => {
    const s3 = Object.fromEntries(
      VITESS_BACKUP_FIELDS.s3.map((f) => [
        f,
        f === 'forcePathStyle'
          ? true
          : f === 'minPartSize'
            ? 5242880
            : f === 'authSecret'
              ? { name: 's', key: 'k' }
              : 'x',
      ]),
    );
    expect(unknownPaths(notesOf(withBackup({ locations: [{ name: '', s3 }] })))).toEqual([]);
  });
});
