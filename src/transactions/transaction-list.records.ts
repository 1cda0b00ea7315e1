import type { Transaction } from '../generated/prisma/client';
import {
  equalityFilters,
  newestFirstWindow,
  queryBound,
  queryModels,
  selectList,
  statementOf,
  type BoundStatement,
  type Queryable,
  type Statement,
  readListPosition,
  type ListPosition,
} from '../db/sql';
import { TRANSACTION_COLUMNS } from './transaction.records';

/**
 * GET /transactions at scale (docs/decisions.md §36): newest first, every filter with an index that ends in
 * (created_at, id) ((account, [status | type | customer | invoice], created_at, id)), so a page and a page after
 * a cursor are one range of it; itemsTotal from balance_sums (rows per status, kept by the §23 triggers)
 * unless the list is filtered by type, customer or invoice, which are counted.
 */
export interface TransactionFilters {
  type?: string;
  status?: string;
  customer?: string;
  invoice?: string;
}

function filterSql(accountId: string, filters: TransactionFilters, values: unknown[]): string {
  return equalityFilters(
    't',
    [
      ['account_id', accountId],
      ['type', filters.type],
      ['status', filters.status],
      ['customer_id', filters.customer],
      ['invoice_id', filters.invoice],
    ],
    values,
  );
}

/** A page at an offset, or `take` transactions after/before a cursor (src/db/sql.ts newestFirstWindow). */
export function transactionListStatement(
  accountId: string,
  filters: TransactionFilters,
  window: Parameters<typeof newestFirstWindow>[2],
): BoundStatement {
  const values: unknown[] = [];
  const where = filterSql(accountId, filters, values);
  const text = `SELECT ${selectList(TRANSACTION_COLUMNS, 't')} FROM transactions t WHERE ${where}
    ${newestFirstWindow(['t.created_at', 't.id'], values, window)}`;
  return { statement: statementOf('transactions_list', text), values };
}

export type TransactionPosition = ListPosition;

export function readTransactionRows(db: Queryable, bound: BoundStatement): Promise<Transaction[]> {
  return queryModels(db, TRANSACTION_COLUMNS, bound.statement, bound.values);
}

/** The exact number of transactions matching the filters (see above). */
export function transactionCountStatement(accountId: string, filters: TransactionFilters): BoundStatement {
  if (filters.type === undefined && filters.customer === undefined && filters.invoice === undefined) {
    const values: unknown[] = [accountId];
    const status = filters.status !== undefined ? (values.push(filters.status), 'AND status = $2') : '';
    const text = `SELECT coalesce(sum(n), 0)::bigint AS n FROM balance_sums WHERE account_id = $1 ${status}`;
    return { statement: statementOf('transactions_count', text), values };
  }
  const values: unknown[] = [];
  const where = filterSql(accountId, filters, values);
  return {
    statement: statementOf('transactions_count', `SELECT count(*)::bigint AS n FROM transactions t WHERE ${where}`),
    values,
  };
}

export async function countTransactions(
  db: Queryable,
  accountId: string,
  filters: TransactionFilters,
): Promise<number> {
  const [row] = await queryBound<{ n: string }>(db, transactionCountStatement(accountId, filters));
  return Number(row!.n);
}

const TRANSACTION_POSITION: Statement = {
  name: 'transaction_position',
  text: `SELECT t.id, t.created_at FROM transactions t WHERE t.id = $1 AND t.account_id = $2`,
};

export function readTransactionPosition(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<TransactionPosition | null> {
  return readListPosition(db, TRANSACTION_POSITION, accountId, id);
}
