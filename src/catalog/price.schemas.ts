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

export const recurringInput = z
  .strictObject({
    interval: z.enum(RECURRING_INTERVALS),
    interval_count: z.number().int('must be an integer').min(1, 'must be at least 1'),
  })
  .superRefine((value, ctx) => {
    const max = MAX_INTERVAL_COUNT[value.interval];
    if (value.interval_count > max) {
      ctx.addIssue({
        code: 'custom',
        path: ['interval_count'],
        message: `must be at most ${max} for interval ${value.interval} (three years)`,
      });
    }
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

export const createPriceBody = withPriceRules(z.strictObject(priceAttributes)).meta({ id: 'PriceCreate' });

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
    recurring: z.object({ interval: z.enum(RECURRING_INTERVALS), interval_count: z.number().int() }).nullable(),
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
