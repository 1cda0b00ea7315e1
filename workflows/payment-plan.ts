import {
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { PaymentPlanActivities } from '../activities/payment-plans';
import { BILLING_STATUS } from '../src/temporal/search-attributes';
import { workflowNow } from './clock';
import { nextWork } from './payment-plan-schedule';
import {
  FINAL_PLAN_STATUSES,
  PAYMENT_PLAN_SIGNALS,
  PAYMENT_PLAN_STATE_QUERY,
  type CancelPlanArgs,
  type CancelTerminalPaymentArgs,
  type PaymentPlanRequestArgs,
  type PaymentPlanRequestResult,
  type PaymentPlanRequestSignal,
  type PaymentPlanWorkflowInput,
  type PaymentPlanWorkflowState,
  type PlanSnapshot,
  type ResolveTerminalPaymentArgs,
} from './payment-plan-contract';

/** With no timer due, the plan is re-read this often anyway, in case an API nudge (planUpdated) was lost. */
const IDLE_REFRESH_MS = 24 * 60 * 60 * 1000;
const REQUESTS_KEPT = 50;

export const paymentPlanStateQuery = defineQuery<PaymentPlanWorkflowState>(PAYMENT_PLAN_STATE_QUERY);
export const resolveTerminalPaymentSignal = defineSignal<[ResolveTerminalPaymentArgs]>(PAYMENT_PLAN_SIGNALS.resolveTerminalPayment);
export const cancelTerminalPaymentSignal = defineSignal<[CancelTerminalPaymentArgs]>(PAYMENT_PLAN_SIGNALS.cancelTerminalPayment);
export const resolveDepositSignal = defineSignal<[ResolveTerminalPaymentArgs]>(PAYMENT_PLAN_SIGNALS.resolveDeposit);
export const cancelDepositSignal = defineSignal<[CancelTerminalPaymentArgs?]>(PAYMENT_PLAN_SIGNALS.cancelDeposit);
export const cancelPlanSignal = defineSignal<[CancelPlanArgs?]>(PAYMENT_PLAN_SIGNALS.cancelPlan);
export const planUpdatedSignal = defineSignal<[]>(PAYMENT_PLAN_SIGNALS.planUpdated);

const activities = proxyActivities<PaymentPlanActivities>({
  startToCloseTimeout: '1 minute',
  // Database or gateway outages: retried until they pass. Charges are keyed, so a retry never charges twice.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['PaymentPlanMissing'] },
});

interface QueuedRequest {
  signal: PaymentPlanRequestSignal;
  args: PaymentPlanRequestArgs;
}

/**
 * One payment plan (workflow id `payment-plan:<id>`): holds the schedule as durable timers, charges
 * installments through idempotent activities, marks them overdue and defaults the plan on time,
 * and carries out the request signals (resolve/cancel a terminal payment or deposit, cancel the
 * plan) one at a time. It never polls a terminal: the API records what a terminal reports and sends
 * planUpdated. Ends when the plan is completed or canceled.
 */
export async function paymentPlanWorkflow(input: PaymentPlanWorkflowInput): Promise<PaymentPlanWorkflowState> {
  const state: PaymentPlanWorkflowState = {
    planId: input.planId,
    status: 'pending',
    nextWakeAt: null,
    nextAction: null,
    installmentsPaid: 0,
    installmentsCount: 0,
    openTerminalPayments: [],
    requests: [],
  };
  const queue: QueuedRequest[] = [];
  let refreshWanted = false;
  let publishedStatus: string | null = null;

  setHandler(paymentPlanStateQuery, () => state);
  const enqueue = (signal: PaymentPlanRequestSignal) => (args?: PaymentPlanRequestArgs) => {
    queue.push({ signal, args: args && typeof args === 'object' ? args : {} });
  };
  setHandler(resolveTerminalPaymentSignal, enqueue('resolveTerminalPayment'));
  setHandler(cancelTerminalPaymentSignal, enqueue('cancelTerminalPayment'));
  setHandler(resolveDepositSignal, enqueue('resolveDeposit'));
  setHandler(cancelDepositSignal, enqueue('cancelDeposit'));
  setHandler(cancelPlanSignal, enqueue('cancelPlan'));
  setHandler(planUpdatedSignal, () => {
    refreshWanted = true;
  });

  let snapshot: PlanSnapshot = await activities.syncPaymentPlan({ planId: input.planId });
  const observe = (next: PlanSnapshot) => {
    snapshot = next;
    if (next.status !== publishedStatus) {
      // Operators filter plans in the Web UI with `BillingStatus = "past_due"` and the like.
      if (publishedStatus !== null || next.status !== 'pending') upsertSearchAttributes([{ key: BILLING_STATUS, value: next.status }]);
      publishedStatus = next.status;
    }
    state.status = next.status;
    state.installmentsCount = next.installments.length;
    state.installmentsPaid = next.installments.filter((row) => row.status === 'paid').length;
    state.openTerminalPayments = next.openTerminalPayments;
  };
  const record = (request: QueuedRequest, requestId: string, result: PaymentPlanRequestResult) => {
    state.requests.push({ request_id: requestId, signal: request.signal, at: workflowNow(), ...result });
    if (state.requests.length > REQUESTS_KEPT) state.requests.splice(0, state.requests.length - REQUESTS_KEPT);
  };
  observe(snapshot);

  while (!FINAL_PLAN_STATUSES.includes(snapshot.status)) {
    const request = queue.shift();
    if (request) {
      const requestId = typeof request.args.request_id === 'string' ? request.args.request_id : uuid4();
      const done = await activities.applyPaymentPlanRequest({
        planId: input.planId,
        signal: request.signal,
        args: { ...request.args, request_id: requestId },
        at: workflowNow(),
      });
      record(request, requestId, done.result);
      observe(done.snapshot);
      continue;
    }
    if (refreshWanted) {
      refreshWanted = false;
      observe(await activities.syncPaymentPlan({ planId: input.planId }));
      continue;
    }

    const now = workflowNow();
    const work = nextWork(snapshot, now);
    if (work.kind === 'charge') {
      const charged = await activities.chargePaymentPlanInstallment({ planId: input.planId, number: work.number, attempt: work.attempt, at: now });
      observe(charged.snapshot);
      continue;
    }
    if (work.kind === 'overdue') {
      observe(await activities.markPaymentPlanInstallmentOverdue({ planId: input.planId, number: work.number, at: now }));
      continue;
    }
    if (work.kind === 'default') {
      observe(await activities.defaultPaymentPlan({ planId: input.planId, pastDueAt: work.pastDueAt, at: now }));
      continue;
    }

    state.nextWakeAt = work.wakeAt;
    state.nextAction = work.action;
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof paymentPlanWorkflow>(input);
    const wait = work.wakeAt === null ? IDLE_REFRESH_MS : Math.max(1, work.wakeAt - now);
    const woken = await condition(() => queue.length > 0 || refreshWanted, wait);
    if (!woken && work.wakeAt === null) refreshWanted = true;
  }

  state.nextWakeAt = null;
  state.nextAction = null;
  // Requests that arrived as the plan ended are answered, so nobody waits for them.
  for (const request of queue.splice(0)) {
    const requestId = typeof request.args.request_id === 'string' ? request.args.request_id : uuid4();
    record(request, requestId, { applied: false, code: 'payment_plan_closed', message: `Payment plan ${input.planId} is ${snapshot.status}.` });
  }
  return state;
}
