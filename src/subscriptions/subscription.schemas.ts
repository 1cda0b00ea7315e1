import { z } from 'zod';
import { priceSchema } from '../catalog/price.schemas';
import { cursorQuery, paginationQuery } from '../http/pagination';
import { includeNamesQuery, queryBoolean, resourceId, unixSeconds, unixTime } from '../http/validation';
import { paymentMethodId } from '../payments/payment-method.schemas';
import { COLLECTION_METHODS, DUNNING_OUTCOMES, API_SUBSCRIPTION_STATUSES } from './subscription-machine';
import { PRORATION_BEHAVIORS } from './proration';
import { updatedMsField } from '../lib/object-version';
import { currencyCode } from '../lib/iso';
import { couponField, discountField } from '../coupons/coupon.schemas';

export const MAX_ITEMS = 20;
export const MAX_QUANTITY = 100_000;
export const MAX_TRIAL_DAYS = 730;
export const MAX_RETRY_DAYS = 60;

const quantity = z
  .number()
  .int('must be an integer')
  .min(1, 'must be at least 1')
  .max(MAX_QUANTITY, `must be at most ${MAX_QUANTITY}`);

const taxRateIds = z
  .array(resourceId)
  .max(10, 'may name at most 10 tax rates')
  .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a tax rate');

const itemInput = z.strictObject({
  price: resourceId.describe('A recurring price; every item of a subscription shares one currency and interval'),
  quantity: quantity
    .optional()
    .describe('Required with a licensed price; absent with a metered one, whose usage each period bills'),
  tax: taxRateIds.optional().describe('Tax rate ids (txr_) applied to this item on every invoice'),
});

/** Flags a price named on two items (`items.N.price`). */
function noRepeatedPrices(items: { price?: string }[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (item.price === undefined) return;
    if (seen.has(item.price))
      ctx.addIssue({
        code: 'custom',
        path: ['items', index, 'price'],
        message: 'names a price already on another item',
      });
    seen.add(item.price);
  });
}

/** Stripe's minimum for a monetary threshold (docs/api.md, "Usage-based billing"): 50 of the smallest currency unit. */
export const MIN_THRESHOLD_AMOUNT = 50;
/** The most a threshold may name: what one price may bill (integer cents). */
export const MAX_THRESHOLD_AMOUNT = 99_999_999;

/** `billing_thresholds` (Stripe's name): invoice the usage early once its amount reaches `amount_gte`. */
const billingThresholdsInput = z
  .strictObject({
    amount_gte: z
      .number()
      .int('must be an integer')
      .min(MIN_THRESHOLD_AMOUNT, `must be at least ${MIN_THRESHOLD_AMOUNT}`)
      .max(MAX_THRESHOLD_AMOUNT, `must be at most ${MAX_THRESHOLD_AMOUNT}`)
      .describe('Integer cents: the unbilled usage of the period, priced, that invoices it early once reached'),
  })
  .describe(
    'Invoices the usage to date early (billing_reason subscription_threshold) when its amount reaches amount_gte (docs/api.md, "Usage-based billing")',
  );

export const createSubscriptionBody = z
  .strictObject({
    customer: resourceId,
    items: z
      .array(itemInput)
      .min(1, 'must hold at least one item')
      .max(MAX_ITEMS, `may hold at most ${MAX_ITEMS} items`),
    trial_days: z
      .number()
      .int('must be an integer')
      .min(0, 'must be at least 0')
      .max(MAX_TRIAL_DAYS, `must be at most ${MAX_TRIAL_DAYS}`),
    start_date: unixSeconds.describe('Unix seconds; in the future the subscription is `scheduled` until then'),
    end_date: unixSeconds
      .optional()
      .describe(
        'Unix seconds, after start_date and in the future; the subscription expires then and bills nothing after',
      ),
    start_billing_date: unixSeconds
      .optional()
      .describe(
        'Unix seconds, not before start_date and before end_date; the first invoice and billing_cycle_anchor (not before the trial ends)',
      ),
    collection_method: z.enum(COLLECTION_METHODS).default('charge_automatically'),
    default_payment_method: paymentMethodId
      .optional()
      .describe("A method attached to the customer; the customer's default when absent"),
    coupon: couponField.optional(),
    billing_thresholds: billingThresholdsInput.optional(),
  })
  .superRefine((body, ctx) => {
    noRepeatedPrices(body.items, ctx);
    if (body.end_date !== undefined && body.end_date <= body.start_date) {
      ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'must be after start_date' });
    }
    if (body.start_billing_date !== undefined) {
      if (body.start_billing_date < body.start_date) {
        ctx.addIssue({ code: 'custom', path: ['start_billing_date'], message: 'must not be before start_date' });
      } else if (body.end_date !== undefined && body.start_billing_date >= body.end_date) {
        ctx.addIssue({ code: 'custom', path: ['start_billing_date'], message: 'must be before end_date' });
      }
    }
  })
  .meta({ id: 'SubscriptionCreate' });

export const prorationBehavior = z.enum(PRORATION_BEHAVIORS);

