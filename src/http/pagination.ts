import { z } from 'zod';
import { badRequest, notFound } from './errors';
import { queryInteger, resourceId } from './validation';

/**
 * A query integer whose every refusal says its bounds (`take=0`, `take=101` and `take=ten` alike:
 * "must be an integer from 1 to 100"), not only the first check's words.
 */
function boundedQueryInteger(min: number, max: number) {
  const bounds = `must be an integer from ${min} to ${max} (decimal digits)`;
  return queryInteger(z.number({ error: bounds }).int(bounds).min(min, bounds).max(max, bounds));
}

/** decisions.md §3: lists take `page` >= 1 and `take` 1..max (100, products 50), default 10. */
export function paginationQuery(maxTake = 100) {
  return {
    // Decimal digits only: `take=0x10` or a blank `page=` is 400 naming it (docs/api.md "Lists").
    page: boundedQueryInteger(1, Number.MAX_SAFE_INTEGER).default(1).describe('Page number, from 1 (decimal digits)'),
    take: boundedQueryInteger(1, maxTake).default(10).describe(`Page size, 1 to ${maxTake} (decimal digits)`),
  };
}

export interface PageParams {
  page: number;
  take: number;
}

export function pageWindow({ page, take }: PageParams): { skip: number; take: number } {
  return { skip: (page - 1) * take, take };
}

export interface Page<T> {
  data: T[];
  meta: { page?: number; take: number; itemsTotal: number; pagesTotal: number; has_more?: boolean };
}

export function pageEnvelope<T>(data: T[], itemsTotal: number, { page, take }: PageParams): Page<T> {
  return { data, meta: { page, take, itemsTotal, pagesTotal: Math.ceil(itemsTotal / take) } };
}

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    meta: z.object({
      page: z
        .number()
        .optional()
        .describe(
          'The page (from 1); absent on a cursor page of the webhook logs, events and transactions, which are not placed among pages',
        ),
      take: z.number(),
      itemsTotal: z.number(),
      pagesTotal: z.number(),
      has_more: z
        .boolean()
        .optional()
        .describe('With starting_after or ending_before: whether more items follow in that direction'),
    }),
  });
}

/**
 * Cursor pagination beside page/take (docs/decisions.md §23, docs/api.md "Lists"): Stripe's
 * `starting_after` / `ending_before`, an id of an item of the same list (the same filters), whose position
 * the page starts after or ends before. `id` is the list's id shape.
 */
export function cursorQuery(id: z.ZodType<string, string> = resourceId) {
  return {
    starting_after: id
      .optional()
      .describe('Cursor: the page holds the items that follow this id in the list (page is then ignored)'),
    ending_before: id
      .optional()
      .describe('Cursor: the page holds the items that come just before this id in the list (page is then ignored)'),
  };
}

export interface CursorParams {
  starting_after?: string;
  ending_before?: string;
}

export type Cursor = { id: string; direction: 'after' | 'before' };

/** The request's cursor, if any; both at once is 400 naming the second. */
export function cursorOf(params: CursorParams): Cursor | undefined {
  if (params.starting_after !== undefined && params.ending_before !== undefined)
    throw badRequest('ending_before cannot be combined with starting_after', 'ending_before');
  if (params.starting_after !== undefined) return { id: params.starting_after, direction: 'after' };
  if (params.ending_before !== undefined) return { id: params.ending_before, direction: 'before' };
  return undefined;
}

/**
 * A cursor page's envelope: `page` is the page its first item falls on when paging by `take` from the
 * start (`before` items precede it), so page/take and cursors tell the same story; `has_more` as Stripe's.
 */
export function cursorPageEnvelope<T>(
  data: T[],
  itemsTotal: number,
  take: number,
  before: number,
  hasMore: boolean,
): Page<T> {
  return {
    data,
    meta: {
      page: Math.floor(before / take) + 1,
      take,
      itemsTotal,
      pagesTotal: Math.ceil(itemsTotal / take),
      has_more: hasMore,
    },
  };
}

/** How a list whose cursor pages carry no `page` (cursorOnlyEnvelope) reads its rows and its count. */
export interface KeysetList<P, R, T> {
  /** What a cursor's 404 names (`No such <kind>`). */
  kind: string;
  /** The cursor's item of the account, or null. */
  find: (id: string) => Promise<P | null>;
  /** `take` + 1 rows after `at` (forward) or before it, read against the list's order. */
  after: (at: P, forward: boolean, take: number) => Promise<R[]>;
  page: (take: number, skip: number) => Promise<R[]>;
  count: () => Promise<number>;
  objects: (rows: R[]) => Promise<T[]> | T[];
}

/**
 * A page of such a list: at an offset, or after/before a cursor (the cursor's item found in the account,
 * 404 naming the parameter otherwise; `take` + 1 rows read, the last only telling whether more follow).
 */
export async function keysetListPage<P, R, T>(
  query: PageParams & CursorParams,
  list: KeysetList<P, R, T>,
): Promise<Page<T>> {
  const cursor = cursorOf(query);
  if (!cursor) {
    const { take, skip } = pageWindow(query);
    const [rows, total] = await Promise.all([list.page(take, skip), list.count()]);
    return pageEnvelope(await list.objects(rows), total, query);
  }
  const forward = cursor.direction === 'after';
  const read = async () => {
    const at = await list.find(cursor.id);
    if (!at) throw notFound(list.kind, cursor.id, forward ? 'starting_after' : 'ending_before');
    return list.after(at, forward, query.take);
  };
  const [rows, total] = await Promise.all([read(), list.count()]);
  const page = rows.slice(0, query.take);
  if (!forward) page.reverse();
  return cursorOnlyEnvelope(await list.objects(page), total, query.take, rows.length > query.take);
}

/**
 * A cursor page of a list whose counters cannot place the cursor among pages without counting the rows
 * before it (webhook logs, events, transactions: docs/decisions.md §36): no `page`, the exact `itemsTotal`
 * as on every page, and `has_more`.
 */
export function cursorOnlyEnvelope<T>(data: T[], itemsTotal: number, take: number, hasMore: boolean): Page<T> {
  return { data, meta: { take, itemsTotal, pagesTotal: Math.ceil(itemsTotal / take), has_more: hasMore } };
}
