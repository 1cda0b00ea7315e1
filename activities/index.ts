import type { Db } from '../src/db/prisma';
import type { Gateways } from '../src/payments';
import { createWebhookActivities } from './webhooks';
import { createPaymentPlanActivities } from './payment-plans';
import { createSubscriptionActivities } from './subscriptions';
import { createTestClockActivities } from './test-clocks';
import { createRetentionActivities } from './retention';
import { createReconciliationActivities } from './reconciliation';
import { createBankDebitActivities } from './bank-debits';
import { withHeartbeats } from './heartbeat';
import { createEmailActivities, type EmailActivityDeps } from './emails';
import { createMailer } from '../src/emails';
import { config } from '../src/config';

export interface ActivityDeps {
  prisma: Db;
  /** Chooses each account's payment gateway (src/payments/gateways.ts). */
  gateways: Gateways;
  /** Where emails go (SMTP_URL's server unless given: tests pass their catcher's). */
  mailer?: EmailActivityDeps['mailer'];
  emailLinks?: EmailActivityDeps['emailLinks'];
}

/** Every activity the worker runs, bound to its dependencies, heartbeating while they run. Activities must be idempotent. */
export function createActivities(deps: ActivityDeps) {
  return withHeartbeats({
    ...createWebhookActivities(deps),
    ...createPaymentPlanActivities(deps),
    ...createSubscriptionActivities(deps),
    ...createTestClockActivities(deps),
    ...createRetentionActivities(deps),
    ...createReconciliationActivities(deps),
    ...createBankDebitActivities(deps),
    ...createEmailActivities({ ...deps, mailer: deps.mailer ?? createMailer(config.smtpUrl) }),
  });
}

export type Activities = ReturnType<typeof createActivities>;
