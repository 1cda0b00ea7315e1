import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  log,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { PaymentPlanActivities } from '../activities/payment-plans';
import { BILLING_STATUS } from '../src/temporal/search-attributes';
import { workflowTime } from './clock';
import { missedDeposit, nextWork } from './payment-plan-schedule';
import { parseRequestArgs } from './payment-plan-requests';
import {
  FINAL_PLAN_STATUSES,
  PAYMENT_PLAN_SIGNALS,
  PAYMENT_PLAN_STATE_QUERY,
  PAYMENT_PLAN_UPDATES,
  REQUEST_REFUSED_FAILURE,
  type CancelPlanArgs,
  type CancelTerminalPaymentArgs,
  type PaymentPlanRequestArgs,
  type PaymentPlanRequestRecord,
  type PaymentPlanRequestResult,
  type PaymentPlanRequestSignal,
  type PaymentPlanWorkflowInput,
  type PaymentPlanWorkflowState,
  type PlanSnapshot,
  type ResolveTerminalPaymentArgs,
} from './payment-plan-contract';
import { HEARTBEAT_TIMEOUT } from './activity-options';
import { isoDay, isoTimes, planTimerSummary } from './summaries';

/** With no timer due, the plan is re-read this often anyway, in case an API nudge (planUpdated) was lost. */
const IDLE_REFRESH_MS = 24 * 60 * 60 * 1000;
const REQUESTS_KEPT = 50;

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

type RequestUpdate = ReturnType<typeof defineUpdate<PaymentPlanRequestRecord, [PaymentPlanRequestArgs]>>;
export const paymentPlanRequestUpdates = Object.fromEntries(
  Object.entries(PAYMENT_PLAN_UPDATES).map(([request, name]) => [
    request,
    defineUpdate<PaymentPlanRequestRecord, [PaymentPlanRequestArgs]>(name),
  ]),
) as Record<PaymentPlanRequestSignal, RequestUpdate>;

/** Plans left pending by a failed deposit charge under older code are settled (marked past_due) from this change on. */
const SETTLE_MISSED_DEPOSIT_PATCH = 'settle-missed-deposit';
/**
 * Since this patch a request the workflow refuses (wrong state, plan closed) fails its update, with the
 * refusal's record as the failure's detail, so the Web UI and the CLI show it failed rather than
 * "Update successful" (docs/operations.md). Before it, the record answered `applied: false` as a
 * result. Remove when no plan workflow started before it is open.
 */
const REFUSALS_FAIL_PATCH = 'refused-requests-fail';

/** The update's failure for a request the workflow refused: its record rides along, for the API and the CLI. */
function refusal(record: PaymentPlanRequestRecord): ApplicationFailure {
  return ApplicationFailure.create({
    type: REQUEST_REFUSED_FAILURE,
    message: `${record.code ?? 'refused'}: ${record.message}`,
    details: [record],
    nonRetryable: true,
  });
}

const activities = proxyActivities<PaymentPlanActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  // Database or gateway outages: retried until they pass. Charges are keyed, so a retry never charges twice.
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: ['PaymentPlanMissing'],
  },
});

interface QueuedRequest {
  signal: PaymentPlanRequestSignal;
  args: PaymentPlanRequestArgs;
  /** Set for an update: its handler waits for the record under this key. */
  answerKey?: string;
}

/**
 * One payment plan (workflow id `payment-plan:<id>`): holds the schedule as durable timers, charges
 * installments through idempotent activities, marks them overdue and defaults the plan on time,
 * and carries out the requests (resolve/cancel a terminal payment or deposit, cancel the plan) one at
 * a time in its main loop. Requests come as updates (validated, answered with what was done: the
 * handler waits for the main loop to carry the request out) or as the older signals (answered in the
 * `state` query only). It never polls a terminal: the API records what a terminal reports and sends
 * planUpdated. Ends when the plan is completed or canceled.
 */
