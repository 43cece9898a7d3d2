// The Vitess entry script runs for real under /bin/sh, as rendered in the manifest,
// with stand-in vtctldclient/vtbackup binaries copied in by the real init container.
import { copyFileSync, mkdtempSync, readFileSync, existsSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { renderPolicy } from '../../lib';
import { runContainer } from '../support/run-container';
import { startPushgateway } from '../support/services';
import { vitessPolicy } from './fixtures';

const FIXTURES = join(__dirname, '..', 'fixtures');
const scratch = mkdtempSync(join(tmpdir(), 'bcj-vitess-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const COMPLETE = '[{"name":"2025-02-25.220602.zone1-0000000101","keyspace":"commerce","shard":"-","status":"COMPLETE"}]';
const VALID = '[{"name":"2025-02-25.220602.zone1-0000000101","status":"VALID"}]';
const INCOMPLETE = '[{"name":"2025-02-25.220602.zone1-0000000101","status":"INCOMPLETE"}]';

interface RunResult {
  code: number | null;
  stderr: string;
  vtbackupArgs?: string[];
  calls: string[];
}

async function runBackup(
  stub: Record<string, string>,
  allowFirstBackup = false,
  flagStyle?: 'dashed',
  spec: Record<string, unknown> = {},
): Promise<RunResult & { manifestArgs: string[]; runArgs: string[] }> {
  const [cronJob] = renderPolicy(vitessPolicy({ allowFirstBackup, ...(flagStyle ? { flagStyle } : {}) }, spec));
  const pod = (cronJob as any).spec.jobTemplate.spec.template.spec;
  const work = mkdtempSync(join(scratch, 'run-'));
  const imageBin = mkdtempSync(join(scratch, 'image-'));
  copyFileSync(join(FIXTURES, 'vtctldclient-stub.sh'), join(imageBin, 'vtctldclient'));
  copyFileSync(join(FIXTURES, 'vtbackup-stub.sh'), join(imageBin, 'vtbackup'));
  const volumeDirs: Record<string, string> = {};
  const init = await runContainer(pod, 'init-vt-root', { volumeDirs, env: { VT_BIN_SOURCE: imageBin, VT_CONFIG_SOURCE: join(work, 'no-config') } });
  expect(init.stderr).toContain('vt-root prepared');
  expect(init.code).toBe(0);
  const calls = join(work, 'calls');
  const argsFile = join(work, 'vtbackup-args');
  const main = await runContainer(pod, 'vtbackup', {
    volumeDirs,
    env: { STUB_CALLS: calls, STUB_VTBACKUP_ARGS: argsFile, STUB_BACKUP_NAMES: join(work, 'names'), ...stub },
  });
  return {
    code: main.code,
    stderr: main.stderr,
    vtbackupArgs: existsSync(argsFile) ? readFileSync(argsFile, 'utf8').trimEnd().split('\n') : undefined,
    calls: existsSync(calls) ? readFileSync(calls, 'utf8').trimEnd().split('\n') : [],
    manifestArgs: pod.containers[0].args,
    // the manifest's args as the container got them (mount paths mapped to temp dirs)
    runArgs: main.argv.slice(4),
  };
}

describe('Vitess backup type decided at run time', () => {
  test('complete backups exist → a normal backup with every manifest flag plus --initial_backup=false', async () => {
    const r = await runBackup({ STUB_BACKUPS: COMPLETE });
    expect(r.code).toBe(0);
    expect(r.runArgs).toHaveLength(r.manifestArgs.length);
    expect(r.manifestArgs).toContain('--mysql_socket=/vt/socket/mysql.sock');
    expect(r.vtbackupArgs).toEqual([...r.runArgs, '--initial_backup=false']);
    expect(r.calls).toEqual(['--server example-vtctld:15999 --action_timeout 30s GetBackups --json commerce/-']);
    expect(r.stderr).toMatch(/commerce\/- has 1 complete backup\(s\): taking a normal backup/);
  });

  test('a VALID (verified) backup also counts as complete', async () => {
    const r = await runBackup({ STUB_BACKUPS: VALID, STUB_PRIMARY: 'yes' });
    expect(r.vtbackupArgs?.slice(-1)).toEqual(['--initial_backup=false']);
  });

  test('no backup and no primary → --initial_backup=true', async () => {
    const r = await runBackup({ STUB_BACKUPS: INCOMPLETE });
    expect(r.code).toBe(0);
    expect(r.vtbackupArgs).toEqual([...r.runArgs, '--initial_backup=true']);
    expect(r.calls[1]).toBe('--server example-vtctld:15999 --action_timeout 30s GetShard commerce/-');
  });

  test('no backup and a primary, policy opted in → --allow_first_backup=true', async () => {
    const r = await runBackup({ STUB_BACKUPS: '[]', STUB_PRIMARY: 'yes' }, true);
    expect(r.code).toBe(0);
    expect(r.vtbackupArgs).toEqual([...r.runArgs, '--initial_backup=false', '--allow_first_backup=true']);
  });

  test('no backup and a primary, no opt-in → exit 1, one line saying why and what to do, vtbackup never runs', async () => {
    const r = await runBackup({ STUB_BACKUPS: '[]', STUB_PRIMARY: 'yes' });
    expect(r.code).toBe(1);
    expect(r.vtbackupArgs).toBeUndefined();
    const errors = r.stderr.split('\n').filter((l) => / error /.test(l));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('commerce/- has a primary but no complete backup: refusing an automated first backup');
    expect(errors[0]).toContain('allowFirstBackup: true');
  });

  test('vtctld unreachable → exit 1 with the vtctld error, no backup started', async () => {
    const r = await runBackup({ STUB_UNREACHABLE: 'yes' });
    expect(r.code).toBe(1);
    expect(r.vtbackupArgs).toBeUndefined();
    expect(r.stderr).toMatch(/cannot list the backups of commerce\/- from vtctld example-vtctld:15999: .*connection refused; no backup started/);
  });

  test('dashed flag style (Vitess >= 22) spells the run-time flags with dashes too', async () => {
    const r = await runBackup({ STUB_BACKUPS: '[]' }, false, 'dashed');
    expect(r.manifestArgs).toContain('--init-keyspace=commerce');
    expect(r.vtbackupArgs?.slice(-1)).toEqual(['--initial-backup=true']);
  });
});

describe('after vtbackup', () => {
  test('a failing vtbackup fails the run with its exit status', async () => {
    const r = await runBackup({ STUB_BACKUPS: COMPLETE, STUB_VTBACKUP_EXIT: '3' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error vtbackup of commerce\/- failed with exit status 3/);
  });

  test('retention prunes the shard through vtctld right after a successful backup', async () => {
    const names = join(scratch, 'retention-names');
    writeFileSync(names, ['2026-11-20.020000.zone1-0000000101', '2026-11-21.020000.zone1-0000000101', '2026-11-22.020000.zone1-0000000101'].join('\n') + '\n');
    const r = await runBackup(
      { STUB_BACKUPS: COMPLETE, STUB_BACKUP_NAMES: names, STUB_VTBACKUP_NEW: '2026-11-29.020000.zone1-0000000102' },
      false, undefined, { retention: { keepLast: 2 } },
    );
    expect(r.code).toBe(0);
    expect(readFileSync(names, 'utf8').trim().split('\n').sort()).toEqual(['2026-11-22.020000.zone1-0000000101', '2026-11-29.020000.zone1-0000000102']);
    expect(r.calls.filter((c) => c.includes('RemoveBackup'))).toEqual([
      '--server example-vtctld:15999 RemoveBackup commerce/- 2026-11-21.020000.zone1-0000000101',
      '--server example-vtctld:15999 RemoveBackup commerce/- 2026-11-20.020000.zone1-0000000101',
    ]);
  });
});

test('metrics: success and failure counters, duration and last success reach the Pushgateway', async () => {
  const gateway = await startPushgateway();
  try {
    const metrics = { metrics: { pushgatewayUrl: gateway.url } };
    expect((await runBackup({ STUB_BACKUPS: COMPLETE }, false, undefined, metrics)).code).toBe(0);
    expect((await runBackup({ STUB_BACKUPS: COMPLETE, STUB_VTBACKUP_EXIT: '1' }, false, undefined, metrics)).code).toBe(1);
    const text = await gateway.metrics();
    const series = (name: string) => text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes('target="example-daily-commerce-x-x"'));
    expect(series('backup_cronjobs_success_total')).toMatch(/ 1$/);
    expect(series('backup_cronjobs_failure_total')).toMatch(/ 1$/);
    expect(series('backup_cronjobs_last_run_success')).toMatch(/ 0$/);
    expect(series('backup_cronjobs_last_success_timestamp_seconds')).toMatch(/ [0-9.e+]+$/);
    expect(series('backup_cronjobs_duration_seconds')).toBeDefined();
  } finally {
    await gateway.stop();
  }
});
