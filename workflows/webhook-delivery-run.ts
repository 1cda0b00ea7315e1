import { patched, sleep, upsertSearchAttributes, workflowRandom } from '@temporalio/workflow';
import type { WebhookAttemptResult, WebhookDeliveryStatus } from '../activities/webhooks';
import { BILLING_STATUS } from '../src/temporal/search-attributes';
import { workflowNow } from './clock';
import { localAttempts, remoteAttempts } from './webhook-delivery-activities';
import type { DeliverWebhookInput, WebhookDeliveryState } from './webhook-delivery-messages';
import { WEBHOOK_DELIVERY_PATCHES as PATCHES } from './webhook-delivery-patches';
import { drawRetryDelays, WEBHOOK_MAX_ATTEMPTS } from './webhook-schedule';
import { isoTimes, webhookRetrySummary } from './summaries';

/**
 * One delivery's state and its steps: an attempt (which records its result and the delivery's status
 * in the database), and the waits of the retry schedule as durable timers. The workflow
 * (workflows/webhook-delivery.ts) runs the loop; what an HTTP answer means is the attempt's
 * (src/webhooks/delivery-attempt.service.ts).
 */
export class DeliveryRun {
  readonly state: WebhookDeliveryState;

  constructor(private readonly input: DeliverWebhookInput) {
    const { firstAttempt } = input;
    this.state = {
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
  }

  /** The `state` query: the state, with its times in ISO-8601. */
  view(): WebhookDeliveryState {
    const { state } = this;
    return {
      ...state,
      times: isoTimes({
        nextAttemptAt: state.nextAttemptAt,
        ...Object.fromEntries(
          state.attempts.map((attempt, index) => [`attempts.${index}.scheduledAt`, attempt.scheduledAt]),
        ),
      }),
    };
  }

  /**
   * Operators filter deliveries in the Web UI with `BillingStatus = "retry"` and the like; the relay
   * starts the workflow with `pending`.
   */
  private setStatus(status: WebhookDeliveryStatus): void {
    if (status !== this.state.status) upsertSearchAttributes([{ key: BILLING_STATUS, value: status }]);
    this.state.status = status;
  }

  /** Asked when the first attempt is made here, in the activation that makes it (as it always was). */
  private attempts() {
    return patched(PATCHES.localAttempts) ? localAttempts : remoteAttempts;
  }

  /** Makes attempt `attempt`, telling it the wait before the next (null on the last: its failure is final). */
  async attempt(attempt: number): Promise<WebhookAttemptResult> {
    const { input, state } = this;
    const retryDelayMs = state.retryDelaysMs[attempt - 1] ?? null;
    const scheduledAt = workflowNow();
    state.nextAttemptAt = null;
    const result = await this.attempts().attemptWebhookDelivery.executeWithOptions(
      { summary: `deliver ${input.eventId} to ${input.destinationId}, attempt ${attempt} of ${WEBHOOK_MAX_ATTEMPTS}` },
      [{ deliveryId: input.deliveryId, attempt, scheduledAt, retryDelayMs }],
    );
    state.attempts.push({ ...result, scheduledAt });
    this.setStatus(result.status);
    return result;
  }

  /**
   * Whether attempt `next` comes after `previous`: it asked for a retry and the schedule has a delay left.
   * Asked apart from the wait, without a promise, so that a delivery that has ended returns with none made.
   */
  retriesAfter(next: number, previous: WebhookAttemptResult): boolean {
    return previous.status === 'retry' && this.state.retryDelaysMs[next - 2] !== undefined;
  }

  /** Waits for attempt `next` after `previous`, which asked for a retry (`retriesAfter`). */
  async waitBefore(next: number, previous: WebhookAttemptResult): Promise<void> {
    const waitMs = this.waitAfter(previous, this.state.retryDelaysMs[next - 2]!);
    this.state.nextAttemptAt = workflowNow() + waitMs;
    if (waitMs > 0) await sleep(waitMs, { summary: webhookRetrySummary(next, WEBHOOK_MAX_ATTEMPTS, waitMs) });
  }

  /**
   * The retry delay counts from the end of the failed attempt: an attempt answered from its record
   * (`endedAt`) ended a while ago, and only what is left of the delay remains to wait.
   */
  private waitAfter(previous: WebhookAttemptResult, retryDelayMs: number): number {
    if (previous.endedAt === undefined || !patched(PATCHES.retryFromAttemptEnd)) return retryDelayMs;
    return Math.max(0, previous.endedAt + retryDelayMs - workflowNow());
  }

  /** Waits past the relay's attempt 1, still running when it started the workflow (a slow destination). */
  async waitForRelay(afterMs: number): Promise<void> {
    this.state.nextAttemptAt = workflowNow() + afterMs;
    await sleep(afterMs, { summary: "after the relay's attempt 1 (a slow destination)" });
  }
}
