import type { Invoice, InvoiceLine } from '../generated/prisma/client';
import {
  jsonObjectOf,
  modelOfRow,
  queryBound,
  queryRows,
  selectList,
  statementOf,
  type BoundStatement,
  type Queryable,
  type Statement,
} from '../db/sql';
import { dayCountText } from '../db/day-counts';
import { DAY_MS } from '../lib/durations';
import { HOSTED_LINK_SELECT, INVOICE_COLUMNS, LINE_COLUMNS, type InvoiceWithLines } from './invoice.records';
import type { HostedLinkRef } from './hosted-link.records';

/**
 * GET /invoices at scale (docs/decisions.md §23): every filter has an index that reads the account's
 * invoices newest first ((account, [status | customer | subscription], created_at, id)), a page is a
 * range of it, and the exact itemsTotal comes from invoice_counts (rows per status and UTC day, kept by
 * triggers in the writing transaction) plus the rows of the partial days at a created range's ends.
 */
export interface InvoiceFilters {
  status?: string;
  customer?: string;
  subscription?: string;
  /** created_at >= from (inclusive) */
  from?: Date;
  /** created_at < until (exclusive) */
  until?: Date;
}

/** The WHERE of the filters, numbering its values after `values` (which it extends). */
function filterSql(filters: InvoiceFilters, values: unknown[]): string {
  const parts = ['i.account_id = $1'];
  const add = (sql: string, value: unknown) => {
    values.push(value);
    parts.push(sql.replace('?', `$${values.length}`));
  };
  if (filters.status !== undefined) add('i.status = ?', filters.status);
  if (filters.customer !== undefined) add('i.customer_id = ?', filters.customer);
  if (filters.subscription !== undefined) add('i.subscription_id = ?', filters.subscription);
  if (filters.from !== undefined) add('i.created_at >= ?', filters.from);
  if (filters.until !== undefined) add('i.created_at < ?', filters.until);
  return parts.join(' AND ');
}

const WITH_LINES = `SELECT ${selectList(INVOICE_COLUMNS, 'i')},
    (SELECT coalesce(json_agg(${jsonObjectOf(LINE_COLUMNS, 'l')} ORDER BY l.position), '[]') FROM invoice_lines l WHERE l.invoice_id = i.id) AS lines,
    ${HOSTED_LINK_SELECT}
  FROM invoices i`;

/** A page at an offset, newest first. */
export function invoicePageStatement(
  accountId: string,
  filters: InvoiceFilters,
  take: number,
  skip: number,
): BoundStatement {
  const values: unknown[] = [accountId];
  const where = filterSql(filters, values);
  values.push(take, skip);
  // The rows skipped are only read, not given their lines: those are gathered for the page alone.
  const text = `${WITH_LINES.replace(
    'FROM invoices i',
    `FROM (SELECT * FROM invoices i WHERE ${where}
      ORDER BY i.created_at DESC, i.id DESC LIMIT $${values.length - 1} OFFSET $${values.length}) i`,
  )}
    ORDER BY i.created_at DESC, i.id DESC`;
  return { statement: statementOf('invoices_page', text), values };
}

export interface InvoicePosition {
  id: string;
  createdAt: Date;
  status: string;
  customerId: string;
  subscriptionId: string | null;
}

/**
 * `take` invoices after `at` in the list's order (older: starting_after) or before it (newer: ending_before,
 * read oldest first: the caller reverses them), one more to tell whether there are more.
 */
export function invoiceCursorStatement(
  accountId: string,
  filters: InvoiceFilters,
  at: InvoicePosition,
  forward: boolean,
  take: number,
): BoundStatement {
  const values: unknown[] = [accountId];
  const where = filterSql(filters, values);
  values.push(at.createdAt, at.id, take + 1);
  const n = values.length;
  const dir = forward ? 'DESC' : 'ASC';
  const text = `${WITH_LINES} WHERE ${where} AND (i.created_at, i.id) ${forward ? '<' : '>'} ($${n - 2}, $${n - 1})
    ORDER BY i.created_at ${dir}, i.id ${dir} LIMIT $${n}`;
  return { statement: statementOf('invoices_cursor', text), values };
}

export function invoiceOfListRow(
  row: Record<string, unknown> & { lines: Record<string, unknown>[]; hosted_link: HostedLinkRef | null },
): InvoiceWithLines {
  return {
    ...modelOfRow<Invoice>(INVOICE_COLUMNS, row),
    lines: row.lines.map((line) => modelOfRow<InvoiceLine>(LINE_COLUMNS, line)),
    hostedLink: row.hosted_link,
  };
}

const INVOICE_POSITION: Statement = {
  name: 'invoice_position',
  text: `SELECT i.id, i.created_at, i.status, i.customer_id, i.subscription_id FROM invoices i
    WHERE i.id = $1 AND i.account_id = $2`,
};

/** Where an invoice of the account sits in the lists (its creation time) and what the filters look at, or null. */
/** A row of the list's statements, as invoiceOfListRow reads it. */
export type InvoiceListRow = Parameters<typeof invoiceOfListRow>[0];

/** The page at an offset of the filtered list, newest first (invoicePageStatement). */
export function readInvoicePage(
  db: Queryable,
  accountId: string,
  filters: InvoiceFilters,
  take: number,
  skip: number,
): Promise<InvoiceListRow[]> {
  return queryBound<InvoiceListRow>(db, invoicePageStatement(accountId, filters, take, skip));
}

/** Up to `take` + 1 invoices of the filtered list after (`forward`) or before `at` (invoiceCursorStatement). */
export function readInvoicesFromCursor(
  db: Queryable,
  accountId: string,
  filters: InvoiceFilters,
  at: InvoicePosition,
  forward: boolean,
  take: number,
): Promise<InvoiceListRow[]> {
  return queryBound<InvoiceListRow>(db, invoiceCursorStatement(accountId, filters, at, forward, take));
}

export async function readInvoicePosition(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<InvoicePosition | null> {
  const [row] = await queryRows<{
    id: string;
    created_at: Date;
    status: string;
    customer_id: string;
    subscription_id: string | null;
  }>(db, INVOICE_POSITION, [id, accountId]);
  if (!row) return null;
  return {
    id: row.id,
    createdAt: row.created_at,
    status: row.status,
    customerId: row.customer_id,
    subscriptionId: row.subscription_id,
  };
}

/** How many of the filtered invoices share the invoice's creation time with a larger id (come before it). */
export async function countSameTimeAfter(
  db: Queryable,
  accountId: string,
  filters: InvoiceFilters,
  at: InvoicePosition,
): Promise<number> {
  const values: unknown[] = [accountId];
  const where = filterSql(filters, values);
  values.push(at.createdAt, at.id);
  const text = `SELECT count(*)::bigint AS n FROM invoices i WHERE ${where}
    AND i.created_at = $${values.length - 1} AND i.id > $${values.length}`;
  const [row] = await queryRows<{ n: string }>(db, statementOf('invoices_ties', text), values);
  return Number(row!.n);
}

/**
 * The exact number of invoices matching the filters. With a customer or a subscription: counted (one
 * customer's or subscription's invoices, an index range). Otherwise: the full UTC days of the created
 * range from invoice_counts, and the invoices of its partial first and last days counted from the index
 * (at most two days' rows; dayCountText).
 */
export function invoiceCountStatement(accountId: string, filters: InvoiceFilters): BoundStatement {
  if (filters.customer === undefined && filters.subscription === undefined) {
    const values: unknown[] = [accountId];
    const status = filters.status !== undefined ? (values.push(filters.status), `AND status = $${values.length}`) : '';
    const text = dayCountText(values, {
      counter: `SELECT coalesce(sum(n), 0)::bigint FROM invoice_counts WHERE account_id = $1 ${status}`,
      rows: `SELECT count(*)::bigint FROM invoices i WHERE i.account_id = $1 ${status.replace('status', 'i.status')}`,
      created: 'i.created_at',
      from: filters.from,
      until: filters.until,
    });
    if (text !== null) return { statement: statementOf('invoices_count', text), values };
  }
  const values: unknown[] = [accountId];
  const where = filterSql(filters, values);
  return {
    statement: statementOf('invoices_count', `SELECT count(*)::bigint AS n FROM invoices i WHERE ${where}`),
    values,
  };
}

export async function countInvoices(db: Queryable, accountId: string, filters: InvoiceFilters): Promise<number> {
  const [row] = await queryBound<{ n: string }>(db, invoiceCountStatement(accountId, filters));
  return Number(row!.n);
}

/**
 * A deep page at an offset without reading the rows before it (docs/decisions.md §23): for a list filtered
 * by status at most, the UTC day that holds the offset's invoice from invoice_counts, walking days newest
 * first, and how many invoices the newer days hold; the page is then an offset within that day.
 */
export function invoiceOffsetDayStatement(accountId: string, status: string | undefined, skip: number): BoundStatement {
  const values: unknown[] = [accountId];
  const filter = status !== undefined ? (values.push(status), `AND status = $${values.length}`) : '';
  values.push(skip);
  const text = `WITH days AS (
      SELECT day, sum(n) AS n FROM invoice_counts WHERE account_id = $1 ${filter} GROUP BY day
    ), running AS (SELECT day, n, sum(n) OVER (ORDER BY day DESC) AS upto FROM days)
    SELECT to_char(day, 'YYYY-MM-DD') AS day, (upto - n)::bigint AS before FROM running
    WHERE upto > $${values.length} ORDER BY day DESC LIMIT 1`;
  return { statement: statementOf('invoices_offset_day', text), values };
}

export async function findOffsetDay(
  db: Queryable,
  accountId: string,
  status: string | undefined,
  skip: number,
): Promise<{ dayEnd: Date; before: number } | null> {
  const [row] = await queryBound<{ day: string; before: string }>(
    db,
    invoiceOffsetDayStatement(accountId, status, skip),
  );
  if (!row) return null;
  return { dayEnd: new Date(Date.parse(`${row.day}T00:00:00Z`) + DAY_MS), before: Number(row.before) };
}
