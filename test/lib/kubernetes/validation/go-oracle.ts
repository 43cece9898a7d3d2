/**
 * Expected results recorded from the real Go implementation, as test oracles.
 *
 * fixtures/util-validation.go-v0.28.8.json: for each input, the messages that
 * k8s.io/apimachinery v0.28.8 pkg/util/validation returns from IsDNS1123Label (`label`),
 * IsDNS1123Subdomain (`subdomain`), IsDNS1035Label (`dns1035`), IsQualifiedName (`qualified`),
 * IsQualifiedName(strings.ToLower(input)) (`annotation`, as ValidateAnnotations calls it),
 * IsValidLabelValue (`value`), IsConfigMapKey (`configkey`) and IsEnvVarName (`env`); rows hold
 * indexes into `messages`. Inputs: the length limits, the upstream test vectors and 150 random
 * strings.
 *
 * fixtures/parse-quantity.go-v0.28.8.json: for each input, what k8s.io/apimachinery v0.28.8
 * resource.ParseQuantity returns: the error text, or the exact value (q.AsDec().String()), what
 * q.String() prints and q.Format. Inputs: every input of TestQuantityParse (also with `-` and `+`
 * prefixed, as that test does) and its invalid list, scanner quirks, 300 random strings.
 *
 * Both were produced by compiling those Go files unchanged (Go 1.19) into a program that reads
 * JSON strings and prints the results; the program is not part of this repository.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { show } from '../../../../lib/policy/errors';

const fixture = (name: string): unknown => JSON.parse(readFileSync(join(__dirname, 'fixtures', name), 'utf8'));

export type UtilRule = 'label' | 'subdomain' | 'dns1035' | 'qualified' | 'annotation' | 'value' | 'configkey' | 'env';

export interface UtilRow {
  readonly input: string;
  /** The Go messages per rule (empty when valid). */
  readonly errors: Readonly<Record<UtilRule, readonly string[]>>;
}

export function utilValidationRows(): UtilRow[] {
  const data = fixture('util-validation.go-v0.28.8.json') as {
    messages: string[];
    rows: (Record<UtilRule, number[]> & { input: string })[];
  };
  return data.rows.map((row) => ({
    input: row.input,
    errors: Object.fromEntries(
      (['label', 'subdomain', 'dns1035', 'qualified', 'annotation', 'value', 'configkey', 'env'] as UtilRule[]).map(
        (rule) => [rule, row[rule].map((i) => data.messages[i])],
      ),
    ) as Record<UtilRule, string[]>,
  }));
}

/** The message our `...Problem` functions give for a value the Go function answered with `errors`. */
export function goMessage(value: string, errors: readonly string[]): string | undefined {
  return errors.length === 0 ? undefined : `received ${show(value)}; ${errors.join('; ')}`;
}

export type QuantityRow =
  | { readonly input: string; readonly error: string }
  | { readonly input: string; readonly value: string; readonly printed: string; readonly format: string };

export function parseQuantityRows(): QuantityRow[] {
  return fixture('parse-quantity.go-v0.28.8.json') as QuantityRow[];
}
