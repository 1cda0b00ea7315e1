import { z } from 'zod';
import { paginationQuery } from '../http/pagination';
import { includeNamesQuery, resourceId, unixTime } from '../http/validation';
import { commaSeparatedIds, createdRange, jsonTextFilter } from './search-filter';
import { updatedMsField } from '../lib/object-version';
import { currencyCode } from '../lib/iso';

export const MAX_UNIT_AMOUNT = 99_999_999;
export const MAX_DESCRIPTION = 255;

export const PRICE_TYPES = ['recurring', 'one_time'] as const;
export const RECURRING_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export const TAX_BEHAVIORS = ['exclusive', 'inclusive'] as const;

/** A billing period may not exceed three years, whatever unit it is counted in. */
export const MAX_INTERVAL_COUNT: Record<(typeof RECURRING_INTERVALS)[number], number> = {
  day: 1095,
  week: 156,
  month: 36,
  year: 3,
};

export const description = z.string().max(MAX_DESCRIPTION, `must be at most ${MAX_DESCRIPTION} characters`);

/** The spec allows `USD` only; lower case is accepted and answered upper case, as elsewhere in the API (src/lib/iso.ts). */
export const priceCurrency = z
  .enum(['USD', 'usd'], { error: 'must be USD (the only supported currency), upper or lower case' })
  .transform(() => 'USD' as const);

export const unitAmount = z
  .number()
  .int('must be an integer number of cents')
  .min(0, 'must be at least 0')
  .max(MAX_UNIT_AMOUNT, `must be at most ${MAX_UNIT_AMOUNT} cents`);

const recurringShape = {
  interval: z.enum(RECURRING_INTERVALS),
  interval_count: z.number().int('must be an integer').min(1, 'must be at least 1'),
};

function checkIntervalCount(
  value: { interval: (typeof RECURRING_INTERVALS)[number]; interval_count: number },
  ctx: z.RefinementCtx,
) {
  const max = MAX_INTERVAL_COUNT[value.interval];
  if (value.interval_count > max) {
    ctx.addIssue({
      code: 'custom',
      path: ['interval_count'],
      message: `must be at most ${max} for interval ${value.interval} (three years)`,
    });
  }
}

export const recurringInput = z.strictObject(recurringShape).superRefine(checkIntervalCount);

/** Stripe's usage types: licensed bills the quantity stated, metered a meter's total over the period. */
export const USAGE_TYPES = ['licensed', 'metered'] as const;
export const BILLING_SCHEMES = ['per_unit', 'tiered'] as const;
export const TIERS_MODES = ['graduated', 'volume'] as const;
export const TRANSFORM_ROUNDINGS = ['up', 'down'] as const;
/** The most tiers a price holds. */
export const MAX_TIERS = 25;
/** The largest finite `up_to`: a meter's values reach 10^12, a period's total can pass it. */
export const MAX_TIER_UP_TO = 1_000_000_000_000_000;

/** POST /prices/{product}'s `recurring`: with Stripe's `usage_type` and `meter` (docs/api.md, "Usage-based billing"). */
const recurringUsageInput = z
  .strictObject({
    ...recurringShape,
    usage_type: z
      .enum(USAGE_TYPES)
      .default('licensed')
      .describe("licensed (default): the quantity stated; metered: `meter`'s total over each period"),
    meter: resourceId.optional().describe('With usage_type metered: the meter (mtr_...) whose total is billed'),
  })
  .superRefine((value, ctx) => {
    checkIntervalCount(value, ctx);
    if (value.usage_type === 'metered' && value.meter === undefined)
      ctx.addIssue({ code: 'custom', path: ['meter'], message: 'is required with usage_type metered' });
    if (value.usage_type !== 'metered' && value.meter !== undefined)
      ctx.addIssue({ code: 'custom', path: ['meter'], message: 'goes with usage_type metered only' });
  });

const tierInput = z.strictObject({
  up_to: z
    .union([
      z
        .number()
        .int('must be an integer or "inf"')
        .min(1, 'must be at least 1')
        .max(MAX_TIER_UP_TO, 'must be at most 10^15'),
      z.literal('inf'),
    ])
    .describe('The last quantity of the tier (inclusive); "inf" for the last tier'),
  unit_amount: unitAmount.optional().describe('Cents per unit in the tier'),
  flat_amount: unitAmount.optional().describe('Cents once for the tier, when the quantity reaches into it'),
});

