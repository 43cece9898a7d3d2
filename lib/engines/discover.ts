/**
 * What an engine gives `backup-cronjobs discover`: the flags that ask its running cluster for its shards
 * (through the cluster's own client), and the `shards:` list to paste. Engine-neutral: each engine's
 * discoverer lives in its folder and reaches the command through the registry.
 */

/** The client's answer could not be had or read: `discover` prints the message on stderr, exit status 1. */
export class DiscoverError extends Error {}

/** The flags do not fit: `discover` prints the message with its usage, exit status 2. */
export class DiscoverUsageError extends Error {}

/** Runs one of the cluster's clients: its stdout, or a DiscoverError saying what went wrong. */
export type RunClient = (tool: string, args: readonly string[]) => string;

/** What `discover` prints: the comment lines (`# …`), then the YAML `shards:` list of these names. */
export interface DiscoveredShards {
  readonly comments: readonly string[];
  readonly shards: readonly string[];
}

/** One engine's part of `backup-cronjobs discover`. */
export interface EngineDiscover {
  /** Its flags (string options); the first chooses this engine, the others go with it. */
  readonly flags: readonly string[];
  /** Its usage, after `backup-cronjobs discover` (`--vtctld ADDR --keyspace KEYSPACE`). */
  readonly usage: string;
  /** What it asks, in the command's summary (`Vitess keyspace`). */
  readonly what: string;
  /** Its flags' lines of the command's help, aligned to its columns. */
  readonly help: string;
  /** Where each client it runs comes from, for the message when one is not on PATH. */
  readonly install: Readonly<Record<string, string>>;
  /** What to print, from its flags as given: comment lines, then the shards of the `shards:` list. */
  discover(flags: Readonly<Record<string, string | undefined>>, run: RunClient): DiscoveredShards;
}
