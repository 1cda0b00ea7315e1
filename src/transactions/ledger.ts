import { Prisma, type Transaction } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { modelColumns, queryModels, queryRows, selectList, type Statement, type AnyTx } from '../db/sql';
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

function entryData(entry: Omit<LedgerEntry, 'gatewayKey'> & { gatewayKey: string | null }) {
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

const TRANSACTION_COLUMNS = modelColumns<Transaction>(Prisma.TransactionScalarFieldEnum, {
  bigint: ['amount'],
  date: ['createdAt', 'updatedAt'],
});

/**
 * An entry (pending, or a payment of nothing due already succeeded), once per gateway key, in one
 * statement (every charge opens one): no row answered when the key holds one already (ON CONFLICT
 * waits for a concurrent insert's commit).
 */
const INSERT_ENTRY: Statement = {
  name: 'ledger_insert_entry',
  text: `INSERT INTO transactions AS t (id, account_id, type, status, amount, currency, customer_id, invoice_id, payment_method_id,
      source_transaction_id, attempt, attempt_key, gateway_key, description, created_at, updated_at)
    VALUES ($1, $2, $3, $15, $4::bigint, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::timestamptz, now())
    ON CONFLICT (account_id, gateway_key) DO NOTHING
    RETURNING ${selectList(TRANSACTION_COLUMNS, 't')}`,
};
const BY_GATEWAY_KEY: Statement = {
  name: 'ledger_by_gateway_key',
  text: `SELECT ${selectList(TRANSACTION_COLUMNS, 't')} FROM transactions t WHERE t.account_id = $1 AND t.gateway_key = $2`,
};

const PAYMENT_ATTEMPTS: Statement = {
  name: 'ledger_payment_attempts',
  text: `SELECT ${selectList(TRANSACTION_COLUMNS, 't')} FROM transactions t
    WHERE t.account_id = $1 AND t.invoice_id = $2 AND t.type = 'payment' AND (t.status = 'pending' OR t.attempt_key = $3)
    ORDER BY t.created_at, t.id`,
};

/** An invoice's payment attempts in flight and the one under `attemptKey` (if any), oldest first, in one read. */
export async function paymentAttempts(
  tx: AnyTx,
  accountId: string,
  invoiceId: string,
  attemptKey: string | null,
): Promise<Transaction[]> {
  return queryModels(tx, TRANSACTION_COLUMNS, PAYMENT_ATTEMPTS, [accountId, invoiceId, attemptKey]);
}

/** Opens `entry` as pending; an entry already opened under the same gateway key is answered instead. */
export async function openPending(tx: AnyTx, entry: LedgerEntry): Promise<Transaction> {
  const [opened] = await insertEntry(tx, entryData(entry), 'pending');
  if (opened) {
    afterCommit(tx, () => countOpened(entry));
    return opened;
  }
  const [existing] = await queryModels(tx, TRANSACTION_COLUMNS, BY_GATEWAY_KEY, [entry.accountId, entry.gatewayKey]);
  return existing!;
}

function insertEntry(tx: AnyTx, data: ReturnType<typeof entryData>, status: 'pending' | 'succeeded') {
  return queryModels(tx, TRANSACTION_COLUMNS, INSERT_ENTRY, [
    data.id,
    data.accountId,
    data.type,
    data.amount.toString(),
    data.currency,
    data.customerId,
    data.invoiceId,
    data.paymentMethodId,
    data.sourceTransactionId,
    data.attempt,
    data.attemptKey,
    data.gatewayKey,
    data.description,
    currentTime(),
    status,
  ]);
}

/** Records a pending entry's outcome once; false when another call recorded it already. */
const SETTLE_PENDING: Statement = {
  name: 'ledger_settle_pending',
  text: `UPDATE transactions SET status = $2, gateway_reference = $3, failure_code = $4, failure_message = $5, updated_at = now()
    WHERE id = $1 AND status = 'pending' RETURNING type, amount::text AS amount, currency`,
};

export async function settlePending(tx: AnyTx, id: string, outcome: LedgerOutcome): Promise<boolean> {
  const [row] = await queryRows<{ type: string; amount: string; currency: string }>(tx, SETTLE_PENDING, [
    id,
    outcome.status,
    outcome.gatewayReference,
    outcome.status === 'failed' ? outcome.failureCode : null,
    outcome.status === 'failed' ? outcome.failureMessage : null,
  ]);
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
  const [recorded] = await insertEntry(tx, data, 'succeeded');
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
