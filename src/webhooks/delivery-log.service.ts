import { DELIVERY_STATUSES } from './webhook.schemas';
import { columnValue } from '../lib/columns';
import type { Db } from '../db/prisma';
import { keysetListPage, type Page } from '../http/pagination';
import { toUnixSeconds } from '../lib/time';
import { envelopeFromStored } from './envelope';
import { webhookWorkflowId } from './workflow-id';
import { ATTEMPT_OUTCOMES } from './sender';
import {
  countDeliveries,
  readDeliveryIds,
  readDeliveryPosition,
  readLoggedDeliveries,
  type DeliveryLogFilters,
  type LoggedDelivery,
} from './delivery-log.records';
import type { DeliveryLogObject, LogsQuery } from './webhook.schemas';

export function toDeliveryLogObject(delivery: LoggedDelivery): DeliveryLogObject {
  return {
    id: delivery.id,
    object: 'webhook_delivery',
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    destination: delivery.destinationId,
    destination_url: delivery.destination.url,
    workflow_id: webhookWorkflowId(delivery.eventId, delivery.destinationId, delivery.resend),
    resend: delivery.resend,
    payload: envelopeFromStored(delivery.payload),
    status: columnValue(DELIVERY_STATUSES, delivery.status, 'webhook_deliveries.status'),
    attempt_count: delivery.attemptCount,
    status_code: delivery.lastStatusCode,
    error: delivery.lastError,
    next_attempt_at: toUnixSeconds(delivery.nextAttemptAt),
    completed_at: toUnixSeconds(delivery.completedAt),
    created: toUnixSeconds(delivery.createdAt),
    updated: toUnixSeconds(delivery.updatedAt),
    attempts: [...delivery.attempts]
      .sort((a, b) => a.attemptNumber - b.attemptNumber)
      .map((attempt) => ({
        attempt: attempt.attemptNumber,
        attempted_at: toUnixSeconds(attempt.sentAt),
        url: attempt.url,
        outcome: columnValue(ATTEMPT_OUTCOMES, attempt.outcome, 'webhook_attempts.outcome'),
        status_code: attempt.statusCode,
        error: attempt.error,
        duration_ms: attempt.durationMs,
      })),
  };
}

/** The deliveries of `ids` with their attempts, in the order of `ids`. */
async function deliveriesOf(prisma: Db, ids: string[]): Promise<DeliveryLogObject[]> {
  const rows = await readLoggedDeliveries(prisma, ids);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toDeliveryLogObject(row)] : [];
  });
}

/**
 * The account's deliveries, newest first, with their attempts: a page at an offset or after/before a cursor
 * (docs/decisions.md §36), each a range of the filter's index read for ids; the exact itemsTotal from the
 * counters (docs/decisions.md §23), not a count of the account's deliveries.
 */
export async function listDeliveryLogs(
  prisma: Db,
  accountId: string,
  query: LogsQuery,
): Promise<Page<DeliveryLogObject>> {
  const filters: DeliveryLogFilters = {
    status: query.status,
    eventType: query.event_type,
    destination: query.destination,
    event: query.event,
  };
  const ids = (window: Parameters<typeof readDeliveryIds>[3]) => readDeliveryIds(prisma, accountId, filters, window);
  return keysetListPage(query, {
    kind: 'webhook delivery',
    find: (id) => readDeliveryPosition(prisma, accountId, id),
    after: (at, forward, take) => ids({ at: [at.createdAt, at.id], forward, take: take + 1 }),
    page: (take, skip) => ids({ take, skip }),
    count: () => countDeliveries(prisma, accountId, filters),
    objects: (rows) =>
      deliveriesOf(
        prisma,
        rows.map((row) => row.id),
      ),
  });
}
