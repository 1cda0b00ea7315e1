import type { WebhookAttempt, WebhookDelivery, WebhookDestination } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { execute, queryRows, type Statement } from '../db/sql';
import type { SigningSecretColumns } from './destination.records';

// An attempt that goes as planned is two statements, prepared on the worker's pool (src/db/sql.ts): the
// claim, which answers the delivery and its destination, and the record. Through Prisma they were six
// queries (an include, an upsert and an update in a transaction) and most of a delivery's CPU time in the
// worker. The read comes in only when the claim is refused (docs/decisions.md §10).

/** What a send needs: the delivery, its envelope, and its destination's URL and secrets. */
export type DeliveryToSend = Pick<WebhookDelivery, 'id' | 'eventId' | 'status' | 'lastError' | 'payload'> &
  Pick<WebhookDestination, 'url' | 'active' | 'deletedAt'> &
  SigningSecretColumns & { destinationId: WebhookDestination['id'] };

/** A delivery with its destination, the send in flight if any and, if recorded, the attempt asked for (null columns otherwise). */
export type DeliveryRow = DeliveryToSend &
  Pick<WebhookDelivery, 'sendingAttempt' | 'sendingSince'> & {
    /** Milliseconds since `sendingSince` on the database's clock (null without a send in flight). */
    sendingForMs: number | null;
    recordedOutcome: WebhookAttempt['outcome'] | null;
    recordedScheduledAt: WebhookAttempt['scheduledAt'] | null;
    recordedStatusCode: WebhookAttempt['statusCode'];
    recordedError: WebhookAttempt['error'];
    recordedDurationMs: WebhookAttempt['durationMs'] | null;
  };

const DELIVERY_TO_SEND_COLUMNS = `d.id, d.event_id AS "eventId", d.status, d.last_error AS "lastError", d.payload,
      w.url, w.active, w.deleted_at AS "deletedAt",
      w.id AS "destinationId", w.secret, w.secret_ciphertext AS "secretCiphertext", w.secret_key_id AS "secretKeyId",
      w.previous_secret_ciphertext AS "previousSecretCiphertext", w.previous_secret_key_id AS "previousSecretKeyId",
      w.previous_secret_expires_at AS "previousSecretExpiresAt"`;

const DELIVERY_FOR_ATTEMPT: Statement = {
  name: 'webhook_delivery_for_attempt',
  text: `SELECT ${DELIVERY_TO_SEND_COLUMNS},
      d.sending_attempt AS "sendingAttempt", d.sending_since AS "sendingSince",
      (extract(epoch FROM clock_timestamp() - d.sending_since) * 1000)::float8 AS "sendingForMs",
      a.outcome AS "recordedOutcome", a.scheduled_at AS "recordedScheduledAt", a.status_code AS "recordedStatusCode",
      a.error AS "recordedError", a.duration_ms AS "recordedDurationMs"
    FROM webhook_deliveries d
    JOIN webhook_destinations w ON w.id = d.destination_id
    LEFT JOIN webhook_attempts a ON a.delivery_id = d.id AND a.attempt_number = $2
    WHERE d.id = $1`,
};

/** The delivery, its destination and its attempt `attempt` if recorded; undefined when the delivery does not exist. */
export async function readDeliveryForAttempt(
  prisma: Db,
  deliveryId: string,
  attempt: number,
): Promise<DeliveryRow | undefined> {
  const [delivery] = await queryRows<DeliveryRow>(prisma, DELIVERY_FOR_ATTEMPT, [deliveryId, attempt]);
  return delivery;
}

/**
 * Marks attempt $2 as being sent, if it may be: the delivery is pending or retrying, the attempt is not
 * recorded (attempt_count is the last recorded one), its destination is enabled, and no send of the
 * attempt is in flight, or the one in flight began at $3 (a send taken over: its worker stopped).
 */
