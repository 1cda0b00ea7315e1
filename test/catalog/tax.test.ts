import fs from 'node:fs';
import { computeTax, type TaxRateForCalc } from '../../src/catalog/tax';
import {
  ALLOWED_TAX_CODES,
  DEFAULT_TAX_CODE,
  isAllowedTaxCode,
  parseTaxCodesTsv,
  searchTaxCodes,
  TAX_CODES_FILE,
  taxCodeMap,
} from '../../src/catalog/tax-codes';

const exclusive = (id: string, percentage: number): TaxRateForCalc => ({ id, percentage, inclusive: false });
const inclusive = (id: string, percentage: number): TaxRateForCalc => ({ id, percentage, inclusive: true });

// Expected values are worked out by hand (exact fractions, then half-up to the cent).
describe('computeTax', () => {
  it('with no rates: no tax, total = amount', () => {
    expect(computeTax(0, [])).toEqual({
      amount_excluding_tax: 0,
      inclusive_tax: 0,
      exclusive_tax: 0,
      tax: 0,
      total: 0,
      taxes: [],
    });
    expect(computeTax(99999999, [])).toEqual({
      amount_excluding_tax: 99999999,
      inclusive_tax: 0,
      exclusive_tax: 0,
      tax: 0,
      total: 99999999,
      taxes: [],
    });
  });

  it('taxes 0 cents as 0 for every kind of rate', () => {
    const result = computeTax(0, [exclusive('txr_a', 10), inclusive('txr_b', 20)]);
    expect(result).toMatchObject({ amount_excluding_tax: 0, inclusive_tax: 0, exclusive_tax: 0, tax: 0, total: 0 });
    expect(result.taxes.map((tax) => tax.amount)).toEqual([0, 0]);
  });

  it('rounds half up on 1 cent', () => {
    expect(computeTax(1, [exclusive('txr_a', 50)])).toMatchObject({ exclusive_tax: 1, tax: 1, total: 2 }); // 0.5 -> 1
    expect(computeTax(1, [exclusive('txr_a', 49.9999)])).toMatchObject({ exclusive_tax: 0, total: 1 }); // 0.499999 -> 0
    expect(computeTax(1, [inclusive('txr_a', 100)])).toMatchObject({
      amount_excluding_tax: 1,
      inclusive_tax: 0,
      total: 1,
    }); // 1/2 = 0.5 -> 1
    expect(computeTax(1, [inclusive('txr_a', 50)])).toMatchObject({ amount_excluding_tax: 1, inclusive_tax: 0 }); // 0.667 -> 1
    expect(computeTax(3, [inclusive('txr_a', 100)])).toMatchObject({
      amount_excluding_tax: 2,
      inclusive_tax: 1,
      total: 3,
    }); // 1.5 -> 2
  });

  it('rounds exact halves up, not to even', () => {
    expect(computeTax(10, [exclusive('txr_a', 5)]).exclusive_tax).toBe(1); // 0.5
    expect(computeTax(30, [exclusive('txr_a', 5)]).exclusive_tax).toBe(2); // 1.5
    expect(computeTax(50, [exclusive('txr_a', 5)]).exclusive_tax).toBe(3); // 2.5 (banker's rounding would say 2)
  });

  it('adds an exclusive rate on top of 99999999 cents', () => {
    // 99999999 * 8.25% = 8249999.9175 -> 8250000
    expect(computeTax(99999999, [exclusive('txr_sales', 8.25)])).toEqual({
      amount_excluding_tax: 99999999,
      inclusive_tax: 0,
      exclusive_tax: 8250000,
      tax: 8250000,
      total: 108249999,
      taxes: [{ tax_rate: 'txr_sales', tax_behavior: 'exclusive', amount: 8250000, taxable_amount: 99999999 }],
    });
  });

  it('takes an inclusive rate out of 99999999 cents', () => {
    // 99999999 / 1.2 = 83333332.5 -> 83333333; tax = 16666666
    expect(computeTax(99999999, [inclusive('txr_vat', 20)])).toEqual({
      amount_excluding_tax: 83333333,
      inclusive_tax: 16666666,
      exclusive_tax: 0,
      tax: 16666666,
      total: 99999999,
      taxes: [{ tax_rate: 'txr_vat', tax_behavior: 'inclusive', amount: 16666666, taxable_amount: 83333333 }],
    });
  });

  it('sums several exclusive rates, each rounded on its own', () => {
    const result = computeTax(10000, [exclusive('txr_state', 6.25), exclusive('txr_city', 1.5)]);
    expect(result).toMatchObject({ exclusive_tax: 775, tax: 775, total: 10775 });
    expect(result.taxes.map((tax) => [tax.tax_rate, tax.amount])).toEqual([
      ['txr_state', 625],
      ['txr_city', 150],
    ]);
  });

  it('mixes inclusive and exclusive rates: exclusive ones apply to the amount excluding inclusive tax', () => {
    // 11000 / 1.1 = 10000 -> inclusive 1000; exclusive 5% of 10000 = 500
    const result = computeTax(11000, [exclusive('txr_ex', 5), inclusive('txr_in', 10)]);
    expect(result).toEqual({
      amount_excluding_tax: 10000,
      inclusive_tax: 1000,
      exclusive_tax: 500,
      tax: 1500,
      total: 11500,
      taxes: [
        { tax_rate: 'txr_ex', tax_behavior: 'exclusive', amount: 500, taxable_amount: 10000 },
        { tax_rate: 'txr_in', tax_behavior: 'inclusive', amount: 1000, taxable_amount: 10000 },
      ],
    });
  });

  it('splits inclusive tax across inclusive rates by percentage, the spare cent to the largest remainder', () => {
    // 1000 / 1.08 = 925.93 -> 926; inclusive tax 74 = 46.25 (5%) + 27.75 (3%) -> 46 + 28
    const result = computeTax(1000, [inclusive('txr_a', 5), inclusive('txr_b', 3)]);
    expect(result).toMatchObject({ amount_excluding_tax: 926, inclusive_tax: 74, total: 1000 });
    expect(result.taxes.map((tax) => tax.amount)).toEqual([46, 28]);
  });

  it('gives a tied spare cent to the earlier rate, deterministically', () => {
    // 1003 / 1.1 = 911.82 -> 912; inclusive tax 91 = 45.5 + 45.5 -> 46 + 45
    const result = computeTax(1003, [inclusive('txr_a', 5), inclusive('txr_b', 5)]);
    expect(result.taxes.map((tax) => tax.amount)).toEqual([46, 45]);
    expect(
      computeTax(1003, [inclusive('txr_b', 5), inclusive('txr_a', 5)]).taxes.map((tax) => [tax.tax_rate, tax.amount]),
    ).toEqual([
      ['txr_b', 46],
      ['txr_a', 45],
    ]);
  });

  it("a price's tax_behavior overrides every rate's own flag", () => {
    const rates = [exclusive('txr_ex', 10), inclusive('txr_in', 10)];
    expect(computeTax(1000, rates, 'inclusive')).toEqual(
      computeTax(1000, [inclusive('txr_ex', 10), inclusive('txr_in', 10)]),
    );
    expect(computeTax(1000, rates, 'exclusive')).toEqual(
      computeTax(1000, [exclusive('txr_ex', 10), exclusive('txr_in', 10)]),
    );
    expect(computeTax(1000, [exclusive('txr_ex', 10)], 'inclusive')).toMatchObject({
      amount_excluding_tax: 909,
      tax: 91,
      total: 1000,
    });
  });

  it('handles 4-decimal percentages exactly', () => {
    expect(computeTax(12345, [exclusive('txr_a', 7.1234)]).exclusive_tax).toBe(879); // 879.38373
    expect(computeTax(99999999, [exclusive('txr_a', 0.0001)]).exclusive_tax).toBe(100); // 99.999999
    expect(computeTax(10000, [inclusive('txr_a', 8.875)])).toMatchObject({
      amount_excluding_tax: 9185,
      inclusive_tax: 815,
    }); // 9184.85
    // Float noise must not leak in: 0.0029 * 10000 is 28.999999999999996 in floats, and 1e8 * 0.000029 = 2900 exactly.
    expect(computeTax(100000000, [exclusive('txr_a', 0.0029)]).exclusive_tax).toBe(2900);
    expect(computeTax(99999999, [exclusive('txr_a', 0.0029)]).exclusive_tax).toBe(2900); // 2899.999971
  });

  it('handles two inclusive and two exclusive rates on 99999999 cents', () => {
    // 99999999 / 1.25 = 79999999.2 -> 79999999; inclusive 20000000 = 16000000 (20%) + 4000000 (5%);
    // exclusive 8.25% of 79999999 = 6599999.9175 -> 6600000; 0.0001% = 79.999999 -> 80
    const result = computeTax(99999999, [
      inclusive('txr_a', 20),
      exclusive('txr_b', 8.25),
      inclusive('txr_c', 5),
      exclusive('txr_d', 0.0001),
    ]);
    expect(result).toMatchObject({
      amount_excluding_tax: 79999999,
      inclusive_tax: 20000000,
      exclusive_tax: 6600080,
      tax: 26600080,
      total: 106600079,
    });
    expect(result.taxes.map((tax) => [tax.tax_rate, tax.tax_behavior, tax.amount])).toEqual([
      ['txr_a', 'inclusive', 16000000],
      ['txr_b', 'exclusive', 6600000],
      ['txr_c', 'inclusive', 4000000],
      ['txr_d', 'exclusive', 80],
    ]);
  });

  it('taxes a negative amount (a credit) as the mirror image of the charge', () => {
    expect(computeTax(-50, [exclusive('txr_a', 5)])).toMatchObject({ exclusive_tax: -3, tax: -3, total: -53 });
    expect(computeTax(-11000, [exclusive('txr_ex', 5), inclusive('txr_in', 10)])).toMatchObject({
      amount_excluding_tax: -10000,
      inclusive_tax: -1000,
      exclusive_tax: -500,
      total: -11500,
    });
  });

  it('keeps its invariants over many amounts and rate mixes', () => {
    let seed = 42;
    const next = (limit: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % limit;
    };
    for (let run = 0; run < 2000; run += 1) {
      const amount = next(100000000);
      const rates = Array.from({ length: next(4) + 1 }, (_, index) => ({
        id: `txr_${index}`,
        percentage: next(1000001) / 10000,
        inclusive: next(2) === 1,
      }));
      const result = computeTax(amount, rates);
      const inclusiveParts = result.taxes
        .filter((tax) => tax.tax_behavior === 'inclusive')
        .reduce((sum, tax) => sum + tax.amount, 0);
      const exclusiveParts = result.taxes
        .filter((tax) => tax.tax_behavior === 'exclusive')
        .reduce((sum, tax) => sum + tax.amount, 0);
      expect(result.amount_excluding_tax + result.inclusive_tax).toBe(amount);
      expect(inclusiveParts).toBe(result.inclusive_tax);
      expect(exclusiveParts).toBe(result.exclusive_tax);
      expect(result.total).toBe(amount + result.exclusive_tax);
      expect(result.tax).toBe(result.inclusive_tax + result.exclusive_tax);
      for (const tax of result.taxes) expect(Number.isInteger(tax.amount) && tax.amount >= 0).toBe(true);
    }
  });

  it('refuses amounts that are not integer cents', () => {
    expect(() => computeTax(1.5, [])).toThrow(RangeError);
    expect(() => computeTax(Number.NaN, [])).toThrow(RangeError);
  });
});

