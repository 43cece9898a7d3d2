import {
  type Quantity,
  compareQuantities,
  decodeQuantity,
  parseQuantity,
  quantityProblem,
} from '../../../../lib/kubernetes/validation';
import { parseQuantityRows } from './go-oracle';

function parsed(text: string): Quantity {
  const result = parseQuantity(text);
  if ('problem' in result) throw new Error(`${text}: ${result.problem}`);
  return result.quantity;
}

/** An exact decimal string (`-1536.250`) as [coefficient, exponent] without trailing zeros. */
function exact(decimal: string): [bigint, number] {
  const negative = decimal.startsWith('-');
  const [whole, fraction = ''] = (negative ? decimal.slice(1) : decimal).split('.');
  let coefficient = BigInt(whole + fraction);
  let exponent = fraction.length === 0 ? 0 : -fraction.length;
  if (coefficient === 0n) return [0n, 0];
  while (coefficient % 10n === 0n) {
    coefficient /= 10n;
    exponent++;
  }
  return [negative ? -coefficient : coefficient, exponent];
}

/**
 * Go prints a DecimalSI value whose canonical exponent (a multiple of 3) is above 18 as the bare
 * mantissa, dropping the exponent; we append `e<exp>` (documented in quantity.ts).
 */
function printedByUs(goPrinted: string, format: string, exponent: number): string {
  const canonicalExponent = exponent - (((exponent % 3) + 3) % 3);
  return format === 'DecimalSI' && canonicalExponent > 18 ? `${goPrinted}e${canonicalExponent}` : goPrinted;
}

describe('parseQuantity against resource.ParseQuantity (apimachinery v0.28.8)', () => {
  const rows = parseQuantityRows();

  test('the recorded inputs cover valid and invalid quantities', () => {
    expect(rows.filter((r) => 'error' in r).length).toBeGreaterThan(100);
    expect(rows.filter((r) => !('error' in r)).length).toBeGreaterThan(300);
  });

  test('same verdict, same exact value, same format, same printed form, same error text', () => {
    for (const row of rows) {
      const result = parseQuantity(row.input);
      if ('error' in row) {
        expect([row.input, 'problem' in result ? result.problem : 'parsed']).toEqual([row.input, row.error]);
        continue;
      }
      const q = 'quantity' in result ? result.quantity : undefined;
      expect([row.input, q && [q.coefficient, q.exponent], q?.format, q?.printed]).toEqual([
        row.input,
        exact(row.value),
        row.format,
        printedByUs(row.printed, row.format, exact(row.value)[1]),
      ]);
    }
  });
});

describe('parseQuantity: documented behaviour', () => {
  test('values round up to whole nano units, away from zero', () => {
    expect(parsed('0.1n').printed).toBe('1n');
    expect(parsed('-0.1n').printed).toBe('-1n');
    expect(parsed('1.0000000001').coefficient).toBe(1000000001n);
  });

  test('binary values are capped at 2^63-1, decimal ones are not', () => {
    expect(parsed('9Ei').coefficient).toBe(2n ** 63n - 1n);
    expect(parsed('10E').coefficient * 10n ** BigInt(parsed('10E').exponent)).toBe(10n ** 19n);
  });

  test('canonical printing: largest suffix without losing precision', () => {
    expect(parsed('1024Mi').printed).toBe('1Gi');
    expect(parsed('1.5Gi').printed).toBe('1536Mi');
    expect(parsed('1.5').printed).toBe('1500m');
    expect(parsed('0.5Mi').printed).toBe('512Ki');
  });

  test('a decimal SI exponent beyond E prints with an exponent (Go would drop it)', () => {
    expect(parsed('1000E').printed).toBe('1e21');
  });

  test('quirks of the scanner: a bare sign, dot or suffix is 0, unless the slow path needs digits', () => {
    for (const zero of ['-', '+', '.', 'Ki', 'm', 'e5']) expect([zero, parsed(zero).coefficient]).toEqual([zero, 0n]);
    for (const text of ['Pi', 'Ei', '.e-10'])
      expect(parseQuantity(text)).toEqual({ problem: 'unable to parse numeric part of quantity' });
  });

  test('huge exponents cost nothing (Go itself takes seconds on some of them)', () => {
    expect(parsed('1e4294967296').coefficient).toBe(1n); // int32 truncation: exponent 0
    expect(parsed('5e2147483647').exponent).toBe(2147483647);
    // -(-2^31) wraps to -2^31 in Go's int32 scale arithmetic: the value becomes 10^(2^31).
    expect([parsed('1e-2147483648').coefficient, parsed('1e-2147483648').exponent]).toEqual([1n, 2 ** 31]);
  });
});

describe('compareQuantities', () => {
  // TestQuantityCmp, apimachinery v0.28.8 pkg/api/resource/quantity_test.go.
  test.each([
    ['0', '0', 0],
    ['100m', '50m', 1],
    ['50m', '100m', -1],
    ['10000T', '100Gi', 1],
  ])('upstream: %s vs %s → %d', (x, y, expected) => {
    expect(compareQuantities(parsed(x), parsed(y))).toBe(expected);
  });

  test('exact where floating point is not', () => {
    expect(Number('9007199254740993')).toBe(Number('9007199254740992'));
    expect(compareQuantities(parsed('9007199254740993'), parsed('9007199254740992'))).toBe(1);
    expect(compareQuantities(parsed('1Ei'), parsed('1152921504606846976'))).toBe(0);
    expect(compareQuantities(parsed('1.000000001'), parsed('1'))).toBe(1);
    expect(compareQuantities(parsed('1000m'), parsed('1'))).toBe(0);
    expect(compareQuantities(parsed('1Gi'), parsed('1G'))).toBe(1);
    expect(compareQuantities(parsed('-1Gi'), parsed('-1G'))).toBe(-1);
    expect(compareQuantities(parsed('-1'), parsed('0'))).toBe(-1);
    expect(compareQuantities(parsed('1e21'), parsed('999999999999999999999'))).toBe(1);
  });
});

describe('decodeQuantity (a manifest field, as UnmarshalJSON reads it)', () => {
  test('surrounding white space is trimmed as Go trims it', () => {
    expect(quantityProblem(' 100m\n')).toBeUndefined();
    expect(quantityProblem('\u00a0100m')).toBeUndefined();
    expect(quantityProblem('\ufeff100m')).toContain('quantities must match the regular expression');
    expect(parseQuantity(' 1')).toEqual({
      problem: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    });
  });

  test('JSON numbers are quantities', () => {
    expect(decodeQuantity(1.5)).toEqual({ quantity: parsed('1.5') });
    expect(decodeQuantity(1e21)).toEqual({ quantity: parsed('1e+21') });
  });

  test('a problem names the received value', () => {
    expect(quantityProblem('1mi')).toBe('received "1mi"; unable to parse quantity\'s suffix');
    expect(quantityProblem(true)).toBe('received true; a quantity must be a string or a number');
  });
});
