import type { Db } from '../db/prisma';
import type { WebhookAttempt } from '../generated/prisma/client';
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

function recordedResult(attempt: WebhookAttempt, status: string): WebhookAttemptResult {
  return {
    attempt: attempt.attemptNumber,
    status: columnValue(DELIVERY_STATUSES, status, 'webhook_deliveries.status'),
    outcome: columnValue(ATTEMPT_OUTCOMES, attempt.outcome, 'webhook_attempts.outcome'),
    statusCode: attempt.statusCode,
    error: attempt.error,
    durationMs: attempt.durationMs,
  };
}

/**
 * One HTTP attempt of a delivery, classified, never thrown: the delivery workflow owns the retry
 * schedule. Idempotent: called again after the attempt was recorded it answers the recorded result
 * and sends nothing; (delivery, attempt number) is unique, so the log never doubles. `missing` when
 * the delivery row does not exist.
 */
export async function attemptDelivery(prisma: Db, input: WebhookAttemptInput, httpTimeoutMs: number): Promise<WebhookAttemptResult | 'missing'> {
  const delivery = await prisma.webhookDelivery.findUnique({
    where: { id: input.deliveryId },
    include: { destination: true, attempts: { where: { attemptNumber: input.attempt } } },
  });
  if (!delivery) return 'missing';
  const recorded = delivery.attempts[0];
  if (recorded) return recordedResult(recorded, delivery.status);
  const skipped = { attempt: input.attempt, outcome: 'skipped' as const, statusCode: null, durationMs: 0 };
  if (TERMINAL.includes(delivery.status)) {
    return { ...skipped, status: columnValue(DELIVERY_STATUSES, delivery.status, 'webhook_deliveries.status'), error: delivery.lastError };
  }

  const { destination } = delivery;
  if (destination.deletedAt || !destination.active) {
    // Retries in flight end when their destination is disabled or deleted: nothing more is sent to it.
    const reason = destination.deletedAt ? 'destination deleted' : 'destination disabled';
    await prisma.webhookDelivery.update({
      where: { id: delivery.id },
      data: { status: 'failure', lastError: reason, nextAttemptAt: null, completedAt: new Date() },
    });
    return { ...skipped, status: 'failure', error: reason };
  }

  const body = JSON.stringify(envelopeFromStored(delivery.payload));
  const sentAt = new Date();
  const result = await sendWebhook(
    destination.url,
    body,
    {
      'content-type': 'application/json',
      'user-agent': 'billing-webhooks/1.0',
      [SIGNATURE_HEADER]: signatureHeader(signingSecrets(destination), body),
      [EVENT_ID_HEADER]: delivery.eventId,
    },
    httpTimeoutMs,
  );
  const status = statusAfter(result.outcome, input.retryDelayMs !== null);
  const now = Date.now();
  await prisma.$transaction([
    prisma.webhookAttempt.upsert({
      where: { deliveryId_attemptNumber: { deliveryId: delivery.id, attemptNumber: input.attempt } },
      update: {},
      create: {
        id: newId('webhookAttempt'),
        deliveryId: delivery.id,
        attemptNumber: input.attempt,
        scheduledAt: new Date(input.scheduledAt),
        sentAt,
        url: destination.url,
        outcome: result.outcome,
        statusCode: result.statusCode,
        error: result.error,
        durationMs: result.durationMs,
      },
    }),
    prisma.webhookDelivery.update({
      where: { id: delivery.id },
      data: {
        status,
        attemptCount: input.attempt,
        lastStatusCode: result.statusCode,
        lastError: result.error,
        nextAttemptAt: status === 'retry' ? new Date(now + input.retryDelayMs!) : null,
        completedAt: status === 'retry' ? null : new Date(now),
      },
    }),
  ]);
  return { attempt: input.attempt, status, ...result };
}
