import type { Transaction } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { formatMoney } from '../lib/money';
import { readAttemptReceipt, readReceiptMethod } from './transaction.records';

/**
 * What one charge attempt did, as the workflows' charge activities answer it: their result is shown
 * in the Temporal Web UI, so a support agent reads there which card was charged how much, and the
 * ledger entry (`transactionId`) to look up. Card brand (or bank name) and last4 only, never more.
 */
export interface ChargeReceipt {
  transactionId: string;
  /** succeeded, failed, or pending (the gateway did not answer yet). */
  status: string;
  /** Cents. */
  amount: number;
  currency: string;
  /** `$30.00`. */
  amountFormatted: string;
  /** `visa`; a bank account's bank name. */
  brand: string | null;
  last4: string | null;
  /** The gateway's charge id (ch_...). */
  gatewayReference: string | null;
  failureCode: string | null;
  /** The invoice charged, by its number (`INV-000042`) beside its id; absent for a charge of no invoice. */
  invoice?: { id: string; number: string | null };
  /**
   * One line: `succeeded: $30.00 on visa ****4242 for invoice INV-000042 (<id>), txn_... (ch_...)`. A failure
   * reads `FAILED (card_declined): ...`; its activity fails (src/payments/charge-failure.ts), with this
   * receipt in the failure's details (docs/operations.md, "why was this customer charged").
   */
  description: string;
}

type ReceiptEntry = Pick<Transaction, 'id' | 'status' | 'amount' | 'currency' | 'gatewayReference' | 'failureCode'>;
type ReceiptMethod = { cardBrand: string | null; bankName: string | null; last4: string | null };

type ReceiptInvoice = { id: string; number: string | null };

function receiptOf(
  entry: ReceiptEntry,
  method: ReceiptMethod | null,
  invoice: ReceiptInvoice | null = null,
): ChargeReceipt {
  const amountFormatted = formatMoney(entry.amount, entry.currency);
  const brand = method ? (method.cardBrand ?? method.bankName) : null;
  const last4 = method?.last4 ?? null;
  const card = method ? ` on ${brand ?? 'payment method'} ****${last4}` : '';
  const status = entry.status === 'failed' ? 'FAILED' : entry.status;
  const outcome = entry.status === 'failed' && entry.failureCode ? `${status} (${entry.failureCode})` : status;
  const charged = invoice ? ` for invoice ${invoice.number ? `${invoice.number} (${invoice.id})` : invoice.id}` : '';
  return {
    transactionId: entry.id,
    status: entry.status,
    amount: Number(entry.amount),
    currency: entry.currency,
    amountFormatted,
    brand,
    last4,
    gatewayReference: entry.gatewayReference,
    failureCode: entry.failureCode,
    ...(invoice ? { invoice: { id: invoice.id, number: invoice.number } } : {}),
    description: `${outcome}: ${amountFormatted}${card}${charged}, ${entry.id}${entry.gatewayReference ? ` (${entry.gatewayReference})` : ''}`,
  };
}

/** The receipt of an invoice's payment entry as its settling transaction left it, with the method it charged. */
export function invoicePaymentReceipt(
  entry: ReceiptEntry,
  method: ReceiptMethod,
  invoice: ReceiptInvoice,
): ChargeReceipt {
  return receiptOf(entry, method, { id: invoice.id, number: invoice.number });
}

/** The receipt of a ledger entry (null when there is none: no charge was made). */
export async function chargeReceipt(db: Db, entry: Transaction | null): Promise<ChargeReceipt | null> {
  if (!entry) return null;
  const method = entry.paymentMethodId ? await readReceiptMethod(db, entry.accountId, entry.paymentMethodId) : null;
  return receiptOf(entry, method);
}

/** chargeReceipt of the invoice's attempt under `attemptKey`, in one prepared statement (src/db/sql.ts); null when there is none. */
export async function attemptReceipt(
  prisma: Db,
  accountId: string,
  invoiceId: string,
  attemptKey: string,
): Promise<ChargeReceipt | null> {
  const row = await readAttemptReceipt(prisma, accountId, invoiceId, attemptKey);
  if (!row) return null;
  return receiptOf({ ...row, amount: BigInt(row.amount) }, row.methodId ? row : null, {
    id: invoiceId,
    number: row.invoiceNumber,
  });
}
