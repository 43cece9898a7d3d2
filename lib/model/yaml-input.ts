/**
 * What every YAML input of the package gets before it is read: a size limit checked before parsing
 * (`./input-size`, which loads no parser), and a duplicate-key check linear in the document's size (the
 * `yaml` package's own `uniqueKeys` compares each key with every earlier key of its map: an 80,000-key
 * map took minutes).
 */
import { Document, Node, isAlias, isMap, isPair, isScalar, isSeq } from 'yaml';
import type { PolicyPath } from '../policy/errors';

export { MAX_INPUT_BYTES, inputSizeProblem } from './input-size';

/** A key that appears twice in one map of the document. */
export interface DuplicateKey {
  /** Path of the map (`['metadata', 'labels']`). */
  readonly path: PolicyPath;
  readonly key: string;
  /** Offsets of the first and the repeated key. */
  readonly first: number;
  readonly offset: number;
}

/** Every key repeated within its map (keys compared as the strings they become in the document's value). */
export function duplicateKeys(doc: Document): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  const stack: { node: unknown; path: PolicyPath }[] = [{ node: doc.contents, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (isMap(node)) {
      const seen = new Map<string, number>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key;
        if (isScalar(key) || key === null) {
          const name = String(isScalar(key) ? key.value : null);
          const offset = (key as Node | null)?.range?.[0] ?? 0;
          const first = seen.get(name);
          if (first === undefined) seen.set(name, offset);
          else found.push({ path, key: name, first, offset });
          // a scalar value holds no key: its path is never needed (an 80,000-key map made 80,000 paths)
          if (isMap(pair.value) || isSeq(pair.value)) stack.push({ node: pair.value, path: [...path, name] });
        } else if (!isAlias(key)) {
          stack.push({ node: pair.value, path });
        }
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => stack.push({ node: item, path: [...path, i] }));
    }
  }
  return found.sort((a, b) => a.offset - b.offset);
}
