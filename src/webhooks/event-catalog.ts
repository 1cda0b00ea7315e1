import { z } from 'zod';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { customerSchema } from '../customers';
import { paymentMethodSchema } from '../payments';
import { invoiceDisputeSchema, invoiceSchema } from '../invoices';
import { creditNoteSchema } from '../credit-notes';
import { couponSchema, discountSchema } from '../coupons';
import { meterSchema } from '../usage';
import { subscriptionSchema } from '../subscriptions';
import { productSchema } from '../catalog';
import { priceSchema } from '../catalog';
import { taxRateSchema } from '../catalog';
import { installmentSchema, paymentPlanSchema, planPaymentSchema } from '../payment-plans';
import { EVENT_ID_HEADER, SIGNATURE_HEADER } from './signing';
import { EVENT_ORIGINS } from '../lib/event-origin';

/** `origin` in an event's `data` (docs/decisions.md §38): on events of every type. */
const eventOriginSchema = () =>
  z
    .enum(EVENT_ORIGINS)
    .optional()
    .describe(
      'The customer-facing page the change was asked on: `customer_portal`, `hosted_checkout` or `hosted_invoice_page` (a cancellation at period end asked on the portal carries it on its subscription.canceled too). Absent on changes made through the API, the dashboard or by the billing engine',
    );

/** subscription.* `data`: the subscription with the webhook status, plus the cause on canceled/paused/resumed (spec Payloads). */
const subscriptionEventSchema = subscriptionSchema
  .extend({
    status: z
      .enum(['active', 'canceled', 'paused'])
      .describe('trialing and scheduled are sent as active, expired as canceled'),
    items: subscriptionSchema.shape.items.extend({ object: z.literal('list') }),
    reason: z.enum(['requested', 'dunning']).optional().describe('On subscription.canceled, paused and resumed only'),
    initiated_by: z
      .enum(['merchant', 'system'])
      .optional()
      .describe('On subscription.canceled, paused and resumed only'),
    origin: eventOriginSchema(),
  })
  .meta({ id: 'SubscriptionEventData' });

/** subscription.period_not_invoiced `data`: the subscription moved into the period, and the period and why (docs/decisions.md §7). */
const periodNotInvoicedSchema = subscriptionEventSchema
  .extend({
    period_start: z.number().int().describe('Start of the period that was not invoiced (Unix seconds)'),
    period_end: z.number().int().describe('End of that period (Unix seconds)'),
    failure_code: z
      .string()
      .describe("The invoice's refusal: `amount_too_large`, `resource_missing` (the customer is gone), ..."),
    failure_message: z.string().describe('Why the invoice could not be made'),
  })
  .meta({ id: 'SubscriptionPeriodNotInvoicedData' });

/** payment_plan.* `data`: the plan after the change; installment events add `installment`, payment events add `payment`. */
const paymentPlanEventSchema = paymentPlanSchema
  .extend({ installment: installmentSchema.optional(), payment: planPaymentSchema.optional() })
  .meta({ id: 'PaymentPlanEventData' });

