import type { MetricMeter, MetricTags } from '@temporalio/common';
import type { WebhookAttemptResult } from './delivery-attempt.service';

/**
 * `billing_webhook_attempts{outcome}` (success, retryable, permanent, skipped) and
 * `billing_webhook_sends_repeated`, the sends made again after an interrupted one (the receiver may
 * have had them twice: docs/decisions.md §10), on a worker runtime's meter: the relay's for attempt 1,
 * the activity's for the others (docs/operations.md, "Worker metrics").
 */
export function countWebhookAttempt(meter: MetricMeter, result: WebhookAttemptResult, tags: MetricTags = {}): void {
  meter
    .createCounter('billing_webhook_attempts', 'attempts', 'Webhook delivery attempts by outcome')
    .withTags({ ...tags, outcome: result.outcome })
    .add(1);
  if (result.sentAgain)
    meter
      .createCounter(
        'billing_webhook_sends_repeated',
        'sends',
        'Webhook attempts sent again because an earlier send of them was interrupted before its result was recorded',
      )
      .withTags(tags)
      .add(1);
}
