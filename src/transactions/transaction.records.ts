import { Prisma, type PaymentMethod, type Transaction } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import {
  modelColumns,
  queryModels,
  queryRows,
  selectList,
  type AnyTx,
  type Queryable,
  type Statement,
} from '../db/sql';

/**
 * The ledger's statements (src/transactions/ledger.ts writes it, charge-receipt.ts reads it): every
 * charge runs them, so each is one prepared statement (src/db/sql.ts).
 */

export const TRANSACTION_COLUMNS = modelColumns<Transaction>(Prisma.TransactionScalarFieldEnum, {
  bigint: ['amount'],
  date: ['createdAt', 'updatedAt'],
});

/** The columns of an entry the ledger opens; the rest are the database's (status aside: insertEntry's argument). */
export type NewEntry = Pick<
  Transaction,
  | 'id'
  | 'accountId'
  | 'type'
  | 'amount'
  | 'currency'
  | 'customerId'
  | 'invoiceId'
  | 'paymentMethodId'
  | 'sourceTransactionId'
  | 'attempt'
  | 'attemptKey'
  | 'gatewayKey'
  | 'description'
  | 'origin'
  | 'dunningRetry'
>;

/**
 * An entry (pending, or a payment of nothing due already succeeded), once per gateway key, in one
 * statement (every charge opens one): no row answered when the key holds one already (ON CONFLICT
 * waits for a concurrent insert's commit).
 */
const INSERT_ENTRY: Statement = {
  name: 'ledger_insert_entry',
  text: `INSERT INTO transactions AS t (id, account_id, type, status, amount, currency, customer_id, invoice_id, payment_method_id,
      source_transaction_id, attempt, attempt_key, gateway_key, description, origin, dunning_retry, created_at, updated_at)
    VALUES ($1, $2, $3, $15, $4::bigint, $5, $6, $7, $8, $9, $10, $11, $12, $13, $16, $17, $14::timestamptz, now())
    ON CONFLICT (account_id, gateway_key) DO NOTHING
    RETURNING ${selectList(TRANSACTION_COLUMNS, 't')}`,
};

/** Inserts `entry` created at `createdAt` unless its gateway key holds one already: the new row, or undefined. */
export async function insertEntry(
  tx: AnyTx,
  entry: NewEntry,
  status: 'pending' | 'succeeded',
  createdAt: Date,
): Promise<Transaction | undefined> {
  const [inserted] = await queryModels(tx, TRANSACTION_COLUMNS, INSERT_ENTRY, [
    entry.id,
    entry.accountId,
    entry.type,
    entry.amount.toString(),
    entry.currency,
    entry.customerId,
    entry.invoiceId,
    entry.paymentMethodId,
    entry.sourceTransactionId,
    entry.attempt,
    entry.attemptKey,
    entry.gatewayKey,
    entry.description,
    createdAt,
    status,
    entry.origin,
    entry.dunningRetry,
  ]);
  return inserted;
}

const BY_GATEWAY_KEY: Statement = {
  name: 'ledger_by_gateway_key',
  text: `SELECT ${selectList(TRANSACTION_COLUMNS, 't')} FROM transactions t WHERE t.account_id = $1 AND t.gateway_key = $2`,
};

/** The account's entry under `gatewayKey`, or undefined. */
export async function entryByGatewayKey(
  tx: AnyTx,
  accountId: string,
  gatewayKey: string,
): Promise<Transaction | undefined> {
  const [entry] = await queryModels(tx, TRANSACTION_COLUMNS, BY_GATEWAY_KEY, [accountId, gatewayKey]);
  return entry;
}

const PAYMENT_ATTEMPTS: Statement = {
  name: 'ledger_payment_attempts',
  text: `SELECT ${selectList(TRANSACTION_COLUMNS, 't')} FROM transactions t
    WHERE t.account_id = $1 AND t.invoice_id = $2 AND t.type = 'payment' AND (t.status IN ('pending', 'unknown') OR t.attempt_key = $3)
    ORDER BY t.created_at, t.id`,
};

