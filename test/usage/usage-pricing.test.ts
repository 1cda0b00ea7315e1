import fc from 'fast-check';
import { priceQuantity, type PriceTier, type Pricing } from '../../src/usage/usage-pricing';

// The tier arithmetic (docs/decisions.md §42, "Tier arithmetic") against a deliberately naive calculation
// written here: units priced one at a time, tiers found by scanning, packages counted by subtraction.

/** The tier unit number `unit` (from 1) falls in: the first whose up_to reaches it. */
function tierOfUnit(tiers: PriceTier[], unit: number): number {
  let index = 0;
  while (tiers[index]!.upTo !== null && unit > tiers[index]!.upTo!) index += 1;
  return index;
}

function naiveAmount(pricing: Pricing, quantity: number): number {
  if (pricing.scheme === 'per_unit') {
    if (!pricing.transform) return pricing.unitAmount * quantity;
    let packages = 0;
    let left = quantity;
    while (left >= pricing.transform.divideBy) {
      left -= pricing.transform.divideBy;
      packages += 1;
    }
    if (left > 0 && pricing.transform.round === 'up') packages += 1;
    return pricing.unitAmount * packages;
  }
  if (quantity === 0) return 0;
  if (pricing.mode === 'volume') {
    const tier = pricing.tiers[tierOfUnit(pricing.tiers, quantity)]!;
    return tier.flatAmount + tier.unitAmount * quantity;
  }
  let total = 0;
  const flatCharged = new Set<number>();
  for (let unit = 1; unit <= quantity; unit++) {
    const index = tierOfUnit(pricing.tiers, unit);
    total += pricing.tiers[index]!.unitAmount;
    if (!flatCharged.has(index)) {
      flatCharged.add(index);
      total += pricing.tiers[index]!.flatAmount;
    }
  }
  return total;
}

const amount = fc.integer({ min: 0, max: 99_999_999 });
/** 1 to 6 tiers, up_to rising by 1 to 400, the last "inf" (null). */
const tiers = fc
  .array(fc.record({ step: fc.integer({ min: 1, max: 400 }), unitAmount: amount, flatAmount: amount }), {
    minLength: 1,
    maxLength: 6,
  })
  .map((drawn) => {
    let upTo = 0;
    return drawn.map(({ step, unitAmount, flatAmount }, index): PriceTier => {
      upTo += step;
      return { upTo: index === drawn.length - 1 ? null : upTo, unitAmount, flatAmount };
    });
  });
const tiered = fc.record({
  scheme: fc.constant('tiered' as const),
  mode: fc.constantFrom('graduated' as const, 'volume' as const),
  tiers,
});
const perUnit = fc.record({
  scheme: fc.constant('per_unit' as const),
  unitAmount: amount,
  transform: fc.option(
    fc.record({ divideBy: fc.integer({ min: 1, max: 500 }), round: fc.constantFrom('up' as const, 'down' as const) }),
  ),
});
const quantity = fc.integer({ min: 0, max: 3000 });

it('agrees with the naive calculation for every scheme, mode and quantity', () => {
  fc.assert(
    fc.property(fc.oneof(tiered, perUnit), quantity, (pricing, units) => {
      const priced = priceQuantity(pricing, units);
      expect(priced.amount).toBe(naiveAmount(pricing, units));
      expect(Number.isInteger(priced.amount)).toBe(true);
      expect(priced.tiers.reduce((sum, tier) => sum + tier.amount, 0)).toBe(
        pricing.scheme === 'tiered' ? priced.amount : 0,
      );
    }),
    { numRuns: 500 },
  );
});

it('bills graduated tiers a breakdown whose quantities add up to the quantity, never decreasing as it grows', () => {
  fc.assert(
    fc.property(tiers, quantity, quantity, (drawn, a, b) => {
      const pricing: Pricing = { scheme: 'tiered', mode: 'graduated', tiers: drawn };
      const priced = priceQuantity(pricing, a);
      expect(priced.tiers.reduce((sum, tier) => sum + tier.quantity, 0)).toBe(a);
      const [low, high] = a <= b ? [a, b] : [b, a];
      expect(priceQuantity(pricing, low).amount).toBeLessThanOrEqual(priceQuantity(pricing, high).amount);
    }),
  );
});

it('prices the examples of docs/api.md', () => {
  const tiersOf: PriceTier[] = [
    { upTo: 1000, unitAmount: 5, flatAmount: 0 },
    { upTo: 10_000, unitAmount: 3, flatAmount: 1000 },
    { upTo: null, unitAmount: 1, flatAmount: 0 },
  ];
  // 1000 x 5 + (1000 + 9000 x 3) + 2000 x 1
  expect(priceQuantity({ scheme: 'tiered', mode: 'graduated', tiers: tiersOf }, 12_000)).toMatchObject({
    amount: 35_000,
    tiers: [
      { tier: 0, quantity: 1000, amount: 5000 },
      { tier: 1, quantity: 9000, amount: 28_000 },
      { tier: 2, quantity: 2000, amount: 2000 },
    ],
  });
  // Every unit at the third tier's price.
  expect(priceQuantity({ scheme: 'tiered', mode: 'volume', tiers: tiersOf }, 12_000).amount).toBe(12_000);
  expect(priceQuantity({ scheme: 'tiered', mode: 'volume', tiers: tiersOf }, 1000).amount).toBe(5000);
  expect(priceQuantity({ scheme: 'tiered', mode: 'graduated', tiers: tiersOf }, 0).amount).toBe(0);
  const packages: Pricing = { scheme: 'per_unit', unitAmount: 250, transform: { divideBy: 1000, round: 'up' } };
  expect(priceQuantity(packages, 1001)).toMatchObject({ quantity: 2, amount: 500 });
  expect(priceQuantity({ ...packages, transform: { divideBy: 1000, round: 'down' } }, 1999).amount).toBe(250);
  expect(() => priceQuantity(packages, -1)).toThrow(RangeError);
  expect(() => priceQuantity({ scheme: 'per_unit', unitAmount: 99_999_999 }, 1e12)).toThrow(RangeError);
});