export const itemChangeInput = z
  .strictObject({
    id: resourceId.optional().describe('An item of this subscription (si_); absent to add an item'),
    price: resourceId.optional(),
    quantity: quantity
      .optional()
      .describe('Required to add a licensed price; never with a metered one (docs/api.md, "Usage-based billing")'),
    tax: taxRateIds.optional(),
    deleted: z.literal(true).optional().describe('Removes the item named by id'),
  })
  .superRefine((item, ctx) => {
    if (item.id === undefined) {
      if (item.deleted) ctx.addIssue({ code: 'custom', path: ['id'], message: 'is required to delete an item' });
      if (item.price === undefined)
        ctx.addIssue({
          code: 'invalid_type',
          expected: 'string',
          path: ['price'],
          message: 'Required',
          input: undefined,
        });
    } else if (item.deleted && (item.price !== undefined || item.quantity !== undefined || item.tax !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['deleted'], message: 'cannot be combined with price, quantity or tax' });
    }
  });

export const updateSubscriptionBody = z
  .strictObject({
    items: z
      .array(itemChangeInput)
      .min(1, 'must hold at least one change')
      .max(MAX_ITEMS, `may hold at most ${MAX_ITEMS} changes`)
      .optional()
      .describe(
        'Changes applied in order; they take effect from the next invoice, and proration_behavior says what the rest of the current period costs',
      ),
    collection_method: z.enum(COLLECTION_METHODS).optional(),
    default_payment_method: paymentMethodId.nullable().optional(),
    cancel_at: unixSeconds.nullable().optional().describe('Unix seconds in the future; null clears it'),
    cancel_at_period_end: z.boolean().optional(),
    end_date: unixSeconds.nullable().optional().describe('Unix seconds in the future; null clears it'),
    prorate: z
      .boolean()
      .optional()
      .describe(
        "true: when end_date or cancel_at ends the subscription inside a billed period, the unused time is credited (refunded from that period's invoice); false withdraws it",
      ),
    proration_behavior: prorationBehavior
      .optional()
      .describe(
        'How a change of items inside a billed period is prorated (docs/api.md, "Proration"): `create_prorations` puts a credit for the unused time of what is replaced and a charge for the rest of the period of what replaces it on the next invoice, `always_invoice` invoices and charges them now, `none` bills the change from the next invoice only. Default: the account\'s setting (GET /settings/proration)',
      ),
    coupon: couponField.optional(),
    billing_thresholds: billingThresholdsInput.nullable().optional().describe('null removes the threshold'),
  })
  .superRefine((body, ctx) => {
    if (body.items) noRepeatedPrices(body.items, ctx);
    if (body.cancel_at !== undefined && body.cancel_at !== null && body.cancel_at_period_end === true) {
      ctx.addIssue({
        code: 'custom',
        path: ['cancel_at_period_end'],
        message: 'cannot be true together with cancel_at',
      });
    }
  })
  .meta({ id: 'SubscriptionUpdate' });

export const prorationSettingsBody = z
  .strictObject({
    proration_behavior: prorationBehavior.describe(
      'What a change of items does when the request names no proration_behavior',
    ),
  })
  .meta({ id: 'ProrationSettingsUpdate' });

export const prorationSettingsSchema = z
  .object({ object: z.literal('proration_settings'), proration_behavior: prorationBehavior })
  .meta({ id: 'ProrationSettings' });

export const listSubscriptionsQuery = z.strictObject({
  ...paginationQuery(100),
  ...cursorQuery(),
  status: z.enum(API_SUBSCRIPTION_STATUSES).optional(),
  customer: resourceId.optional(),
  ...includeNamesQuery,
});

export const getSubscriptionQuery = z.strictObject(includeNamesQuery);

export const cancelSubscriptionQuery = z
  .strictObject({
    at_period_end: queryBoolean.optional().describe('true: cancel when the current period ends instead of now'),
    prorate: queryBoolean
      .optional()
      .describe(
        "true: cancel now crediting the unused time of the billed period (refunded to the card from that period's invoice); with lines waiting, on a final invoice",
      ),
  })
  .superRefine((query, ctx) => {
    if (query.prorate && query.at_period_end)
      ctx.addIssue({ code: 'custom', path: ['prorate'], message: 'applies to a cancel now, not at_period_end' });
  });

export const subscriptionIdParams = z.strictObject({ id: resourceId });

/** Pause and resume take no fields; an empty object (or none) is accepted, anything else is refused. */
export const emptyBody = z.strictObject({});

export const dunningSettingsBody = z
  .strictObject({
    retry_days: z
      .array(
        z
          .number()
          .int('must be an integer')
          .min(1, 'must be at least 1')
          .max(MAX_RETRY_DAYS, `must be at most ${MAX_RETRY_DAYS}`),
      )
      .max(10, 'may hold at most 10 retries')
      .refine((days) => days.every((day, index) => index === 0 || day > days[index - 1]!), 'must be strictly ascending')
      .openapi({
        // Strictly ascending implies unique items, which JSON Schema can state; the order it cannot.
        uniqueItems: true,
        description:
          'Days after the failed renewal charge at which it is retried, strictly ascending (each larger than the one before: ' +
          'JSON Schema cannot compare items, so the server checks it and answers 400 naming retry_days)',
      }),
    outcome: z.enum(DUNNING_OUTCOMES).describe('What happens when every retry failed'),
  })
  .meta({ id: 'DunningSettingsUpdate' });

