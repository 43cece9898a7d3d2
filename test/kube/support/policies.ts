/** Policies for the control-plane tests: the examples moved into a test's own namespace. */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { Manifest, renderPolicy } from '../../../lib';

const EXAMPLES = path.resolve(__dirname, '../../../examples/policies');

export type PolicyDoc = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: Record<string, unknown> & { defaults?: Record<string, unknown> };
};

/** An example policy (examples/policies/<file>), in `namespace`. */
export function examplePolicy(file: string, namespace: string): PolicyDoc {
  const doc = parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8')) as PolicyDoc;
  return { ...doc, metadata: { ...doc.metadata, namespace } };
}

/** The Redis example in `namespace` with these shards, and `defaults` merged over its own. */
export function redisPolicy(
  namespace: string,
  shards: readonly string[],
  defaults: Record<string, unknown> = {},
): PolicyDoc {
  const doc = examplePolicy('redis-sharded.yaml', namespace);
  return {
    ...doc,
    spec: {
      ...doc.spec,
      defaults: { ...doc.spec.defaults, ...defaults },
      redis: { ...(doc.spec.redis as Record<string, unknown>), shards },
    },
  };
}

export const render = (doc: PolicyDoc): Manifest[] => renderPolicy(doc);

export const cronJobsOf = (objects: readonly Manifest[]): Manifest[] => objects.filter((o) => o.kind === 'CronJob');

/** A Job made from a CronJob's template, as `kubectl create job --from=cronjob/<name>` makes it. */
export function jobFrom(cronJob: Manifest, name: string): Manifest {
  const spec = (cronJob as unknown as { spec: { jobTemplate: { metadata?: Record<string, unknown>; spec: unknown } } })
    .spec;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { ...spec.jobTemplate.metadata, name, namespace: cronJob.metadata.namespace },
    spec: spec.jobTemplate.spec,
  };
}
