import { Prisma, type CustomerBalanceTransaction } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { modelColumns, queryModels, queryRows, selectList, type AnyTx, type Statement } from '../db/sql';

/**
 * The customer balance's statements (docs/decisions.md §22). src/transactions/ledger.ts is their only
 * writer: `customers.balance` changes only with a `customer_balance_transactions` row, in one statement.
 */

const ENTRY_COLUMNS = modelColumns<CustomerBalanceTransaction>(Prisma.CustomerBalanceTransactionScalarFieldEnum, {
  bigint: ['seq', 'amount', 'endingBalance'],
  date: ['createdAt'],
});

export type NewBalanceEntry = Omit<CustomerBalanceTransaction, 'endingBalance' | 'seq'>;

/**
 * The customer's balance moved by `amount` and the entry that says so, in one statement: nothing is
 * written (no row answered) when the customer is not the account's or deleted, when its balance holds another
 * currency (a zero balance takes any), or when the balance would become positive (it is credit only).
 */
const CHANGE_BALANCE: Statement = {
  name: 'customer_balance_change',
  text: `WITH changed AS (
      UPDATE customers SET balance = balance + $4::bigint, balance_currency = $5, updated_at = now()
      WHERE id = $3 AND account_id = $2 AND deleted_at IS NULL AND (balance = 0 OR balance_currency = $5)
        AND balance + $4::bigint <= 0
      RETURNING balance
    )
    INSERT INTO customer_balance_transactions AS e (id, account_id, customer_id, type, amount, currency, ending_balance,
      invoice_id, credit_note_id, description, created_at)
    SELECT $1, $2, $3, $6, $4::bigint, $5, changed.balance, $7, $8, $9, $10::timestamptz FROM changed
    RETURNING ${selectList(ENTRY_COLUMNS, 'e')}`,
};

export async function insertBalanceEntry(
  tx: AnyTx,
  entry: NewBalanceEntry,
): Promise<CustomerBalanceTransaction | undefined> {
  const [row] = await queryModels(tx, ENTRY_COLUMNS, CHANGE_BALANCE, [
    entry.id,
    entry.accountId,
    entry.customerId,
    entry.amount.toString(),
    entry.currency,
    entry.type,
    entry.invoiceId,
    entry.creditNoteId,
    entry.description,
    entry.createdAt,
  ]);
  return row;
}

const LOCK_BALANCE: Statement = {
  name: 'customer_balance_lock',
  text: `SELECT balance::text AS balance, balance_currency AS "balanceCurrency", deleted_at IS NOT NULL AS deleted FROM customers
    WHERE id = $1 AND account_id = $2 FOR NO KEY UPDATE`,
};

/** The customer's balance, locked until the caller's transaction ends (undefined for an unknown customer). */
export async function lockBalance(
  tx: AnyTx,
  accountId: string,
  customerId: string,
): Promise<{ balance: bigint; balanceCurrency: string | null; deleted: boolean } | undefined> {
  const [row] = await queryRows<{ balance: string; balanceCurrency: string | null; deleted: boolean }>(
    tx,
    LOCK_BALANCE,
    [customerId, accountId],
  );
  return row && { balance: BigInt(row.balance), balanceCurrency: row.balanceCurrency, deleted: row.deleted };
}

/** A customer's balance entries, the last written first, and how many there are. */
export async function balanceEntriesPage(
  prisma: Db,
  accountId: string,
  customerId: string,
  window: { skip: number; take: number },
): Promise<[CustomerBalanceTransaction[], number]> {
  const where = { accountId, customerId };
  return Promise.all([
    prisma.customerBalanceTransaction.findMany({
      where,
      orderBy: { seq: 'desc' },
      ...window,
    }),
    prisma.customerBalanceTransaction.count({ where }),
  ]);
}