export const dunningSettingsSchema = z
  .object({
    object: z.literal('dunning_settings'),
    retry_days: z.array(z.number()),
    outcome: z.enum(DUNNING_OUTCOMES),
  })
  .meta({ id: 'DunningSettings' });

export const subscriptionItemSchema = z
  .object({
    id: z.string(),
    object: z.literal('subscription_item'),
    price: priceSchema,
    quantity: z.number().describe('0 on a metered item: its usage, not a stated quantity, is billed'),
    tax_rates: z.array(z.string()),
    created: unixTime,
    subscription: z.string(),
  })
  .meta({ id: 'SubscriptionItem' });

export const subscriptionSchema = z
  .object({
    id: z.string(),
    object: z.literal('subscription'),
    billing_cycle_anchor: z
      .number()
      .describe('First full invoice; its day of month is the billing day for month and year intervals'),
    cancel_at: z.number().nullable(),
    cancel_at_period_end: z.boolean(),
    canceled_at: z.number().nullable(),
    collection_method: z.enum(COLLECTION_METHODS),
    created: unixTime,
    updated_ms: updatedMsField,
    currency: currencyCode,
    customer: z.string(),
    customer_name: z.string().optional().describe("With include=names: the customer's name"),
    ended_at: z.number().nullable(),
    items: z.object({ data: z.array(subscriptionItemSchema), total_count: z.number() }),
    latest_invoice: z.string().nullable().describe('Null until the first invoice'),
    start_date: z.number(),
    status: z.enum(API_SUBSCRIPTION_STATUSES),
    trial_end: z.number().nullable(),
    trial_start: z.number().nullable(),
    current_period_start: z.number().nullable(),
    current_period_end: z.number().nullable(),
    end_date: z.number().nullable(),
    start_billing_date: z.number().nullable(),
    default_payment_method: z.string().nullable(),
    paused_at: z.number().nullable(),
    discount: discountField,
    billing_thresholds: z
      .object({ amount_gte: z.number() })
      .nullable()
      .describe('The monetary threshold that invoices the usage early; null: none'),
  })
  .meta({ id: 'Subscription' });

export type CreateSubscriptionInput = z.output<typeof createSubscriptionBody>;
export type UpdateSubscriptionInput = z.output<typeof updateSubscriptionBody>;
export type ListSubscriptionsQuery = z.output<typeof listSubscriptionsQuery>;
export type GetSubscriptionQuery = z.output<typeof getSubscriptionQuery>;
export type DunningSettingsInput = z.output<typeof dunningSettingsBody>;
export type DunningSettingsObject = z.output<typeof dunningSettingsSchema>;
export type SubscriptionItemObject = z.output<typeof subscriptionItemSchema>;
export type SubscriptionObject = z.output<typeof subscriptionSchema>;
export type ProrationSettingsObject = z.output<typeof prorationSettingsSchema>;

/** A part of a metered item's usage of the period: its quantity in the meter's units, and its amount in cents. */
const usagePart = z.object({ quantity: z.number().int(), amount: z.number().int() });

/** GET /subscriptions/{id}/usage (docs/api.md, "Usage-based billing"). */
export const subscriptionUsageSchema = z
  .object({
    object: z.literal('subscription_usage'),
    subscription: z.string(),
    period: z
      .object({ start: unixTime, end: unixTime })
      .describe('The usage period the next invoice closes: from the current period start to now (the customer time)'),
    items: z.array(
      z.object({
        subscription_item: z.string(),
        price: z.string(),
        meter: z.string(),
        aggregation: z
          .string()
          .describe("The meter's aggregation: how the events of the period and of each day add up"),
        total: z
          .number()
          .int()
          .describe("The meter's aggregation of the customer's events over `period`: what is billed"),
        amount: z
          .number()
          .int()
          .describe("What `total` costs under the price's terms (tiers, packages), in cents before discount and tax"),
        billed: usagePart.describe(
          'What early (threshold) invoices already billed of `total` this period: its quantity, and the amount they billed',
        ),
        unbilled: usagePart.describe(
          "What the period's invoice has left to bill: `total` less `billed`, priced as the difference the tiers make (`amount` less `billed.amount`)",
        ),
        daily: z
          .array(z.object({ start: unixTime, end: unixTime, value: z.number().int() }))
          .describe('The aggregation per day of the period, 24-hour windows from its start (the last one up to now)'),
      }),
    ),
  })
  .meta({ id: 'SubscriptionUsage' });
export type SubscriptionUsageObject = z.output<typeof subscriptionUsageSchema>;
