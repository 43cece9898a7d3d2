/**
 * Lists whose entries are a name, or an object with the name and that entry's
 * own job settings (Redis `shards`, etcd `nodes`).
 */
import { IssueList, show } from './errors';
import type { PolicyPath } from './errors';
import type { JobSettings } from './types';
import { pickSettings, validateSettings } from './settings';

/** A name, or the name with job settings that override `spec.defaults` for this entry. */
export type NamedEntry = string | (JobSettings & { readonly name: string });

/** An entry as a name plus its own settings (none for a plain name). */
export function namedEntry(entry: NamedEntry): { name: string; settings?: JobSettings } {
  return typeof entry === 'string' ? { name: entry } : { name: entry.name, settings: pickSettings(entry) };
}

/**
 * Checks the entries of the list `<path>.<field>`: names are unique (`noun`
 * names an entry in the message), and each entry's own settings are valid.
 */
export function validateNamedEntries(
  entries: readonly NamedEntry[],
  path: PolicyPath,
  field: string,
  noun: string,
  issues: IssueList,
): void {
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    const { name, settings } = namedEntry(entry);
    const at = [...path, field, i];
    const prev = seen.get(name);
    if (prev !== undefined)
      issues.add(
        typeof entry === 'string' ? at : [...at, 'name'],
        `received ${show(name)}; ${noun} names must be unique (also at ${field}[${prev}])`,
      );
    else seen.set(name, i);
    if (settings) validateSettings(settings, at, issues);
  });
}
