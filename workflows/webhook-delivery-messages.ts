import { defineQuery } from '@temporalio/workflow';
import type { WebhookAttemptResult, WebhookDeliveryStatus } from '../activities/webhooks';

/**
 * The webhook delivery workflow's interface, shared by the workflow and its callers (the relay, tests,
 * operators): its input and the `state` query.
 */
export interface DeliverWebhookInput {
  deliveryId: string;
  eventId: string;
  destinationId: string;
  /**
   * Attempt 1, made by the relay before it started this workflow (src/webhooks/relay.ts), and the
   * schedule it drew for the retries: the workflow goes on from there. Absent in deliveries started
   * before (the workflow makes attempt 1 and draws the schedule).
   */
  firstAttempt?: WebhookAttemptResult & { scheduledAt: number };
  retryDelaysMs?: number[];
  /**
   * The relay's attempt 1 was still running when it started this workflow (a slow destination): the
   * workflow waits this long (past the HTTP timeout) and then makes attempt 1, which finds the relay's
   * recorded and sends nothing again.
   */
  firstAttemptAfterMs?: number;
}

export interface WebhookDeliveryState extends Omit<
  DeliverWebhookInput,
  'firstAttempt' | 'retryDelaysMs' | 'firstAttemptAfterMs'
> {
  status: WebhookDeliveryStatus;
  /** The drawn schedule: the wait before attempt 2, 3, ... 6. */
  retryDelaysMs: number[];
  attempts: (WebhookAttemptResult & { scheduledAt: number })[];
  /** Workflow time (ms) of the next attempt while waiting for a retry, else null. */
  nextAttemptAt: number | null;
  /** The times above in ISO-8601 (UTC), for people reading the query in the Web UI (`nextAttemptAt`, `attempts.0.scheduledAt`, ...). */
  times?: Record<string, string>;
}

export const webhookStateQuery = defineQuery<WebhookDeliveryState>('state');
