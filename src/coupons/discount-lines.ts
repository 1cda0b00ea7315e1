import { computeTax, type TaxBehavior, type TaxRateForCalc, type TaxResult } from '../catalog';

/**
 * The discount's arithmetic (docs/api.md, "Coupons and discounts"), pure integer cents so that the
 * invoice, the upcoming-invoice preview and the tests compute the same thing:
 *
 * 1. The base is the invoice's subtotal before discount: the sum of its lines' `amount` (prorations and
 *    carried credits included). A base of zero or less takes no discount.
 * 2. `percent_off` takes base x percent / 100, rounded half up to the cent once per invoice (the percent is
 *    exact: hundredths of a percent); `amount_off` takes min(amount_off, base).
 * 3. That amount is split over the positive lines' tax groups (same tax rates and tax behavior), in
 *    proportion to their amounts, by largest remainder (ties to the group first on the invoice): one
 *    discount line per group, a negative amount carrying the group's rates, so tax is computed after the
 *    discount (each discount line is taxed as any line, half up, its tax negative).
 * 4. The discount never takes the invoice's total below zero (nor below what it was without it, when
 *    credits had already taken it there): it is lowered until it does not.
 */

/** What a discount takes off: exactly one is set. */
export interface DiscountTerms {
  /** Hundredths of a percent: 1250 is 12.5%. */
  percentOffHundredths: number | null;
  /** Cents. */
  amountOff: number | null;
}

/** A line of the invoice as priced: its amount, tax rates, tax behavior (a price's) and total with tax. */
export interface TaxedLine {
  amount: number;
  total: number;
  rates: readonly TaxRateForCalc[];
  taxBehavior?: TaxBehavior;
}

/** One discount line: a negative amount for one tax group, and its tax as computeTax gives it. */
export interface DiscountPart {
  amount: number;
  rates: readonly TaxRateForCalc[];
  taxBehavior?: TaxBehavior;
  tax: TaxResult;
}

/** round_half_up(cents x hundredths / 10000) for cents >= 0. */
export function percentOf(cents: number, hundredths: number): number {
  const numerator = BigInt(cents) * BigInt(hundredths);
  return Number((2n * numerator + 10_000n) / 20_000n);
}

/** The cents a discount takes off a base (step 2), before the floor of step 4. */
export function discountOff(base: number, terms: DiscountTerms): number {
  if (base <= 0) return 0;
  if (terms.percentOffHundredths !== null) return percentOf(base, terms.percentOffHundredths);
  return Math.min(terms.amountOff ?? 0, base);
}

interface TaxGroup {
  weight: number;
  rates: readonly TaxRateForCalc[];
  taxBehavior?: TaxBehavior;
}

function groupsOf(lines: readonly TaxedLine[]): TaxGroup[] {
  const groups = new Map<string, TaxGroup>();
  for (const line of lines) {
    if (line.amount <= 0) continue;
    const key = `${line.taxBehavior ?? '-'}|${line.rates.map((rate) => rate.id).join(',')}`;
    const group = groups.get(key);
    if (group) group.weight += line.amount;
    else groups.set(key, { weight: line.amount, rates: line.rates, taxBehavior: line.taxBehavior });
  }
  return [...groups.values()];
}

/** `total` split over `weights` in proportion, by largest remainder; ties go to the earlier index. */
export function splitByWeight(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((acc, weight) => acc + weight, 0);
  if (sum <= 0) return weights.map(() => 0);
  const big = weights.map((weight) => BigInt(total) * BigInt(weight));
  const parts = big.map((value) => Number(value / BigInt(sum)));
  const order = big
    .map((value, index) => ({ index, remainder: value % BigInt(sum) }))
    .sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  let left = total - parts.reduce((acc, part) => acc + part, 0);
  for (const { index } of order) {
    if (left <= 0) break;
    parts[index]! += 1;
    left -= 1;
  }
  return parts;
}

function partsFor(off: number, groups: readonly TaxGroup[]): DiscountPart[] {
  const shares = splitByWeight(
    off,
    groups.map((group) => group.weight),
  );
  return groups.flatMap((group, index) => {
    const share = shares[index]!;
    if (share <= 0) return [];
    return [
      {
        amount: -share,
        rates: group.rates,
        taxBehavior: group.taxBehavior,
        tax: computeTax(-share, group.rates, group.taxBehavior),
      },
    ];
  });
}

/** The discount lines of an invoice whose lines are `lines` (steps 1 to 4 above); none when nothing is taken off. */
export function discountParts(lines: readonly TaxedLine[], terms: DiscountTerms): DiscountPart[] {
  const base = lines.reduce((sum, line) => sum + line.amount, 0);
  let off = discountOff(base, terms);
  if (off <= 0) return [];
  const groups = groupsOf(lines);
  const before = lines.reduce((sum, line) => sum + line.total, 0);
  const floor = Math.min(0, before);
  for (;;) {
    const parts = partsFor(off, groups);
    const total = before + parts.reduce((sum, part) => sum + part.tax.total, 0);
    if (total >= floor) return parts;
    off -= Math.max(1, floor - total);
    if (off <= 0) return [];
  }
}

/** A line of an invoice as written, for its share of the discount: what discountedLineTotals reads. */
export interface WrittenLine {
  amount: number;
  /** With tax. */
  total: number;
  /** Its tax group: the same rates with the same behavior (a discount line carries its group's). */
  group: string;
  /** A discount line (one per tax group, negative). */
  discount: boolean;
}

/**
 * What each line of an invoice came to after its share of the discount, with tax (docs/decisions.md §22,
 * "By line or by amount"): each discount line's total is split over the positive lines of its tax group in
 * proportion to their amounts, by largest remainder (as step 3 split the discount over the groups), so the
 * shares add up to the invoice's total. A discount line's own share is 0 (it is in the others'); a line
 * below zero, or of an invoice without discount, keeps its total.
 */
export function discountedLineTotals(lines: readonly WrittenLine[]): number[] {
  const shares = lines.map((line) => (line.discount ? 0 : line.total));
  const positive = lines.flatMap((line, index) => (!line.discount && line.amount > 0 ? [index] : []));
  for (const discount of lines.filter((line) => line.discount)) {
    const inGroup = positive.filter((index) => lines[index]!.group === discount.group);
    const takers = inGroup.length > 0 ? inGroup : positive;
    const parts = splitByWeight(
      -discount.total,
      takers.map((index) => lines[index]!.amount),
    );
    takers.forEach((index, position) => (shares[index]! -= parts[position]!));
  }
  return shares;
}
