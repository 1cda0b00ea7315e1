import type { Db } from '../src/db/prisma';
import { createWebhookActivities } from './webhooks';
import { createPaymentPlanActivities } from './payment-plans';
import { createSubscriptionActivities } from './subscriptions';
import { createTestClockActivities } from './test-clocks';
import { withHeartbeats } from './heartbeat';

export interface ActivityDeps {
  prisma: Db;
}

/** Every activity the worker runs, bound to its dependencies, heartbeating while they run. Activities must be idempotent. */
export function createActivities(deps: ActivityDeps) {
  return withHeartbeats({
    ...createWebhookActivities(deps),
    ...createPaymentPlanActivities(deps),
    ...createSubscriptionActivities(deps),
    ...createTestClockActivities(deps),
  });
}

export type Activities = ReturnType<typeof createActivities>;
