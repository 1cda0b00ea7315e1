import fc from 'fast-check';
import { priceQuantity, priceUsageLine, type PriceTier, type Pricing } from '../../src/usage/usage-pricing';

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

it('breaks a usage line down into parts adding up to its amount exactly, late usage included (docs/decisions.md §46)', () => {
  fc.assert(
    fc.property(fc.oneof(tiered, perUnit), quantity, quantity, (pricing, a, b) => {
      const [billedBefore, total] = a <= b ? [a, b] : [b, a];
      const line = priceUsageLine(pricing, total, billedBefore);
      expect(line.amount).toBe(naiveAmount(pricing, total) - naiveAmount(pricing, billedBefore));
      if (pricing.scheme === 'per_unit' && !pricing.transform) return expect(line.pricing).toBeNull();
      if (pricing.scheme === 'per_unit') {
        if (!line.pricing || !('packages' in line.pricing)) throw new Error('a package line has its packages');
        return expect(line.pricing.packages * pricing.unitAmount).toBe(line.amount);
      }
      if (!line.pricing || !('tiers' in line.pricing)) throw new Error('a tiered line has its tiers');
      const parts = line.pricing.tiers;
      expect(parts.reduce((sum, part) => sum + part.amount, 0)).toBe(line.amount);
      for (const part of parts) expect(part.amount).toBe(part.unit_amount * part.quantity + part.flat_amount);
      // Graduated: the units added land in tiers, never taken back; every unit is counted once.
      if (pricing.mode === 'graduated') {
        expect(parts.reduce((sum, part) => sum + part.quantity, 0)).toBe(total - billedBefore);
        for (const part of parts) expect(part.quantity).toBeGreaterThanOrEqual(0);
        // The parts bill the units after those billed before, one after another.
        let next = billedBefore + 1;
        for (const part of parts) {
          expect(part.first_unit).toBe(next);
          next += part.quantity;
        }
      }
      // Volume billed from nothing: the one tier the total falls in.
      if (pricing.mode === 'volume' && billedBefore === 0 && total > 0) expect(parts).toHaveLength(1);
    }),
    { numRuns: 500 },
  );
});

it('breaks the examples of docs/api.md down by tier and package', () => {
  const tiersOf: PriceTier[] = [
    { upTo: 1000, unitAmount: 5, flatAmount: 0 },
    { upTo: 10_000, unitAmount: 3, flatAmount: 1000 },
    { upTo: null, unitAmount: 1, flatAmount: 0 },
  ];
  expect(priceUsageLine({ scheme: 'tiered', mode: 'graduated', tiers: tiersOf }, 12_000, 0)).toEqual({
    amount: 35_000,
    pricing: {
      tiers_mode: 'graduated',
      tiers: [
        { up_to: 1000, quantity: 1000, unit_amount: 5, flat_amount: 0, amount: 5000, first_unit: 1 },
        { up_to: 10_000, quantity: 9000, unit_amount: 3, flat_amount: 1000, amount: 28_000, first_unit: 1001 },
        { up_to: null, quantity: 2000, unit_amount: 1, flat_amount: 0, amount: 2000, first_unit: 10_001 },
      ],
    },
  });
  // Late usage moving a volume period from the first tier to the second: the first taken back, the second whole.
  expect(priceUsageLine({ scheme: 'tiered', mode: 'volume', tiers: tiersOf }, 1500, 900)).toEqual({
    amount: 1000 + 1500 * 3 - 900 * 5,
    pricing: {
      tiers_mode: 'volume',
      tiers: [
        { up_to: 1000, quantity: -900, unit_amount: 5, flat_amount: 0, amount: -4500, first_unit: null },
        { up_to: 10_000, quantity: 1500, unit_amount: 3, flat_amount: 1000, amount: 5500, first_unit: null },
      ],
    },
  });
  // Late usage of a graduated period billed up to 1100 before: units 1101-1300, in the second tier.
  expect(priceUsageLine({ scheme: 'tiered', mode: 'graduated', tiers: tiersOf }, 1300, 1100).pricing).toEqual({
    tiers_mode: 'graduated',
    tiers: [{ up_to: 10_000, quantity: 200, unit_amount: 3, flat_amount: 0, amount: 600, first_unit: 1101 }],
  });
  const packages: Pricing = { scheme: 'per_unit', unitAmount: 250, transform: { divideBy: 1000, round: 'up' } };
  expect(priceUsageLine(packages, 2500, 0)).toEqual({
    amount: 750,
    pricing: { transform_quantity: { divide_by: 1000, round: 'up' }, packages: 3 },
  });
  expect(priceUsageLine({ scheme: 'per_unit', unitAmount: 3 }, 10, 0)).toEqual({ amount: 30, pricing: null });
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
      { tier: 0, upTo: 1000, quantity: 1000, amount: 5000 },
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
