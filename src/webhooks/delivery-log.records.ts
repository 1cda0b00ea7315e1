import type { WebhookAttempt, WebhookDelivery } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import {
  equalityFilters,
  newestFirstWindow,
  queryBound,
  statementOf,
  type BoundStatement,
  type Queryable,
  type Statement,
  readListPosition,
  type ListPosition,
} from '../db/sql';

/** A delivery with its attempts and its destination's URL, as the log answers it. */
export type LoggedDelivery = WebhookDelivery & { attempts: WebhookAttempt[]; destination: { url: string } };

/** What a delivery is read with for the log (Prisma's `include`). */
export const LOGGED_DELIVERY = { attempts: true, destination: { select: { url: true } } } as const;

export interface DeliveryLogFilters {
  status?: string;
  eventType?: string;
  destination?: string;
  event?: string;
}

/**
 * GET /webhook/logs' exact itemsTotal (docs/decisions.md §23): one event's deliveries are counted (one per
 * destination); otherwise the counts per status, event type and destination that triggers keep in
 * webhook_delivery_counts are summed, a few rows per account instead of millions of deliveries.
 */
export function deliveryCountStatement(accountId: string, filters: DeliveryLogFilters): BoundStatement {
  const values: unknown[] = [accountId];
  const parts: string[] = [];
  const add = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    values.push(value);
    parts.push(`AND ${column} = $${values.length}`);
  };
  add('status', filters.status);
  add('event_type', filters.eventType);
  add('destination_id', filters.destination);
  if (filters.event !== undefined) {
    add('event_id', filters.event);
    const text = `SELECT count(*)::bigint AS n FROM webhook_deliveries WHERE account_id = $1 ${parts.join(' ')}`;
    return { statement: statementOf('deliveries_count', text), values };
  }
  const text = `SELECT coalesce(sum(n), 0)::bigint AS n FROM webhook_delivery_counts WHERE account_id = $1 ${parts.join(' ')}`;
  return { statement: statementOf('deliveries_count', text), values };
}

export async function countDeliveries(db: Queryable, accountId: string, filters: DeliveryLogFilters): Promise<number> {
  const [row] = await queryBound<{ n: string }>(db, deliveryCountStatement(accountId, filters));
  return Number(row!.n);
}

/**
 * GET /webhook/logs, newest first (docs/decisions.md §36): the ids of a page at an offset or after/before a
 * cursor (`window`, src/db/sql.ts newestFirstWindow), a range of the filter's index ((account, [status | event
 * type], created_at, id), (destination, created_at, id, account)); the rows and their attempts are then read
 * for those ids alone, so the rows skipped are index entries, not deliveries.
 */
export function deliveryListStatement(
  accountId: string,
  filters: DeliveryLogFilters,
  window: Parameters<typeof newestFirstWindow>[2],
): BoundStatement {
  const values: unknown[] = [];
  const where = equalityFilters(
    'd',
    [
      ['account_id', accountId],
      ['status', filters.status],
      ['event_type', filters.eventType],
      ['destination_id', filters.destination],
      ['event_id', filters.event],
    ],
    values,
  );
  const text = `SELECT d.id FROM webhook_deliveries d WHERE ${where} ${newestFirstWindow(['d.created_at', 'd.id'], values, window)}`;
  return { statement: statementOf('deliveries_list', text), values };
}

export type DeliveryPosition = ListPosition;

const DELIVERY_POSITION: Statement = {
  name: 'delivery_position',
  text: `SELECT d.id, d.created_at FROM webhook_deliveries d WHERE d.id = $1 AND d.account_id = $2`,
};

/** Where a delivery of the account sits in the logs, or null (unknown, or another account's). */
export function readDeliveryPosition(db: Queryable, accountId: string, id: string): Promise<DeliveryPosition | null> {
  return readListPosition(db, DELIVERY_POSITION, accountId, id);
}

/** The ids of a page of the account's deliveries that pass the filters, newest first. */
export function readDeliveryIds(
  db: Queryable,
  accountId: string,
  filters: DeliveryLogFilters,
  window: Parameters<typeof newestFirstWindow>[2],
): Promise<{ id: string }[]> {
  return queryBound<{ id: string }>(db, deliveryListStatement(accountId, filters, window));
}

/** The deliveries of `ids` with their attempts and destination's URL, any order. */
export function readLoggedDeliveries(db: Db, ids: string[]): Promise<LoggedDelivery[]> {
  return db.webhookDelivery.findMany({ where: { id: { in: ids } }, include: LOGGED_DELIVERY });
}
