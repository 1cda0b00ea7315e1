import { z } from 'zod';
import { countryCode, currencyCode, currencyCodeInput } from '../lib/iso';
import { cursorQuery, paginationQuery } from '../http/pagination';
import { oneOf, queryUnixSeconds, resourceId, unixSeconds, unixTime } from '../http/validation';
import { paymentMethodId } from '../payments/payment-method.schemas';
import { updatedMsField } from '../lib/object-version';
import { addressSchema } from '../customers/customer.schemas';

export const MAX_LINE_UNIT_AMOUNT = 99_999_999;
export const MAX_QUANTITY = 100_000;
export const MAX_LINES = 100;
export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void'] as const;
export const COLLECTION_METHODS = ['charge_automatically', 'send_invoice'] as const;

const lineFields = {
  quantity: z
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(MAX_QUANTITY, `must be at most ${MAX_QUANTITY}`)
    .default(1),
  tax: z
    .array(resourceId)
    .max(10, 'may name at most 10 tax rates')
    .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a tax rate')
    .optional()
    .describe('Tax rate ids (txr_) applied to this line; each rate says whether it is inclusive'),
};
const lineDescription = z.string().min(1, 'must not be empty').max(500, 'must be at most 500 characters');

/** A line bills a price, or an amount it gives itself: never both. */
const priceLine = z
  .strictObject({
    price: resourceId.describe('A price id; the line bills unit_amount x quantity of it'),
    description: lineDescription.optional().describe("Defaults to the price's description, else its product's name"),
    ...lineFields,
  })
  .meta({ id: 'InvoiceLinePriceInput' });

const amountLine = z
  .strictObject({
    description: lineDescription,
    amount: z
      .number()
      .int('must be an integer number of cents')
      .min(0, 'must be at least 0')
      .max(MAX_LINE_UNIT_AMOUNT, `must be at most ${MAX_LINE_UNIT_AMOUNT} cents`)
      .describe('Amount per unit, in cents'),
    ...lineFields,
  })
  .meta({ id: 'InvoiceLineAmountInput' });

/** Either shape, read by the service as one record (each field absent where its shape has none). */
interface LineInput {
  price?: string;
  description?: string;
  amount?: number;
  quantity: number;
  tax?: string[];
}

// The amount line first: a line with a description only is then told it lacks its amount.
const lineInput = oneOf(
  [amountLine, priceLine],
  'a line either gives description and amount, or names a price (price, optional description), never price and amount together',
).transform((line): LineInput => line);

export const createInvoiceBody = z
  .strictObject({
    customer: resourceId,
    lines: z
      .array(lineInput)
      .min(1, 'must hold at least one line')
      .max(MAX_LINES, `may hold at most ${MAX_LINES} lines`),
    collection_method: z.enum(COLLECTION_METHODS).default('charge_automatically'),
    due_date: unixSeconds.optional().describe('Unix seconds'),
    currency: currencyCodeInput.optional().describe("Defaults to the prices' currency, else the customer's, else USD"),
  })
  .meta({ id: 'InvoiceCreate' });

export const payInvoiceBody = z
  .strictObject({
    payment_method: paymentMethodId
      .optional()
      .describe("A method attached to the invoice's customer; the customer's default when absent"),
  })
  .meta({ id: 'InvoicePay' });

export const refundInvoiceBody = z
  .strictObject({
    amount: z
      .number()
      .int('must be an integer number of cents')
      .min(1, 'must be at least 1')
      .optional()
      .describe('Cents; all that is left to refund when absent'),
  })
  .meta({ id: 'InvoiceRefund' });

/** Invoice ids are UUIDs. */
export const invoiceId = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a UUID')
  .transform((id) => id.toLowerCase());

export const invoiceIdParams = z.strictObject({ id: invoiceId });

export const listInvoicesQuery = z.strictObject({
  ...paginationQuery(100),
  status: z.enum(INVOICE_STATUSES).optional(),
  customer: resourceId.optional(),
  subscription: resourceId.optional(),
  created_gt: queryUnixSeconds.optional(),
  created_gte: queryUnixSeconds.optional(),
  created_lt: queryUnixSeconds.optional(),
  created_lte: queryUnixSeconds.optional(),
  ...cursorQuery(invoiceId),
});

const taxAmountSchema = z
  .object({
    amount: z.number(),
    tax_behavior: z.enum(['inclusive', 'exclusive']),
    tax_rate: z.string(),
    taxable_amount: z.number(),
  })
  .meta({ id: 'TaxAmount' });

