import fc from 'fast-check';
import {
  endingCredits,
  proratedCents,
  prorationLines,
  prorationPeriod,
  type ProrationLine,
} from '../../src/subscriptions/proration';
import type { SubscriptionItemState } from '../../src/subscriptions/subscription-machine';

// The rounding rule of docs/api.md ("Proration"), computed here independently of the module: the exact
// amount is a fraction n/d of cents; doubling it tells the halfway case apart without a remainder.
function roundHalfEven(n: bigint, d: bigint): bigint {
  const doubledFloor = (2n * n) / d;
  const halfway = (2n * n) % d === 0n && doubledFloor % 2n === 1n;
  if (!halfway) return (doubledFloor + 1n) / 2n;
  const below = doubledFloor / 2n;
  return below % 2n === 0n ? below : below + 1n;
}

/** What a line of `kind` for `item` over the rest of the period is worth, by the rule, in the test's own terms. */
function expectedLine(unitAmount: number, quantity: number, secondsLeft: number, periodSeconds: number, sign: 1 | -1) {
  const cents = roundHalfEven(BigInt(unitAmount) * BigInt(quantity) * BigInt(secondsLeft), BigInt(periodSeconds));
  return sign * Number(cents);
}

const S = Date.UTC(2026, 0, 31, 10, 0, 0);
const prices = ['price_a', 'price_b', 'price_c', 'price_d', 'price_e'];

type Step =
  | { kind: 'quantity'; pick: number; quantity: number }
  | { kind: 'price'; pick: number; price: number }
  | { kind: 'add'; price: number; quantity: number }
  | { kind: 'remove'; pick: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('quantity' as const), pick: fc.nat(), quantity: fc.integer({ min: 1, max: 100_000 }) }),
  fc.record({ kind: fc.constant('price' as const), pick: fc.nat(), price: fc.nat({ max: prices.length - 1 }) }),
  fc.record({
    kind: fc.constant('add' as const),
    price: fc.nat({ max: prices.length - 1 }),
    quantity: fc.integer({ min: 1, max: 1000 }),
  }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
);

/** Applies a step as the state machine would (one price per item, at least one item); null when it changes nothing possible. */
function applyStep(items: SubscriptionItemState[], step: Step, nextId: () => string): SubscriptionItemState[] {
  const used = new Set(items.map((item) => item.priceId));
  switch (step.kind) {
    case 'quantity': {
      const index = step.pick % items.length;
      return items.map((item, i) => (i === index ? { ...item, quantity: step.quantity } : item));
    }
    case 'price': {
      const index = step.pick % items.length;
      const priceId = prices[step.price]!;
      if (used.has(priceId)) return items;
      return items.map((item, i) => (i === index ? { ...item, priceId } : item));
    }
    case 'add': {
      const priceId = prices[step.price]!;
      if (used.has(priceId)) return items;
      return [...items, { id: nextId(), priceId, quantity: step.quantity, taxRateIds: [] }];
    }
    case 'remove':
      if (items.length === 1) return items;
      return items.filter((_, i) => i !== step.pick % items.length);
  }
}

const scenario = fc.record({
  // A day up to a leap year, in whole seconds.
  periodSeconds: fc.integer({ min: 86_400, max: 366 * 86_400 }),
  unitAmounts: fc.array(fc.integer({ min: 0, max: 99_999_999 }), {
    minLength: prices.length,
    maxLength: prices.length,
  }),
  initialQuantity: fc.integer({ min: 1, max: 100_000 }),
  // Offsets (fractions of the period, in millionths) at which the changes happen, sorted below.
  changes: fc.array(fc.tuple(fc.integer({ min: 0, max: 999_999 }), stepArbitrary), { maxLength: 12 }),
});

