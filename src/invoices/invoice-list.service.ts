import type { Db } from '../db/prisma';
import { notFound } from '../http/errors';
import { cursorOf, cursorPageEnvelope, pageEnvelope, pageWindow, type Page } from '../http/pagination';
import { fromUnixSeconds, halfOpenRange } from '../lib/time';
import {
  countInvoices,
  findOffsetDay,
  invoiceOfListRow,
  countSameTimeAfter,
  readInvoicePage,
  readInvoicePosition,
  readInvoicesFromCursor,
  type InvoiceFilters,
  type InvoiceListRow,
  type InvoicePosition,
} from './invoice-list.records';
import { toInvoiceObject } from './invoice.records';
import type { InvoiceObject, ListInvoicesQuery } from './invoice.schemas';

/** An offset at or past which a page is found through invoice_counts' days rather than by skipping rows. */
const DEEP_OFFSET = 2000;

/** The query's filters, its created bounds as a half-open range (times are stored to the millisecond). */
function filtersOf(query: ListInvoicesQuery): InvoiceFilters {
  const at = (seconds: number | undefined) => (seconds === undefined ? undefined : fromUnixSeconds(seconds));
  return {
    ...(query.status ? { status: query.status } : {}),
    ...(query.customer ? { customer: query.customer } : {}),
    ...(query.subscription ? { subscription: query.subscription } : {}),
    ...halfOpenRange({
      gt: at(query.created_gt),
      gte: at(query.created_gte),
      lt: at(query.created_lt),
      lte: at(query.created_lte),
    }),
  };
}

/**
 * GET /invoices, newest first (docs/decisions.md §23): a page at an offset or after/before a cursor,
 * each a range of the filter's index, with the exact itemsTotal from the counters.
 */
export async function listInvoices(
  prisma: Db,
  accountId: string,
  query: ListInvoicesQuery,
): Promise<Page<InvoiceObject>> {
  const filters = filtersOf(query);
  const cursor = cursorOf(query);
  if (cursor) return cursorPage(prisma, accountId, filters, query.take, cursor.id, cursor.direction === 'after');
  const { skip, take } = pageWindow(query);
  const [rows, total] = await Promise.all([
    pageRows(prisma, accountId, filters, take, skip),
    countInvoices(prisma, accountId, filters),
  ]);
  return pageEnvelope(
    rows.map((row) => toInvoiceObject(invoiceOfListRow(row))),
    total,
    query,
  );
}

async function pageRows(
  prisma: Db,
  accountId: string,
  filters: InvoiceFilters,
  take: number,
  skip: number,
): Promise<InvoiceListRow[]> {
  const byStatusAtMost = filters.customer === undefined && filters.subscription === undefined;
  const unbounded = filters.from === undefined && filters.until === undefined;
  if (skip >= DEEP_OFFSET && byStatusAtMost && unbounded) {
    const day = await findOffsetDay(prisma, accountId, filters.status, skip);
    if (!day) return [];
    return readInvoicePage(prisma, accountId, { ...filters, until: day.dayEnd }, take, skip - day.before);
  }
  return readInvoicePage(prisma, accountId, filters, take, skip);
}

async function cursorPage(
  prisma: Db,
  accountId: string,
  filters: InvoiceFilters,
  take: number,
  id: string,
  forward: boolean,
): Promise<Page<InvoiceObject>> {
  const at = await readInvoicePosition(prisma, accountId, id);
  if (!at) throw notFound('invoice', id, forward ? 'starting_after' : 'ending_before');
  // How many of the list come before the cursor's invoice: newer ones, and same-time ones with a larger id.
  const afterAt = new Date(at.createdAt.getTime() + 1);
  const newerFrom = filters.from && filters.from > afterAt ? filters.from : afterAt;
  const [rows, total, newer, ties] = await Promise.all([
    readInvoicesFromCursor(prisma, accountId, filters, at, forward, take),
    countInvoices(prisma, accountId, filters),
    filters.until && filters.until <= newerFrom ? 0 : countInvoices(prisma, accountId, { ...filters, from: newerFrom }),
    countSameTimeAfter(prisma, accountId, filters, at),
  ]);
  const hasMore = rows.length > take;
  const page = rows.slice(0, take);
  if (!forward) page.reverse();
  const before = newer + ties;
  const first = forward ? before + (inList(filters, at) ? 1 : 0) : before - page.length;
  return cursorPageEnvelope(
    page.map((row) => toInvoiceObject(invoiceOfListRow(row))),
    total,
    take,
    Math.max(0, first),
    hasMore,
  );
}

/** Whether the cursor's invoice is itself in the filtered list. */
function inList(filters: InvoiceFilters, at: InvoicePosition): boolean {
  return (
    (filters.status === undefined || filters.status === at.status) &&
    (filters.customer === undefined || filters.customer === at.customerId) &&
    (filters.subscription === undefined || filters.subscription === at.subscriptionId) &&
    (filters.from === undefined || at.createdAt >= filters.from) &&
    (filters.until === undefined || at.createdAt < filters.until)
  );
}
