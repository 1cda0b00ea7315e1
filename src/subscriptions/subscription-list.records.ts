import type { Prisma } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import type { SubscriptionWithItems } from './subscription.records';
import {
  idsAfterPositionStatement,
  readCreatedPosition,
  readIdsAfterPosition,
  type BoundStatement,
  type ListPosition,
  type Queryable,
} from '../db/sql';

/**
 * GET /subscriptions after or before a cursor (docs/decisions.md §36): newest first, one range of an index
 * ending in (created_at, id) per filter ((account, [status | customer], created_at, id)).
 */
export interface SubscriptionFilters {
  status?: string;
  customer?: string;
}

export type SubscriptionPosition = ListPosition;

type CursorWindow = { at: SubscriptionPosition; forward: boolean; take: number };

/** The statement of the ids of `take` subscriptions after (`forward`) or before `at`. */
export function subscriptionCursorStatement(
  accountId: string,
  filters: SubscriptionFilters,
  window: CursorWindow,
): BoundStatement {
  const columns: [string, unknown][] = [
    ['account_id', accountId],
    ['status', filters.status],
    ['customer_id', filters.customer],
  ];
  return idsAfterPositionStatement('subscriptions', columns, window);
}

/** The ids of `take` subscriptions after (`forward`) or before `at`, in the list's order read that way. */
export function readSubscriptionIdsAfter(
  db: Queryable,
  accountId: string,
  filters: SubscriptionFilters,
  window: CursorWindow,
): Promise<string[]> {
  return readIdsAfterPosition(db, subscriptionCursorStatement(accountId, filters, window));
}

/** Where a subscription of the account sits in the list, or null (unknown, or another account's). */
export function readSubscriptionPosition(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<SubscriptionPosition | null> {
  return readCreatedPosition(db, 'subscriptions', accountId, id);
}

/** The list's filters as Prisma's where (the page at an offset and the count read with it). */
function subscriptionsWhere(accountId: string, filters: SubscriptionFilters): Prisma.SubscriptionWhereInput {
  return {
    accountId,
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.customer ? { customerId: filters.customer } : {}),
  };
}

/** The ids of the page at an offset, newest first. */
export async function readSubscriptionIdPage(
  db: Db,
  accountId: string,
  filters: SubscriptionFilters,
  page: { take: number; skip: number },
): Promise<string[]> {
  const rows = await db.subscription.findMany({
    where: subscriptionsWhere(accountId, filters),
    select: { id: true },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    ...page,
  });
  return rows.map((row) => row.id);
}

export function countSubscriptions(db: Db, accountId: string, filters: SubscriptionFilters): Promise<number> {
  return db.subscription.count({ where: subscriptionsWhere(accountId, filters) });
}

/** The account's subscriptions of `ids` with their items, any order. */
export function readSubscriptionsWithItems(db: Db, accountId: string, ids: string[]): Promise<SubscriptionWithItems[]> {
  return db.subscription.findMany({ where: { accountId, id: { in: ids } }, include: { items: true } });
}

/** How many of the customer's subscriptions have a status of `statuses`. */
export function countCustomerSubscriptions(
  db: Db | Tx,
  accountId: string,
  customerId: string,
  statuses: string[],
): Promise<number> {
  return db.subscription.count({ where: { accountId, customerId, status: { in: statuses } } });
}

/** The billing intervals of the customers' subscriptions whose status is none of `excluded`. */
export function readSubscriptionIntervals(
  db: Db | Tx,
  customerIds: string[],
  excluded: readonly string[],
): Promise<{ id: string; interval: string; intervalCount: number }[]> {
  return db.subscription.findMany({
    where: { customerId: { in: customerIds }, status: { notIn: [...excluded] } },
    select: { id: true, interval: true, intervalCount: true },
  });
}
