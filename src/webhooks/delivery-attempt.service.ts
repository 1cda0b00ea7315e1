import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../db/prisma';
import type { WebhookAttempt, WebhookDelivery } from '../generated/prisma/client';
import { logger as defaultLogger, type Logger } from '../http/logger';
import {
  claimSend,
  endDeliveryUnsent,
  readDeliveryForAttempt,
  recordAttempt,
  type DeliveryRow,
  type DeliveryToSend,
} from './delivery-attempt.records';
import { columnValue } from '../lib/columns';
import { newId } from '../lib/ids';
import { envelopeFromStored } from './envelope';
import { ATTEMPT_OUTCOMES, sendWebhook, type AttemptOutcome } from './sender';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from './signing';
import { DELIVERY_STATUSES } from './webhook.schemas';
import { signingSecrets } from './destination.service';
import type { SendClaimer } from './send-claims';

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
  /**
   * Workflow time (ms) at which the attempt ended, when whoever waits for the next one learns of it
   * later: answered from its record (an earlier execution made it: the relay's attempt 1, or one
   * before a crash), or handed over (the relay's attempt 1 in the workflow's input). The wait before
   * the next attempt has partly passed already. Absent when this execution made it, just now.
   */
  endedAt?: number;
  /**
   * An earlier send of this attempt was interrupted (its worker stopped before recording it) and this
   * execution sent it again: the receiver may have had it twice (docs/decisions.md §10).
   */
  sentAgain?: true;
}

/**
 * After the HTTP timeout, how long a send may still take to be recorded (a busy event loop, a slow
 * pool) before another execution of its attempt counts it as interrupted and sends again.
 */
export const SEND_RECORD_MARGIN_MS = 5_000;

/** How long after a send began it may still be in flight or being recorded (docs/decisions.md §10). */
export function sendWindowMs(httpTimeoutMs: number): number {
  return httpTimeoutMs + SEND_RECORD_MARGIN_MS;
}

const TERMINAL: readonly string[] = ['success', 'failure'];

function statusAfter(outcome: AttemptOutcome, retriesRemain: boolean): WebhookDeliveryStatus {
  if (outcome === 'success') return 'success';
  return outcome === 'retryable' && retriesRemain ? 'retry' : 'failure';
}

function recordedResult(delivery: DeliveryRow, attempt: number): WebhookAttemptResult {
  const durationMs = delivery.recordedDurationMs!;
  return {
    attempt,
    status: columnValue(DELIVERY_STATUSES, delivery.status, 'webhook_deliveries.status'),
    outcome: columnValue(ATTEMPT_OUTCOMES, delivery.recordedOutcome!, 'webhook_attempts.outcome'),
    statusCode: delivery.recordedStatusCode,
    error: delivery.recordedError,
    durationMs,
    endedAt: delivery.recordedScheduledAt!.getTime() + durationMs,
  };
}

/** A send whose result could not be recorded (the database went away after the request), kept to record. */
interface UnrecordedSend {
  attempt: WebhookAttempt;
  delivery: Pick<WebhookDelivery, 'status' | 'nextAttemptAt' | 'completedAt' | 'updatedAt'>;
  result: WebhookAttemptResult;
}

/**
 * This process's sends whose record failed, by delivery and attempt: the attempt's next execution here
 * (the activity's retry, the relay's next pass) records the result instead of sending again. Bounded:
 * the oldest go first, to be sent again.
 */
const unrecordedSends = new Map<string, UnrecordedSend>();
const MAX_UNRECORDED_SENDS = 10_000;
const sendKey = (input: WebhookAttemptInput) => `${input.deliveryId}:${input.attempt}`;

/** How often an execution waiting on a send in flight elsewhere looks whether it has been recorded. */
const IN_FLIGHT_RECHECK_MS = 500;

/**
 * Claims refused with no send of the attempt in flight and no reason the read shows (a race with the
 * attempt's record) are tried again this many times; then the execution fails, and its retry tries again.
 */
const UNEXPLAINED_REFUSALS = 3;

