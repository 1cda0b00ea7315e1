import fc from 'fast-check';
import { computeTax, type TaxRateForCalc } from '../../src/catalog/tax';
import {
  discountedLineTotals,
  discountParts,
  type DiscountTerms,
  type TaxedLine,
} from '../../src/coupons/discount-lines';

// The discount's arithmetic (docs/api.md, "Coupons and discounts") against an independent calculation:
// percent of the subtotal rounded half up once per invoice, a fixed amount at most the subtotal, never a
// total below zero, and what is taken off plus what is left to collect never above the invoice before it.

const RATES: TaxRateForCalc[] = [
  { id: 'txr_a', percentage: 8.875, inclusive: false },
  { id: 'txr_b', percentage: 20, inclusive: true },
  { id: 'txr_c', percentage: 5.5, inclusive: false },
];

const rateSet = fc.subarray(RATES, { minLength: 0, maxLength: 2 });
const behavior = fc.constantFrom<'inclusive' | 'exclusive' | undefined>('inclusive', 'exclusive', undefined);

function taxed(amount: number, rates: TaxRateForCalc[], taxBehavior: 'inclusive' | 'exclusive' | undefined): TaxedLine {
  return { amount, rates, taxBehavior, total: computeTax(amount, rates, taxBehavior).total };
}

const line = (min: number) =>
  fc
    .tuple(fc.integer({ min, max: 2_000_000 }), rateSet, behavior)
    .map(([amount, rates, taxBehavior]) => taxed(amount, rates, taxBehavior));

const terms: fc.Arbitrary<DiscountTerms> = fc.oneof(
  fc.integer({ min: 100, max: 10_000 }).map((hundredths) => ({ percentOffHundredths: hundredths, amountOff: null })),
  fc.integer({ min: 1, max: 99_999_999 }).map((amountOff) => ({ percentOffHundredths: null, amountOff })),
);

/** The rule written out again, in another way: base x percent as a fraction, its remainder compared with a half. */
function expectedOff(base: number, discount: DiscountTerms): number {
  if (base <= 0) return 0;
  if (discount.amountOff !== null) return Math.min(discount.amountOff, base);
  const product = BigInt(base) * BigInt(discount.percentOffHundredths!);
  const whole = product / 10_000n;
  const remainder = product % 10_000n;
  return Number(whole) + (remainder * 2n >= 10_000n ? 1 : 0);
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
/** Cents the discount lines take off (positive). */
const offOf = (parts: { amount: number }[]) => parts.reduce((total, part) => total - part.amount, 0);

it('charges only: takes off the rule (exactly, with one line), split by tax group, the total never below zero', () => {
  fc.assert(
    fc.property(fc.array(line(0), { minLength: 1, maxLength: 6 }), terms, (lines, discount) => {
      const parts = discountParts(lines, discount);
      const base = sum(lines.map((each) => each.amount));
      const off = offOf(parts);
      // Exactly the rule, but for the cents per-line tax rounding can make the floor give back (a total
      // that would otherwise end a cent or two below zero: one per line at most).
      expect(off).toBeLessThanOrEqual(expectedOff(base, discount));
      expect(expectedOff(base, discount) - off).toBeLessThanOrEqual(2 * lines.length);
      if (lines.length === 1) expect(off).toBe(expectedOff(base, discount));
      const before = sum(lines.map((each) => each.total));
      const after = before + sum(parts.map((part) => part.tax.total));
      expect(after).toBeGreaterThanOrEqual(0);
      // Taken off plus what is left to pay is at most the invoice without the discount (tax after discount).
      expect(off + after).toBeLessThanOrEqual(before);
      for (const part of parts) {
        expect(part.amount).toBeLessThan(0);
        const key = (l: { rates: readonly TaxRateForCalc[]; taxBehavior?: string }) =>
          `${l.taxBehavior}|${l.rates.map((r) => r.id).join(',')}`;
        const group = sum(lines.filter((each) => key(each) === key(part)).map((each) => each.amount));
        expect(-part.amount).toBeLessThanOrEqual(group);
        expect(part.tax).toEqual(computeTax(part.amount, part.rates, part.taxBehavior));
      }
    }),
    { numRuns: 500 },
  );
});

it('with credits (prorations, carried credit): never takes a total below zero nor below what it was', () => {
  fc.assert(
    fc.property(fc.array(line(-2_000_000), { minLength: 1, maxLength: 6 }), terms, (lines, discount) => {
      const parts = discountParts(lines, discount);
      const base = sum(lines.map((each) => each.amount));
      const off = offOf(parts);
      expect(off).toBeGreaterThanOrEqual(0);
      expect(off).toBeLessThanOrEqual(expectedOff(base, discount));
      const before = sum(lines.map((each) => each.total));
      const after = before + sum(parts.map((part) => part.tax.total));
      expect(after).toBeGreaterThanOrEqual(Math.min(0, before));
      if (base <= 0) expect(parts).toEqual([]);
    }),
    { numRuns: 500 },
  );
});

it("each line's share after the discount (what a credit note may credit of it) adds up to the invoice's total", () => {
  const groupOf = (each: { rates: readonly TaxRateForCalc[]; taxBehavior?: string }) =>
    `${each.taxBehavior}|${each.rates.map((rate) => rate.id).join(',')}`;
  fc.assert(
    fc.property(fc.array(line(-50_000), { minLength: 1, maxLength: 6 }), terms, (lines, discount) => {
      const parts = discountParts(lines, discount);
      const written = [
        ...lines.map((each) => ({ amount: each.amount, total: each.total, group: groupOf(each), discount: false })),
        ...parts.map((part) => ({ amount: part.amount, total: part.tax.total, group: groupOf(part), discount: true })),
      ];
      const shares = discountedLineTotals(written);
      expect(sum(shares)).toBe(sum(written.map((each) => each.total)));
      lines.forEach((each, index) => {
        if (each.amount <= 0) expect(shares[index]).toBe(each.total);
        else expect(shares[index]).toBeLessThanOrEqual(each.total);
      });
      expect(shares.slice(lines.length).every((share) => share === 0)).toBe(true);
    }),
    { numRuns: 500 },
  );
});

it('a fixed amount larger than the invoice takes it to zero, not below', () => {
  const lines = [taxed(1500, [], undefined)];
  const parts = discountParts(lines, { percentOffHundredths: null, amountOff: 5000 });
  expect(parts.map((part) => part.amount)).toEqual([-1500]);
  expect(1500 + sum(parts.map((part) => part.tax.total))).toBe(0);
});

it('percent: half up once on the subtotal (33.33% of 1001 cents is 333.6333: 334; 50% of 1 cent is 1)', () => {
  const off = (amount: number, hundredths: number) =>
    offOf(discountParts([taxed(amount, [], undefined)], { percentOffHundredths: hundredths, amountOff: null }));
  expect(off(1001, 3333)).toBe(334);
  expect(off(1, 5000)).toBe(1);
  expect(off(3, 1250)).toBe(0);
  expect(off(4, 1250)).toBe(1);
});
