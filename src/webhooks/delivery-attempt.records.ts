import type { WebhookAttempt, WebhookDelivery, WebhookDestination } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { execute, queryRows, type Statement } from '../db/sql';

// Each attempt is one read and one write, prepared statements on the worker's pool (src/db/sql.ts):
// through Prisma they were six queries (an include, an upsert and an update in a transaction) and
// most of a delivery's CPU time in the worker.

/** A delivery with its destination and, if recorded, the attempt asked for (null columns otherwise). */
export type DeliveryRow = Pick<WebhookDelivery, 'id' | 'eventId' | 'status' | 'lastError' | 'payload'> &
  Pick<
    WebhookDestination,
    | 'url'
    | 'active'
    | 'deletedAt'
    | 'secret'
    | 'secretCiphertext'
    | 'secretKeyId'
    | 'previousSecretCiphertext'
    | 'previousSecretKeyId'
    | 'previousSecretExpiresAt'
  > & {
    destinationId: WebhookDestination['id'];
    recordedOutcome: WebhookAttempt['outcome'] | null;
    recordedStatusCode: WebhookAttempt['statusCode'];
    recordedError: WebhookAttempt['error'];
    recordedDurationMs: WebhookAttempt['durationMs'] | null;
  };

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