/** Tiers rise strictly, end with "inf" alone, and each charges something. */
function checkTiers(tiers: z.output<typeof tierInput>[], ctx: z.RefinementCtx): void {
  tiers.forEach((tier, index) => {
    const last = index === tiers.length - 1;
    if (last !== (tier.up_to === 'inf'))
      ctx.addIssue({
        code: 'custom',
        path: [index, 'up_to'],
        message: last ? 'must be "inf" in the last tier' : 'may be "inf" in the last tier only',
      });
    const previous = index > 0 ? tiers[index - 1]!.up_to : 0;
    if (typeof tier.up_to === 'number' && typeof previous === 'number' && tier.up_to <= previous)
      ctx.addIssue({ code: 'custom', path: [index, 'up_to'], message: "must be more than the previous tier's" });
    if (tier.unit_amount === undefined && tier.flat_amount === undefined)
      ctx.addIssue({ code: 'custom', path: [index, 'unit_amount'], message: 'give unit_amount, flat_amount or both' });
  });
}

const tiersInput = z
  .array(tierInput)
  .min(1, 'must hold at least 1 tier')
  .max(MAX_TIERS, `must hold at most ${MAX_TIERS} tiers`)
  .superRefine(checkTiers);

const transformQuantityInput = z.strictObject({
  divide_by: z
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(1_000_000_000, 'must be at most 1000000000')
    .describe('The quantity is divided by it (a package of divide_by units)'),
  round: z.enum(TRANSFORM_ROUNDINGS).describe('up: a started package is billed; down: only whole packages'),
});

export type RecurringInput = z.output<typeof recurringInput>;

/**
 * `recurring` must be given for recurring prices and must be absent (or null) for one-time prices.
 * Shared by POST /products and POST /prices/{id}.
 */
function checkRecurringMatchesType(
  value: { type: string; recurring?: RecurringInput | null },
  ctx: z.RefinementCtx,
): void {
  if (value.type === 'recurring' && !value.recurring) {
    ctx.addIssue({ code: 'custom', path: ['recurring'], message: 'is required when type is recurring' });
  }
  if (value.type === 'one_time' && value.recurring) {
    ctx.addIssue({ code: 'custom', path: ['recurring'], message: 'must be null or absent when type is one_time' });
  }
}

export const priceAttributes = {
  currency: priceCurrency,
  unit_amount: unitAmount,
  type: z.enum(PRICE_TYPES),
  recurring: recurringInput
    .nullable()
    .optional()
    .describe('Required when type is recurring; absent or null when type is one_time'),
  tax_behavior: z.enum(TAX_BEHAVIORS).default('exclusive'),
  description: description.optional(),
};

export function withPriceRules<T extends z.ZodType<{ type: string; recurring?: RecurringInput | null }>>(schema: T): T {
  return schema.superRefine(checkRecurringMatchesType) as unknown as T;
}

/** The pricing fields of POST /prices/{product}: which go together (docs/api.md, "Usage-based billing"). */
function checkPricing(
  value: {
    unit_amount?: number;
    billing_scheme: (typeof BILLING_SCHEMES)[number];
    tiers_mode?: string;
    tiers?: unknown[];
    transform_quantity?: unknown;
  },
  ctx: z.RefinementCtx,
): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (value.billing_scheme === 'per_unit') {
    if (value.unit_amount === undefined) issue('unit_amount', 'is required with billing_scheme per_unit');
    if (value.tiers !== undefined) issue('tiers', 'goes with billing_scheme tiered only');
    if (value.tiers_mode !== undefined) issue('tiers_mode', 'goes with billing_scheme tiered only');
  } else {
    if (value.unit_amount !== undefined)
      issue('unit_amount', 'goes with billing_scheme per_unit only (tiers carry the amounts)');
    if (value.tiers === undefined) issue('tiers', 'is required with billing_scheme tiered');
    if (value.tiers_mode === undefined) issue('tiers_mode', 'is required with billing_scheme tiered');
    if (value.transform_quantity !== undefined) issue('transform_quantity', 'goes with billing_scheme per_unit only');
  }
}