/**
 * One HTTP attempt of a delivery, classified, never thrown: the delivery workflow owns the retry
 * schedule. Idempotent: called again after the attempt was recorded it answers the recorded result
 * and sends nothing; (delivery, attempt number) is unique, so the log never doubles. `missing` when
 * the delivery row does not exist.
 *
 * Each send is claimed first (docs/decisions.md §10): another execution of the same attempt (an
 * activity retried after a heartbeat timeout, a workflow task replayed on another worker, the workflow
 * after the relay's slow attempt 1) waits until the send in flight has been recorded or cannot be in
 * flight any more (`sendWindowMs`), and sends again only then: a send whose worker stopped before
 * recording it. That resend is the one duplicate left (`sentAgain`): whether the receiver took the
 * first request cannot be known.
 */
export async function attemptDelivery(
  prisma: Db,
  input: WebhookAttemptInput,
  httpTimeoutMs: number,
  log: Logger = defaultLogger,
  claim: SendClaimer = (deliveryId, attempt) => claimSend(prisma, deliveryId, attempt),
): Promise<WebhookAttemptResult | 'missing'> {
  const unrecorded = unrecordedSends.get(sendKey(input));
  if (unrecorded) {
    await recordAttempt(prisma, unrecorded.attempt, unrecorded.delivery);
    unrecordedSends.delete(sendKey(input));
    return unrecorded.result;
  }
  let takeOverFrom: Date | null = null;
  for (let refusals = 0; ;) {
    const claimed = takeOverFrom
      ? await claimSend(prisma, input.deliveryId, input.attempt, takeOverFrom)
      : await claim(input.deliveryId, input.attempt);
    if (claimed) {
      if (takeOverFrom)
        log.warn(
          { deliveryId: input.deliveryId, attempt: input.attempt, sendingSince: takeOverFrom },
          'webhook attempt sent again: its earlier send was interrupted before its result was recorded (the receiver may get it twice)',
        );
      return send(prisma, input, claimed, httpTimeoutMs, takeOverFrom !== null);
    }
    takeOverFrom = null;
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
      await endDeliveryUnsent(prisma, delivery.id, reason, new Date());
      return { ...skipped, status: 'failure', error: reason };
    }
    if (delivery.sendingAttempt === input.attempt) {
      const stillPossibleMs = sendWindowMs(httpTimeoutMs) - delivery.sendingForMs!;
      // The send in flight may still be answered and recorded: look again soon, until its window has passed.
      if (stillPossibleMs > 0) await sleep(Math.ceil(Math.min(stillPossibleMs, IN_FLIGHT_RECHECK_MS)));
      else takeOverFrom = delivery.sendingSince;
      continue;
    }
    if (++refusals >= UNEXPLAINED_REFUSALS)
      throw new Error(`attempt ${input.attempt} of webhook delivery ${input.deliveryId} could not be claimed`);
  }
}

/** Sends the claimed attempt and records its result (kept in this process when the record fails). */
async function send(
  prisma: Db,
  input: WebhookAttemptInput,
  delivery: DeliveryToSend,
  httpTimeoutMs: number,
  sentAgain: boolean,
): Promise<WebhookAttemptResult> {
  const body = JSON.stringify(envelopeFromStored(delivery.payload));
  const sentAt = new Date();
  const sent = await sendWebhook(
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
  const status = statusAfter(sent.outcome, input.retryDelayMs !== null);
  const now = Date.now();
  const recorded: UnrecordedSend = {
    attempt: {
      id: newId('webhookAttempt'),
      deliveryId: delivery.id,
      attemptNumber: input.attempt,
      scheduledAt: new Date(input.scheduledAt),
      sentAt,
      url: delivery.url,
      outcome: sent.outcome,
      statusCode: sent.statusCode,
      error: sent.error,
      durationMs: sent.durationMs,
    },
    delivery: {
      status,
      nextAttemptAt: status === 'retry' ? new Date(now + input.retryDelayMs!) : null,
      completedAt: status === 'retry' ? null : new Date(now),
      updatedAt: new Date(now),
    },
    result: { attempt: input.attempt, status, ...sent, ...(sentAgain ? { sentAgain: true as const } : {}) },
  };
  try {
    await recordAttempt(prisma, recorded.attempt, recorded.delivery);
  } catch (error) {
    if (unrecordedSends.size >= MAX_UNRECORDED_SENDS) unrecordedSends.delete(unrecordedSends.keys().next().value!);
    unrecordedSends.set(sendKey(input), recorded);
    throw error;
  }
  return recorded.result;
}
