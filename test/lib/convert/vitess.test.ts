// VitessCluster (+ VitessBackupSchedule) → policy → rendered CronJobs, against what vitess-operator runs
// for the same objects: its flag set (vitess.md §7 A) and its schedules (§4.4) for the 401 manifest (§4.3).
import { expectValidManifests } from '../../support/k8s-validate';
import { type KubeObject, argsOf, containerOf, cronJobSpecOf, jobSpecOf, podSpecOf } from '../../support/kube';
import type { Manifest } from '../../../lib';
import { backupScheduleName } from '../../../lib/convert/vitess-names';
import { backupSchedule, cluster, cluster401, convertAndRender, errors, shardTemplate, unwrapped } from './fixtures';

const vtbackup = (o: KubeObject) => containerOf(o, 'vtbackup');

/** Label `key` of a rendered object; throws when it has none. */
function label(o: Manifest, key: string): string {
  const value = o.metadata.labels?.[key];
  if (value === undefined) throw new Error(`${o.metadata.name} has no label ${key}`);
  return value;
}

/** The value of the flag `--name=value` among `args`; throws when it is not there. */
function flagValue(args: readonly string[], name: string): string {
  const arg = args.find((a) => a.startsWith(`--${name}=`));
  if (arg === undefined) throw new Error(`no --${name}= in ${args.join(' ')}`);
  return arg.slice(`--${name}=`.length);
}

// vitess.md §7 A: the operator's vtbackup args for commerce/- of cluster example (xtrabackup, the
// vitess-backups PVC, mysqld cpu request 100m, vitess/lite:mysql80, managed etcd), verbatim.
const VECTOR_A = [
  '--backup_engine_implementation=xtrabackup',
  '--backup_storage_compress=true',
  '--backup_storage_implementation=file',
  '--builtinbackup-incremental-restore-path=/vt/vtdataroot',
  '--concurrency=10',
  '--db_charset=utf8mb4',
  '--db_dba_user=vt_dba',
  '--file_backup_storage_root=/vt/backups/example',
  '--init_db_name_override=vt_commerce',
  '--init_db_sql_file=/vt/secrets/db-init-script/init_db.sql',
  '--init_keyspace=commerce',
  '--init_shard=-',
  '--initial_backup=false',
  '--logtostderr=true',
  '--min_backup_interval=0s',
  '--min_retention_count=1',
  '--min_retention_time=0s',
  '--mysql_socket=/vt/socket/mysql.sock',
  '--topo_global_root=/vitess/example/global',
  '--topo_global_server_address=example-etcd-faf13de3-client.example.svc:2379',
  '--topo_implementation=etcd2',
  '--xbstream_restore_flags=--parallel=1',
  '--xtrabackup_backup_flags=--parallel=1',
  '--xtrabackup_stream_mode=xbstream',
  '--xtrabackup_stripes=8',
  '--xtrabackup_user=vt_dba',
];

/** §7 A for another shard of the same cluster: only the keyspace/shard flags differ (§2.7). */
function operatorArgs(keyspace: string, shard: string): string[] {
  return VECTOR_A.map((a) =>
    a
      .replace(/^--init_keyspace=.*/, `--init_keyspace=${keyspace}`)
      .replace(/^--init_shard=.*/, `--init_shard=${shard}`)
      .replace(/^--init_db_name_override=.*/, `--init_db_name_override=vt_${keyspace}`),
  );
}

/**
 * The args a run passes to vtbackup: the rendered ones plus the type flag the entry script adds at run
 * time; for a shard that has backups (the only kind the operator's HEAD backs up on a schedule) that is
 * --initial_backup=false (docs/engines/vitess.md, "Backup type at run time").
 */
const runArgs = (o: KubeObject): string[] => [...argsOf(o, 'vtbackup'), '--initial_backup=false'].sort();

