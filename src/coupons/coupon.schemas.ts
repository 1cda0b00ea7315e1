import { z } from 'zod';
import { currencyCode, currencyCodeInput } from '../lib/iso';
import { MAX_CHARGE_AMOUNT } from '../lib/money';
import { paginationQuery } from '../http/pagination';
import { nameText, resourceId, unixSeconds, unixTime } from '../http/validation';

/** Stripe's durations (docs/decisions.md §37). */
export const COUPON_DURATIONS = ['once', 'repeating', 'forever'] as const;
export type CouponDuration = (typeof COUPON_DURATIONS)[number];

/** The longest `repeating` coupon: ten years of months. */
export const MAX_DURATION_IN_MONTHS = 120;
/** The most redemptions a coupon may be limited to (an Int column). */
export const MAX_REDEMPTIONS = 1_000_000_000;

const metadataInput = z
  .record(z.string().min(1).max(40), z.string().max(500, 'must be at most 500 characters'))
  .refine((value) => Object.keys(value).length <= 50, 'may hold at most 50 keys');

/** Whether `value` has at most two decimals: 12.5 and 12.34 do, 12.345 does not (stored as hundredths). */
const twoDecimals = (value: number) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;

export const createCouponBody = z
  .strictObject({
    name: nameText(100).optional().describe('Shown on invoices beside the discount; the id when absent'),
    percent_off: z
      .number()
      .min(1, 'must be at least 1')
      .max(100, 'must be at most 100')
      .refine(twoDecimals, 'may have at most 2 decimals')
      .optional()
      .describe('Percent off each invoice the discount applies to, 1 to 100 with at most 2 decimals (stored exactly)'),
    amount_off: z
      .number()
      .int('must be an integer number of cents')
      .min(1, 'must be at least 1')
      .max(MAX_CHARGE_AMOUNT, `must be at most ${MAX_CHARGE_AMOUNT} cents`)
      .optional()
      .describe('Cents off each invoice the discount applies to (never below zero); needs `currency`'),
    currency: currencyCodeInput.optional().describe('With amount_off only: the currency of the amount'),
    duration: z.enum(COUPON_DURATIONS),
    duration_in_months: z
      .number()
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(MAX_DURATION_IN_MONTHS, `must be at most ${MAX_DURATION_IN_MONTHS}`)
      .optional()
      .describe('With duration `repeating` only: the months from the redemption during which invoices are discounted'),
    max_redemptions: z
      .number()
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(MAX_REDEMPTIONS, `must be at most ${MAX_REDEMPTIONS}`)
      .optional()
      .describe('How many times it may be redeemed in all; a redemption past it is 409'),
    redeem_by: unixSeconds.optional().describe('Unix seconds in the future: a redemption from then on is 409'),
    metadata: metadataInput.optional(),
  })
  .superRefine((body, ctx) => {
    const percent = body.percent_off !== undefined;
    const amount = body.amount_off !== undefined;
    if (percent === amount)
      ctx.addIssue({
        code: 'custom',
        path: [percent ? 'amount_off' : 'percent_off'],
        message: 'give exactly one of percent_off and amount_off',
      });
    if (amount && body.currency === undefined)
      ctx.addIssue({ code: 'custom', path: ['currency'], message: 'is required with amount_off' });
    if (!amount && body.currency !== undefined)
      ctx.addIssue({ code: 'custom', path: ['currency'], message: 'goes with amount_off only' });
    if (body.duration === 'repeating' && body.duration_in_months === undefined)
      ctx.addIssue({ code: 'custom', path: ['duration_in_months'], message: 'is required with duration repeating' });
    if (body.duration !== 'repeating' && body.duration_in_months !== undefined)
      ctx.addIssue({ code: 'custom', path: ['duration_in_months'], message: 'goes with duration repeating only' });
  })
  .meta({ id: 'CouponCreate' });

export const couponSchema = z
  .object({
    id: z.string().describe('coup_...'),
    object: z.literal('coupon'),
    name: z.string().nullable(),
    percent_off: z.number().nullable(),
    amount_off: z.number().nullable(),
    currency: z.union([currencyCode, z.null()]),
    duration: z.enum(COUPON_DURATIONS),
    duration_in_months: z.number().nullable(),
    max_redemptions: z.number().nullable(),
    redeem_by: z.number().nullable(),
    times_redeemed: z.number(),
    valid: z
      .boolean()
      .describe('Whether it can still be redeemed: not deleted, before redeem_by, under max_redemptions'),
    metadata: z.record(z.string(), z.string()),
    created: unixTime,
  })
  .meta({ id: 'Coupon' });

export const discountSchema = z
  .object({
    id: z.string().describe('di_...'),
    object: z.literal('discount'),
    coupon: couponSchema.describe('The coupon as it was redeemed'),
    customer: z.string(),
    subscription: z.string().nullable().describe('null for a discount of the customer'),
    start: unixTime,
    end: z
      .number()
      .nullable()
      .describe('repeating: start + duration_in_months (periods starting before it are discounted); null otherwise'),
  })
  .meta({ id: 'Discount' });

/** The `discount` of a customer or a subscription: null while none applies. */
export const discountField = z
  .union([discountSchema, z.null()])
  .describe(
    'The discount applied to invoices (docs/api.md, "Coupons and discounts"): a subscription\'s wins over its customer\'s; null when none',
  );

export const couponIdParams = z.strictObject({ id: resourceId });

export const listCouponsQuery = z.strictObject({ ...paginationQuery(100) });

/** `coupon` on customer and subscription bodies: a coupon id of the account to redeem. */
export const couponField = resourceId.describe(
  'A coupon of the account (coup_...) to redeem: its discount replaces the current one (docs/api.md, "Coupons and discounts")',
);

export type CreateCouponInput = z.output<typeof createCouponBody>;
export type CouponObject = z.output<typeof couponSchema>;
export type DiscountObject = z.output<typeof discountSchema>;
export type ListCouponsQuery = z.output<typeof listCouponsQuery>;
