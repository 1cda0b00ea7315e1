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
/** The HTTP timeout is 10 s (decisions.md §10); the rest is room for the database writes. */
const startToCloseTimeout = '30 seconds';

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