export const createPriceBody = withPriceRules(
  z
    .strictObject({
      ...priceAttributes,
      unit_amount: unitAmount
        .optional()
        .describe('Cents per unit: required with billing_scheme per_unit, refused with tiered'),
      recurring: recurringUsageInput
        .nullable()
        .optional()
        .describe('Required when type is recurring; absent or null when type is one_time'),
      billing_scheme: z
        .enum(BILLING_SCHEMES)
        .default('per_unit')
        .describe('per_unit (default): unit_amount per unit; tiered: `tiers` read as `tiers_mode` says'),
      tiers_mode: z
        .enum(TIERS_MODES)
        .optional()
        .describe(
          "With tiered: graduated (each unit at its own tier's price) or volume (every unit at the price of the tier the quantity falls in)",
        ),
      tiers: tiersInput.optional().describe('With tiered: 1 to 25 tiers, `up_to` rising, the last "inf"'),
      transform_quantity: transformQuantityInput
        .optional()
        .describe('With per_unit: bill packages, the quantity divided by divide_by and rounded up or down'),
    })
    .superRefine(checkPricing),
).meta({ id: 'PriceCreate' });

/** PATCH /prices/{id}/inactive: every attribute optional; the merged price is checked in the service. */
export const updateInactivePriceBody = z
  .strictObject({
    currency: priceCurrency.optional(),
    unit_amount: unitAmount.optional(),
    type: z.enum(PRICE_TYPES).optional(),
    recurring: recurringInput
      .nullable()
      .optional()
      .describe('Required when type is recurring; absent or null when type is one_time'),
    tax_behavior: z.enum(TAX_BEHAVIORS).optional(),
    description: description.nullable().optional(),
  })
  .meta({ id: 'PriceUpdateInactive' });

/** PATCH /prices/{id}/active: the description only. */
export const updateActivePriceBody = z
  .strictObject({ description: description.nullable().optional() })
  .meta({ id: 'PriceUpdateActive' });

export const priceSchema = z
  .object({
    id: z.string(),
    object: z.literal('price'),
    product: z.string(),
    product_name: z.string().optional().describe("With include=names: the product's name"),
    active: z.boolean().describe('false until the price is first billed, then true for good'),
    currency: currencyCode,
    unit_amount: z.number().int(),
    type: z.enum(PRICE_TYPES),
    recurring: z
      .object({
        interval: z.enum(RECURRING_INTERVALS),
        interval_count: z.number().int(),
        usage_type: z.enum(USAGE_TYPES),
        meter: z.string().nullable().describe('The meter (mtr_...) of a metered price; null otherwise'),
      })
      .nullable(),
    billing_scheme: z.enum(BILLING_SCHEMES),
    tiers_mode: z.enum(TIERS_MODES).nullable(),
    tiers: z
      .array(
        z.object({
          up_to: z.number().int().nullable().describe('null: the last tier ("inf")'),
          unit_amount: z.number().int().nullable(),
          flat_amount: z.number().int().nullable(),
        }),
      )
      .nullable()
      .describe('With tiered: the tiers; null otherwise (unit_amount is then 0)'),
    transform_quantity: z.object({ divide_by: z.number().int(), round: z.enum(TRANSFORM_ROUNDINGS) }).nullable(),
    tax_behavior: z.enum(TAX_BEHAVIORS),
    description: z.string().nullable(),
    created: unixTime,
    updated_ms: updatedMsField,
    updated: z.number().nullable(),
  })
  .meta({ id: 'Price' });

export const priceFilter = z.strictObject({
  active: z.boolean().optional(),
  product: resourceId.optional(),
  type: z.enum(PRICE_TYPES).optional(),
  currency: priceCurrency.optional(),
  ids: commaSeparatedIds.optional(),
  created: createdRange.optional(),
});

export const listPricesQuery = z.strictObject({
  search: jsonTextFilter(
    priceFilter,
    'Plain text matches the description or the id; a JSON object filters on active, product, type, currency, ids (comma-separated), created {gt, gte, lt, lte}',
  ),
  ...paginationQuery(100),
  ...includeNamesQuery,
});

export const priceIdParams = z.strictObject({ id: resourceId });

export type CreatePriceInput = z.output<typeof createPriceBody>;
export type UpdateInactivePriceInput = z.output<typeof updateInactivePriceBody>;
export type UpdateActivePriceInput = z.output<typeof updateActivePriceBody>;
export type PriceObject = z.output<typeof priceSchema>;
export type ListPricesQuery = z.output<typeof listPricesQuery>;
export type PriceFilter = z.output<typeof priceFilter>;
