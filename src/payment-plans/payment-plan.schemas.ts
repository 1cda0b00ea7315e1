import { z } from 'zod';
import { currencyCode, currencyCodeInput } from '../lib/iso';
import { cursorQuery, paginationQuery } from '../http/pagination';
import { DECIMAL_INTEGER, includeNamesQuery, oneOf, queryInteger, resourceId, unixTime } from '../http/validation';
import { paymentMethodId } from '../payments/payment-method.schemas';
import { updatedMsField } from '../lib/object-version';

/** Highest plan total, in cents: the catalog's unit_amount bound. */
export const MAX_TOTAL_AMOUNT = 99_999_999;
export const MIN_INSTALLMENTS = 2;
export const MAX_INSTALLMENTS = 60;
export const MAX_INTERVAL_COUNT = 12;
/** A start date may lie this far in the past (clock skew between client and server). */
export const START_DATE_PAST_TOLERANCE_SECONDS = 300;
export const START_DATE_MAX_AHEAD_DAYS = 366;
/**
 * Days a past_due plan may wait before it is defaulted, as an account sets them (PUT /settings/payment-plans,
 * `npm run support -- payment-plans:settings --default-after-days`): a whole number from 1 to 365.
 */
export const MIN_DEFAULT_AFTER_DAYS = 1;
export const MAX_DEFAULT_AFTER_DAYS = 365;

export const PLAN_STATUSES = ['pending', 'active', 'past_due', 'defaulted', 'completed', 'canceled'] as const;
export const TERMINAL_STATES = [
  'waiting',
  'resolving',
  'approved_no_credential',
  'approved',
  'declined',
  'cancelled',
] as const;

const positiveInt = (name: string) => z.number({ error: `${name} must be an integer` }).int('must be an integer');

export const createPaymentPlanBody = z
  .strictObject({
    customer: resourceId.describe('cus_ id of the customer who pays'),
    total_amount: positiveInt('total_amount')
      .min(1, 'must be at least 1 cent')
      .max(MAX_TOTAL_AMOUNT, `must be at most ${MAX_TOTAL_AMOUNT} cents`)
      .describe(`Cents, at least installments_count (no installment may be 0), at most ${MAX_TOTAL_AMOUNT}`),
    currency: currencyCodeInput.describe('ISO 4217 code, stored uppercase'),
    installments_count: positiveInt('installments_count')
      .min(MIN_INSTALLMENTS, `must be at least ${MIN_INSTALLMENTS}`)
      .max(MAX_INSTALLMENTS, `must be at most ${MAX_INSTALLMENTS}`),
    interval: z.enum(['week', 'month']),
    interval_count: positiveInt('interval_count')
      .min(1, 'must be at least 1')
      .max(MAX_INTERVAL_COUNT, `must be at most ${MAX_INTERVAL_COUNT}`)
      .default(1),
    start_date: positiveInt('start_date')
      .positive('must be positive Unix seconds')
      .optional()
      .describe('Unix seconds: due date of installment 1 (the deposit); default now'),
    payment_method: paymentMethodId
      .optional()
      .describe('A payment method attached to the customer: installment 1 is charged at once, the rest on their dates'),
  })
  .superRefine((body, ctx) => {
    if (body.total_amount < body.installments_count) {
      ctx.addIssue({
        code: 'custom',
        path: ['total_amount'],
        message: `must be at least installments_count (${body.installments_count}) cents, so that no installment is 0`,
      });
    }
  })
  .meta({ id: 'PaymentPlanCreate' });

export const listPaymentPlansQuery = z.strictObject({
  ...paginationQuery(100),
  ...cursorQuery(),
  customer: resourceId.optional(),
  status: z.enum(PLAN_STATUSES).optional(),
  ...includeNamesQuery,
});

export const planIdParams = z.strictObject({ id: resourceId });
export const planPaymentParams = z.strictObject({ id: resourceId, payment_id: resourceId });
export const pageQuery = z.strictObject(paginationQuery(100));

const terminalPaymentMethod = z.strictObject({
  type: z.literal('terminal'),
  terminal: resourceId.describe('tml_ id of a registered terminal'),
});

/** The body of POST /payment-plans/{id}/payments, read by the route as one record whatever its shape. */
interface PlanPaymentInput {
  payment_method?: string | z.output<typeof terminalPaymentMethod>;
  save_payment_method?: boolean;
  external?: true;
  external_reference?: string;
}

