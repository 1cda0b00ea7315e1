import { z } from 'zod';
import { TRANSACTION_ORIGINS } from '../transactions/transaction.schemas';

/** The answer of GET /customers/{externalKey}/billing-report: CustomerReport (customer-lookup.ts), times as ISO 8601. */
const time = z.string().nullable().describe('ISO 8601, UTC');
const next = z.object({ what: z.string(), at: time });
const workflow = z
  .union([z.object({ answered: z.literal(true) }), z.object({ answered: z.literal(false), reason: z.string() })])
  .nullable()
  .describe("Whether the workflow's state query answered; null for an ended one (not asked)");
const method = z.object({ id: z.string(), brand: z.string().nullable(), last4: z.string() }).nullable();

export const customerReportSchema = z
  .object({
    customer: z.object({
      id: z.string(),
      account: z.string(),
      name: z.string(),
      email: z.string().nullable(),
      created_at: time,
      deleted_at: time,
      default_payment_method: method,
    }),
    summary: z.array(z.string()).describe('Plain words: the last charge and why, what is wrong, what comes next'),
    subscriptions: z.array(
      z.object({
        id: z.string(),
        workflow_id: z.string(),
        status: z.string(),
        items: z.array(z.string()),
        current_period: z.object({ start: time, end: time }),
        next_billing_at: time,
        cancel_at: time,
        cancel_at_period_end: z.boolean(),
        paused_at: time,
        ended_at: time,
        dunning: z.array(
          z.object({
            invoice: z.string(),
            invoice_number: z.string().nullable(),
            charges_made: z.number().int(),
            retries_scheduled: z.number().int(),
            next_retry: z.string().nullable(),
            next_retry_at: time,
            when_retries_fail: z.string(),
            source: z.enum(['workflow', 'database']),
          }),
        ),
        next: next.nullable(),
        workflow,
      }),
    ),
    payment_plans: z.array(
      z.object({
        id: z.string(),
        workflow_id: z.string(),
        status: z.string(),
        total: z.string(),
        installments_paid: z.number().int(),
        installments_count: z.number().int(),
        next_installment: z
          .object({
            number: z.number().int(),
            amount: z.string(),
            due_at: time,
            status: z.string(),
            failure: z.string().nullable(),
          })
          .nullable(),
        past_due_since: time,
        defaults_at: time,
        next: next.nullable(),
        workflow,
      }),
    ),
    invoices: z.array(
      z.object({
        id: z.string(),
        number: z.string().nullable(),
        status: z.string(),
        billing_reason: z.string(),
        subscription: z.string().nullable(),
        total: z.string(),
        amount: z.number().int(),
        currency: z.string(),
        period: z.object({ start: time, end: time }),
        created_at: time,
        finalized_at: time,
        due_date: time,
        paid_at: time,
        voided_at: time,
      }),
    ),
    charges: z.array(
      z.object({
        id: z.string(),
        at: time,
        type: z.string(),
        status: z.string(),
        amount: z.string(),
        amount_cents: z.number().int(),
        currency: z.string(),
        invoice: z.string().nullable(),
        invoice_number: z.string().nullable(),
        payment_plan: z.string().nullable(),
        payment_method: method,
        processor: z.object({
          outcome: z.enum([
            'succeeded',
            'failed',
            'processing',
            'waiting for the customer to authenticate',
            'no answer yet',
          ]),
          failure_code: z.string().nullable(),
          failure_message: z.string().nullable(),
          reference: z.string().nullable(),
        }),
        origin: z
          .enum(TRANSACTION_ORIGINS)
          .nullable()
          .describe('What started an invoice payment, as recorded with it (docs/api.md, transactions); null otherwise'),
        reason: z.string().describe('Why the charge was made, in words'),
      }),
    ),
    next: z.array(next.extend({ of: z.string() })).describe('Everything scheduled, soonest first'),
  })
  .meta({ id: 'CustomerBillingReport' });
