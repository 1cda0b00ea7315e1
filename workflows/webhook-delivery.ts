import { defineQuery, patched, proxyActivities, proxyLocalActivities, setHandler, sleep, upsertSearchAttributes, workflowRandom } from '@temporalio/workflow';
import type { WebhookActivities, WebhookAttemptResult, WebhookDeliveryStatus } from '../activities/webhooks';
import { BILLING_STATUS } from '../src/temporal/search-attributes';
import { workflowNow } from './clock';
import { HEARTBEAT_TIMEOUT } from './activity-options';
import { isoTimes, webhookRetrySummary } from './summaries';

/** Spec delivery rule 5: five retries after the first delivery, about 43 minutes in all. */
export const WEBHOOK_RETRY_DELAYS_MS = [15_000, 45_000, 120_000, 600_000, 1_800_000] as const;
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;
/** Each delay is multiplied by a factor drawn uniformly in [1 - JITTER, 1 + JITTER]. */
export const WEBHOOK_RETRY_JITTER = 0.2;

export interface DeliverWebhookInput {
  deliveryId: string;
  eventId: string;
  destinationId: string;
}

export interface WebhookDeliveryState extends DeliverWebhookInput {
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
const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['WebhookDeliveryMissing'] };
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
  const state: WebhookDeliveryState = {
    ...input,
    status: 'pending',
    // workflowRandom is the workflow's seeded Math.random stream: replays draw the same factors.
    retryDelaysMs: WEBHOOK_RETRY_DELAYS_MS.map((base) =>
      Math.round(base * (1 - WEBHOOK_RETRY_JITTER + 2 * WEBHOOK_RETRY_JITTER * workflowRandom.random())),
    ),
    attempts: [],
    nextAttemptAt: null,
  };
  setHandler(webhookStateQuery, () => ({
    ...state,
    times: isoTimes({
      nextAttemptAt: state.nextAttemptAt,
      ...Object.fromEntries(state.attempts.map((attempt, index) => [`attempts.${index}.scheduledAt`, attempt.scheduledAt])),
    }),
  }));
  const { attemptWebhookDelivery } = patched(LOCAL_ATTEMPTS_PATCH) ? local : remote;
  // Operators filter deliveries in the Web UI with `BillingStatus = "retry"` and the like; the relay
  // starts the workflow with `pending`.
  const setStatus = (status: WebhookDeliveryStatus) => {
    if (status !== state.status) upsertSearchAttributes([{ key: BILLING_STATUS, value: status }]);
    state.status = status;
  };

  for (let attempt = 1; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt++) {
    const retryDelayMs = state.retryDelaysMs[attempt - 1] ?? null;
    const scheduledAt = workflowNow();
    state.nextAttemptAt = null;
    const result = await attemptWebhookDelivery.executeWithOptions({ summary: `deliver ${input.eventId} to ${input.destinationId}, attempt ${attempt} of ${WEBHOOK_MAX_ATTEMPTS}` }, [
      { deliveryId: input.deliveryId, attempt, scheduledAt, retryDelayMs },
    ]);
    state.attempts.push({ ...result, scheduledAt });
    setStatus(result.status);
    if (result.status !== 'retry' || retryDelayMs === null) break;
    state.nextAttemptAt = workflowNow() + retryDelayMs;
    await sleep(retryDelayMs, { summary: webhookRetrySummary(attempt + 1, WEBHOOK_MAX_ATTEMPTS, retryDelayMs) });
  }
  return state;
}