describe('the 401 manifest (vitess.md §4.3)', () => {
  const {
    notes,
    objects: [objects],
  } = convertAndRender([cluster401()]);

  test('converts without errors into CronJobs that validate', () => {
    expect(errors(notes)).toEqual([]);
    expectValidManifests(objects);
  });

  test("one CronJob per (schedule, shard) at the operator's times: crons as written, frequencies hashed as §4.4 says", () => {
    const runs = objects.map((o) => [
      cronJobSpecOf(o).schedule,
      label(o, 'planetscale.com/keyspace'),
      label(o, 'planetscale.com/shard'),
    ]);
    expect(runs.sort()).toEqual(
      [
        ['*/2 * * * *', 'commerce', 'x-x'],
        ['*/2 * * * *', 'customer', '8000-x'],
        ['*/2 * * * *', 'customer', 'x-8000'],
        // cluster-daily: all-commerce-x-x only; customer is claimed by frequent-customer's Keyspace strategy
        ['58 12 * * *', 'commerce', 'x-x'],
        // frequent-customer: customer-all-customer-x-8000 and customer-all-customer-8000-x
        ['18 2/6 * * *', 'customer', 'x-8000'],
        ['31 2/6 * * *', 'customer', '8000-x'],
      ].sort(),
    );
  });

  test("every run gets the operator's flag set for its shard (§7 A)", () => {
    for (const o of objects) {
      const shard = flagValue(argsOf(o, 'vtbackup'), 'init_shard');
      expect(runArgs(o)).toEqual(operatorArgs(label(o, 'planetscale.com/keyspace'), shard).sort());
    }
  });

  test("jobTimeoutMinute 5 and history limits 2/3 on every CronJob; the pool's mysqld resources and data volume", () => {
    for (const o of objects) {
      const spec = cronJobSpecOf(o);
      expect([
        jobSpecOf(o).activeDeadlineSeconds,
        spec.successfulJobsHistoryLimit,
        spec.failedJobsHistoryLimit,
      ]).toEqual([300, 2, 3]);
      // the pool's requests; vtbackup's default memory limit where the operator sets none
      expect(vtbackup(o).resources).toEqual({ requests: { cpu: '100m', memory: '512Mi' }, limits: { memory: '1Gi' } });
      const claim = podSpecOf(o).volumes?.find((v) => v.name === 'persistent-volume-claim');
      expect(claim?.ephemeral?.volumeClaimTemplate?.spec).toMatchObject({
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '10Gi' } },
      });
    }
  });

  test('the printed policy says where each choice came from', () => {
    const yaml = unwrapped(convertAndRender([cluster401()]).yaml[0]);
    expect(yaml).toContain('# From VitessCluster example/example spec.backup.schedules[2] (schedule "cluster-daily")');
    expect(yaml).toContain(
      '# Named after the strategy "all", so this frequency becomes the same cron per shard as in the operator',
    );
    expect(yaml).toContain('# jobTimeoutMinute 5;');
    expect(yaml).toContain(
      "# No spec.retention: the operator's scheduled vtbackup runs never prune (--min_retention_time=0s)",
    );
  });
});

describe('VitessBackupSchedule objects joined with their cluster', () => {
  test('a VitessBackupSchedule the operator made from a template is the template, not a second schedule', () => {
    const c = cluster401();
    const template = c.spec.backup.schedules[0];
    // as read back from the API server: the operator's image, the CRD's defaults (§1.2)
    const generated = backupSchedule(backupScheduleName('example', 'commerce'), 'example', {
      ...template,
      image: 'vitess/lite:mysql80',
      concurrencyPolicy: 'Forbid',
      backupMethod: 'vtbackup',
    });
    const {
      notes,
      objects: [objects],
    } = convertAndRender([c, generated]);
    // only the template's own notes (its resources, which vtbackup does not take), none for the generated object
    expect(notes.map((n) => `${n.object} ${n.path}`)).toEqual(
      [0, 1, 2, 3].map((i) => `VitessCluster example/example spec.backup.schedules[${i}].resources`),
    );
    expect(objects).toHaveLength(6);
  });

  test('one that differs from its template: the template is converted, and a note says so', () => {
    const c = cluster401();
    const generated = backupSchedule(backupScheduleName('example', 'commerce'), 'example', {
      ...c.spec.backup.schedules[0],
      schedule: '0 * * * *',
    });
    const {
      notes,
      objects: [objects],
    } = convertAndRender([c, generated]);
    expect(objects.filter((o) => cronJobSpecOf(o).schedule === '0 * * * *')).toEqual([]);
    expect(notes.filter((n) => !n.path.endsWith('.resources'))).toEqual([
      expect.objectContaining({
        level: 'note',
        object: 'VitessBackupSchedule example/example-vbsc-commerce-ca641fc1',
        path: 'spec',
      }),
    ]);
  });

  test("a schedule created on its own is added to its cluster's policy", () => {
    const own = backupSchedule('hourly', 'example', {
      schedule: '0 * * * *',
      strategies: [{ name: 'c', keyspace: 'commerce', shard: '-' }],
    });
    const {
      notes,
      objects: [objects],
    } = convertAndRender([cluster401(), own]);
    expect(errors(notes)).toEqual([]);
    const hourly = objects.filter((o) => cronJobSpecOf(o).schedule === '0 * * * *');
    expect(hourly.map((o) => o.metadata.name)).toEqual(['example-hourly-commerce-x-x']);
  });

  test('a VitessBackupSchedule without its VitessCluster cannot be converted', () => {
    const { notes, yaml } = convertAndRender([
      backupSchedule('hourly', 'example', {
        schedule: '0 * * * *',
        strategies: [{ name: 'c', keyspace: 'commerce', shard: '-' }],
      }),
    ]);
    expect(yaml).toEqual([]);
    expect(errors(notes)).toEqual([
      {
        level: 'error',
        object: 'VitessBackupSchedule example/hourly',
        path: 'spec.cluster',
        message:
          'names VitessCluster "example", which is not in the input: give it too (storage, topology, images and keyspaces come from it)',
      },
    ]);
  });
});

