import {
  proxyActivities,
  proxyLocalActivities,
  type ActivityInterfaceFor,
  type LocalActivityInterfaceFor,
} from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';
import { HEARTBEAT_TIMEOUT } from './activity-options';

// Only infrastructure errors reach here (HTTP outcomes are results): retry them until they pass.
const retry = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  nonRetryableErrorTypes: ['WebhookDeliveryMissing'],
};
/**
 * An attempt whose send is in flight in another execution waits until that send is recorded or
 * cannot be in flight any more (the 10 s HTTP timeout and 5 s: `sendWindowMs`, decisions.md §10),
 * then may send itself (10 s); the rest is room for the database writes.
 */
const startToCloseTimeout = '45 seconds';

/** An attempt as an activity task: deliveries started before attempts became local (WEBHOOK_DELIVERY_PATCHES.localAttempts). */
export const remoteAttempts: ActivityInterfaceFor<WebhookActivities> = proxyActivities<WebhookActivities>({
  startToCloseTimeout,
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry,
});

/** An attempt in the workflow task itself (local activities do not heartbeat). */
export const localAttempts: LocalActivityInterfaceFor<WebhookActivities> = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout,
  retry,
});
