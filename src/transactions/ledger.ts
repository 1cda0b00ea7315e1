import type { CustomerBalanceTransaction, Transaction } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import type { AnyTx } from '../db/sql';
import { entryByGatewayKey, insertEntry, readEntryById, settleEntry, type NewEntry } from './transaction.records';
import { newId } from '../lib/ids';
import { currentTime } from '../lib/clock-time';
import { afterCommit, runTransaction } from '../db/sql-transaction';
import { countOpened, countSettled } from './ledger-metrics';
import { insertBalanceEntry, lockBalance } from './customer-balance.records';
import { conflict } from '../http/errors';
import type { BALANCE_ENTRY_TYPES } from './transaction.schemas';
import type { ChargeOrigin } from './transaction-origin';

/**
 * The one writer of the ledgers: `transactions` (money moved, or settled outside the gateway) and the
 * customer balance (`customer_balance_transactions` with `customers.balance`, docs/decisions.md §22).
 * The `transactions` ledger: Money moves in two steps: an entry is opened
 * `pending` under its gateway key and committed before the gateway is called (so a crash leaves a
 * key to finish with, never a second charge), then settled once with the gateway's outcome. Invoice
 * payments and refunds, payment-plan charges, refunds and terminal sales all go through here, so
 * this is where the money metrics are counted (src/transactions/ledger-metrics.ts), once the entry's
 * transaction has committed (docs/operations.md, "Metrics and alerts").
 */
export interface LedgerEntry {
  accountId: string;
  type: 'payment' | 'refund' | 'adjustment' | 'dispute';
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
  /** Payments of an invoice: what started the attempt (src/transactions/transaction-origin.ts). */
  origin?: ChargeOrigin | null;
}

/**
 * What the processor said of an entry. `succeeded` and `failed` settle it; `pending` keeps it in flight with
 * the processor's reference (a bank debit settling days later, a customer authenticating), and `unknown`
 * marks it so (the answer was lost): neither is ever read as failed, and the reconciliation
 * (docs/decisions.md §40) asks the processor about both under the entry's own key.
 */
export type LedgerOutcome =
  | { status: 'succeeded'; gatewayReference: string }
  | { status: 'failed'; gatewayReference: string | null; failureCode: string; failureMessage: string }
  /** `actionRequired`: the customer must authenticate it (3-D Secure), kept as `authentication_required`. */
  | { status: 'pending'; gatewayReference: string; actionRequired?: boolean }
  | { status: 'unknown'; gatewayReference: null };

/** The code a payment waiting for the customer's authentication carries while pending (docs/decisions.md §40). */
export const AUTHENTICATION_REQUIRED = 'authentication_required';

/** Whether an entry in flight waits for the customer to authenticate it. */
export function awaitsAuthentication(entry: Pick<Transaction, 'status' | 'failureCode'>): boolean {
  return entry.status === 'pending' && entry.failureCode === AUTHENTICATION_REQUIRED;
}

/** The code and message an outcome leaves on its entry: a decline's, or the authentication a pending one waits for. */
function failureOf(outcome: LedgerOutcome): { failureCode: string | null; failureMessage: string | null } {
  if (outcome.status === 'failed') return { failureCode: outcome.failureCode, failureMessage: outcome.failureMessage };
  if (outcome.status === 'pending' && outcome.actionRequired)
    return {
      failureCode: AUTHENTICATION_REQUIRED,
      failureMessage: 'The customer must authenticate this payment (3-D Secure) on the hosted invoice page.',
    };
  return { failureCode: null, failureMessage: null };
}

/** An outcome that settles its entry for good. */
export type SettledOutcome = Extract<LedgerOutcome, { status: 'succeeded' | 'failed' }>;

export function isSettled(outcome: LedgerOutcome): outcome is SettledOutcome {
  return outcome.status === 'succeeded' || outcome.status === 'failed';
}

/** An entry the processor has not settled yet: opened, sent and waiting (`pending`), or its answer lost (`unknown`). */
export function isInFlight(entry: Pick<Transaction, 'status'>): boolean {
  return entry.status === 'pending' || entry.status === 'unknown';
}

function entryData(
  entry: Omit<LedgerEntry, 'gatewayKey' | 'customerId'> & { gatewayKey: string | null; customerId: string | null },
): NewEntry {
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
    origin: entry.origin?.origin ?? null,
    dunningRetry: entry.origin?.dunningRetry ?? null,
  };
}

// src/invoices and src/credit-notes import them from here.
export {
  countPendingEntries,
  disputedPayment,
  entryByGatewayKey,
  findEntry,
  entriesInFlight,
  paymentAttempts,
} from './transaction.records';

/** Opens `entry` as pending; an entry already opened under the same gateway key is answered instead. */
export async function openPending(tx: AnyTx, entry: LedgerEntry): Promise<Transaction> {
  const opened = await insertEntry(tx, entryData(entry), 'pending', currentTime());
  if (opened) {
    afterCommit(tx, () => countOpened(entry));
    return opened;
  }
  return (await entryByGatewayKey(tx, entry.accountId, entry.gatewayKey))!;
}

