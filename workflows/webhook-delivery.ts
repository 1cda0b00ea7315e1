import {
  defineQuery,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowRandom,
} from '@temporalio/workflow';
import type { WebhookActivities, WebhookAttemptResult, WebhookDeliveryStatus } from '../activities/webhooks';
import { BILLING_STATUS } from '../src/temporal/search-attributes';
import { workflowNow } from './clock';
import { HEARTBEAT_TIMEOUT } from './activity-options';
import { isoTimes, webhookRetrySummary } from './summaries';

import { drawRetryDelays, WEBHOOK_MAX_ATTEMPTS } from './webhook-schedule';

export {
  drawRetryDelays,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_RETRY_JITTER,
} from './webhook-schedule';

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

// Only infrastructure errors reach here (HTTP outcomes are results): retry them until they pass.
const retry = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  nonRetryableErrorTypes: ['WebhookDeliveryMissing'],
};
// The HTTP timeout is 10 s; the rest is room for the database writes.
const startToCloseTimeout = '30 seconds';
const remote = proxyActivities<WebhookActivities>({ startToCloseTimeout, heartbeatTimeout: HEARTBEAT_TIMEOUT, retry });
const local = proxyLocalActivities<WebhookActivities>({ startToCloseTimeout, retry });

/**
 * Since this patch every attempt is a local activity: it runs inside the workflow task that reaches it
 * (the first one comes with the eager start), so a delivery that succeeds at once costs one start and
 * one workflow task instead of a start, two workflow tasks and an activity task. Deliveries started
 * before it replay with the activities they scheduled.
 */
export const LOCAL_ATTEMPTS_PATCH = 'webhook-local-attempts';

/**
 * One delivery of one event to one destination (workflow id `webhook:<event_id>:<destination_id>`).
 * The schedule lives here as durable timers, so a worker restart during a wait loses nothing.
 */
export async function deliverWebhook(input: DeliverWebhookInput): Promise<WebhookDeliveryState> {
  const { firstAttempt } = input;
  const state: WebhookDeliveryState = {
    deliveryId: input.deliveryId,
    eventId: input.eventId,
    destinationId: input.destinationId,
    // The relay started it with BillingStatus as its attempt left the delivery.
    status: firstAttempt?.status ?? 'pending',
    // workflowRandom is the workflow's seeded Math.random stream: replays draw the same factors.
    retryDelaysMs: input.retryDelaysMs ?? drawRetryDelays(() => workflowRandom.random()),
    attempts: firstAttempt ? [firstAttempt] : [],
    nextAttemptAt: null,
  };
  setHandler(webhookStateQuery, () => ({
    ...state,
    times: isoTimes({
      nextAttemptAt: state.nextAttemptAt,
      ...Object.fromEntries(
        state.attempts.map((attempt, index) => [`attempts.${index}.scheduledAt`, attempt.scheduledAt]),
      ),
    }),
  }));
  // Asked when the first attempt is made here, in the activation that makes it (as it always was).
  const attemptActivities = () => (patched(LOCAL_ATTEMPTS_PATCH) ? local : remote);
  // Operators filter deliveries in the Web UI with `BillingStatus = "retry"` and the like; the relay
  // starts the workflow with `pending`.
  const setStatus = (status: WebhookDeliveryStatus) => {
    if (status !== state.status) upsertSearchAttributes([{ key: BILLING_STATUS, value: status }]);
    state.status = status;
  };

  /** Waits for attempt `next` after one that asks for a retry; false when the delivery has ended. */
  async function waitBefore(next: number, previous: WebhookAttemptResult): Promise<boolean> {
    const retryDelayMs = state.retryDelaysMs[next - 2] ?? null;
    if (previous.status !== 'retry' || retryDelayMs === null) return false;
    state.nextAttemptAt = workflowNow() + retryDelayMs;
    await sleep(retryDelayMs, { summary: webhookRetrySummary(next, WEBHOOK_MAX_ATTEMPTS, retryDelayMs) });
    return true;
  }

  if (firstAttempt && !(await waitBefore(2, firstAttempt))) return state;
  if (input.firstAttemptAfterMs) {
    state.nextAttemptAt = workflowNow() + input.firstAttemptAfterMs;
    await sleep(input.firstAttemptAfterMs, { summary: "after the relay's attempt 1 (a slow destination)" });
  }
  for (let attempt = firstAttempt ? 2 : 1; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt++) {
    const retryDelayMs = state.retryDelaysMs[attempt - 1] ?? null;
    const scheduledAt = workflowNow();
    state.nextAttemptAt = null;
    const result = await attemptActivities().attemptWebhookDelivery.executeWithOptions(
      { summary: `deliver ${input.eventId} to ${input.destinationId}, attempt ${attempt} of ${WEBHOOK_MAX_ATTEMPTS}` },
      [{ deliveryId: input.deliveryId, attempt, scheduledAt, retryDelayMs }],
    );
    state.attempts.push({ ...result, scheduledAt });
    setStatus(result.status);
    if (!(await waitBefore(attempt + 1, result))) break;
  }
  return state;
}