describe('keyspaces with their own storage or images', () => {
  test('become their own policy, named after the cluster and a keyspace', () => {
    const c = cluster(
      'example',
      { commerce: 1, customer: 2 },
      {
        backup: {
          locations: [
            { volume: { persistentVolumeClaim: { claimName: 'vitess-backups' } } },
            { name: 'fast', s3: { region: 'eu-west-1', bucket: 'fast' } },
          ],
          schedules: [{ name: 'daily', schedule: '0 3 * * *', strategies: [{ name: 'all', scope: 'Cluster' }] }],
        },
      },
    );
    c.spec.keyspaces[1].partitionings[0].equal!.shardTemplate = shardTemplate({ backupLocationName: 'fast' });
    const { notes, objects } = convertAndRender([c]);
    expect(errors(notes)).toEqual([]);
    expect(objects.map((os) => os.map((o) => o.metadata.name))).toEqual([
      ['example-commerce-daily-commerce-x-x'],
      ['example-customer-daily-customer-x-80', 'example-customer-daily-customer-80-x'],
    ]);
    expect(vtbackup(objects[1][0]).args).toContain('--s3_backup_storage_bucket=fast');
  });
});

describe("the pool's vtbackupExtraFlags", () => {
  const withFlags = (flags: Record<string, string>) => {
    const c = cluster(
      'example',
      { commerce: 1 },
      {
        backup: {
          locations: [{ volume: { persistentVolumeClaim: { claimName: 'vitess-backups' } } }],
          schedules: [
            { name: 'daily', schedule: '0 3 * * *', strategies: [{ name: 's', keyspace: 'commerce', shard: '-' }] },
          ],
        },
      },
    );
    c.spec.keyspaces[0].partitionings[0].equal!.shardTemplate = shardTemplate({
      vttablet: { vtbackupExtraFlags: flags },
    });
    return convertAndRender([c]);
  };

  test('reach vtbackup, below the flags the operator sets itself, which it overrides (§2.12)', () => {
    const {
      notes,
      objects: [[cj]],
    } = withFlags({ '--tablet_manager_grpc_ca': '/certs/ca.pem', min_retention_time: '24h' });
    expect(vtbackup(cj).args).toContain('--tablet_manager_grpc_ca=/certs/ca.pem');
    expect(vtbackup(cj).args).toContain('--min_retention_time=0s');
    expect(notes).toEqual([
      expect.objectContaining({
        level: 'note',
        path: 'spec.keyspaces[0].partitionings[0].equal.shardTemplate.tabletPools[0].vttablet.vtbackupExtraFlags.min_retention_time',
      }),
    ]);
  });

  test('allow_first_backup becomes allowFirstBackup: the entry script passes it when the shard has a primary and no backup', () => {
    const {
      objects: [[cj]],
    } = withFlags({ allow_first_backup: 'true' });
    expect(vtbackup(cj).env).toContainEqual({ name: 'VITESS_ALLOW_FIRST_BACKUP', value: 'true' });
    expect(argsOf(cj, 'vtbackup').filter((a) => a.includes('allow_first_backup'))).toEqual([]);
  });
});