/**
 * Records an in-flight entry's outcome once it is settled (false when another call recorded it already);
 * a `pending` or `unknown` outcome is written too (the processor's reference, or the status `unknown`) and
 * leaves the entry in flight.
 */
export async function settlePending(tx: AnyTx, id: string, outcome: LedgerOutcome): Promise<boolean> {
  const row = await settleEntry(tx, id, {
    status: outcome.status,
    gatewayReference: outcome.gatewayReference,
    ...failureOf(outcome),
  });
  if (!row) return false;
  if (isSettled(outcome))
    afterCommit(tx, () =>
      countSettled({ type: row.type, amount: BigInt(row.amount), currency: row.currency }, outcome),
    );
  return true;
}

/** An entry whose outcome is already known (a terminal sale, a reversal of one): opened and settled in one step. */
export async function recordSettled(tx: Tx, entry: LedgerEntry, outcome: LedgerOutcome): Promise<Transaction> {
  const row = await openPending(tx, entry);
  await settlePending(tx, row.id, outcome);
  return readEntryById(tx, row.id);
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

/**
 * A correction recorded as it happened (money returned outside the gateway for a credit note, an
 * operator's fix): a succeeded `adjustment` of signed cents, opened and settled at once.
 */
export async function recordAdjustment(
  tx: AnyTx,
  entry: Omit<LedgerEntry, 'type' | 'gatewayKey' | 'paymentMethodId' | 'customerId'> & { customerId?: string | null },
): Promise<Transaction> {
  if (entry.amount === 0n) throw new RangeError('An adjustment is a non-zero integer number of cents.');
  const data = entryData({
    ...entry,
    customerId: entry.customerId ?? null,
    type: 'adjustment',
    gatewayKey: null,
    paymentMethodId: null,
  });
  const recorded = await insertEntry(tx, data, 'succeeded', currentTime());
  return recorded!;
}

/**
 * A dispute's money as Stripe's balance moves it (docs/decisions.md §44): the disputed cents are withdrawn when the
 * dispute opens (an inquiry withdraws nothing) and given back if it is won, each a succeeded `dispute` entry naming
 * the payment. Once per dispute and movement (its gateway key), however often and in whatever order the
 * processor's events come: undefined when it was recorded already.
 */
export async function recordDisputeMovement(
  tx: AnyTx,
  payment: Transaction,
  dispute: { id: string; amount: number },
  movement: 'withdrawal' | 'reinstatement',
): Promise<Transaction | undefined> {
  const cents = BigInt(dispute.amount);
  const data = entryData({
    accountId: payment.accountId,
    type: 'dispute',
    amount: movement === 'withdrawal' ? -cents : cents,
    currency: payment.currency,
    customerId: payment.customerId,
    invoiceId: payment.invoiceId,
    paymentMethodId: payment.paymentMethodId,
    sourceTransactionId: payment.id,
    gatewayKey: `dispute:${dispute.id}:${movement}`,
    description:
      movement === 'withdrawal'
        ? `Dispute ${dispute.id}: funds withdrawn`
        : `Dispute ${dispute.id} won: funds reinstated`,
  });
  return insertEntry(tx, data, 'succeeded', currentTime());
}

/** Why a customer balance entry changes it: Stripe's names for the same entries. */
export type BalanceEntryType = (typeof BALANCE_ENTRY_TYPES)[number];

export interface BalanceEntry {
  accountId: string;
  customerId: string;
  type: BalanceEntryType;
  /** Signed cents: negative adds credit, positive uses it (the balance is never positive). */
  amount: bigint;
  currency: string;
  invoiceId?: string | null;
  creditNoteId?: string | null;
  description: string;
}

/**
 * Moves a customer's balance by `entry.amount` with the entry that records it (its ending balance
 * included), in one statement under the customer's row lock. A balance holds one currency at a time
 * (any while it is zero): an entry in another is 409 `balance_currency_mismatch`; one that would take
 * more credit than there is, 409 `balance_insufficient`; a deleted customer's, 409 `customer_deleted`.
 */
export async function recordBalanceEntry(tx: AnyTx, entry: BalanceEntry): Promise<CustomerBalanceTransaction> {
  const written = await insertBalanceEntry(tx, {
    id: newId('customerBalanceTransaction'),
    accountId: entry.accountId,
    customerId: entry.customerId,
    type: entry.type,
    amount: entry.amount,
    currency: entry.currency,
    invoiceId: entry.invoiceId ?? null,
    creditNoteId: entry.creditNoteId ?? null,
    description: entry.description,
    createdAt: currentTime(),
  });
  if (written) return written;
  const held = await lockBalance(tx, entry.accountId, entry.customerId);
  if (held?.deleted)
    throw conflict(`Customer ${entry.customerId} was deleted; its balance takes no credit.`, 'customer_deleted');
  if (held && held.balance !== 0n && held.balanceCurrency !== entry.currency)
    throw conflict(
      `Customer ${entry.customerId} has a balance in ${held.balanceCurrency}; it takes no ${entry.currency} until it is used up.`,
      'balance_currency_mismatch',
    );
  throw conflict(`Customer ${entry.customerId} has not that much credit in its balance.`, 'balance_insufficient');
}

/** An invoice being finalized and its customer's balance. */
type FinalizingInvoice = { accountId: string; customerId: string; currency: string; id: string; number: string | null };

/** The `applied_to_invoice` entry of `invoice`: positive cents used, negative cents given (Stripe's one type for both). */
function recordInvoiceEntry(
  tx: AnyTx,
  invoice: FinalizingInvoice,
  amount: bigint,
  description: string,
): Promise<CustomerBalanceTransaction> {
  return recordBalanceEntry(tx, {
    accountId: invoice.accountId,
    customerId: invoice.customerId,
    type: 'applied_to_invoice',
    amount,
    currency: invoice.currency,
    invoiceId: invoice.id,
    description,
  });
}

/**
 * Uses the customer's credit for an invoice being finalized: at most `max` cents, in the invoice's
 * currency only. Answers the cents applied (0 when there is no credit in that currency). The caller
 * holds the invoice's lock; the customer's row is locked here only when it has credit.
 */
export async function applyBalanceToInvoice(tx: AnyTx, invoice: FinalizingInvoice, max: bigint): Promise<bigint> {
  if (max <= 0n) return 0n;
  const held = await lockBalance(tx, invoice.accountId, invoice.customerId);
  if (!held || held.deleted || held.balance >= 0n || held.balanceCurrency !== invoice.currency) return 0n;
  const applied = -held.balance < max ? -held.balance : max;
  await recordInvoiceEntry(tx, invoice, applied, `Applied to invoice ${invoice.number ?? invoice.id}`);
  return applied;
}

/**
 * Credits the customer's balance with what an invoice below zero leaves (credits past its charges, a
 * downgrade's proration: docs/decisions.md §25), as Stripe's `applied_to_invoice` of a negative amount
 * naming the invoice. Answers the cents credited: 0 when the balance cannot take it (it holds credit in
 * another currency, or the customer was deleted), and the caller keeps the credit as before.
 */
export async function creditBalanceFromInvoice(tx: AnyTx, invoice: FinalizingInvoice, credit: bigint): Promise<bigint> {
  if (credit <= 0n) return 0n;
  const held = await lockBalance(tx, invoice.accountId, invoice.customerId);
  if (!held || held.deleted || (held.balance !== 0n && held.balanceCurrency !== invoice.currency)) return 0n;
  await recordInvoiceEntry(tx, invoice, -credit, `Credit from invoice ${invoice.number ?? invoice.id}`);
  return credit;
}

/**
 * What the step under the lock found: the answer already, or an entry to settle (the caller's own, or one left in
 * flight). `opened`: the step opened the entry itself, so nothing can have been sent under its key yet; any other
 * entry in flight may have reached its processor (a process killed before recording its answer), which is asked
 * first (docs/decisions.md §40).
 */
export type AttemptStep<T> =
  { kind: 'done'; value: T } | { kind: 'settle'; entry: Transaction; own: boolean; opened?: boolean };

/**
 * Runs an attempt the way every money movement here runs: under the row lock `next` either answers,
 * or hands over a pending entry, which `settle` completes at the gateway. An entry left in flight by a
 * crash or a concurrent request is completed first, then `next` is asked again, so the caller's own
 * attempt comes after it. Answers the caller's settled entry, the `done` value, or null when other
 * attempts kept it busy for every round. `inTransaction` runs `next` (Prisma's interactive transaction
 * unless given: invoice payments give sqlTransaction, whose `next` runs named statements only).
 * `opened`: the caller's own entry, opened pending and committed already under the owner's lock (a
 * subscription's first invoice, in the creation's transaction: docs/performance.md, "Sixteenth round"),
 * settled first instead of asking `next` (just opened: nothing can have been sent under its key yet).
 */
export async function runAttempt<T, S, X extends AnyTx = Tx>(
  prisma: Db,
  next: (tx: X) => Promise<AttemptStep<T>>,
  settle: (entry: Transaction, opened: boolean) => Promise<S>,
  finished: (settled: S) => boolean = () => false,
  inTransaction: (work: (tx: X) => Promise<AttemptStep<T>>) => Promise<AttemptStep<T>> = (work) =>
    runTransaction(prisma, work as (tx: Tx) => Promise<AttemptStep<T>>),
  opened?: Transaction,
): Promise<{ kind: 'done'; value: T } | { kind: 'settled'; value: S } | null> {
  for (let round = 0; round < 3; round++) {
    const step: AttemptStep<T> =
      round === 0 && opened ? { kind: 'settle', entry: opened, own: true, opened: true } : await inTransaction(next);
    if (step.kind === 'done') return step;
    const settled = await settle(step.entry, step.opened === true);
    if (step.own || finished(settled)) return { kind: 'settled', value: settled };
  }
  return null;
}
