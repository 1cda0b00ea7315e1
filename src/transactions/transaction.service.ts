import { BALANCE_ENTRY_TYPES, TRANSACTION_STATUSES, TRANSACTION_TYPES } from './transaction.schemas';
import { columnValue } from '../lib/columns';
import type { Transaction } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { notFound } from '../http/errors';
import { keysetListPage, pageEnvelope, pageWindow, type Page, type PageParams } from '../http/pagination';
import {
  countTransactions,
  readTransactionPosition,
  readTransactionRows,
  transactionListStatement,
  type TransactionFilters,
} from './transaction-list.records';
import { runTransaction } from '../db/sql-transaction';
import { recordAdjustment as recordLedgerAdjustment } from './ledger';
import { toUnixSeconds } from '../lib/time';
import { findInvoice, withInvoiceNumbers } from '../invoices';
import type {
  BalanceObject,
  BalanceTransactionObject,
  ListTransactionsQuery,
  TransactionObject,
} from './transaction.schemas';
import type { CustomerBalanceTransaction } from '../generated/prisma/client';
import { withCustomerNames } from '../customers';
import { findCustomer } from '../customers';
import { balanceEntriesPage } from './customer-balance.records';
import { findEntry, findInvoiceEntry, invoiceEntriesPage, readBalanceSums } from './transaction.records';

export function toTransactionObject(transaction: Transaction): TransactionObject {
  return {
    id: transaction.id,
    object: 'transaction',
    type: columnValue(TRANSACTION_TYPES, transaction.type, 'transactions.type'),
    status: columnValue(TRANSACTION_STATUSES, transaction.status, 'transactions.status'),
    amount: Number(transaction.amount),
    currency: transaction.currency,
    customer: transaction.customerId,
    invoice: transaction.invoiceId,
    payment_method: transaction.paymentMethodId,
    source_transaction: transaction.sourceTransactionId,
    attempt: transaction.attempt,
    gateway_reference: transaction.gatewayReference,
    failure_code: transaction.failureCode,
    failure_message: transaction.failureMessage,
    description: transaction.description,
    created: toUnixSeconds(transaction.createdAt),
  };
}

/**
 * GET /transactions, newest first: a page at an offset or after/before a cursor (docs/decisions.md §36), each
 * a range of the filter's index, with the exact itemsTotal (transaction-list.records.ts).
 */
export async function listTransactions(
  prisma: Db,
  accountId: string,
  query: ListTransactionsQuery,
): Promise<Page<TransactionObject>> {
  const filters: TransactionFilters = {
    type: query.type,
    status: query.status,
    customer: query.customer,
    invoice: query.invoice,
  };
  const rows = (window: Parameters<typeof transactionListStatement>[2]) =>
    readTransactionRows(prisma, transactionListStatement(accountId, filters, window));
  return keysetListPage(query, {
    kind: 'transaction',
    find: (id) => readTransactionPosition(prisma, accountId, id),
    after: (at, forward, take) => rows({ at: [at.createdAt, at.id], forward, take: take + 1 }),
    page: (take, skip) => rows({ take, skip }),
    count: () => countTransactions(prisma, accountId, filters),
    objects: async (found) => {
      const objects = found.map(toTransactionObject);
      if (query.include !== 'names') return objects;
      return withInvoiceNumbers(prisma, accountId, await withCustomerNames(prisma, accountId, objects));
    },
  });
}

export async function getTransaction(prisma: Db, accountId: string, id: string): Promise<TransactionObject> {
  const transaction = await findEntry(prisma, accountId, id);
  if (!transaction) throw notFound('transaction', id);
  return toTransactionObject(transaction);
}

export async function listInvoiceTransactions(
  prisma: Db,
  accountId: string,
  invoiceId: string,
  params: PageParams,
): Promise<Page<TransactionObject>> {
  await findInvoice(prisma, accountId, invoiceId);
  const [rows, total] = await invoiceEntriesPage(prisma, accountId, invoiceId, pageWindow(params));
  return pageEnvelope(rows.map(toTransactionObject), total, params);
}

export async function getInvoiceTransaction(
  prisma: Db,
  accountId: string,
  invoiceId: string,
  id: string,
): Promise<TransactionObject> {
  await findInvoice(prisma, accountId, invoiceId);
  const transaction = await findInvoiceEntry(prisma, accountId, invoiceId, id);
  if (!transaction) throw notFound('transaction', id);
  return toTransactionObject(transaction);
}

/**
 * decisions.md §12: per currency, succeeded transactions are available and pending ones pending.
 * Amounts are signed (refunds negative), so each figure is a plain sum. Every currency with a
 * succeeded or pending transaction appears in both lists.
 */
/** A sum of cents as JSON without losing a cent: a number while it is a safe integer, else its digits. */
function exactCents(sum: bigint): number | string {
  const safe = sum <= BigInt(Number.MAX_SAFE_INTEGER) && sum >= BigInt(Number.MIN_SAFE_INTEGER);
  return safe ? Number(sum) : sum.toString();
}

export async function getBalance(prisma: Db, accountId: string): Promise<BalanceObject> {
  const sums = await readBalanceSums(prisma, accountId);
  const currencies = [...new Set(sums.map((row) => row.currency))].sort();
  const figure = (status: string) =>
    currencies.map((currency) => ({
      amount: exactCents(
        sums
          .filter((row) => row.status === status && row.currency === currency)
          .reduce((sum, row) => sum + row.amount, 0n),
      ),
      currency,
    }));
  return { object: 'balance', available: figure('succeeded'), pending: figure('pending') };
}

/**
 * A manual correction of the balance (signed cents), recorded as a succeeded `adjustment` by the
 * ledger (src/transactions/ledger.ts, its one writer). No HTTP endpoint creates one; operators and
 * billing code call this, and credit notes settled outside the gateway write one.
 */
export async function recordAdjustment(
  prisma: Db,
  accountId: string,
  input: { amount: number; currency: string; description: string; customerId?: string; invoiceId?: string },
): Promise<TransactionObject> {
  if (!Number.isSafeInteger(input.amount) || input.amount === 0)
    throw new RangeError('An adjustment is a non-zero integer number of cents.');
  const row = await runTransaction(prisma, (tx) =>
    recordLedgerAdjustment(tx, {
      accountId,
      amount: BigInt(input.amount),
      currency: input.currency.toUpperCase(),
      customerId: input.customerId ?? null,
      invoiceId: input.invoiceId ?? null,
      description: input.description,
    }),
  );
  return toTransactionObject(row);
}

export function toBalanceTransactionObject(entry: CustomerBalanceTransaction): BalanceTransactionObject {
  return {
    id: entry.id,
    object: 'customer_balance_transaction',
    type: columnValue(BALANCE_ENTRY_TYPES, entry.type, 'customer_balance_transactions.type'),
    amount: Number(entry.amount),
    currency: entry.currency,
    ending_balance: Number(entry.endingBalance),
    customer: entry.customerId,
    invoice: entry.invoiceId,
    credit_note: entry.creditNoteId,
    description: entry.description,
    created: toUnixSeconds(entry.createdAt),
  };
}

/** GET /customers/{id}/balance-transactions: the history of a customer's balance, newest first (docs/decisions.md §22). */
export async function listBalanceTransactions(
  prisma: Db,
  accountId: string,
  customerId: string,
  params: PageParams,
): Promise<Page<BalanceTransactionObject>> {
  await findCustomer(prisma, accountId, customerId);
  const [rows, total] = await balanceEntriesPage(prisma, accountId, customerId, pageWindow(params));
  return pageEnvelope(rows.map(toBalanceTransactionObject), total, params);
}
