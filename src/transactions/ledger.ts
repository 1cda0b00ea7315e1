import type { Transaction } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import type { AnyTx } from '../db/sql';
import { entryByGatewayKey, insertEntry, settleEntry, type NewEntry } from './transaction.records';
import { newId } from '../lib/ids';
import { currentTime } from '../lib/clock-time';
import { afterCommit, runTransaction } from '../db/sql-transaction';
import { countOpened, countSettled } from './ledger-metrics';

/**
 * The one writer of the `transactions` ledger. Money moves in two steps: an entry is opened
 * `pending` under its gateway key and committed before the gateway is called (so a crash leaves a
 * key to finish with, never a second charge), then settled once with the gateway's outcome. Invoice
 * payments and refunds, payment-plan charges, refunds and terminal sales all go through here, so
 * this is where the money metrics are counted (src/transactions/ledger-metrics.ts), once the entry's
 * transaction has committed (docs/operations.md, "Metrics and alerts").
 */
export interface LedgerEntry {
  accountId: string;
  type: 'payment' | 'refund';
  /** Signed cents: payments positive, refunds negative, so the balance is a plain sum. */
  amount: bigint;
  currency: string;
  customerId: string;
  invoiceId?: string | null;
  paymentMethodId: string | null;
  /** Refunds: the payment entry refunded. */
  sourceTransactionId?: string | null;
  /** Payments: attempt number on the invoice or installment. */
  attempt?: number | null;
  /** The caller's key for this attempt (an Idempotency-Key or a workflow step), if any. */
  attemptKey?: string | null;
  /** Unique per account: the gateway idempotency key (or the terminal sale's key). */
  gatewayKey: string;
  description: string;
}

export type LedgerOutcome =
  | { status: 'succeeded'; gatewayReference: string }
  | { status: 'failed'; gatewayReference: string | null; failureCode: string; failureMessage: string };

function entryData(entry: Omit<LedgerEntry, 'gatewayKey'> & { gatewayKey: string | null }): NewEntry {
  return {
    id: newId('transaction'),
    accountId: entry.accountId,
    type: entry.type,
    amount: entry.amount,
    currency: entry.currency,
    customerId: entry.customerId,
    invoiceId: entry.invoiceId ?? null,
    paymentMethodId: entry.paymentMethodId,
    sourceTransactionId: entry.sourceTransactionId ?? null,
    attempt: entry.attempt ?? null,
    attemptKey: entry.attemptKey ?? null,
    gatewayKey: entry.gatewayKey,
    description: entry.description,
  };
}

// src/invoices imports it from here.
export { paymentAttempts } from './transaction.records';

/** Opens `entry` as pending; an entry already opened under the same gateway key is answered instead. */
export async function openPending(tx: AnyTx, entry: LedgerEntry): Promise<Transaction> {
  const opened = await insertEntry(tx, entryData(entry), 'pending', currentTime());
  if (opened) {
    afterCommit(tx, () => countOpened(entry));
    return opened;
  }
  return (await entryByGatewayKey(tx, entry.accountId, entry.gatewayKey))!;
}

/** Records a pending entry's outcome once; false when another call recorded it already. */
export async function settlePending(tx: AnyTx, id: string, outcome: LedgerOutcome): Promise<boolean> {
  const row = await settleEntry(tx, id, {
    status: outcome.status,
    gatewayReference: outcome.gatewayReference,
    failureCode: outcome.status === 'failed' ? outcome.failureCode : null,
    failureMessage: outcome.status === 'failed' ? outcome.failureMessage : null,
  });
  if (!row) return false;
  afterCommit(tx, () => countSettled({ type: row.type, amount: BigInt(row.amount), currency: row.currency }, outcome));
  return true;
}

/** An entry whose outcome is already known (a terminal sale, a reversal of one): opened and settled in one step. */
export async function recordSettled(tx: Tx, entry: LedgerEntry, outcome: LedgerOutcome): Promise<Transaction> {
  const row = await openPending(tx, entry);
  await settlePending(tx, row.id, outcome);
  return tx.transaction.findUniqueOrThrow({ where: { id: row.id } });
}

/** A payment that moved no money (an invoice with nothing due): a succeeded zero entry, so the call leaves a trace. */
export async function recordNothingDue(
  tx: AnyTx,
  entry: Omit<LedgerEntry, 'type' | 'amount' | 'gatewayKey' | 'paymentMethodId'>,
): Promise<Transaction> {
  const data = entryData({ ...entry, type: 'payment', amount: 0n, gatewayKey: null, paymentMethodId: null });
  const recorded = await insertEntry(tx, data, 'succeeded', currentTime());
  return recorded!;
}

/** What the step under the lock found: the answer already, or an entry to settle (the caller's own, or one left in flight). */
export type AttemptStep<T> = { kind: 'done'; value: T } | { kind: 'settle'; entry: Transaction; own: boolean };

/**
 * Runs an attempt the way every money movement here runs: under the row lock `next` either answers,
 * or hands over a pending entry, which `settle` completes at the gateway. An entry left in flight by a
 * crash or a concurrent request is completed first, then `next` is asked again, so the caller's own
 * attempt comes after it. Answers the caller's settled entry, the `done` value, or null when other
 * attempts kept it busy for every round. `inTransaction` runs `next` (Prisma's interactive transaction
 * unless given: invoice payments give sqlTransaction, whose `next` runs named statements only).
 */
export async function runAttempt<T, S, X extends AnyTx = Tx>(
  prisma: Db,
  next: (tx: X) => Promise<AttemptStep<T>>,
  settle: (entry: Transaction) => Promise<S>,
  finished: (settled: S) => boolean = () => false,
  inTransaction: (work: (tx: X) => Promise<AttemptStep<T>>) => Promise<AttemptStep<T>> = (work) =>
    runTransaction(prisma, work as (tx: Tx) => Promise<AttemptStep<T>>),
): Promise<{ kind: 'done'; value: T } | { kind: 'settled'; value: S } | null> {
  for (let round = 0; round < 3; round++) {
    const step = await inTransaction(next);
    if (step.kind === 'done') return step;
    const settled = await settle(step.entry);
    if (step.own || finished(settled)) return { kind: 'settled', value: settled };
  }
  return null;
}
