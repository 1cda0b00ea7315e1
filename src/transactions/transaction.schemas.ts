import { z } from 'zod';
import { cursorQuery, paginationQuery } from '../http/pagination';
import { includeNamesQuery, resourceId, unixTime } from '../http/validation';
import { invoiceId } from '../invoices/invoice.schemas';
import { currencyCode } from '../lib/iso';
import { TRANSACTION_ORIGINS } from './transaction-origin';

export const TRANSACTION_TYPES = ['payment', 'refund', 'adjustment', 'dispute'] as const;
export const BALANCE_ENTRY_TYPES = [
  'credit_note',
  'applied_to_invoice',
  'unapplied_from_invoice',
  'adjustment',
] as const;
export const TRANSACTION_STATUSES = ['succeeded', 'failed', 'pending', 'unknown'] as const;

export const transactionSchema = z
  .object({
    id: z.string(),
    object: z.literal('transaction'),
    type: z.enum(TRANSACTION_TYPES),
    status: z.enum(TRANSACTION_STATUSES),
    amount: z
      .number()
      .describe(
        'Signed cents: payments positive, refunds negative; a dispute: its withdrawal negative, its reinstatement positive',
      ),
    currency: currencyCode,
    customer: z.string().nullable(),
    customer_name: z.string().optional().describe("With include=names: the customer's name"),
    invoice: z.string().nullable(),
    invoice_number: z.string().optional().describe("With include=names: the invoice's number, once it has one"),
    payment_method: z.string().nullable(),
    source_transaction: z.string().nullable().describe('Refunds: the payment refunded; disputes: the payment disputed'),
    attempt: z.number().nullable().describe('Payments: attempt number on the invoice'),
    gateway_reference: z.string().nullable().describe('The charge (ch_) or refund (re_) id at the gateway'),
    failure_code: z.string().nullable(),
    failure_message: z.string().nullable(),
    description: z.string().nullable(),
    created: unixTime,
  })
  .meta({ id: 'Transaction' });

export const transactionIdParams = z.strictObject({ id: resourceId });
export const invoiceTransactionParams = z.strictObject({ id: invoiceId, transactionId: resourceId });

export const listTransactionsQuery = z.strictObject({
  ...paginationQuery(100),
  ...cursorQuery(),
  type: z.enum(TRANSACTION_TYPES).optional(),
  status: z.enum(TRANSACTION_STATUSES).optional(),
  customer: resourceId.optional(),
  invoice: invoiceId.optional(),
  ...includeNamesQuery,
});

export const invoiceTransactionsQuery = z.strictObject(paginationQuery(100));

const balanceAmount = z.object({
  amount: z
    .union([z.number().int(), z.string().regex(/^-?\d+$/)])
    .describe('Cents, exact: a JSON number while it is a safe integer (|amount| < 2^53), else a string of digits'),
  currency: currencyCode,
});

export const balanceSchema = z
  .object({
    object: z.literal('balance'),
    available: z.array(balanceAmount).describe('Sum of succeeded transactions per currency'),
    pending: z.array(balanceAmount).describe('Sum of pending transactions per currency'),
  })
  .meta({ id: 'Balance' });

/** An entry of a customer's balance (docs/decisions.md §22), Stripe's customer balance transaction. */
export const balanceTransactionSchema = z
  .object({
    id: z.string(),
    object: z.literal('customer_balance_transaction'),
    type: z.enum(BALANCE_ENTRY_TYPES),
    amount: z.number().describe('Signed cents: negative adds credit, positive uses it'),
    currency: currencyCode,
    ending_balance: z.number().describe("The customer's balance after this entry"),
    customer: z.string(),
    invoice: z.string().nullable(),
    credit_note: z.string().nullable(),
    description: z.string().nullable(),
    created: unixTime,
  })
  .meta({ id: 'CustomerBalanceTransaction' });

export const balanceTransactionsQuery = z.strictObject(paginationQuery(100));

export type BalanceTransactionObject = z.output<typeof balanceTransactionSchema>;
export type TransactionObject = z.output<typeof transactionSchema>;
export type ListTransactionsQuery = z.output<typeof listTransactionsQuery>;
export type BalanceObject = z.output<typeof balanceSchema>;

/** The origins a transaction is filed under, for the other modules' schemas (a schemas file reads another's schemas file only). */
export { TRANSACTION_ORIGINS };
