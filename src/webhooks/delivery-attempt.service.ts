import type { Db } from '../db/prisma';
import { readDeliveryForAttempt, recordAttempt, type DeliveryRow } from './delivery-attempt.records';
import { columnValue } from '../lib/columns';
import { newId } from '../lib/ids';
import { envelopeFromStored } from './envelope';
import { ATTEMPT_OUTCOMES, sendWebhook, type AttemptOutcome } from './sender';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from './signing';
import { DELIVERY_STATUSES } from './webhook.schemas';
import { signingSecrets } from './destination.service';

export type WebhookDeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookAttemptInput {
  deliveryId: string;
  attempt: number;
  /** Workflow time (ms) at which the schedule called for this attempt; the log records it. */
  scheduledAt: number;
  /** Delay before the next attempt if this one fails retryably; null on the last attempt. */
  retryDelayMs: number | null;
}

export interface WebhookAttemptResult {
  attempt: number;
  /** The delivery's status after this attempt. */
  status: WebhookDeliveryStatus;
  /** `skipped`: no request was sent (destination disabled or deleted, or the delivery had already ended). */
  outcome: AttemptOutcome | 'skipped';
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

const TERMINAL: readonly string[] = ['success', 'failure'];

function statusAfter(outcome: AttemptOutcome, retriesRemain: boolean): WebhookDeliveryStatus {
  if (outcome === 'success') return 'success';
  return outcome === 'retryable' && retriesRemain ? 'retry' : 'failure';
}

function recordedResult(delivery: DeliveryRow, attempt: number): WebhookAttemptResult {
  return {
    attempt,
    status: columnValue(DELIVERY_STATUSES, delivery.status, 'webhook_deliveries.status'),
    outcome: columnValue(ATTEMPT_OUTCOMES, delivery.recordedOutcome!, 'webhook_attempts.outcome'),
    statusCode: delivery.recordedStatusCode,
    error: delivery.recordedError,
    durationMs: delivery.recordedDurationMs!,
  };
}

/**
 * One HTTP attempt of a delivery, classified, never thrown: the delivery workflow owns the retry
 * schedule. Idempotent: called again after the attempt was recorded it answers the recorded result
 * and sends nothing; (delivery, attempt number) is unique, so the log never doubles. `missing` when
 * the delivery row does not exist.
 */
export async function attemptDelivery(
  prisma: Db,
  input: WebhookAttemptInput,
  httpTimeoutMs: number,
): Promise<WebhookAttemptResult | 'missing'> {
  const delivery = await readDeliveryForAttempt(prisma, input.deliveryId, input.attempt);
  if (!delivery) return 'missing';
  if (delivery.recordedOutcome !== null) return recordedResult(delivery, input.attempt);
  const skipped = { attempt: input.attempt, outcome: 'skipped' as const, statusCode: null, durationMs: 0 };
  if (TERMINAL.includes(delivery.status)) {
    return {
      ...skipped,
      status: columnValue(DELIVERY_STATUSES, delivery.status, 'webhook_deliveries.status'),
      error: delivery.lastError,
    };
  }

  if (delivery.deletedAt || !delivery.active) {
    // Retries in flight end when their destination is disabled or deleted: nothing more is sent to it.
    const reason = delivery.deletedAt ? 'destination deleted' : 'destination disabled';
    await prisma.webhookDelivery.update({
      where: { id: delivery.id },
      data: { status: 'failure', lastError: reason, nextAttemptAt: null, completedAt: new Date() },
    });
    return { ...skipped, status: 'failure', error: reason };
  }

  const body = JSON.stringify(envelopeFromStored(delivery.payload));
  const sentAt = new Date();
  const result = await sendWebhook(
    delivery.url,
    body,
    {
      'content-type': 'application/json',
      'user-agent': 'billing-webhooks/1.0',
      [SIGNATURE_HEADER]: signatureHeader(signingSecrets({ ...delivery, id: delivery.destinationId }), body),
      [EVENT_ID_HEADER]: delivery.eventId,
    },
    httpTimeoutMs,
  );
  const status = statusAfter(result.outcome, input.retryDelayMs !== null);
  const now = Date.now();
  await recordAttempt(
    prisma,
    {
      id: newId('webhookAttempt'),
      deliveryId: delivery.id,
      attemptNumber: input.attempt,
      scheduledAt: new Date(input.scheduledAt),
      sentAt,
      url: delivery.url,
      outcome: result.outcome,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
    },
    {
      status,
      nextAttemptAt: status === 'retry' ? new Date(now + input.retryDelayMs!) : null,
      completedAt: status === 'retry' ? null : new Date(now),
      updatedAt: new Date(now),
    },
  );
  return { attempt: input.attempt, status, ...result };
}