const lineTierSchema = z
  .object({
    up_to: z.number().int().nullable().describe('The tier\'s last unit (inclusive); null for "inf"'),
    quantity: z.number().int().describe('Units billed in the tier'),
    unit_amount: z.number().int(),
    flat_amount: z.number().int().describe("The tier's flat fee this line charges"),
    amount: z.number().int().describe('unit_amount x quantity + flat_amount'),
    first_unit: z
      .number()
      .int()
      .nullable()
      .describe(
        "Graduated: the period's first unit this part bills, counting the period's whole usage from 1 (a late or remainder " +
          'line starts past the units billed before it); null for volume, and on lines billed before it was kept',
      ),
  })
  .meta({ id: 'InvoiceLineTier' });

export const invoiceLineSchema = z
  .object({
    id: z.string(),
    object: z.literal('line_item'),
    description: z.string().nullable(),
    amount: z.number().describe('unit_amount x quantity: includes inclusive tax, excludes exclusive tax'),
    amount_excluding_tax: z.number(),
    currency: currencyCode,
    quantity: z.number(),
    unit_amount: z.number(),
    price: z.string().nullable(),
    tax_rates: z.array(z.string()),
    tax_amounts: z.array(taxAmountSchema),
    period: z.object({ start: z.number(), end: z.number() }),
    proration: z
      .boolean()
      .describe(
        "A subscription change's share of a period (Stripe's flag): `amount` is the prorated cents for `period` " +
          '(negative for the unused time of what was replaced), not unit_amount x quantity (docs/api.md, "Proration")',
      ),
    discount: z
      .string()
      .nullable()
      .describe(
        'A discount line: the discount (di_) whose amount off it is, a negative `amount` carrying the tax rates of the lines it ' +
          'discounts (docs/api.md, "Coupons and discounts"); null on every other line',
      ),
    tiers_mode: z
      .enum(['graduated', 'volume'])
      .nullable()
      .describe("A usage line of a tiered price: the price's tiers_mode when billed; null on every other line"),
    tiers: z
      .array(lineTierSchema)
      .nullable()
      .describe(
        'A usage line of a tiered price: each tier the usage reached, lowest first, what it billed in it (volume: the one ' +
          'tier; a late line: what the late usage adds, a tier taken back negative), the amounts adding up to `amount` ' +
          '(docs/api.md, "Usage-based billing"); null on every other line',
      ),
    transform_quantity: z
      .object({ divide_by: z.number().int(), round: z.enum(['up', 'down']) })
      .nullable()
      .describe(
        "A usage line of a package price: the price's transform_quantity when billed; null on every other line",
      ),
    packages: z
      .number()
      .int()
      .nullable()
      .describe(
        'A usage line of a package price: the packages billed (`amount` = packages x unit_amount); null otherwise',
      ),
  })
  .meta({ id: 'InvoiceLine' });

/**
 * The processor's dispute of the charge that paid an invoice (docs/decisions.md §44), as its latest event said: on the
 * invoice as `dispute` and the `data` of the charge.dispute.* events.
 */
export const invoiceDisputeSchema = z
  .object({
    id: z.string().describe("The processor's dispute id (Stripe's dp_...)"),
    object: z.literal('dispute'),
    amount: z.number().int().describe('Cents disputed'),
    currency: currencyCode,
    status: z
      .string()
      .describe(
        "Stripe's dispute status: warning_needs_response, warning_under_review, warning_closed (an inquiry: no money moved), " +
          'needs_response, under_review, appeal_needs_response, appeal_under_review (withdrawn while open), won (given back), ' +
          'lost (withdrawn for good) or prevented',
      ),
    closed: z.boolean().describe('won, lost, warning_closed or prevented: the dispute is over'),
    reason: z.string().nullable().describe("The processor's reason (fraudulent, product_not_received, ...)"),
    charge: z.string().describe("The charge disputed, as the processor names it (the payment's gateway_reference)"),
    invoice: z.string(),
    created: unixTime.describe('When the processor opened the dispute'),
  })
  .meta({ id: 'InvoiceDispute' });

