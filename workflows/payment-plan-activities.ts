import { proxyActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { PaymentPlanActivities } from '../activities/payment-plans';
import { HEARTBEAT_TIMEOUT } from './activity-options';
import { CHARGE_FAILED } from '../src/payments/charge-failure';

/**
 * The payment-plan workflow's activities, in one timeout profile: each step writes the database and
 * calls the gateway at most for one charge (or a cancel's refunds), so one minute bounds them all.
 * Database or gateway outages are retried until they pass (charges are keyed, so a retry never
 * charges twice); a plan that does not exist is not.
 */
export const planSteps: ActivityInterfaceFor<PaymentPlanActivities> = proxyActivities<PaymentPlanActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: ['PaymentPlanMissing', CHARGE_FAILED],
  },
});
