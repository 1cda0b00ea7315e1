import { queryBound, statementOf, type BoundStatement, type Queryable } from '../db/sql';

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