const CLAIM_SEND: Statement = {
  name: 'webhook_claim_send',
  text: `UPDATE webhook_deliveries d SET sending_attempt = $2, sending_since = clock_timestamp()
    FROM webhook_destinations w
    WHERE d.id = $1 AND w.id = d.destination_id AND w.active AND w.deleted_at IS NULL
      AND d.status IN ('pending', 'retry') AND d.attempt_count < $2
      AND (d.sending_attempt IS DISTINCT FROM $2 OR d.sending_since = $3)
    RETURNING ${DELIVERY_TO_SEND_COLUMNS}`,
};

/**
 * Claims the send of `attempt` (docs/decisions.md §10): answers what to send, or undefined when the
 * claim is refused (recorded, ended, destination off, or a send of it in flight; the read says which).
 * `takeOverFrom` is the `sendingSince` of a send in flight whose worker stopped: only that send is taken over.
 */
export async function claimSend(
  prisma: Db,
  deliveryId: string,
  attempt: number,
  takeOverFrom: Date | null = null,
): Promise<DeliveryToSend | undefined> {
  const [delivery] = await queryRows<DeliveryToSend>(prisma, CLAIM_SEND, [deliveryId, attempt, takeOverFrom]);
  return delivery;
}

/** CLAIM_SEND for several deliveries at once: each claimed row's `sending_since` is its own update's time. */
const CLAIM_SENDS: Statement = {
  name: 'webhook_claim_sends',
  text: `UPDATE webhook_deliveries d SET sending_attempt = $2, sending_since = clock_timestamp()
    FROM webhook_destinations w
    WHERE d.id = ANY($1::text[]) AND w.id = d.destination_id AND w.active AND w.deleted_at IS NULL
      AND d.status IN ('pending', 'retry') AND d.attempt_count < $2 AND d.sending_attempt IS DISTINCT FROM $2
    RETURNING ${DELIVERY_TO_SEND_COLUMNS}`,
};

/**
 * Claims the send of `attempt` of each of `deliveryIds` (no take-over: claimSend does that one by one):
 * answers the deliveries claimed; those missing were refused.
 */
export function claimSends(prisma: Db, deliveryIds: string[], attempt: number): Promise<DeliveryToSend[]> {
  return queryRows<DeliveryToSend>(prisma, CLAIM_SENDS, [deliveryIds, attempt]);
}

/**
 * Records an attempt and, in the same statement, the delivery's state after it (no send in flight
 * any more). (delivery, attempt number) is unique: when the attempt is recorded already (a concurrent
 * execution won), nothing changes.
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
      next_attempt_at = $12, completed_at = $13, updated_at = $14, sending_attempt = NULL, sending_since = NULL
    WHERE id = (SELECT delivery_id FROM recorded)`,
};

/** The attempt, and the delivery after it (its attempt count, last status code and error are the attempt's). */
export async function recordAttempt(
  prisma: Db,
  attempt: WebhookAttempt,
  delivery: Pick<WebhookDelivery, 'status' | 'nextAttemptAt' | 'completedAt' | 'updatedAt'>,
): Promise<void> {
  await execute(prisma, RECORD_ATTEMPT, [
    attempt.deliveryId,
    attempt.attemptNumber,
    attempt.id,
    attempt.scheduledAt,
    attempt.sentAt,
    attempt.url,
    attempt.outcome,
    attempt.statusCode,
    attempt.error,
    attempt.durationMs,
    delivery.status,
    delivery.nextAttemptAt,
    delivery.completedAt,
    delivery.updatedAt,
  ]);
}

/** Ends a delivery as failed without an attempt: its destination was disabled or deleted (`reason`). */
export async function endDeliveryUnsent(db: Db, id: string, reason: string, at: Date): Promise<void> {
  await db.webhookDelivery.update({
    where: { id },
    data: { status: 'failure', lastError: reason, nextAttemptAt: null, completedAt: at },
  });
}
