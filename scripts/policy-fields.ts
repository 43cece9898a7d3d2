// Generates the table of every policy field with its default (docs/reference/policy-fields.md), from the
// published schema. `npm run docs` rewrites the table between the markers; test/docs.test.ts fails when it is stale.
import { readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { policySchema } from '../lib/registry';
import { jobSettingsProperties } from '../lib/policy/schema-settings';
import { fieldMeta } from '../lib/policy/schema-builders';

const SETTINGS = Object.keys(jobSettingsProperties);

/** The JSON Schema keywords the table reads. */
type Schema = {
  readonly type?: string | readonly string[];
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly items?: Schema;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly default?: unknown;
  readonly description?: string;
};
export const BEGIN = '<!-- policy-fields:begin -->';
export const END = '<!-- policy-fields:end -->';

function typeOf(s: Schema): string {
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  if (s.enum) return s.enum.map((v) => `\`${String(v)}\``).join(' \\| ');
  if (s.type === 'array') return `${typeOf(s.items ?? {})}[]`;
  if (s.type === 'object' && !s.properties) return 'map';
  return typeof s.type === 'string' ? s.type : (s.type?.join(',') ?? 'any');
}

function rows(s: Schema, path: string, required: boolean, out: string[], seen: Set<Schema>): void {
  if (path) {
    const text = fieldMeta(s).defaultText;
    const def =
      s.default !== undefined
        ? `\`${JSON.stringify(s.default)}\``
        : required
          ? '(required)'
          : text !== undefined
            ? text.replace(/\|/g, '\\|')
            : '—';
    out.push(`| \`${path}\` | ${typeOf(s)} | ${def} | ${(s.description ?? '').replace(/\|/g, '\\|')} |`);
  }
  const target = s.type === 'array' ? s.items : s;
  if (!target?.properties || seen.has(target)) return;
  const req = new Set<string>(target.required ?? []);
  const prefix = path ? `${path}${s.type === 'array' ? '[]' : ''}.` : '';
  const keys = Object.keys(target.properties);
  // A level that repeats every job setting overrides spec.defaults: one row instead of the whole list.
  const overrides = path !== 'spec.defaults' && SETTINGS.every((k) => keys.includes(k));
  for (const [key, child] of Object.entries<Schema>(target.properties)) {
    if (overrides && SETTINGS.includes(key)) continue;
    rows(child, `${prefix}${key}`, req.has(key), out, seen);
  }
  if (overrides)
    out.push(
      `| \`${prefix}*\` | | | Any field of \`spec.defaults\` (${SETTINGS.join(', ')}), overriding it for this level. |`,
    );
}

export function fieldTable(): string {
  const out = ['| field | type | default | description |', '| --- | --- | --- | --- |'];
  rows(policySchema, '', true, out, new Set());
  return out.join('\n');
}

/** The field reference's path, from the repository's root. */
export const FIELDS_FILE = 'docs/reference/policy-fields.md';

export function withTable(page: string): string {
  const start = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${FIELDS_FILE} lacks the ${BEGIN} … ${END} markers`);
  return `${page.slice(0, start + BEGIN.length)}\n${fieldTable()}\n${page.slice(end)}`;
}

if (require.main === module && process.argv.includes('--write')) {
  const file = join(__dirname, '..', FIELDS_FILE);
  writeFileSync(file, withTable(readFileSync(file, 'utf8')));
}
