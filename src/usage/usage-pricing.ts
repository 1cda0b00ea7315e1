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

function charge(tier: number, { unitAmount, flatAmount }: PriceTier, quantity: number): TierCharge {
  return {
    tier,
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