describe('proration (docs/api.md "Proration"): per line, half to even, exact to the second', () => {
  it('a sequence of changes within a period bills the time-weighted price of what was held, to the cent per line', () => {
    fc.assert(
      fc.property(scenario, ({ periodSeconds, unitAmounts, initialQuantity, changes }) => {
        const amounts = Object.fromEntries(prices.map((id, i) => [id, unitAmounts[i]!]));
        const period = { start: S, end: S + periodSeconds * 1000 };
        let counter = 0;
        const nextId = () => `si_${++counter}`;
        let items: SubscriptionItemState[] = [
          { id: nextId(), priceId: 'price_a', quantity: initialQuantity, taxRateIds: [] },
        ];
        // The period's invoice billed what was held at its start, in full.
        let billed = items.reduce((sum, item) => sum + BigInt(amounts[item.priceId]!) * BigInt(item.quantity), 0n);
        // The exact time-weighted price, as a numerator over periodSeconds.
        let exact = 0n;
        let heldSince = 0;
        let lineCount = 0;
        const times = changes
          .map(([offset, step]) => ({ at: Math.floor((periodSeconds * offset) / 1_000_000), step }))
          .sort((a, b) => a.at - b.at);
        for (const { at, step } of times) {
          const after = applyStep(items, step, nextId);
          const lines = prorationLines(items, after, amounts, period, S + at * 1000);
          // The lines the rule calls for, worked out here: a credit per item removed or repriced or
          // requantified, a charge per item added or changed, each rounded; a line rounding to 0 is left out.
          const left = periodSeconds - at;
          const changed = (a: SubscriptionItemState, b: SubscriptionItemState | undefined) =>
            !b || a.priceId !== b.priceId || a.quantity !== b.quantity;
          const candidates = [
            ...items
              .filter((item) =>
                changed(
                  item,
                  after.find((other) => other.id === item.id),
                ),
              )
              .map((item) => ({ item, sign: -1 as const })),
            ...after
              .filter((item) =>
                changed(
                  item,
                  items.find((other) => other.id === item.id),
                ),
              )
              .map((item) => ({ item, sign: 1 as const })),
          ];
          const expected = candidates
            .map(({ item, sign }) => ({
              priceId: item.priceId,
              quantity: item.quantity,
              amount: expectedLine(amounts[item.priceId]!, item.quantity, left, periodSeconds, sign),
            }))
            .filter((line) => line.amount !== 0);
          expect(lines.map(({ priceId, quantity, amount }) => ({ priceId, quantity, amount }))).toEqual(expected);
          for (const line of lines) {
            expect(line.periodStart).toBe(S + at * 1000);
            expect(line.periodEnd).toBe(period.end);
            billed += BigInt(line.amount);
          }
          lineCount += candidates.length;
          for (const item of items)
            exact += BigInt(amounts[item.priceId]!) * BigInt(item.quantity) * BigInt(at - heldSince);
          heldSince = at;
          items = after;
        }
        for (const item of items)
          exact += BigInt(amounts[item.priceId]!) * BigInt(item.quantity) * BigInt(periodSeconds - heldSince);
        // Each line (one rounded to 0 and left out included) is off by at most half a cent from its exact
        // share: the sum by at most half a cent per line.
        const error = billed * BigInt(periodSeconds) - exact;
        const bound = (BigInt(lineCount) * BigInt(periodSeconds)) / 2n;
        expect(error <= bound && -error <= bound).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('rounds half to even on the magnitude, and a credit is the negated charge of the same span', () => {
    expect(proratedCents(1, 1, 2)).toBe(0); // 0.5 -> 0
    expect(proratedCents(3, 1, 2)).toBe(2); // 1.5 -> 2
    expect(proratedCents(5, 1, 2)).toBe(2); // 2.5 -> 2
    expect(proratedCents(1000, 1, 3)).toBe(333);
    expect(proratedCents(1000, 2, 3)).toBe(667);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99_999_999 * 100 }),
        fc.integer({ min: 1, max: 366 * 86_400 }),
        fc.integer({ min: 1, max: 366 * 86_400 }),
        (amount, a, b) => {
          const [left, total] = a <= b ? [a, b] : [b, a];
          expect(proratedCents(amount, left, total)).toBe(
            Number(roundHalfEven(BigInt(amount) * BigInt(left), BigInt(total))),
          );
        },
      ),
    );
    const item = { id: 'si_1', priceId: 'price_a', quantity: 3, taxRateIds: [] };
    const period = { start: S, end: S + 30 * 86_400_000 };
    const at = S + 7 * 86_400_000 + 12_345_000;
    const up = prorationLines([item], [{ ...item, quantity: 5 }], { price_a: 999 }, period, at);
    const back = prorationLines([{ ...item, quantity: 5 }], [item], { price_a: 999 }, period, at);
    expect([...up, ...back].reduce((sum, line) => sum + line.amount, 0)).toBe(0);
  });

  it('prorates price and quantity changes only: unchanged items and tax-only changes add no line', () => {
    const a = { id: 'si_1', priceId: 'price_a', quantity: 2, taxRateIds: ['txr_1'] };
    const b = { id: 'si_2', priceId: 'price_b', quantity: 1, taxRateIds: [] };
    const period = { start: S, end: S + 10_000_000 };
    const amounts = { price_a: 1000, price_b: 500, price_c: 700 };
    expect(prorationLines([a, b], [{ ...a, taxRateIds: [] }, b], amounts, period, S + 1_000_000)).toEqual([]);
    const lines = prorationLines([a, b], [a, { ...b, priceId: 'price_c' }], amounts, period, S + 4_000_000);
    expect(lines).toEqual<ProrationLine[]>([
      {
        kind: 'unused',
        priceId: 'price_b',
        quantity: 1,
        taxRateIds: [],
        amount: -300,
        periodStart: S + 4_000_000,
        periodEnd: period.end,
      },
      {
        kind: 'remaining',
        priceId: 'price_c',
        quantity: 1,
        taxRateIds: [],
        amount: 420,
        periodStart: S + 4_000_000,
        periodEnd: period.end,
      },
    ]);
    expect(endingCredits([a], amounts, period, S + 5_000_000)).toEqual([
      {
        kind: 'unused',
        priceId: 'price_a',
        quantity: 2,
        taxRateIds: ['txr_1'],
        amount: -1000,
        periodStart: S + 5_000_000,
        periodEnd: period.end,
      },
    ]);
  });

  it('prorates only inside a billed period of an active subscription (decisions.md §25)', () => {
    const billed = {
      status: 'active' as const,
      invoicesIssued: 1,
      currentPeriodStart: S,
      currentPeriodEnd: S + 1000_000,
    };
    expect(prorationPeriod(billed, S + 1)).toEqual({ start: S, end: S + 1000_000 });
    expect(prorationPeriod(billed, S + 1000_000)).toBeNull();
    expect(prorationPeriod({ ...billed, status: 'trialing' }, S + 1)).toBeNull();
    expect(prorationPeriod({ ...billed, status: 'paused' }, S + 1)).toBeNull();
    expect(prorationPeriod({ ...billed, status: 'scheduled' }, S + 1)).toBeNull();
    expect(prorationPeriod({ ...billed, invoicesIssued: 0 }, S + 1)).toBeNull();
  });
});
