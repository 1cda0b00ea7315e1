import type { Transaction } from '../generated/prisma/client';
import type { Tx } from '../db/prisma';
import { newId } from '../lib/ids';

/**
 * Payment-plan charges in the account's transaction ledger (type `payment`), so they count in the
 * balance like invoice payments. src/transactions/ exposes no writer for payments, so this module
 * writes the rows itself, keyed by `gateway_key` (unique per account): recording the same attempt
 * twice answers the first row.
 */
export interface PlanTransactionInput {
  accountId: string;
  customerId: string;
  amount: bigint;
  currency: string;
  paymentMethodId: string | null;
  /** Unique per account: the gateway idempotency key, or `payment-plan:<id>:terminal-sale:<sale>`. */
  gatewayKey: string;
  description: string;
  attempt?: number | null;
}

export async function openPendingTransaction(tx: Tx, input: PlanTransactionInput): Promise<Transaction> {
  const existing = await tx.transaction.findUnique({ where: { accountId_gatewayKey: { accountId: input.accountId, gatewayKey: input.gatewayKey } } });
  if (existing) return existing;
  return tx.transaction.create({
    data: {
      id: newId('transaction'),
      accountId: input.accountId,
      type: 'payment',
      status: 'pending',
      amount: input.amount,
      currency: input.currency,
      customerId: input.customerId,
      paymentMethodId: input.paymentMethodId,
      attempt: input.attempt ?? null,
      gatewayKey: input.gatewayKey,
      description: input.description,
    },
  });
}

export type TransactionOutcome =
  | { status: 'succeeded'; gatewayReference: string }
  | { status: 'failed'; gatewayReference: string | null; failureCode: string; failureMessage: string };

export async function settleTransaction(tx: Tx, id: string, outcome: TransactionOutcome): Promise<void> {
  await tx.transaction.updateMany({
    where: { id, status: 'pending' },
    data: {
      status: outcome.status,
      gatewayReference: outcome.gatewayReference,
      failureCode: outcome.status === 'failed' ? outcome.failureCode : null,
      failureMessage: outcome.status === 'failed' ? outcome.failureMessage : null,
    },
  });
}

/** A charge whose outcome is already known (a terminal sale): recorded settled in one step. */
export async function recordSettledTransaction(tx: Tx, input: PlanTransactionInput, outcome: TransactionOutcome): Promise<Transaction> {
  const row = await openPendingTransaction(tx, input);
  await settleTransaction(tx, row.id, outcome);
  return row;
}
