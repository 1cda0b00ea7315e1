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