export async function paymentPlanWorkflow(input: PaymentPlanWorkflowInput): Promise<PaymentPlanWorkflowState> {
  // The wall clock, or the test clock's time (workflows/clock.ts).
  const time = workflowTime(input.testClock);
  /** On a test clock, activities record what they write at the clock's time (src/lib/clock-time.ts). */
  const clockTime = () => (time.testClock ? { clockTime: time.now() } : {});
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

  setHandler(paymentPlanStateQuery, () => ({
    ...state,
    times: isoTimes({
      nextWakeAt: state.nextWakeAt,
      ...Object.fromEntries(state.requests.map((request, index) => [`requests.${index}.at`, request.at])),
      ...Object.fromEntries(
        state.openTerminalPayments.map((payment, index) => [`openTerminalPayments.${index}.since`, payment.since]),
      ),
    }),
  }));
  // The older signals cannot be refused (a signal has no answer): a bad argument is recorded as refused in
  // the `state` query's `requests` and logged, instead of being queued. Updates are what operators send.
  const enqueue = (signal: PaymentPlanRequestSignal) => (args?: PaymentPlanRequestArgs) => {
    const parsed = parseRequestArgs(signal, args, { strict: false });
    if (!parsed.ok) {
      log.warn('payment plan signal refused', { planId: input.planId, signal, ...parsed.issue });
      state.requests.push({ request_id: uuid4(), signal, at: time.now(), applied: false, ...parsed.issue });
      return;
    }
    queue.push({ signal, args: parsed.args });
  };
  setHandler(resolveTerminalPaymentSignal, enqueue('resolveTerminalPayment'));
  setHandler(cancelTerminalPaymentSignal, enqueue('cancelTerminalPayment'));
  setHandler(resolveDepositSignal, enqueue('resolveDeposit'));
  setHandler(cancelDepositSignal, enqueue('cancelDeposit'));
  setHandler(cancelPlanSignal, enqueue('cancelPlan'));

  // Updates: the validator refuses a bad argument (nothing reaches the history, the caller sees why);
  // the handler queues the request for the main loop and answers its record once carried out.
  const answers = new Map<string, PaymentPlanRequestRecord>();
  let closed = false;
  for (const [request, update] of Object.entries(paymentPlanRequestUpdates) as [
    PaymentPlanRequestSignal,
    RequestUpdate,
  ][]) {
    setHandler(
      update,
      async (args) => {
        const parsed = parseRequestArgs(request, args, { strict: true });
        const checked = parsed.ok ? parsed.args : {};
        const requestId = checked.request_id ?? uuid4();
        if (closed) {
          const record = closedRecord(request, requestId);
          if (patched(REFUSALS_FAIL_PATCH)) throw refusal(record);
          return record;
        }
        const answerKey = uuid4();
        queue.push({ signal: request, args: { ...checked, request_id: requestId }, answerKey });
        await condition(() => answers.has(answerKey));
        const answer = answers.get(answerKey)!;
        answers.delete(answerKey);
        if (!answer.applied && patched(REFUSALS_FAIL_PATCH)) throw refusal(answer);
        return answer;
      },
      {
        validator: (args) => {
          const parsed = parseRequestArgs(request, args, { strict: true });
          if (!parsed.ok) {
            throw ApplicationFailure.create({
              type: REQUEST_REFUSED_FAILURE,
              message: parsed.issue.message,
              details: [parsed.issue],
              nonRetryable: true,
            });
          }
        },
        description: `Validated ${request}: answers what the workflow did (applied, or code and message).`,
      },
    );
  }
  setHandler(planUpdatedSignal, (...args: unknown[]) => {
    // Sent by the API with no argument; anything else is somebody's mistake, shown in the worker's log.
    if (args.length > 0) log.warn('planUpdated takes no argument; the argument was ignored', { planId: input.planId });
    refreshWanted = true;
  });

  const sync = () =>
    activities.syncPaymentPlan.executeWithOptions({ summary: `read plan ${input.planId}` }, [{ planId: input.planId }]);
  let snapshot: PlanSnapshot = await sync();
  const observe = (next: PlanSnapshot) => {
    snapshot = next;
    if (next.status !== publishedStatus) {
      // Operators filter plans in the Web UI with `BillingStatus = "past_due"` and the like.
      if (publishedStatus !== null || next.status !== 'pending')
        upsertSearchAttributes([{ key: BILLING_STATUS, value: next.status }]);
      publishedStatus = next.status;
    }
    state.status = next.status;
    state.installmentsCount = next.installments.length;
    state.installmentsPaid = next.installments.filter((row) => row.status === 'paid').length;
    state.openTerminalPayments = next.openTerminalPayments;
  };
  const record = (request: QueuedRequest, requestId: string, result: PaymentPlanRequestResult) => {
    const entry: PaymentPlanRequestRecord = {
      request_id: requestId,
      signal: request.signal,
      at: time.now(),
      ...result,
    };
    state.requests.push(entry);
    if (state.requests.length > REQUESTS_KEPT) state.requests.splice(0, state.requests.length - REQUESTS_KEPT);
    if (request.answerKey) answers.set(request.answerKey, entry);
  };
  const closedRecord = (signal: PaymentPlanRequestSignal, requestId: string): PaymentPlanRequestRecord => ({
    request_id: requestId,
    signal,
    at: time.now(),
    applied: false,
    code: 'payment_plan_closed',
    message: `Payment plan ${input.planId} is ${snapshot.status}.`,
  });
  observe(snapshot);

  while (!FINAL_PLAN_STATUSES.includes(snapshot.status)) {
    const request = queue.shift();
    if (request) {
      const requestId = typeof request.args.request_id === 'string' ? request.args.request_id : uuid4();
      const done = await activities.applyPaymentPlanRequest.executeWithOptions(
        { summary: `${request.signal} (request ${requestId})` },
        [
          {
            planId: input.planId,
            signal: request.signal,
            args: { ...request.args, request_id: requestId },
            at: time.now(),
            ...clockTime(),
          },
        ],
      );
      record(request, requestId, done.result);
      observe(done.snapshot);
      continue;
    }
    if (refreshWanted) {
      refreshWanted = false;
      observe(await sync());
      continue;
    }

    let now = time.now();
    const settleMissedDeposit = missedDeposit(snapshot) && patched(SETTLE_MISSED_DEPOSIT_PATCH);
    let work = nextWork(snapshot, now, { settleMissedDeposit });
    // On a test clock, what falls due up to the advance's time is due now, at its own time (never on the wall clock: `work` waits for a later time).
    if (work.kind === 'wait' && work.wakeAt !== null && time.due(work.wakeAt)) {
      now = time.now();
      work = nextWork(snapshot, now, { settleMissedDeposit });
    }
    const of = `of ${snapshot.installments.length}`;
    if (work.kind === 'charge') {
      const what =
        work.number === 1 && snapshot.status === 'pending'
          ? `deposit (installment 1 ${of})`
          : `installment ${work.number} ${of}`;
      const charged = await activities.chargePaymentPlanInstallment.executeWithOptions(
        { summary: `charge ${what} attempt ${work.attempt}` },
        [{ planId: input.planId, number: work.number, attempt: work.attempt, at: now, ...clockTime() }],
      );
      observe(charged.snapshot);
      continue;
    }
    if (work.kind === 'overdue') {
      observe(
        await activities.markPaymentPlanInstallmentOverdue.executeWithOptions(
          { summary: `installment ${work.number} ${of} overdue` },
          [{ planId: input.planId, number: work.number, at: now, ...clockTime() }],
        ),
      );
      continue;
    }
    if (work.kind === 'default') {
      observe(
        await activities.defaultPaymentPlan.executeWithOptions(
          { summary: `default the plan (past due since ${isoDay(work.pastDueAt)})` },
          [{ planId: input.planId, pastDueAt: work.pastDueAt, at: now, ...clockTime() }],
        ),
      );
      continue;
    }

    state.nextWakeAt = work.wakeAt;
    state.nextAction = work.action;
    if (workflowInfo().continueAsNewSuggested && queue.length === 0 && allHandlersFinished()) {
      await continueAsNew<typeof paymentPlanWorkflow>(time.testClock ? { ...input, testClock: time.testClock } : input);
    }
    const wakeAt = work.wakeAt ?? now + IDLE_REFRESH_MS;
    const woken = await time.sleep(
      () => queue.length > 0 || refreshWanted,
      wakeAt,
      planTimerSummary(work, snapshot, wakeAt),
    );
    if (!woken && work.wakeAt === null) refreshWanted = true;
  }

  state.nextWakeAt = null;
  state.nextAction = null;
  closed = true;
  await time.release();
  // Requests that arrived as the plan ended are answered, so nobody waits for them.
  for (const request of queue.splice(0)) {
    const requestId = typeof request.args.request_id === 'string' ? request.args.request_id : uuid4();
    record(request, requestId, {
      applied: false,
      code: 'payment_plan_closed',
      message: `Payment plan ${input.planId} is ${snapshot.status}.`,
    });
  }
  // Update handlers hand their answers back before the workflow completes.
  await condition(allHandlersFinished);
  return state;
}
