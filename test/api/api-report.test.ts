// The reviewed API reports (api/*.api.md) match the three entry points as built now, and api-extractor
// has nothing to say about them; the TSDoc builds into an API reference without a warning.
import { execFile } from 'child_process';
import { existsSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

const ROOT = join(__dirname, '..', '..');

function run(args: readonly string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

test('api/*.api.md is what api-extractor reports for a fresh build of the entry points, without a warning (else: npm run api, and review the diff)', async () => {
  const { code, output } = await run([join(ROOT, 'scripts', 'api-report.js'), '--check']);
  expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
}, 600_000);

test('the API reference (npm run docs:api: typedoc, warnings as errors) builds from the TSDoc of the three entries', async () => {
  const out = mkdtempSync(join(tmpdir(), 'bcj-typedoc-'));
  try {
    const { code, output } = await run([
      join(ROOT, 'node_modules', 'typedoc', 'bin', 'typedoc'),
      '--options',
      join(ROOT, 'api', 'typedoc.json'),
      '--out',
      out,
    ]);
    expect({ code, warnings: output.split('\n').filter((l) => /warning|error/i.test(l)) }).toEqual({
      code: 0,
      warnings: [],
    });
    for (const page of [
      'index.html',
      'classes/constructs_cdk8s.RedisBackupSchedule.html',
      'classes/constructs_pulumi.BackupPolicy.html',
      'functions/lib.renderPolicy.html',
    ]) {
      expect({ page, exists: existsSync(join(out, page)) }).toEqual({ page, exists: true });
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 600_000);
