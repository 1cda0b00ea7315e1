import { Prisma, type Customer } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { DAY_MS } from '../lib/durations';
import {
  modelColumns,
  modelOfRow,
  queryBound,
  queryRows,
  selectList,
  type AnyTx,
  type Queryable,
  type RowColumns,
  statementOf,
  type BoundStatement,
  type Statement,
  withNamesFrom,
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

/**
 * A live customer of the account in one statement (prepared outside a transaction), as the hot read does it;
 * null when there is none (another account's too).
 */
export async function findCustomerRow(prisma: Db | Tx, accountId: string, id: string): Promise<Customer | null> {
  const [row] = await queryRows<CustomerColumns>(prisma, CUSTOMER_BY_ID, [id, accountId]);
  return row ? customerOfRow(row) : null;
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

/** A live customer, locked in the caller's transaction (LOCK_CUSTOMER); null for a deleted, unknown or other account's customer. */
export async function lockLiveCustomer(
  tx: AnyTx,
  accountId: string,
  id: string,
  mode: 'share' | 'update',
): Promise<Customer | null> {
  const [row] = await queryRows<CustomerColumns>(tx, LOCK_CUSTOMER[mode], [id, accountId]);
  return row ? customerOfRow(row) : null;
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

const CUSTOMER_NAMES: Statement = {
  name: 'customer_names',
  text: 'SELECT id, name FROM customers WHERE account_id = $1 AND id = ANY($2::text[])',
};

/** `objects` with `customer_name` beside their `customer`, deleted customers' too (docs/api.md, "Names on list rows"). */
export function withCustomerNames<T extends { customer: string | null; customer_name?: string }>(
  db: Queryable,
  accountId: string,
  objects: T[],
) {
  return withNamesFrom(db, CUSTOMER_NAMES, accountId, objects, 'customer', 'customer_name');
}

export type CustomerSort = 'created' | 'name' | 'email';

/**
 * A sort's order as runs of rows, each read in the order of one index (docs/decisions.md §23): created and
 * name are one run (never null); email is the customers with an email, then those without (ASC puts nulls
 * last, DESC first, as PostgreSQL orders them), so a cursor in either run is a range of its index.
 */
const SORT_RUNS: Record<CustomerSort, { filter: string; keys: string[]; order: string[] }[]> = {
  created: [{ filter: '', keys: ['c.created_at', 'c.id'], order: ['c.created_at', 'c.id'] }],
  name: [{ filter: '', keys: ['c.name', 'c.id'], order: ['c.name', 'c.id'] }],
  email: [
    { filter: 'AND c.email IS NOT NULL', keys: ['c.email', 'c.id'], order: ['c.email', 'c.id'] },
    // Ordered by (email, id) though email is null throughout: the planner then reads the email index's
    // null entries in order instead of the whole primary key.
    { filter: 'AND c.email IS NULL', keys: ['c.id'], order: ['c.email', 'c.id'] },
  ],
};

const SORT_COLUMN: Record<CustomerSort, string> = { created: 'c.created_at', name: 'c.name', email: 'c.email' };

/** The list's optional filters as SQL (the search's pattern, the test clock), their values pushed onto `values`. */
function optionalFilters(
  query: Pick<CustomerListQuery, 'pattern' | 'testClock' | 'createdFrom' | 'createdUntil'>,
  values: unknown[],
): string {
  let sql = '';
  if (query.createdFrom !== undefined) {
    values.push(query.createdFrom);
    sql += ` AND c.created_at >= $${values.length}`;
  }
  if (query.createdUntil !== undefined) {
    values.push(query.createdUntil);
    sql += ` AND c.created_at < $${values.length}`;
  }
  if (query.pattern !== undefined) {
    values.push(query.pattern);
    sql += ` AND (c.name ILIKE $${values.length} OR c.email ILIKE $${values.length})`;
  }
  if (query.testClock !== undefined) {
    values.push(query.testClock);
    sql += ` AND c.test_clock_id = $${values.length}`;
  }
  return sql;
}

export interface CustomerListQuery {
  sort: CustomerSort;
  order: 'ASC' | 'DESC';
  take: number;
  skip: number;
  /** A LIKE pattern (containsPattern), or undefined. */
  pattern?: string;
  /** Only the customers on this test clock. */
  testClock?: string;
  /** A deep page in creation order, within the day the counters found: created_at >= from, < until. */
  createdFrom?: Date;
  createdUntil?: Date;
}

/**
 * A deep page in creation order without skipping every entry before it (docs/decisions.md §36): the UTC day
 * that holds the offset's customer, from customer_counts walking days in the list's order, and how many live
 * customers the days before it in that order hold; the page is then an offset within that day.
 */
export function customerOffsetDayStatement(accountId: string, order: 'ASC' | 'DESC', skip: number): BoundStatement {
  const text = `WITH days AS (
      SELECT day, sum(n) AS n FROM customer_counts WHERE account_id = $1 GROUP BY day
    ), running AS (SELECT day, n, sum(n) OVER (ORDER BY day ${order}) AS upto FROM days)
    SELECT to_char(day, 'YYYY-MM-DD') AS day, (upto - n)::bigint AS before FROM running
    WHERE upto > $2 ORDER BY day ${order} LIMIT 1`;
  return { statement: statementOf('customers_offset_day', text), values: [accountId, skip] };
}

/** The day's bounds and the customers before it in the list's order (customerOffsetDayStatement), or null past the end. */
export async function findCustomerOffsetDay(
  db: Queryable,
  accountId: string,
  order: 'ASC' | 'DESC',
  skip: number,
): Promise<{ from: Date; until: Date; before: number } | null> {
  const [row] = await queryBound<{ day: string; before: string }>(
    db,
    customerOffsetDayStatement(accountId, order, skip),
  );
  if (!row) return null;
  const from = new Date(`${row.day}T00:00:00Z`);
  return { from, until: new Date(from.getTime() + DAY_MS), before: Number(row.before) };
}

/**
 * GET /customers without a cursor: a page at an offset, in the order of the sort's index. The rows skipped
 * are read from the index alone (each sort's index holds the sort value, the id and deleted_at: an
 * index-only scan), and only the page's ids are then joined to their rows, so a deep page costs index
 * entries, not customers (docs/decisions.md §36).
 */
export function customerPageStatement(accountId: string, query: CustomerListQuery): BoundStatement {
  const dir = query.order;
  const values: unknown[] = [accountId];
  const filters = optionalFilters(query, values);
  values.push(query.take, query.skip);
  const sort = SORT_COLUMN[query.sort];
  const text = `SELECT ${CUSTOMER_COLUMNS} FROM (
      SELECT c.id, ${sort} AS sort_value FROM customers c
      WHERE c.account_id = $1 AND c.deleted_at IS NULL${filters}
      ORDER BY ${sort} ${dir}, c.id ${dir} LIMIT $${values.length - 1} OFFSET $${values.length}) p
    JOIN customers c ON c.id = p.id
    ORDER BY p.sort_value ${dir}, p.id ${dir}`;
  return { statement: statementOf('customers_page', text), values };
}

/** The sort values of a live customer of the account, where a cursor points; null when there is none. */
const CUSTOMER_CURSOR: Statement = {
  name: 'customer_cursor',
  text: `SELECT c.id, c.created_at, c.name, c.email FROM customers c WHERE c.id = $1 AND c.account_id = $2 AND c.deleted_at IS NULL`,
};

export type CustomerCursorRow = Pick<Customer, 'id' | 'createdAt' | 'name' | 'email'>;

export async function readCustomerCursor(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<CustomerCursorRow | null> {
  const [row] = await queryRows<{ id: string; created_at: Date; name: string; email: string | null }>(
    db,
    CUSTOMER_CURSOR,
    [id, accountId],
  );
  return row ? { id: row.id, createdAt: row.created_at, name: row.name, email: row.email } : null;
}

/**
 * GET /customers after or before a cursor: the statements of the runs the walk goes through, in order,
 * the first one a range of its index from the cursor's values, each to be read up to what is still missing
 * (its last value). `forward`: in the list's order (starting_after), else against it (ending_before).
 */
export function customerCursorStatements(
  accountId: string,
  query: Omit<CustomerListQuery, 'skip'>,
  cursor: CustomerCursorRow,
  forward: boolean,
): BoundStatement[] {
  const ascending = (query.order === 'ASC') === forward;
  const dir = ascending ? 'ASC' : 'DESC';
  const runs = ascending ? SORT_RUNS[query.sort] : [...SORT_RUNS[query.sort]].reverse();
  // The run the cursor's customer is in: the walk starts there, within it, and goes on through the next ones.
  const inRun = runs.findIndex(
    (run) => run.filter !== (cursor.email === null ? 'AND c.email IS NOT NULL' : 'AND c.email IS NULL'),
  );
  const cursorValues: Record<string, unknown> = {
    'c.created_at': cursor.createdAt,
    'c.name': cursor.name,
    'c.email': cursor.email,
    'c.id': cursor.id,
  };
  return runs.slice(inRun).map((run, index) => {
    const values: unknown[] = [accountId];
    const filters = optionalFilters(query, values);
    let range = '';
    if (index === 0) {
      const params = run.keys.map((key) => {
        values.push(cursorValues[key]);
        return `$${values.length}`;
      });
      range = `AND (${run.keys.join(', ')}) ${ascending ? '>' : '<'} (${params.join(', ')})`;
    }
    values.push(query.take);
    const text = `SELECT ${CUSTOMER_COLUMNS} FROM customers c
      WHERE c.account_id = $1 AND c.deleted_at IS NULL${filters} ${run.filter} ${range}
      ORDER BY ${run.order.map((key) => `${key} ${dir}`).join(', ')} LIMIT $${values.length}`;
    return { statement: statementOf('customers_cursor', text), values };
  });
}

/** What /customers/search answers of a customer. */
export type CustomerMatch = Pick<Customer, 'id' | 'name' | 'email'>;

/**
 * /customers/search, first way (docs/decisions.md §23): the first `window` customers in name order, read
 * from the index alone (it holds email and deleted_at too), filtered. When that finds `limit` matches they
 * are the first `limit` of all, found after reading at most `window` index entries however common the text is.
 */
export function customerSearchWindowStatement(
  accountId: string,
  pattern: string,
  window: number,
  limit: number,
): BoundStatement {
  return {
    statement: {
      name: 'customers_search_window',
      text: `SELECT w.id, w.name, w.email FROM (
          SELECT c.id, c.name, c.email, c.deleted_at FROM customers c WHERE c.account_id = $1
          ORDER BY c.name, c.id LIMIT $3) w
        WHERE w.deleted_at IS NULL AND (w.name ILIKE $2 OR w.email ILIKE $2) ORDER BY w.name, w.id LIMIT $4`,
    },
    values: [accountId, pattern, window, limit],
  };
}

/** /customers/search for a whole email: the customers with that email as written or in lower case (the email index). */
export function customerEmailStatement(accountId: string, email: string, limit: number): BoundStatement {
  return {
    statement: {
      name: 'customers_search_email',
      text: `SELECT c.id, c.name, c.email FROM customers c
        WHERE c.account_id = $1 AND c.email IN ($2, lower($2)) AND c.deleted_at IS NULL ORDER BY c.name, c.id LIMIT $3`,
    },
    values: [accountId, email, limit],
  };
}

/**
 * /customers/search, second way: every match through the trigram indexes on name and email (a bitmap of
 * the rows that hold the text's trigrams), then the first `limit` by name. Quick when matches are few,
 * which is when the first way did not find enough.
 */
export function customerSearchTrigramStatement(accountId: string, pattern: string, limit: number): BoundStatement {
  return {
    statement: {
      name: 'customers_search_trigram',
      text: `WITH matches AS MATERIALIZED (
          SELECT c.id, c.name, c.email FROM customers c
          WHERE (c.name ILIKE $2 OR c.email ILIKE $2) AND c.account_id = $1 AND c.deleted_at IS NULL)
        SELECT id, name, email FROM matches ORDER BY name, id LIMIT $3`,
    },
    values: [accountId, pattern, limit],
  };
}

/** GET /customers: the page at the query's offset (customerPageStatement). */
export function readCustomerPage(
  db: Queryable,
  accountId: string,
  query: CustomerListQuery,
): Promise<CustomerColumns[]> {
  return queryBound<CustomerColumns>(db, customerPageStatement(accountId, query));
}

/**
 * GET /customers after or before a cursor: the runs of customerCursorStatements read in turn until
 * `query.take` rows are found, in the walk's order (reversed by the caller for ending_before).
 */
export async function readCustomersFromCursor(
  db: Queryable,
  accountId: string,
  query: Omit<CustomerListQuery, 'skip'>,
  cursor: CustomerCursorRow,
  forward: boolean,
): Promise<CustomerColumns[]> {
  const found: CustomerColumns[] = [];
  for (const run of customerCursorStatements(accountId, query, cursor, forward)) {
    if (found.length >= query.take) break;
    run.values[run.values.length - 1] = query.take - found.length;
    found.push(...(await queryBound<CustomerColumns>(db, run)));
  }
  return found;
}

/** /customers/search for a whole email (customerEmailStatement). */
export function searchCustomersByEmail(db: Queryable, accountId: string, email: string, limit: number) {
  return queryBound<CustomerMatch>(db, customerEmailStatement(accountId, email, limit));
}

/** /customers/search, first way (customerSearchWindowStatement). */
export function searchCustomersInNameWindow(
  db: Queryable,
  accountId: string,
  pattern: string,
  window: number,
  limit: number,
) {
  return queryBound<CustomerMatch>(db, customerSearchWindowStatement(accountId, pattern, window, limit));
}

/** /customers/search, second way (customerSearchTrigramStatement). */
export function searchCustomersByTrigrams(db: Queryable, accountId: string, pattern: string, limit: number) {
  return queryBound<CustomerMatch>(db, customerSearchTrigramStatement(accountId, pattern, limit));
}

export function insertCustomerRow(tx: Tx, data: Prisma.CustomerUncheckedCreateInput): Promise<Customer> {
  return tx.customer.create({ data });
}

export function updateCustomerRow(tx: Tx, id: string, data: Prisma.CustomerUncheckedUpdateInput): Promise<Customer> {
  return tx.customer.update({ where: { id }, data });
}

/**
 * The account's customer's test clock (`testClockId` null for none), or null when the account has no such customer
 * (with `live`, no such customer that is not deleted).
 */
export function findCustomerTestClock(
  db: Db | Tx,
  accountId: string,
  id: string,
  { live = false }: { live?: boolean } = {},
): Promise<Pick<Customer, 'testClockId'> | null> {
  const where = live ? { id, accountId, deletedAt: null } : { id, accountId };
  return db.customer.findFirst({ where, select: { testClockId: true } });
}

/** The ids of the customers on test clock `clockId`. */
export async function readClockCustomerIds(db: Db | Tx, clockId: string): Promise<string[]> {
  const rows = await db.customer.findMany({ where: { testClockId: clockId }, select: { id: true } });
  return rows.map((row) => row.id);
}

/** The name of customer `id`, or null for no such customer. */
export async function readCustomerName(db: Db | Tx, id: string): Promise<string | null> {
  return (await db.customer.findUnique({ where: { id }, select: { name: true } }))?.name ?? null;
}