describe('tax codes', () => {
  it("expands the spec's list to 637 codes, ranges inclusive", () => {
    expect(ALLOWED_TAX_CODES.size).toBe(637);
    for (const code of [
      DEFAULT_TAX_CODE,
      'txcd_99999999',
      'txcd_10201000', // first of 10201000-10201004
      'txcd_10201004', // last of it
      'txcd_32050017', // first of 32050017-32050041
      'txcd_32050041', // last of it
      'txcd_92010001', // last of the list
    ]) {
      expect(isAllowedTaxCode(code)).toBe(true);
    }
    for (const code of [
      'txcd_10201005', // one past 10201000-10201004
      'txcd_10200999', // one before it
      'txcd_32050042', // one past 32050017-32050041
      'txcd_32050016', // one before it
      'txcd_10202002', // the gap between 10202001 and 10202003
      'txcd_92010002',
      'txcd_0000000', // 7 digits
      'TXCD_00000000',
    ]) {
      expect(isAllowedTaxCode(code)).toBe(false);
    }
  });

  it('loads a category name for exactly the 637 codes, once', () => {
    const map = taxCodeMap();
    expect(map.size).toBe(637);
    expect(map.get('txcd_00000000')).toBe('Nontaxable');
    expect(map.get('txcd_99999999')).toBe('General - Tangible Goods');
    expect(taxCodeMap()).toBe(map);
  });

  it('refuses a data file that does not match the spec', () => {
    const text = fs.readFileSync(TAX_CODES_FILE, 'utf8');
    expect(() => parseTaxCodesTsv(text.replace('txcd_92010001\t', 'txcd_92010002\t'))).toThrow(/does not allow/);
    expect(() => parseTaxCodesTsv(text.split('\n').slice(0, -2).join('\n'))).toThrow(/no name for txcd_92010001/);
    expect(() => parseTaxCodesTsv(text.replace('code\tname', 'code\ttitle'))).toThrow(/header/);
    expect(() => parseTaxCodesTsv(`${text}txcd_00000000\tAgain\tphysical\n`)).toThrow(/twice/);
  });

  it('searches codes and names case-insensitively', () => {
    expect(searchTaxCodes('nontaxABLE')).toMatchObject({ txcd_00000000: 'Nontaxable' });
    expect(Object.keys(searchTaxCodes('txcd_1020100'))).toEqual([
      'txcd_10201000',
      'txcd_10201001',
      'txcd_10201002',
      'txcd_10201003',
      'txcd_10201004',
    ]);
    expect(Object.keys(searchTaxCodes(undefined))).toHaveLength(637);
    expect(searchTaxCodes('no such category at all')).toEqual({});
  });
});