const groups: { data: z.ZodType; types: string[]; about: string }[] = [
  {
    data: customerSchema,
    types: ['customer.created', 'customer.updated', 'customer.deleted'],
    about: 'the customer object',
  },
  {
    data: paymentMethodSchema,
    types: ['payment_method.attached', 'payment_method.detached'],
    about: 'the payment method object',
  },
  {
    data: invoiceSchema,
    types: [
      'invoice.created',
      'invoice.deleted',
      'invoice.finalized',
      'invoice.sent',
      'invoice.payment_succeeded',
      'invoice.payment_failed',
      'invoice.payment_action_required',
      'invoice.payment_processing',
      'invoice.updated',
    ],
    about: 'the invoice object (money in the smallest currency unit)',
  },
  {
    data: invoiceDisputeSchema,
    types: ['charge.dispute.created', 'charge.dispute.closed'],
    about:
      'the dispute of the charge that paid an invoice, as the invoice\'s `dispute` shows it (docs/api.md, "Payment processors")',
  },
  {
    data: creditNoteSchema,
    types: ['credit_note.created', 'credit_note.voided'],
    about: 'the credit note object',
  },
  { data: couponSchema, types: ['coupon.created', 'coupon.deleted'], about: 'the coupon object' },
  {
    data: discountSchema,
    types: ['customer.discount.created'],
    about: 'the discount object (a coupon redeemed on a customer or a subscription)',
  },
  {
    data: subscriptionEventSchema,
    types: [
      'subscription.created',
      'subscription.updated',
      'subscription.canceled',
      'subscription.paused',
      'subscription.resumed',
    ],
    about: 'the subscription object',
  },
  {
    data: periodNotInvoicedSchema,
    types: ['subscription.period_not_invoiced'],
    about:
      'the subscription object (read past_due through the API) with the period whose invoice could not be made and why: nothing was invoiced or charged for it',
  },
  {
    data: productSchema,
    types: ['product.created', 'product.updated', 'product.deleted'],
    about: 'the product object',
  },
  { data: priceSchema, types: ['price.created', 'price.updated', 'price.deleted'], about: 'the price object' },
  { data: taxRateSchema, types: ['tax.created', 'tax.updated'], about: 'the tax rate object' },
  {
    data: meterSchema,
    types: ['billing.meter.created', 'billing.meter.updated', 'billing.meter.deactivated', 'billing.meter.reactivated'],
    about: 'the meter object',
  },
  {
    data: paymentPlanEventSchema,
    types: [
      'payment_plan.created',
      'payment_plan.activated',
      'payment_plan.installment_paid',
      'payment_plan.installment_failed',
      'payment_plan.past_due',
      'payment_plan.defaulted',
      'payment_plan.reactivated',
      'payment_plan.completed',
      'payment_plan.canceled',
      'payment_plan.payment_succeeded',
      'payment_plan.payment_refunded',
    ],
    about: 'the payment plan after the change',
  },
];

/** Every event type the service sends, with the schema of its `data`. */
export const WEBHOOK_EVENTS: ReadonlyMap<string, { data: z.ZodType; about: string }> = new Map(
  groups.flatMap((group) => group.types.map((type) => [type, { data: group.data, about: group.about }] as const)),
);

function envelopeSchema(type: string, data: z.ZodType) {
  return z.object({
    id: z
      .string()
      .regex(/^evt_[a-zA-Z0-9]+$/)
      .describe('Event id: deliveries of one event carry the same id, so a receiver deduplicates on it'),
    event: z.literal(type),
    createdAt: z.string().describe('When the event was written, ISO 8601 in UTC'),
    data,
  });
}

/**
 * The deliveries as OpenAPI 3.1 `webhooks`: one POST per event type with its envelope and the
 * signature header (docs/api.md, Webhooks: verifying `cc-signature`).
 */
export function registerWebhookEvents(registry: OpenAPIRegistry): void {
  // Schemas only webhooks use are not collected into components by the generator: register them.
  registry.register('SubscriptionEventData', subscriptionEventSchema);
  registry.register('PaymentPlanEventData', paymentPlanEventSchema);
  registry.register('SubscriptionPeriodNotInvoicedData', periodNotInvoicedSchema);
  for (const [type, { data, about }] of WEBHOOK_EVENTS) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `event_${type.replaceAll('.', '_')}`,
      summary: `${type}: \`data\` is ${about}`,
      description:
        '`data` carries `origin` when the change was asked on a customer-facing page: `customer_portal`, `hosted_checkout` or `hosted_invoice_page` (absent for the API, the dashboard and the billing engine).',
      tags: ['Webhook events'],
      request: {
        headers: z.object({
          [SIGNATURE_HEADER]: z
            .string()
            .regex(/^t=\d+,v1=[0-9a-f]{64}$/)
            .describe(
              '`t=<Unix seconds>,v1=<hex HMAC-SHA256(destination secret, t + "." + raw body)>`; refuse a `t` more than 300 s away from now',
            ),
          [EVENT_ID_HEADER]: z.string().describe('The event id, as `id` in the body'),
        }),
        body: { required: true, content: { 'application/json': { schema: envelopeSchema(type, data) } } },
      },
      responses: {
        200: {
          description:
            'Any 2xx: delivered. 5xx, 408 and 429 are retried (6 attempts in about 43 minutes); a 3xx or another 4xx is final',
        },
      },
    });
  }
}
