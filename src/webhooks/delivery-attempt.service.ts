import type { Db } from '../db/prisma';
import { queryRows, type Statement } from '../db/sql';
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

/** A delivery with its destination and, if recorded, the attempt asked for (null columns otherwise). */
interface DeliveryRow {
  id: string;
  eventId: string;
  status: string;
  lastError: string | null;
  payload: unknown;
  url: string;
  destinationId: string;
  secret: string | null;
  secretCiphertext: string | null;
  secretKeyId: string | null;
  previousSecretCiphertext: string | null;
  previousSecretKeyId: string | null;
  previousSecretExpiresAt: Date | null;
  active: boolean;
  deletedAt: Date | null;
  recordedOutcome: string | null;
  recordedStatusCode: number | null;
  recordedError: string | null;
  recordedDurationMs: number | null;
}

// Each attempt is one read and one write, prepared statements on the worker's pool (src/db/sql.ts):
// through Prisma they were six queries (an include, an upsert and an update in a transaction) and
// most of a delivery's CPU time in the worker.
const DELIVERY_FOR_ATTEMPT: Statement = {
  name: 'webhook_delivery_for_attempt',
  text: `SELECT d.id, d.event_id AS "eventId", d.status, d.last_error AS "lastError", d.payload,
      w.url, w.active, w.deleted_at AS "deletedAt",
      w.id AS "destinationId", w.secret, w.secret_ciphertext AS "secretCiphertext", w.secret_key_id AS "secretKeyId",
      w.previous_secret_ciphertext AS "previousSecretCiphertext", w.previous_secret_key_id AS "previousSecretKeyId",
      w.previous_secret_expires_at AS "previousSecretExpiresAt",
      a.outcome AS "recordedOutcome", a.status_code AS "recordedStatusCode", a.error AS "recordedError", a.duration_ms AS "recordedDurationMs"
    FROM webhook_deliveries d
    JOIN webhook_destinations w ON w.id = d.destination_id
    LEFT JOIN webhook_attempts a ON a.delivery_id = d.id AND a.attempt_number = $2
    WHERE d.id = $1`,
};

/**
 * Records an attempt and, in the same statement, the delivery's state after it. (delivery, attempt
 * number) is unique: when the attempt is recorded already (a concurrent execution won), nothing changes.
 */
const RECORD_ATTEMPT: Statement = {
  name: 'webhook_record_attempt',
  text: `WITH recorded AS (
      INSERT INTO webhook_attempts (id, delivery_id, attempt_number, scheduled_at, sent_at, url, outcome, status_code, error, duration_ms)
      VALUES ($3, $1, $2, $4, $5, $6, $7, $8, $9, $10)
      ON CONFLICT (delivery_id, attempt_number) DO NOTHING
      RETURNING delivery_id
    )
    UPDATE webhook_deliveries SET status = $11, attempt_count = $2, last_status_code = $8, last_error = $9,
      next_attempt_at = $12, completed_at = $13, updated_at = $14
    WHERE id = (SELECT delivery_id FROM recorded)`,
};

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
  const [delivery] = await queryRows<DeliveryRow>(prisma, DELIVERY_FOR_ATTEMPT, [input.deliveryId, input.attempt]);
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
  await queryRows(prisma, RECORD_ATTEMPT, [
    delivery.id,
    input.attempt,
    newId('webhookAttempt'),
    new Date(input.scheduledAt),
    sentAt,
    delivery.url,
    result.outcome,
    result.statusCode,
    result.error,
    result.durationMs,
    status,
    status === 'retry' ? new Date(now + input.retryDelayMs!) : null,
    status === 'retry' ? null : new Date(now),
    new Date(now),
  ]);
  return { attempt: input.attempt, status, ...result };
}