export const invoiceSchema = z
  .object({
    id: z.string(),
    object: z.literal('invoice'),
    account_country: z
      .union([countryCode, z.null()])
      .describe("The seller's country (its business address, GET /settings/business-details); null when unset"),
    account_name: z.string().nullable().describe("The seller's legal name when set, else the account's name"),
    account_address: z
      .union([addressSchema, z.null()])
      .describe(
        'The seller\'s business address as the invoice was made, then finalized (docs/api.md, "Business details"); null when unset',
      ),
    account_email: z.string().nullable().describe("The seller's support email; null when unset"),
    account_phone: z.string().nullable().describe("The seller's support phone; null when unset"),
    account_tax_id: z.string().nullable().describe("The seller's tax id (a VAT number, an EIN...); null when unset"),
    amount_due: z.number(),
    amount_paid: z.number(),
    amount_remaining: z.number(),
    amount_refunded: z.number(),
    dispute: z
      .union([invoiceDisputeSchema, z.null()])
      .describe(
        'The processor\'s dispute of the charge that paid it (docs/api.md, "Payment processors"); null when never disputed',
      ),
    applied_balance: z
      .number()
      .describe(
        "Cents of the customer's credit balance used at finalization: amount_due = total - applied_balance - pre_payment_credit_notes_amount (docs/decisions.md §22); negative (= total) when a total below zero went to the balance (§25)",
      ),
    pre_payment_credit_notes_amount: z.number().describe('Cents credited by credit notes while the invoice was open'),
    post_payment_credit_notes_amount: z
      .number()
      .describe('Cents credited by credit notes once it was paid (refunded, to the balance, or outside)'),
    attempt_count: z.number(),
    attempted: z.boolean(),
    billing_reason: z.string(),
    collection_method: z.enum(COLLECTION_METHODS),
    created: unixTime,
    updated_ms: updatedMsField,
    currency: currencyCode,
    customer: z.string(),
    customer_address: z.union([addressSchema, z.null()]).describe('null when the customer has no address'),
    customer_email: z.string().nullable(),
    customer_name: z.string().nullable(),
    customer_phone: z.string().nullable(),
    due_date: z.number().nullable(),
    hosted_invoice_url: z
      .string()
      .nullable()
      .describe(
        'The page where the customer sees and pays this invoice (docs/api.md "Hosted pages"): an unguessable link under PUBLIC_URL, ' +
          'given at finalization, valid HOSTED_INVOICE_LINK_DAYS days; null while draft',
      ),
    lines: z.array(invoiceLineSchema),
    number: z.string().nullable().describe('INV-000001, per account; given at finalization'),
    paid: z.boolean(),
    payment_method: z.string().nullable().describe('The method that paid the invoice'),
    period_start: z.number(),
    period_end: z.number(),
    status: z.enum(INVOICE_STATUSES),
    status_transitions: z.object({
      finalized_at: z.number().nullable(),
      paid_at: z.number().nullable(),
      voided_at: z.number().nullable(),
    }),
    subscription: z.string().nullable(),
    subtotal: z.number(),
    subtotal_excluding_tax: z.number(),
    tax: z.number(),
    total: z.number(),
    total_excluding_tax: z.number(),
    total_taxes: z
      .union([taxAmountSchema, z.null()])
      .describe(
        "The invoice's tax as the contract's one object (docs/decisions.md §16): null when no line carries a tax rate. With one rate, that rate's " +
          "tax summed over the lines; with several, `amount` is the whole tax (= `tax`), `taxable_amount` the sum of the taxed lines' " +
          '`amount_excluding_tax`, and `tax_rate`/`tax_behavior` those of the rate with the most tax (the first of them on a tie); ' +
          'every rate is in `total_tax_amounts`',
      ),
    total_tax_amounts: z
      .array(taxAmountSchema)
      .describe('Tax summed per tax rate over the lines, one entry per rate in the order the lines first name them'),
    total_discount_amounts: z
      .array(z.object({ amount: z.number(), discount: z.string() }))
      .describe(
        "Cents each discount took off, before tax (the sum of its discount lines' amounts, positive). `subtotal` is before " +
          'discount; `total` after it (docs/api.md, "Coupons and discounts")',
      ),
  })
  .meta({ id: 'Invoice' });

/** What createInvoice takes: a request body, or one already parsed (the service parses it again). */
export type CreateInvoiceInput = z.input<typeof createInvoiceBody> | z.output<typeof createInvoiceBody>;
export type ListInvoicesQuery = z.output<typeof listInvoicesQuery>;
export type InvoiceObject = z.output<typeof invoiceSchema>;
export type InvoiceLineObject = z.output<typeof invoiceLineSchema>;
export type TaxAmountObject = z.output<typeof taxAmountSchema>;
export type InvoiceDisputeObject = z.output<typeof invoiceDisputeSchema>;
