import { z } from 'zod';
import { paginationQuery } from '../http/pagination';
import { nameText, queryBoolean, resourceId, unixTime } from '../http/validation';
import { updatedMsField } from '../lib/object-version';
import { countryCode } from '../lib/iso';

/**
 * Accepted `tax_type` values (the spec names only `Custom`). Each but `Custom` has a default
 * display name, used when `display_name` is not given.
 */
export const TAX_TYPE_DISPLAY_NAMES = {
  Custom: null,
  sales_tax: 'Sales Tax',
  vat: 'VAT',
  gst: 'GST',
  hst: 'HST',
  pst: 'PST',
  qst: 'QST',
  rst: 'RST',
  jct: 'JCT',
  igst: 'IGST',
  lease_tax: 'Lease Tax',
  amusement_tax: 'Amusement Tax',
  communications_tax: 'Communications Tax',
  retail_delivery_fee: 'Retail Delivery Fee',
} as const;

export type TaxType = keyof typeof TAX_TYPE_DISPLAY_NAMES;
export const TAX_TYPES = Object.keys(TAX_TYPE_DISPLAY_NAMES) as [TaxType, ...TaxType[]];

export const MAX_DISPLAY_NAME = 100;
export const MAX_TAX_RATE_DESCRIPTION = 500;
export const PERCENTAGE_DECIMALS = 4;

const taxType = z.enum(TAX_TYPES).describe(`One of ${TAX_TYPES.join(', ')}; display_name is required for Custom`);
const displayName = nameText(MAX_DISPLAY_NAME);
const taxRateDescription = z
  .string()
  .max(MAX_TAX_RATE_DESCRIPTION, `must be at most ${MAX_TAX_RATE_DESCRIPTION} characters`);

/** 0..100 with at most 4 decimals, so that pct * 10000 is an exact integer (parts per million). */
export const percentage = z
  .number()
  .min(0, 'must be at least 0')
  .max(100, 'must be at most 100')
  .refine((value) => {
    const scaled = value * 10 ** PERCENTAGE_DECIMALS;
    return Math.abs(scaled - Math.round(scaled)) < 1e-6;
  }, `must have at most ${PERCENTAGE_DECIMALS} decimals`);

export const createTaxRateBody = z
  .strictObject({
    display_name: displayName
      .optional()
      .describe(
        'Required when tax_type is Custom (the default); other types default it, e.g. VAT. 1 to 100 characters, NFC-normalized and trimmed; control and invisible characters are refused',
      ),
    percentage,
    inclusive: z.boolean(),
    active: z.boolean().default(true),
    tax_type: taxType.default('Custom'),
    description: taxRateDescription.optional(),
    country: z.literal('US', 'must be US (the only supported country)').default('US'),
  })
  .superRefine((value, ctx) => {
    if (value.tax_type === 'Custom' && value.display_name === undefined) {
      ctx.addIssue({ code: 'custom', path: ['display_name'], message: 'is required when tax_type is Custom' });
    }
  })
  .meta({ id: 'TaxRateCreate' });

/** PATCH: the spec's tax_type, display_name, description, plus active. Percentage and inclusive are fixed. */
export const updateTaxRateBody = z
  .strictObject({
    tax_type: taxType.optional(),
    display_name: displayName.optional(),
    description: taxRateDescription.nullable().optional(),
    active: z.boolean().optional(),
  })
  .meta({ id: 'TaxRateUpdate' });

export const taxRateSchema = z
  .object({
    id: z.string(),
    object: z.literal('tax_rate'),
    active: z.boolean(),
    country: countryCode,
    created: unixTime,
    updated_ms: updatedMsField,
    description: z.string().optional().describe('Absent while unset (PATCH `description: null` clears it)'),
    display_name: z.string(),
    inclusive: z.boolean(),
    percentage: z.number(),
    tax_type: z.enum(TAX_TYPES),
  })
  .meta({ id: 'TaxRate' });

export const listTaxRatesQuery = z.strictObject({
  ...paginationQuery(100),
  active: queryBoolean.optional().describe('Only active (true) or inactive (false) rates'),
  inclusive: queryBoolean.optional().describe('Only inclusive (true) or exclusive (false) rates'),
});

export const taxRateIdParams = z.strictObject({ id: resourceId });

export type CreateTaxRateInput = z.output<typeof createTaxRateBody>;
export type UpdateTaxRateInput = z.output<typeof updateTaxRateBody>;
export type TaxRateObject = z.output<typeof taxRateSchema>;
export type ListTaxRatesQuery = z.output<typeof listTaxRatesQuery>;
