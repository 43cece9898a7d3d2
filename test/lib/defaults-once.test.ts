// Every default is applied once, when resolving (issue 34, point 2): no `?? <X>_DEFAULTS` and no
// `?? '<literal>'` in lib/ outside the resolve modules (lib/**/resolve*.ts) and the defaults themselves
// (lib/**/*defaults.ts). Validation that needs a defaulted value calls a helper of a defaults module, the one
// the resolve calls too; render, workload, plan, list, alerts and the scripts' env read resolved values.
import { readFileSync, readdirSync, statSync } from 'fs';
import { join, relative } from 'path';

const ROOT = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Where defaults may be applied: the resolve steps and the defaults modules (their helpers). */
const APPLIES_DEFAULTS = /(^|\/)(resolve[^/]*|[^/]*defaults)\.ts$/;

/**
 * The converters read other operators' objects (VitessBackupSchedule, ShardedRedisBackup, …) and apply *their*
 * defaults to write a policy: they run before validation, not after the resolve.
 */
const CONVERTERS = /^lib\/(convert\/|engines\/([^/]+\/)?convert(\/|\.ts$))/;

/** A `??` fallback to a literal that is not a default of a policy field: file, the fallback as written, why. */
const NOT_DEFAULTS: readonly (readonly [string, string, string])[] = [
  ['lib/policy/schema-validate.ts', "?? 'invalid'", "ajv's message of an error it gave none"],
  ['lib/engines/s3-copies.ts', "?? 'AWS'", 'a message naming an endpoint that is not set'],
  ['lib/engines/etcd/targets.ts', "?? 'cluster'", "the key of cluster mode's one target (no node)"],
  ['lib/engines/etcd/openshift.ts', "?? 'node'", 'the node of the sample restore Job the SCC is made for'],
  ['lib/scripts/index.ts', "?? '/bin/sh'", "the shell of an engine's own container, not a policy field"],
  ['lib/workload/scripts.ts', "?? '/bin/sh'", "the shell of an engine's own container, not a policy field"],
  ['lib/cli/discover.ts', "?? 'install it'", 'a message for a tool without install help'],
  ['lib/cli/list.ts', "?? '-'", 'a table cell with nothing in it'],
  [
    'lib/schedule/runs.ts',
    '?? TIME_ZONE_DEFAULT',
    'the cron library computing the runs of a schedule given without a zone (the resolve sets `zone` from the same constant)',
  ],
];

/** `?? X_DEFAULTS`, `?? X_DEFAULT` and `?? '<non-empty literal>'`, a line break after `??` included. */
const DEFAULT_APPLICATION = /\?\?\s*([A-Z][A-Z0-9_]*DEFAULTS?\b|'[^'\n]+'|"[^"\n]+")/g;

/** Each default applied outside the resolve and the defaults modules: `file:line: the fallback`. */
function defaultApplications(root = ROOT): string[] {
  return sources(join(root, 'lib')).flatMap((file) => {
    const path = relative(root, file).split('\\').join('/');
    if (APPLIES_DEFAULTS.test(path) || CONVERTERS.test(path)) return [];
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(DEFAULT_APPLICATION)].flatMap((m) => {
      const written = `?? ${m[1]}`;
      if (NOT_DEFAULTS.some(([f, fallback]) => f === path && fallback === written)) return [];
      const line = text.slice(0, m.index).split('\n').length;
      return [`${path}:${line}: ${written}`];
    });
  });
}

test('no default is applied after the resolve (lib/**/resolve*.ts) or outside the defaults modules', () => {
  expect(defaultApplications()).toEqual([]);
});

test('every exception listed is still there (a stale one would hide a new default of the same text)', () => {
  const stale = NOT_DEFAULTS.filter(([file, fallback]) => !readFileSync(join(ROOT, file), 'utf8').includes(fallback));
  expect(stale).toEqual([]);
});
