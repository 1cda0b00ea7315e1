import type { Transaction } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { formatMoney } from '../lib/money';

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
  /** One line: `succeeded: $30.00 on visa ****4242, txn_... (ch_...)`. */
  description: string;
}

/** The receipt of a ledger entry (null when there is none: no charge was made). */
export async function chargeReceipt(db: Db, entry: Transaction | null): Promise<ChargeReceipt | null> {
  if (!entry) return null;
  const method = entry.paymentMethodId
    ? await db.paymentMethod.findFirst({ where: { id: entry.paymentMethodId, accountId: entry.accountId }, select: { cardBrand: true, bankName: true, last4: true } })
    : null;
  const amountFormatted = formatMoney(entry.amount, entry.currency);
  const brand = method ? (method.cardBrand ?? method.bankName) : null;
  const last4 = method?.last4 ?? null;
  const card = method ? ` on ${brand ?? 'payment method'} ****${last4}` : '';
  const outcome = entry.status === 'failed' && entry.failureCode ? `failed (${entry.failureCode})` : entry.status;
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
    description: `${outcome}: ${amountFormatted}${card}, ${entry.id}${entry.gatewayReference ? ` (${entry.gatewayReference})` : ''}`,
  };
}
