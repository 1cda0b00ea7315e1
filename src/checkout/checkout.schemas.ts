import { z } from 'zod';
import { resourceId, unixTime } from '../http/validation';
import { returnUrl } from '../billing-portal/portal.schemas';

export const MAX_CHECKOUT_ITEMS = 20;

export const createCheckoutSessionBody = z
  .strictObject({
    customer: resourceId.optional().describe('An existing customer (cus_); without it the page creates one'),
    items: z
      .array(
        z.strictObject({
          price: resourceId,
          quantity: z.number().int('must be an integer').min(1, 'must be at least 1').max(100_000).default(1),
        }),
      )
      .min(1, 'must hold at least one item')
      .max(MAX_CHECKOUT_ITEMS, `may hold at most ${MAX_CHECKOUT_ITEMS} items`)
      .refine((items) => new Set(items.map((item) => item.price)).size === items.length, 'must not repeat a price'),
    trial_days: z
      .number()
      .int('must be an integer')
      .min(0, 'must be at least 0')
      .max(730, 'must be at most 730')
      .optional()
      .describe('Recurring prices only'),
    success_url: returnUrl.describe('Where the customer is sent once the checkout is complete'),
    cancel_url: returnUrl.describe('Where the page\'s "Cancel" link leads'),
  })
  .meta({ id: 'CheckoutSessionCreate' });

export const CHECKOUT_STATUSES = ['open', 'complete', 'expired'] as const;

export const checkoutSessionSchema = z
  .object({
    id: z.string().describe('cs_...'),
    object: z.literal('checkout.session'),
    mode: z
      .enum(['subscription', 'payment'])
      .describe('subscription for recurring prices, payment for one-time prices'),
    status: z.enum(CHECKOUT_STATUSES),
    customer: z.string().nullable().describe('Given at creation, or the customer the checkout created'),
    items: z.array(z.object({ price: z.string(), quantity: z.number() })),
    trial_days: z.number().nullable(),
    success_url: z.string(),
    cancel_url: z.string(),
    url: z
      .string()
      .describe("The page, under PUBLIC_URL; shown only in the creation's answer, null afterwards")
      .nullable(),
    subscription: z.string().nullable(),
    invoice: z.string().nullable(),
    created: unixTime,
    expires_at: unixTime.describe('24 hours after creation'),
  })
  .meta({ id: 'CheckoutSession' });

export const checkoutSessionIdParams = z.strictObject({ id: resourceId });

export type CreateCheckoutSessionInput = z.output<typeof createCheckoutSessionBody>;
export type CheckoutSessionObject = z.output<typeof checkoutSessionSchema>;
