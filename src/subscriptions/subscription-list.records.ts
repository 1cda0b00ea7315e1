import {
  equalityFilters,
  newestFirstWindow,
  queryBound,
  statementOf,
  type Queryable,
  type Statement,
  readListPosition,
  type ListPosition,
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

/** The ids of `take` subscriptions after (`forward`) or before `at`, in the list's order read that way. */
export async function readSubscriptionIdsAfter(
  db: Queryable,
  accountId: string,
  filters: SubscriptionFilters,
  window: { at: [Date, string]; forward: boolean; take: number },
): Promise<string[]> {
  const values: unknown[] = [];
  const where = equalityFilters(
    's',
    [
      ['account_id', accountId],
      ['status', filters.status],
      ['customer_id', filters.customer],
    ],
    values,
  );
  const text = `SELECT s.id FROM subscriptions s WHERE ${where} ${newestFirstWindow(['s.created_at', 's.id'], values, window)}`;
  const rows = await queryBound<{ id: string }>(db, { statement: statementOf('subscriptions_after', text), values });
  return rows.map((row) => row.id);
}

const SUBSCRIPTION_POSITION: Statement = {
  name: 'subscription_position',
  text: `SELECT s.id, s.created_at FROM subscriptions s WHERE s.id = $1 AND s.account_id = $2`,
};

/** Where a subscription of the account sits in the list, or null (unknown, or another account's). */
export function readSubscriptionPosition(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<SubscriptionPosition | null> {
  return readListPosition(db, SUBSCRIPTION_POSITION, accountId, id);
}
