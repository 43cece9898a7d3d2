// The one size grammar of a policy (lib/units/size.ts): Kubernetes quantities with a unit.
import fc from 'fast-check';
import { SIZE_PATTERN, UnitError, parseSize, sizeProblem } from '../../../lib/units';

const GiB = 1024 ** 3;

describe('parseSize', () => {
  test.each([
    ['10Gi', 10 * GiB],
    ['500M', 500e6],
    ['20G', 20e9],
    ['1.5Gi', 1610612736],
    ['1k', 1000],
    ['2Ti', 2 * 1024 ** 4],
    ['0.1Ki', 102],
    ['7Pi', 7 * 1024 ** 5],
  ])('%s = %i bytes', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
    expect(new RegExp(SIZE_PATTERN).test(text)).toBe(true);
  });

  test.each([
    ['10', /\(a unit is required\)/],
    ['10GiB', /\(write "Gi"\)/],
    ['500MB', /\(write "M"\)/],
    ['1KB', /\(write "k"\)/],
    ['10Gb', /bits or bytes\?/],
    ['10gb', /bits or bytes\?/],
    ['123B', /must be a size/],
    ['10 potatoes', /must be a size/],
    ['100m', /must be a size/],
    ['1e3', /must be a size/],
    ['0.0001Ki', /less than one byte/],
    ['99999999Pi', /too large/],
  ])('rejects %s', (text, message) => {
    expect(() => parseSize(text)).toThrow(UnitError);
    expect(() => parseSize(text)).toThrow(message);
  });

  test('the schema pattern accepts what the grammar does (limits aside)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9.]{1,5}(Ki|Mi|Gi|k|M|G|B|m|)$/), (text) => {
        const problem = sizeProblem(text);
        if (problem === undefined) expect(new RegExp(SIZE_PATTERN).test(text)).toBe(true);
        if (!new RegExp(SIZE_PATTERN).test(text)) expect(problem).toBeDefined();
      }),
    );
  });
});
