/**
 * What a quantity costs under a price's scheme, in integer cents (docs/decisions.md §42, "Tier arithmetic"):
 * per unit (optionally per package), or tiered, graduated or volume. Pure: the API's previews and billing
 * in arrears compute with the same function. Amounts and quantities are integers, so no amount is ever
 * rounded; the only rounding is a package's (transform_quantity: up or down).
 */

export interface PriceTier {
  /** The tier's last quantity (inclusive); null for the last tier ("inf"). */
  upTo: number | null;
  unitAmount: number;
  flatAmount: number;
}

export type Pricing =
  | { scheme: 'per_unit'; unitAmount: number; transform?: { divideBy: number; round: 'up' | 'down' } | null }
  | { scheme: 'tiered'; mode: 'graduated' | 'volume'; tiers: PriceTier[] };

/** One tier's part of an amount: the invoice line's breakdown. */
export interface TierCharge {
  /** The tier's position in the price's tiers, from 0. */
  tier: number;
  /** The tier's up_to (null: "inf"). */
  upTo: number | null;
  quantity: number;
  unitAmount: number;
  flatAmount: number;
  amount: number;
}

export interface PricedQuantity {
  /** The quantity the price bills: packages after transform_quantity, the quantity otherwise. */
  quantity: number;
  amount: number;
  /** Tiered prices: the tiers the quantity reached (volume: the one tier), lowest first; [] otherwise. */
  tiers: TierCharge[];
}

/** An amount past JavaScript's exact integers is a broken invariant, never a rounded figure. */
function exact(cents: bigint): number {
  if (cents > BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError(`An amount of ${cents} cents is past exact integers.`);
  return Number(cents);
}

function charge(tier: number, { upTo, unitAmount, flatAmount }: PriceTier, quantity: number): TierCharge {
  return {
    tier,
    upTo,
    quantity,
    unitAmount,
    flatAmount,
    amount: exact(BigInt(unitAmount) * BigInt(quantity) + BigInt(flatAmount)),
  };
}

/**
 * The amount of `quantity` (a non-negative integer) under `pricing`. A tier's flat amount is charged when at
 * least one unit falls in it (graduated) or when the quantity falls in it (volume): a quantity of 0 costs 0.
 */
export function priceQuantity(pricing: Pricing, quantity: number): PricedQuantity {
  if (!Number.isSafeInteger(quantity) || quantity < 0) throw new RangeError(`Quantity ${quantity} is not a count.`);
  if (pricing.scheme === 'per_unit') {
    const transform = pricing.transform;
    const billed = !transform
      ? quantity
      : transform.round === 'up'
        ? Math.ceil(quantity / transform.divideBy)
        : Math.floor(quantity / transform.divideBy);
    return { quantity: billed, amount: exact(BigInt(pricing.unitAmount) * BigInt(billed)), tiers: [] };
  }
  if (quantity === 0) return { quantity, amount: 0, tiers: [] };
  const tiers: TierCharge[] = [];
  if (pricing.mode === 'volume') {
    const index = pricing.tiers.findIndex((tier) => tier.upTo === null || quantity <= tier.upTo);
    tiers.push(charge(index, pricing.tiers[index]!, quantity));
  } else {
    let below = 0;
    for (const [index, tier] of pricing.tiers.entries()) {
      const top = tier.upTo === null ? quantity : Math.min(quantity, tier.upTo);
      if (top <= below) break;
      tiers.push(charge(index, tier, top - below));
      below = top;
    }
  }
  return { quantity, amount: exact(tiers.reduce((sum, tier) => sum + BigInt(tier.amount), 0n)), tiers };
}

/** A usage line's tier as the invoice line keeps it: the API's names, what this line billed in that tier. */
export interface LineTier {
  up_to: number | null;
  quantity: number;
  unit_amount: number;
  /** The tier's flat fee this line charges (0 when an earlier line of the period charged it). */
  flat_amount: number;
  /** unit_amount x quantity + flat_amount. */
  amount: number;
  /**
   * Graduated: the period's first unit this part bills (or takes back), counting the period's whole usage from
   * 1, so a late or remainder line's part names the units it adds past those billed before ("Units 101-150");
   * null for volume (every unit at one tier's price). Absent from lines billed before it was kept.
   */
  first_unit?: number | null;
}

/**
 * How a usage line was priced (docs/decisions.md §46), kept with the line when it is billed: the tiers and
 * their parts, or the packages billed. The parts add up to the line's amount exactly.
 */
export type LinePricing =
  | { tiers_mode: 'graduated' | 'volume'; tiers: LineTier[] }
  | { transform_quantity: { divide_by: number; round: 'up' | 'down' }; packages: number };

/**
 * A usage line's amount and its breakdown: the period's usage `total` less what earlier lines billed of it
 * (`billedBefore`, docs/decisions.md §43). Each tier's part is its part of price(total) less its part of
 * price(billedBefore), so the parts add up to `price(total) - price(billedBefore)` exactly; a volume line
 * whose usage moved the period to another tier shows the earlier tier taken back (negative) and the new one
 * whole. A plain per-unit price has no breakdown (null): quantity x unit_amount says it all.
 */
export function priceUsageLine(
  pricing: Pricing,
  total: number,
  billedBefore: number,
): { amount: number; pricing: LinePricing | null } {
  const now = priceQuantity(pricing, total);
  const before = priceQuantity(pricing, billedBefore);
  const amount = now.amount - before.amount;
  if (pricing.scheme === 'per_unit') {
    if (!pricing.transform) return { amount, pricing: null };
    const { divideBy, round } = pricing.transform;
    return {
      amount,
      pricing: { transform_quantity: { divide_by: divideBy, round }, packages: now.quantity - before.quantity },
    };
  }
  const tiers: LineTier[] = [];
  for (const [index, tier] of pricing.tiers.entries()) {
    const part = (charges: TierCharge[]) =>
      charges.find((each) => each.tier === index) ?? { quantity: 0, flatAmount: 0, amount: 0 };
    const [after, earlier] = [part(now.tiers), part(before.tiers)];
    if (after.quantity === earlier.quantity && after.amount === earlier.amount) continue;
    const tierStart = index === 0 ? 0 : (pricing.tiers[index - 1]!.upTo ?? 0);
    tiers.push({
      up_to: tier.upTo,
      quantity: after.quantity - earlier.quantity,
      unit_amount: tier.unitAmount,
      flat_amount: after.flatAmount - earlier.flatAmount,
      amount: after.amount - earlier.amount,
      first_unit: pricing.mode === 'graduated' ? tierStart + Math.min(after.quantity, earlier.quantity) + 1 : null,
    });
  }
  return { amount, pricing: { tiers_mode: pricing.mode, tiers } };
}
