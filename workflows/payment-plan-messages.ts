import { ApplicationFailure, defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import {
  PAYMENT_PLAN_SIGNALS,
  PAYMENT_PLAN_STATE_QUERY,
  PAYMENT_PLAN_UPDATES,
  REQUEST_REFUSED_FAILURE,
  type CancelPlanArgs,
  type CancelTerminalPaymentArgs,
  type PaymentPlanRefusalRecord,
  type PaymentPlanRequestArgs,
  type PaymentPlanRequestRecord,
  type PaymentPlanRequestKind,
  type PaymentPlanWorkflowState,
  type ResolveTerminalPaymentArgs,
} from './payment-plan-contract';
import type { RequestArgsIssue } from './payment-plan-requests';

/**
 * The payment-plan workflow's messages, defined on the names its callers agree on
 * (workflows/payment-plan-contract.ts): the `state` query, the requests as updates (answered) and as
 * the older signals (answered in the `state` query only), and the API's planUpdated nudge.
 */
export const paymentPlanStateQuery = defineQuery<PaymentPlanWorkflowState>(PAYMENT_PLAN_STATE_QUERY);
export const resolveTerminalPaymentSignal = defineSignal<[ResolveTerminalPaymentArgs]>(
  PAYMENT_PLAN_SIGNALS.resolveTerminalPayment,
);
export const cancelTerminalPaymentSignal = defineSignal<[CancelTerminalPaymentArgs]>(
  PAYMENT_PLAN_SIGNALS.cancelTerminalPayment,
);
export const resolveDepositSignal = defineSignal<[ResolveTerminalPaymentArgs]>(PAYMENT_PLAN_SIGNALS.resolveDeposit);
export const cancelDepositSignal = defineSignal<[CancelTerminalPaymentArgs?]>(PAYMENT_PLAN_SIGNALS.cancelDeposit);
export const cancelPlanSignal = defineSignal<[CancelPlanArgs?]>(PAYMENT_PLAN_SIGNALS.cancelPlan);
export const planUpdatedSignal = defineSignal<[]>(PAYMENT_PLAN_SIGNALS.planUpdated);

export type RequestUpdate = ReturnType<typeof defineUpdate<PaymentPlanRequestRecord, [PaymentPlanRequestArgs]>>;
export const paymentPlanRequestUpdates = Object.fromEntries(
  Object.entries(PAYMENT_PLAN_UPDATES).map(([request, name]) => [
    request,
    defineUpdate<PaymentPlanRequestRecord, [PaymentPlanRequestArgs]>(name),
  ]),
) as Record<PaymentPlanRequestKind, RequestUpdate>;

/** The update's failure for a request the workflow refused: its record rides along, for the API and the CLI. */
export function refusal(record: PaymentPlanRefusalRecord): ApplicationFailure {
  return ApplicationFailure.create({
    type: REQUEST_REFUSED_FAILURE,
    message: `${record.code}: ${record.message}`,
    details: [record],
    nonRetryable: true,
  });
}

/** The validator's failure for a bad argument: the field at fault rides along (the API answers 400 naming it). */
export function argumentRefusal(issue: RequestArgsIssue): ApplicationFailure {
  return ApplicationFailure.create({
    type: REQUEST_REFUSED_FAILURE,
    message: issue.message,
    details: [issue],
    nonRetryable: true,
  });
}