/** An invoice's payment attempts in flight (pending or unknown) and the one under `attemptKey` (if any), oldest first, in one read. */
export async function paymentAttempts(
  tx: Queryable,
  accountId: string,
  invoiceId: string,
  attemptKey: string | null,
): Promise<Transaction[]> {
  return queryModels(tx, TRANSACTION_COLUMNS, PAYMENT_ATTEMPTS, [accountId, invoiceId, attemptKey]);
}

const SETTLE_PENDING: Statement = {
  name: 'ledger_settle_pending',
  text: `UPDATE transactions SET status = $2, gateway_reference = $3, failure_code = $4, failure_message = $5, updated_at = now()
    WHERE id = $1 AND status IN ('pending', 'unknown') RETURNING type, amount::text AS amount, currency`,
};

/** What settling an entry tells the money metrics (src/transactions/ledger-metrics.ts); the amount as text. */
export type SettledEntry = Pick<Transaction, 'type' | 'currency'> & { amount: string };

/** Records an entry's outcome while it is in flight (pending or unknown); undefined when another call settled it. */
export async function settleEntry(
  tx: AnyTx,
  id: string,
  outcome: Pick<Transaction, 'status' | 'gatewayReference' | 'failureCode' | 'failureMessage'>,
): Promise<SettledEntry | undefined> {
  const [row] = await queryRows<SettledEntry>(tx, SETTLE_PENDING, [
    id,
    outcome.status,
    outcome.gatewayReference,
    outcome.failureCode,
    outcome.failureMessage,
  ]);
  return row;
}

/** An invoice's payment attempt under the caller's key with its payment method's card or bank, in one read. */
const ATTEMPT_RECEIPT: Statement = {
  name: 'attempt_receipt',
  text: `SELECT t.id, t.status, t.amount::text AS amount, t.currency, t.gateway_reference AS "gatewayReference", t.failure_code AS "failureCode",
      m.id AS "methodId", m.card_brand AS "cardBrand", m.bank_name AS "bankName", m.last4, i.number AS "invoiceNumber"
    FROM transactions t LEFT JOIN payment_methods m ON m.id = t.payment_method_id AND m.account_id = t.account_id
      LEFT JOIN invoices i ON i.id = t.invoice_id AND i.account_id = t.account_id
    WHERE t.account_id = $1 AND t.invoice_id = $2 AND t.type = 'payment' AND t.attempt_key = $3`,
};

/** ATTEMPT_RECEIPT's row: the method's columns are null when the entry names none (`methodId` null). */
export type AttemptReceiptRow = Pick<Transaction, 'id' | 'status' | 'currency' | 'gatewayReference' | 'failureCode'> &
  Pick<PaymentMethod, 'cardBrand' | 'bankName'> & {
    amount: string;
    last4: PaymentMethod['last4'] | null;
    methodId: string | null;
    invoiceNumber: string | null;
  };

/** The invoice's payment attempt under `attemptKey` with what its receipt shows, or undefined. */
export async function readAttemptReceipt(
  prisma: Db,
  accountId: string,
  invoiceId: string,
  attemptKey: string,
): Promise<AttemptReceiptRow | undefined> {
  const [row] = await queryRows<AttemptReceiptRow>(prisma, ATTEMPT_RECEIPT, [accountId, invoiceId, attemptKey]);
  return row;
}

/** How many of the invoice's entries of `type` are in flight (pending or unknown at the gateway, or left by a crash). */
export async function countPendingEntries(
  tx: Db | Tx,
  accountId: string,
  invoiceId: string,
  type: 'payment' | 'refund',
): Promise<number> {
  return tx.transaction.count({ where: { accountId, invoiceId, type, status: { in: ['pending', 'unknown'] } } });
}

/** The account's entry `id`, or null. */
export async function findEntry(db: Db | Tx, accountId: string, id: string): Promise<Transaction | null> {
  return db.transaction.findFirst({ where: { id, accountId } });
}

