import { Prisma, type Customer } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { notFound } from '../http/errors';
import {
  modelColumns,
  modelOfRow,
  queryRows,
  selectList,
  type AnyTx,
  type Queryable,
  type RowColumns,
  type Statement,
} from '../db/sql';

/** A customers row's columns in Prisma's shape (its ScalarFieldEnum: none missed), for statements outside Prisma. */
const CUSTOMER_MODEL = modelColumns<Customer>(Prisma.CustomerScalarFieldEnum, {
  bigint: ['updatedMs', 'balance'],
  date: ['createdAt', 'updatedAt'],
  'date?': ['deletedAt'],
});
/** The select list of a customers row `c` (customerOfRow reads it). */
export const CUSTOMER_COLUMNS = selectList(CUSTOMER_MODEL, 'c');

export type CustomerColumns = RowColumns<Customer>;

export function customerOfRow(row: CustomerColumns): Customer {
  return modelOfRow(CUSTOMER_MODEL, row as Record<string, unknown>);
}

/** GET /customers/{id}, the hot read: one prepared statement (src/db/sql.ts), the row in Prisma's shape. */
const CUSTOMER_BY_ID: Statement = {
  name: 'customer_by_id',
  text: `SELECT ${CUSTOMER_COLUMNS} FROM customers c WHERE c.id = $1 AND c.account_id = $2 AND c.deleted_at IS NULL`,
};

/** A live customer of the account in one statement (prepared outside a transaction), as the hot read does it. */
export async function findCustomerRow(prisma: Db | Tx, accountId: string, id: string): Promise<Customer> {
  const [row] = await queryRows<CustomerColumns>(prisma, CUSTOMER_BY_ID, [id, accountId]);
  if (!row) throw notFound('customer', id, 'externalKey');
  return customerOfRow(row);
}

/**
 * The live customer's row, locked until the caller's transaction ends (decisions.md §4). Whatever makes
 * something payable for a customer (a new invoice, an attached payment method) takes `share` (FOR KEY
 * SHARE: such writers do not wait for one another, nor for a PATCH); deleting the customer takes
 * `update` (FOR UPDATE) first, so it waits for them to commit and then sees what they made, and one
 * that waited for a deletion finds no live customer (404).
 */
const LOCK_CUSTOMER: Record<'share' | 'update', Statement> = {
  share: {
    name: 'customer_lock_share',
    text: `SELECT ${CUSTOMER_COLUMNS} FROM customers c WHERE c.id = $1 AND c.account_id = $2 AND c.deleted_at IS NULL FOR KEY SHARE`,
  },
  update: {
    name: 'customer_lock_update',
    text: `SELECT ${CUSTOMER_COLUMNS} FROM customers c WHERE c.id = $1 AND c.account_id = $2 AND c.deleted_at IS NULL FOR UPDATE`,
  },
};

/** A live customer, locked in the caller's transaction (LOCK_CUSTOMER); 404 for a deleted, unknown or other account's customer. */
export async function lockCustomer(
  tx: AnyTx,
  accountId: string,
  id: string,
  mode: 'share' | 'update',
): Promise<Customer> {
  const [row] = await queryRows<CustomerColumns>(tx, LOCK_CUSTOMER[mode], [id, accountId]);
  if (!row) throw notFound('customer', id);
  return customerOfRow(row);
}

const ANY_CUSTOMER_BY_ID: Statement = {
  name: 'customer_by_id_any',
  text: `SELECT ${CUSTOMER_COLUMNS} FROM customers c WHERE c.id = $1 AND c.account_id = $2`,
};

/** The account's customer, deleted or not (an invoice's snapshot of it), or null. */
export async function readCustomerEvenDeleted(db: Queryable, accountId: string, id: string): Promise<Customer | null> {
  const [row] = await queryRows<CustomerColumns>(db, ANY_CUSTOMER_BY_ID, [id, accountId]);
  return row ? customerOfRow(row) : null;
}
