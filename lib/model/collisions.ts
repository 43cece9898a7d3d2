/** Objects of several policies (files, constructs, components) that would be the same Kubernetes object. */
import type { Manifest } from '../kubernetes/objects';

/** Where an object came from: a file and document, a construct path, a component name. */
export interface ObjectSource {
  readonly source: string;
  readonly objects: readonly Manifest[];
}

export interface Collision {
  /** `CronJob default/a-b-c` (API group included for other groups). */
  readonly object: string;
  readonly sources: readonly [string, string];
}

/** `kind namespace/name` of an object, with its API group when it has one. */
export function objectKey(m: Manifest): string {
  const group = m.apiVersion.includes('/') ? `.${m.apiVersion.split('/')[0]}` : '';
  return `${m.kind}${group} ${m.metadata.namespace ?? ''}${m.metadata.namespace ? '/' : ''}${m.metadata.name}`;
}

/** Every pair of sources that render the same object (the first source of each object against each later one). */
export function findCollisions(sources: readonly ObjectSource[]): Collision[] {
  const owner = new Map<string, string>();
  const found: Collision[] = [];
  for (const { source, objects } of sources) {
    for (const m of objects) {
      const key = objectKey(m);
      const first = owner.get(key);
      if (first === undefined) owner.set(key, source);
      else found.push({ object: key, sources: [first, source] });
    }
  }
  return found;
}

/** One line per collision. */
export function formatCollision(c: Collision): string {
  return `${c.object} is rendered by both ${c.sources[0]} and ${c.sources[1]}: give the policies (or their targets) distinct names or namespaces`;
}
