/** Objects out: YAML documents (as cdk8s writes them) or JSON (as kubectl prints it). */
import type { Manifest } from '../kubernetes/objects';
import { documentYaml, sortKeys } from '../yaml';

export type OutputFormat = 'yaml' | 'json';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['yaml', 'json'];

/** Streams one YAML document per object, separated like `toYaml` (and cdk8s) does. */
export function writeYamlDocuments(objects: readonly Manifest[], write: (text: string) => unknown): void {
  objects.forEach((o, i) => write(i === 0 ? documentYaml(o) : `---\n${documentYaml(o)}`));
}

/** Sorted keys, two-space indent, a final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

/** Several objects as `kubectl get -o json` prints them: one `v1` `List` (`kubectl apply -f` takes it). */
export function jsonList(objects: readonly Manifest[]): string {
  return jsonText({ apiVersion: 'v1', kind: 'List', items: objects });
}