/** One way to pay at a time: the plan's card, a card given, a terminal, or outside the service. */
export const createPlanPaymentBody = oneOf(
  [
    z.strictObject({}).meta({ description: "Charge the plan's card" }),
    z
      .strictObject({
        payment_method: paymentMethodId.describe('A pm_ id to charge'),
        save_payment_method: z.boolean().optional().describe("Keep it as the plan's card for the next installments"),
      })
      .meta({ description: 'Charge this payment method' }),
    z.strictObject({ payment_method: terminalPaymentMethod }).meta({ description: 'Take the payment on a terminal' }),
    z
      .strictObject({
        external: z
          .literal(true, 'must be true')
          .describe('Record a payment collected outside the service (no charge is made)'),
        external_reference: z.string().min(1).max(200).optional().describe('Your reference (receipt, cheque number)'),
      })
      .meta({ description: 'Record a payment collected outside the service' }),
  ],
  'pay with the plan\'s card ({}), a payment_method id (with save_payment_method), a terminal payment_method {type: "terminal", terminal}, ' +
    'or external: true (with external_reference): one of them',
)
  .transform((body): PlanPaymentInput => body)
  .meta({ id: 'PaymentPlanPaymentCreate' });

export const refundPlanPaymentBody = z
  .strictObject({
    amount: positiveInt('amount')
      .min(1, 'must be at least 1 cent')
      .max(MAX_TOTAL_AMOUNT, `must be at most ${MAX_TOTAL_AMOUNT} cents`)
      .optional()
      .describe('Cents; all that is left to refund on the payment when absent'),
  })
  .meta({ id: 'PaymentPlanPaymentRefund' });

export const depositTerminalBody = z
  .strictObject({ terminal: resourceId.describe('tml_ id of a registered terminal') })
  .meta({ id: 'PaymentPlanDepositTerminal' });

const approvedOutcome = z
  .literal('approved', 'must be approved (or absent) with payment_method or external')
  .optional();

/** The body of POST .../resolve, read by the service as one record whatever its shape. */
interface ResolveTerminalFields {
  outcome?: 'approved' | 'declined';
  payment_method?: string;
  external?: true;
}

/** The outcome, plus how the next installments are paid when approved: a card, or outside the service. */
export const resolveTerminalBody = oneOf(
  [
    z.strictObject({
      outcome: z
        .enum(['approved', 'declined'])
        .optional()
        .describe(
          'The outcome known from elsewhere; required for `waiting` and `resolving`, implied for `approved_no_credential`',
        ),
    }),
    z.strictObject({
      outcome: approvedOutcome,
      payment_method: paymentMethodId.describe("pm_ id attached to the customer, stored as the plan's card"),
    }),
    z.strictObject({
      outcome: approvedOutcome,
      external: z
        .literal(true, 'must be true')
        .describe('The next installments are collected outside the service (no card on file)'),
    }),
  ],
  'give an outcome alone, or with outcome approved (or absent) either payment_method or external: true, not both',
)
  .transform((body): ResolveTerminalFields => body)
  .meta({ id: 'TerminalPaymentResolve' });

const moneyFields = { amount: z.number(), currency: currencyCode };

export const terminalAttemptSchema = z
  .object({
    id: z.string().describe('Terminal id (tml_)'),
    sale: z.string().nullable().describe('Sale id on the terminal (tms_)'),
    state: z.enum(TERMINAL_STATES),
    cancel_requested: z.boolean(),
    cancel_requested_at: z.number().nullable(),
  })
  .meta({ id: 'TerminalPaymentState' });

export const planPaymentSchema = z
  .object({
    id: z.string(),
    object: z.literal('payment_plan_payment'),
    plan: z.string(),
    customer: z.string(),
    method: z.enum(['automatic', 'payment_method', 'external', 'terminal']),
    deposit: z.boolean(),
    status: z
      .enum(['processing', 'succeeded', 'failed', 'canceled', 'refunded'])
      .describe('refunded: every cent given back'),
    ...moneyFields,
    amount_refunded: z.number().describe('Cents given back by refunds of this payment'),
    installments: z.array(z.number()),
    payment_method: z.string().nullable(),
    transaction: z.string().nullable(),
    external_reference: z.string().nullable(),
    terminal: terminalAttemptSchema.nullable(),
    resolution: z
      .object({
        outcome: z.enum(['approved', 'declined']),
        payment_method: z.string().nullable(),
        external: z.boolean(),
        source: z.string(),
        at: z.number(),
      })
      .nullable(),
    failure_code: z.string().nullable(),
    failure_message: z.string().nullable(),
    created: unixTime,
    updated: z.number(),
  })
  .meta({ id: 'PaymentPlanPayment' });

/** GET /terminal-payments: terminal payments not settled yet, waiting at least this long. */
export const openTerminalPaymentsQuery = z.strictObject({
  older_than_minutes: queryInteger(z.number(DECIMAL_INTEGER).int().min(0).max(525_600))
    .default(0)
    .describe('Only payments in their state for at least this many minutes (decimal digits, 0 to 525600)'),
});

export const openTerminalPaymentSchema = z
  .object({
    payment: planPaymentSchema,
    customer_name: z.string().nullable().describe("The plan's customer, by name"),
    terminal_label: z.string().nullable(),
    since: unixTime.describe('When the payment entered its terminal state (Unix seconds)'),
  })
  .meta({ id: 'OpenTerminalPayment' });

