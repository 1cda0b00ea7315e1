import { DELIVERY_STATUSES } from './webhook.schemas';
import { columnValue } from '../lib/columns';
import type { Prisma, WebhookAttempt, WebhookDelivery } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { pageEnvelope, pageWindow, type Page } from '../http/pagination';
import { toUnixSeconds } from '../lib/time';
import { envelopeFromStored } from './envelope';
import { webhookWorkflowId } from './workflow-id';
import { ATTEMPT_OUTCOMES } from './sender';
import { countDeliveries } from './delivery-log.records';
import type { DeliveryLogObject, LogsQuery } from './webhook.schemas';

export function toDeliveryLogObject(delivery: WebhookDelivery & { attempts: WebhookAttempt[] }): DeliveryLogObject {
  return {
    id: delivery.id,
    object: 'webhook_delivery',
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    destination: delivery.destinationId,
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

/** The account's deliveries, newest first, with their attempts. */
export async function listDeliveryLogs(
  prisma: Db,
  accountId: string,
  query: LogsQuery,
): Promise<Page<DeliveryLogObject>> {
  const where: Prisma.WebhookDeliveryWhereInput = {
    accountId,
    ...(query.status ? { status: query.status } : {}),
    ...(query.event_type ? { eventType: query.event_type } : {}),
    ...(query.destination ? { destinationId: query.destination } : {}),
    ...(query.event ? { eventId: query.event } : {}),
  };
  const [deliveries, total] = await Promise.all([
    prisma.webhookDelivery.findMany({
      where,
      include: { attempts: true },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      ...pageWindow(query),
    }),
    // Exact, from the counters (docs/decisions.md §23), not a count of the account's deliveries.
    countDeliveries(prisma, accountId, {
      status: query.status,
      eventType: query.event_type,
      destination: query.destination,
      event: query.event,
    }),
  ]);
  return pageEnvelope(deliveries.map(toDeliveryLogObject), total, query);
}
