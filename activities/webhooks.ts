import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../src/db/prisma';
import { attemptDelivery, type WebhookAttemptInput, type WebhookAttemptResult } from '../src/webhooks';
import { WEBHOOK_TIMEOUT_MS } from '../src/webhooks';
import { countWebhookAttempt } from '../src/webhooks';

export type { WebhookAttemptInput, WebhookAttemptResult, WebhookDeliveryStatus } from '../src/webhooks';

export interface WebhookActivityDeps {
  prisma: Db;
  /** Per-attempt HTTP timeout; decisions.md §10 fixes it at 10 s. */
  httpTimeoutMs?: number;
}

/** The attempt's counters (src/webhooks/attempt-metrics.ts) on the worker's metrics exporter (WORKER_METRICS_PORT); none outside a worker (a test calling the activity directly). */
function countAttempt(result: WebhookAttemptResult): void {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return;
  }
  countWebhookAttempt(context.metricMeter, result);
}

export function createWebhookActivities({ prisma, httpTimeoutMs = WEBHOOK_TIMEOUT_MS }: WebhookActivityDeps) {
  return {
    /** One attempt of a delivery (src/webhooks/delivery-attempt.service.ts); a missing delivery ends the workflow. */
    async attemptWebhookDelivery(input: WebhookAttemptInput): Promise<WebhookAttemptResult> {
      const result = await attemptDelivery(prisma, input, httpTimeoutMs);
      if (result === 'missing')
        throw ApplicationFailure.nonRetryable(
          `Webhook delivery ${input.deliveryId} does not exist`,
          'WebhookDeliveryMissing',
        );
      countAttempt(result);
      return result;
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