export const installmentSchema = z
  .object({
    object: z.literal('payment_plan_installment'),
    plan: z.string(),
    number: z.number(),
    ...moneyFields,
    due_date: z.number(),
    status: z.enum(['scheduled', 'processing', 'paid', 'failed', 'overdue', 'canceled']),
    payment: z.string().nullable().describe('The payment that paid it, or the one paying it now'),
    paid_at: z.number().nullable(),
    automatic_attempts: z.number(),
    failure_code: z.string().nullable(),
    failure_message: z.string().nullable(),
  })
  .meta({ id: 'PaymentPlanInstallment' });

export const paymentPlanSchema = z
  .object({
    id: z.string(),
    object: z.literal('payment_plan'),
    customer: z.string(),
    customer_name: z.string().optional().describe("With include=names: the customer's name"),
    status: z.enum(PLAN_STATUSES),
    currency: currencyCode,
    total_amount: z.number(),
    amount_paid: z.number(),
    amount_remaining: z.number(),
    amount_overdue: z.number(),
    amount_refunded: z
      .number()
      .describe("Cents given back by refunds of the plan's payments (the installments they paid stay paid)"),
    installments_count: z.number(),
    installments_paid: z.number(),
    interval: z.enum(['week', 'month']),
    interval_count: z.number(),
    start_date: z.number(),
    payment_method: z.string().nullable(),
    default_after_days: z.number(),
    deposit: z.object({
      installment: z.literal(1),
      amount: z.number(),
      status: z.enum(['unpaid', 'processing', 'action_required', 'paid']),
      attempt: z
        .object({
          payment: z.string(),
          method: z.string(),
          status: z.string(),
          terminal: z.string().nullable(),
          state: z.enum(TERMINAL_STATES).nullable(),
          cancel_requested: z.boolean(),
          created: unixTime,
        })
        .nullable(),
    }),
    next_installment: z.object({ number: z.number(), amount: z.number(), due_date: z.number() }).nullable(),
    activated_at: z.number().nullable(),
    past_due_at: z.number().nullable(),
    defaulted_at: z.number().nullable(),
    completed_at: z.number().nullable(),
    canceled_at: z.number().nullable(),
    cancellation_reason: z.string().nullable(),
    created: unixTime,
    updated_ms: updatedMsField,
    updated: z.number(),
  })
  .meta({ id: 'PaymentPlan' });

export const paymentPlanSettingsBody = z
  .strictObject({
    enabled: z.boolean().optional().describe('Whether the account may create payment plans (off for a new account)'),
    default_after_days: z
      .number()
      .int('must be an integer')
      .min(MIN_DEFAULT_AFTER_DAYS, `must be at least ${MIN_DEFAULT_AFTER_DAYS}`)
      .max(MAX_DEFAULT_AFTER_DAYS, `must be at most ${MAX_DEFAULT_AFTER_DAYS}`)
      .optional()
      .describe(
        `Days a past_due plan waits before it is defaulted (${MIN_DEFAULT_AFTER_DAYS} to ${MAX_DEFAULT_AFTER_DAYS}); applies to plans created from now on`,
      ),
  })
  .superRefine((body, ctx) => {
    if (body.enabled === undefined && body.default_after_days === undefined) {
      ctx.addIssue({ code: 'custom', path: ['enabled'], message: 'give enabled, default_after_days or both' });
    }
  })
  .openapi('PaymentPlanSettingsUpdate', { minProperties: 1 });

export const paymentPlanSettingsSchema = z
  .object({
    object: z.literal('payment_plan_settings'),
    enabled: z.boolean().describe('Whether the account may create payment plans'),
    default_after_days: z
      .number()
      .int()
      .describe('Days a past_due plan waits before it is defaulted (plans created from now on)'),
  })
  .meta({ id: 'PaymentPlanSettings' });

export type CreatePaymentPlanInput = z.output<typeof createPaymentPlanBody>;
export type ListPaymentPlansQuery = z.output<typeof listPaymentPlansQuery>;
export type CreatePlanPaymentInput = z.output<typeof createPlanPaymentBody>;
export type ResolveTerminalInput = z.output<typeof resolveTerminalBody>;
export type PaymentPlanObject = z.output<typeof paymentPlanSchema>;
export type InstallmentObject = z.output<typeof installmentSchema>;
export type PlanPaymentObject = z.output<typeof planPaymentSchema>;
export type OpenTerminalPaymentObject = z.output<typeof openTerminalPaymentSchema>;
export type PaymentPlanSettingsInput = z.output<typeof paymentPlanSettingsBody>;
export type PaymentPlanSettingsObject = z.output<typeof paymentPlanSettingsSchema>;