/** The entry `id`, which exists (one the caller holds or has just written). */
export function readEntryById(db: Db | Tx, id: string): Promise<Transaction> {
  return db.transaction.findUniqueOrThrow({ where: { id } });
}

/** The account's entry `id` of the invoice `invoiceId`, or null. */
export function findInvoiceEntry(
  db: Db,
  accountId: string,
  invoiceId: string,
  id: string,
): Promise<Transaction | null> {
  return db.transaction.findFirst({ where: { id, accountId, invoiceId } });
}

/** A page of an invoice's entries, newest first, and how many there are. */
export async function invoiceEntriesPage(
  db: Db,
  accountId: string,
  invoiceId: string,
  window: { skip: number; take: number },
): Promise<[Transaction[], number]> {
  const where = { accountId, invoiceId };
  return Promise.all([
    db.transaction.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...window }),
    db.transaction.count({ where }),
  ]);
}

/** The card brand, bank and last4 a receipt shows of the account's payment method `id`, or null. */
export function readReceiptMethod(
  db: Db,
  accountId: string,
  id: string,
): Promise<Pick<PaymentMethod, 'cardBrand' | 'bankName' | 'last4'> | null> {
  return db.paymentMethod.findFirst({
    where: { id, accountId },
    select: { cardBrand: true, bankName: true, last4: true },
  });
}

/**
 * GET /balance's sums per status and currency from balance_sums, which triggers on transactions keep in
 * the writing transaction (docs/decisions.md §23): a few rows per account however many transactions it has.
 */
export const BALANCE_SUMS: Statement = {
  name: 'balance_sums',
  // An entry whose outcome is unknown may have moved money: it counts as pending (docs/api.md, Transactions).
  text: `SELECT CASE WHEN status = 'unknown' THEN 'pending' ELSE status END AS status, currency, sum(amount)::text AS amount
    FROM balance_sums WHERE account_id = $1 AND status IN ('succeeded', 'pending', 'unknown')
    GROUP BY 1, currency HAVING sum(n) > 0`,
};

export async function readBalanceSums(
  db: Db,
  accountId: string,
): Promise<{ status: string; currency: string; amount: bigint }[]> {
  const rows = await queryRows<{ status: string; currency: string; amount: string }>(db, BALANCE_SUMS, [accountId]);
  return rows.map((row) => ({ status: row.status, currency: row.currency, amount: BigInt(row.amount) }));
}

const ENTRIES_IN_FLIGHT: Statement = {
  name: 'ledger_entries_in_flight',
  text: `SELECT ${selectList(TRANSACTION_COLUMNS, 't')} FROM transactions t
    WHERE t.type IN ('payment', 'refund') AND t.gateway_key IS NOT NULL
      AND (t.status = 'unknown' OR (t.status = 'pending' AND t.created_at < now() - make_interval(secs => $1::float8)))
      AND ($2::text IS NULL OR t.id > $2)
    ORDER BY t.id LIMIT $3`,
};

/**
 * Charges and refunds in flight across accounts, by id after `after`: every `unknown` one, and the `pending`
 * ones opened more than `pendingOlderThanMs` ago (a request still sending is left alone).
 */
export async function entriesInFlight(
  db: Queryable,
  pendingOlderThanMs: number,
  after: string | null,
  limit: number,
): Promise<Transaction[]> {
  return queryModels(db, TRANSACTION_COLUMNS, ENTRIES_IN_FLIGHT, [pendingOlderThanMs / 1000, after, limit]);
}

/**
 * The succeeded invoice payment the processor knows as `gatewayReference` (its charge id), the newest when several
 * carry it: what a dispute of that charge is about; null when the account made no such payment.
 */
export function disputedPayment(db: Db | Tx, accountId: string, gatewayReference: string): Promise<Transaction | null> {
  return db.transaction.findFirst({
    where: { accountId, gatewayReference, type: 'payment', status: 'succeeded', invoiceId: { not: null } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}
