/**
 * Pure tax arithmetic on integer cents. Percentages (at most 4 decimals) are scaled to integers
 * (pct * 10000) so that every step is exact BigInt math; the only rounding is an explicit half-up.
 */

export interface TaxRateForCalc {
  id: string;
  percentage: number;
  inclusive: boolean;
}
export interface TaxAmount {
  tax_rate: string;
  tax_behavior: 'inclusive' | 'exclusive';
  amount: number;
  taxable_amount: number;
}
export interface TaxResult {
  amount_excluding_tax: number;
  inclusive_tax: number;
  exclusive_tax: number;
  tax: number;
  total: number;
  taxes: TaxAmount[];
}

/** 100% expressed in the scaled percentage unit (pct * 10000). */
const HUNDRED_PERCENT = 1_000_000n;

function scaledPercentage(percentage: number): bigint {
  return BigInt(Math.round(percentage * 10_000));
}

/** round_half_up(numerator / denominator) for non-negative numerator and positive denominator. */
function divideRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (2n * numerator + denominator) / (2n * denominator);
}

/**
 * Splits `total` across `weights` proportionally (largest remainder); ties go to the earlier index,
 * so the parts always add up to `total` and the split is deterministic.
 */
function splitProportionally(total: bigint, weights: readonly bigint[]): bigint[] {
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0n);
  if (weightSum === 0n) return weights.map(() => 0n);
  const parts = weights.map((weight) => (total * weight) / weightSum);
  const remainders = weights.map((weight, index) => ({ index, remainder: (total * weight) % weightSum }));
  const leftover = total - parts.reduce((sum, part) => sum + part, 0n);
  remainders.sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  const bonus = new Set(remainders.slice(0, Number(leftover)).map(({ index }) => index));
  return parts.map((part, index) => (bonus.has(index) ? part + 1n : part));
}

export type TaxBehavior = TaxAmount['tax_behavior'];

/**
 * amount: integer cents of a line (unit_amount * quantity). A negative amount (a credit) is taxed as the
 * mirror image of its magnitude, so rounding is half away from zero and credits cancel charges exactly.
 *
 * `priceTaxBehavior`: the line bills a price, whose `tax_behavior` decides whether tax is included in
 * its unit amount (Stripe's rule, docs/api.md "Tax arithmetic"): every rate on the line is then taken
 * out of the amount (`inclusive`) or added on top (`exclusive`), whatever the rate's own flag. Without
 * it (a line with an amount of its own) each rate applies as its `inclusive` flag says.
 */
export function computeTax(
  amount: number,
  rates: readonly TaxRateForCalc[],
  priceTaxBehavior?: TaxBehavior,
): TaxResult {
  if (!Number.isSafeInteger(amount)) {
    throw new RangeError(`computeTax: amount must be an integer number of cents, got ${amount}`);
  }
  const sign = amount < 0 ? -1n : 1n;
  const cents = BigInt(Math.abs(amount));
  const applied =
    priceTaxBehavior === undefined
      ? rates
      : rates.map((rate) => ({ ...rate, inclusive: priceTaxBehavior === 'inclusive' }));
  const scaled = applied.map((rate) => ({ rate, pct: scaledPercentage(rate.percentage) }));
  for (const { rate, pct } of scaled) {
    if (pct < 0n) throw new RangeError(`computeTax: tax rate ${rate.id} has a negative percentage`);
  }
  const inclusiveIndexes = scaled.flatMap(({ rate }, index) => (rate.inclusive ? [index] : []));
  const inclusivePcts = scaled.flatMap(({ rate, pct }) => (rate.inclusive ? [pct] : []));

  const inclusivePctSum = inclusivePcts.reduce((sum, pct) => sum + pct, 0n);
  // amount / (1 + sum/100) with the sum scaled by 10000  ==  amount * 1_000_000 / (1_000_000 + scaledSum)
  const excludingTax = divideRoundHalfUp(cents * HUNDRED_PERCENT, HUNDRED_PERCENT + inclusivePctSum);
  const inclusiveTax = cents - excludingTax;
  const inclusiveParts = splitProportionally(inclusiveTax, inclusivePcts);
  const taxByIndex = new Map(
    inclusiveIndexes.map((rateIndex, partIndex) => [rateIndex, inclusiveParts[partIndex] ?? 0n]),
  );

  let exclusiveTax = 0n;
  const taxes: TaxAmount[] = scaled.map(({ rate, pct }, index) => {
    let taxAmount = taxByIndex.get(index);
    if (taxAmount === undefined) {
      taxAmount = divideRoundHalfUp(excludingTax * pct, HUNDRED_PERCENT);
      exclusiveTax += taxAmount;
    }
    return {
      tax_rate: rate.id,
      tax_behavior: rate.inclusive ? 'inclusive' : 'exclusive',
      amount: Number(sign * taxAmount),
      taxable_amount: Number(sign * excludingTax),
    };
  });

  return {
    amount_excluding_tax: Number(sign * excludingTax),
    inclusive_tax: Number(sign * inclusiveTax),
    exclusive_tax: Number(sign * exclusiveTax),
    tax: Number(sign * (inclusiveTax + exclusiveTax)),
    total: Number(sign * (cents + exclusiveTax)),
    taxes,
  };
}
