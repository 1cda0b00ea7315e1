import {
  proxyActivities,
  proxyLocalActivities,
  type ActivityInterfaceFor,
  type LocalActivityInterfaceFor,
} from '@temporalio/workflow';
import type { SubscriptionActivities } from '../activities/subscriptions';
import type { EmailActivities } from '../activities/emails';
import type {
  ImmediateInvoiceInput,
  ThresholdInvoiceInput,
  ThresholdInvoiceResult,
  ImmediateInvoiceResult,
  RenewalChargeInput,
  RenewalChargeResult,
} from '../src/subscriptions/period-billing';
import type { ClockTimed } from '../src/lib/clock-time';
import { REJECTION_TYPE, RENEWAL_REJECTED } from '../src/subscriptions/subscription-rejection';
import { CHARGE_FAILED, chargeAnswer } from '../src/payments/charge-failure';
import { HEARTBEAT_TIMEOUT } from './activity-options';

/**
 * The subscription workflow's activities, by timeout profile. A refusal (REJECTION_TYPE) or a period
 * that cannot be invoiced (RENEWAL_REJECTED) is never retried; anything else is, with backoff.
 */
const retry = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  nonRetryableErrorTypes: [REJECTION_TYPE, RENEWAL_REJECTED, CHARGE_FAILED],
};

/** Database steps: the projection's write and a renewal's invoice. */
export const records: Pick<
  ActivityInterfaceFor<SubscriptionActivities>,
  'persistSubscription' | 'createRenewalInvoice' | 'finalizeRenewalInvoice'
> = proxyActivities<SubscriptionActivities>({
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry,
});

/** A charge: the gateway may take a while; a retry finishes the same attempt (its attempt key). */
const payments: Pick<
  ActivityInterfaceFor<SubscriptionActivities>,
  'chargeRenewalInvoice' | 'invoiceProrationsNow' | 'invoiceThresholdUsage'
> = proxyActivities<SubscriptionActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry,
});

/**
 * Short reads and writes run in the workflow task itself (local activities): no activity task, no extra
 * history. Since PATCHES.localSteps a period's whole billing runs so (docs/decisions.md §39).
 */
export const localRecords: Pick<
  LocalActivityInterfaceFor<SubscriptionActivities>,
  | 'persistSubscription'
  | 'settleCreatedInvoice'
  | 'checkItemsWithinCeiling'
  | 'checkPeriodInvoiceWithinCeiling'
  | 'invoiceStatus'
  | 'prorationPrices'
  | 'capUnusedTime'
  | 'createRenewalInvoice'
  | 'finalizeRenewalInvoice'
> = proxyLocalActivities<SubscriptionActivities>({ startToCloseTimeout: '30 seconds', retry });

/** The renewal's charge as a local activity (PATCHES.localSteps): the payments profile's timeout. */
const localPayments: Pick<
  LocalActivityInterfaceFor<SubscriptionActivities>,
  'chargeRenewalInvoice'
> = proxyLocalActivities<SubscriptionActivities>({ startToCloseTimeout: '2 minutes', retry });

/**
 * One charge attempt of an invoice, answered whether it succeeded or failed (a failure is drawn failed:
 * CHARGE_FAILED); `local`: in the workflow task (a retry after a crash charges the same attempt key).
 */
export function chargeInvoice(
  summary: string,
  input: RenewalChargeInput & ClockTimed,
  local = false,
): Promise<RenewalChargeResult> {
  const charge = local ? localPayments.chargeRenewalInvoice : payments.chargeRenewalInvoice;
  return chargeAnswer(charge.executeWithOptions({ summary }, [input]));
}

/** always_invoice: a change's proration lines invoiced and charged now (docs/decisions.md §25); a charge, so the payments profile. */
export function invoiceProrationsNow(
  summary: string,
  input: ImmediateInvoiceInput & ClockTimed,
): Promise<ImmediateInvoiceResult> {
  return payments.invoiceProrationsNow.executeWithOptions({ summary }, [input]);
}

/** A billing threshold's check and, when reached, its invoice charged now (docs/decisions.md §43); the payments profile. */
export function invoiceThresholdUsage(
  summary: string,
  input: ThresholdInvoiceInput & ClockTimed,
): Promise<ThresholdInvoiceResult> {
  return payments.invoiceThresholdUsage.executeWithOptions({ summary }, [input]);
}

/** A reminder's steps (docs/decisions.md §31): the account's days, read in the workflow task; the email queued once. */
export const reminderRecords: Pick<
  LocalActivityInterfaceFor<EmailActivities>,
  'reminderDays'
> = proxyLocalActivities<EmailActivities>({ startToCloseTimeout: '30 seconds', retry });
export const reminderEmails: Pick<
  ActivityInterfaceFor<EmailActivities>,
  'queueReminder'
> = proxyActivities<EmailActivities>({ startToCloseTimeout: '30 seconds', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry });
