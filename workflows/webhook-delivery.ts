import { setHandler } from '@temporalio/workflow';
import { DeliveryRun } from './webhook-delivery-run';
import { webhookStateQuery, type DeliverWebhookInput, type WebhookDeliveryState } from './webhook-delivery-messages';
import { WEBHOOK_MAX_ATTEMPTS } from './webhook-schedule';

// Callers (the relay, tests) import the delivery's interface and schedule from here, as before the split.
export { webhookStateQuery, type DeliverWebhookInput, type WebhookDeliveryState } from './webhook-delivery-messages';
export {
  drawRetryDelays,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_RETRY_JITTER,
} from './webhook-schedule';

/**
 * One delivery of one event to one destination (workflow id `webhook:<event_id>:<destination_id>`,
 * decisions.md §10). The schedule lives here as durable timers, so a worker restart during a wait
 * loses nothing. Its one message is the `state` query. Then the loop: go on from the relay's attempt 1
 * (or wait past it, or make it), then attempt after attempt while one asks for a retry and the
 * schedule has a delay left.
 */
export async function deliverWebhook(input: DeliverWebhookInput): Promise<WebhookDeliveryState> {
  const run = new DeliveryRun(input);
  setHandler(webhookStateQuery, () => run.view());

  const { firstAttempt } = input;
  if (firstAttempt) {
    // Most deliveries end with the relay's attempt 1: they return here having awaited nothing (the SDK's
    // promise hook takes a stack trace of each promise a workflow makes; docs/performance.md, "Webhook
    // deliveries, sixth pass"). The commands are the same either way: none before the wait's timer.
    if (!run.retriesAfter(2, firstAttempt)) return run.state;
    await run.waitBefore(2, firstAttempt);
  }
  if (input.firstAttemptAfterMs) await run.waitForRelay(input.firstAttemptAfterMs);
  for (let attempt = firstAttempt ? 2 : 1; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt++) {
    const result = await run.attempt(attempt);
    if (!run.retriesAfter(attempt + 1, result)) break;
    await run.waitBefore(attempt + 1, result);
  }
  return run.state;
}
