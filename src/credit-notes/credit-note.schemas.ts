import { z } from 'zod';
import { currencyCode } from '../lib/iso';
import { MAX_CHARGE_AMOUNT } from '../lib/money';
import { updatedMsField } from '../lib/object-version';
import { cursorQuery, paginationQuery } from '../http/pagination';
import { resourceId, unixTime } from '../http/validation';
import { invoiceId, MAX_LINES, MAX_QUANTITY } from '../invoices/invoice.schemas';

/** Stripe's reasons and destinations, so merchants moving over recognize them (docs/decisions.md §22). */
export const CREDIT_NOTE_REASONS = ['duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory'] as const;
export const REFUND_DESTINATIONS = ['card', 'customer_balance', 'outside'] as const;
export const CREDIT_NOTE_TYPES = ['pre_payment', 'post_payment'] as const;
export const CREDIT_NOTE_STATUSES = ['issued', 'void'] as const;

const cents = z
  .number()
  .int('must be an integer number of cents')
  .min(1, 'must be at least 1')
  .max(MAX_CHARGE_AMOUNT, `must be at most ${MAX_CHARGE_AMOUNT} cents`);

const creditLine = z
  .strictObject({
    invoice_line: resourceId.describe('The invoice line credited (il_), one of the invoice named'),
    quantity: z
      .number()
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(MAX_QUANTITY, `must be at most ${MAX_QUANTITY}`)
      .optional()
      .describe("Units of the line credited: that share of the line's total with tax, rounded half-up to the cent"),
    amount: cents.optional().describe('Cents credited on the line, tax included'),
  })
  .meta({ id: 'CreditNoteLineInput' });

export const createCreditNoteBody = z
  .strictObject({
    invoice: invoiceId.describe('A finalized (open or paid) invoice'),
    lines: z
      .array(creditLine)
      .min(1, 'must hold at least one line')
      .max(MAX_LINES, `may hold at most ${MAX_LINES} lines`)
      .optional()
      .describe(
        'Credit by line: each names an invoice line with `quantity` or `amount` (neither: what is left of the whole line). Give `lines` or `amount`, not both',
      ),
    amount: cents.optional().describe('Credit by amount, cents with tax. Give `lines` or `amount`, not both'),
    reason: z.enum(CREDIT_NOTE_REASONS),
    refund_to: z
      .enum(REFUND_DESTINATIONS)
      .optional()
      .describe(
        'A paid invoice only (required there): `card` refunds the card that paid it, `customer_balance` credits the customer, `outside` records money given back outside the service. An open invoice takes none: its amount due goes down',
      ),
    memo: z.string().min(1, 'must not be empty').max(500, 'must be at most 500 characters').optional(),
  })
  .meta({ id: 'CreditNoteCreate' });

export const creditNoteLineSchema = z
  .object({
    id: z.string(),
    object: z.literal('credit_note_line'),
    invoice_line: z.string().nullable().describe('The invoice line credited; null for a credit note by amount'),
    description: z.string().nullable(),
    quantity: z.number().nullable(),
    amount: z.number().describe('Cents credited, tax included'),
  })
  .meta({ id: 'CreditNoteLine' });

export const creditNoteSchema = z
  .object({
    id: z.string(),
    object: z.literal('credit_note'),
    number: z.string().describe('CN-000001, per account'),
    invoice: z.string(),
    customer: z.string(),
    currency: currencyCode,
    amount: z.number().describe('Cents credited, tax included'),
    reason: z.enum(CREDIT_NOTE_REASONS),
    type: z
      .enum(CREDIT_NOTE_TYPES)
      .describe(
        'pre_payment: the invoice was open and its amount due went down; post_payment: it was paid, see refund_to',
      ),
    refund_to: z.union([z.enum(REFUND_DESTINATIONS), z.null()]),
    memo: z.string().nullable(),
    status: z
      .enum(CREDIT_NOTE_STATUSES)
      .describe('issued; void when its card refund failed at the gateway (credit_note.voided)'),
    transaction: z
      .string()
      .nullable()
      .describe('refund_to card: the refund transaction; outside: the adjustment transaction'),
    customer_balance_transaction: z
      .string()
      .nullable()
      .describe('refund_to customer_balance: the balance entry (cbtxn_)'),
    lines: z.array(creditNoteLineSchema),
    created: unixTime,
    voided_at: z.number().nullable(),
    updated_ms: updatedMsField,
  })
  .meta({ id: 'CreditNote' });

export const creditNoteIdParams = z.strictObject({ id: resourceId });

export const listCreditNotesQuery = z.strictObject({
  ...paginationQuery(100),
  ...cursorQuery(),
  invoice: invoiceId.optional(),
  customer: resourceId.optional(),
});

export type CreateCreditNoteInput = z.output<typeof createCreditNoteBody>;
export type CreditNoteObject = z.output<typeof creditNoteSchema>;
export type ListCreditNotesQuery = z.output<typeof listCreditNotesQuery>;
