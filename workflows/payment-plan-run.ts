import { condition, log, patched, setCurrentDetails, upsertSearchAttributes, uuid4 } from '@temporalio/workflow';
import { DAY_MS } from '../src/lib/durations';
import { chargeAnswer } from '../src/payments/charge-failure';
import { BILLING_STATUS } from '../src/temporal/search-attributes';
import type { WorkflowTime } from './clock';
import { planSteps } from './payment-plan-activities';
import {
  FINAL_PLAN_STATUSES,
  PLAN_CLOSED,
  type PaymentPlanRefusalRecord,
  type PaymentPlanRequestArgs,
  type PaymentPlanRequestRecord,
  type PaymentPlanRequestResult,
  type PaymentPlanRequestKind,
  type PaymentPlanWorkflowInput,
  type PaymentPlanWorkflowState,
  type PlanSnapshot,
} from './payment-plan-contract';
import { argumentRefusal, refusal } from './payment-plan-messages';
import { PAYMENT_PLAN_PATCHES as PATCHES } from './payment-plan-patches';
import { parseRequestArgs } from './payment-plan-requests';
import { missedDeposit, nextWork, type PlanWork } from './payment-plan-schedule';
import { isoDay, isoTimes, paymentLine, planCurrentDetails, planTimerSummary } from './summaries';

/** With no timer due, the plan is re-read this often anyway, in case an API nudge (planUpdated) was lost. */
const IDLE_REFRESH_MS = DAY_MS;
const REQUESTS_KEPT = 50;

export interface QueuedRequest {
  kind: PaymentPlanRequestKind;
  args: PaymentPlanRequestArgs;
  /** Set for an update: its handler waits for the record under this key. */
  answerKey?: string;
}

/** What the schedule calls for, and the time it was judged at (a test clock's advance moves it). */
export interface DueWork {
  work: PlanWork;
  now: number;
}

/**
 * One run of a payment plan's workflow: the plan as its activities last answered it (`snapshot`), the
 * requests waiting for the loop, and the steps that move the plan, each an activity that answers the
 * plan after it. The workflow (workflows/payment-plan.ts) wires messages to these and runs the loop;
 * the schedule's rules are `nextWork`'s (workflows/payment-plan-schedule.ts), the plan's the services'.
 */
export class PaymentPlanRun {
  readonly state: PaymentPlanWorkflowState;
  /** Requests in arrival order, carried out one at a time by the loop. */
  readonly queue: QueuedRequest[] = [];
  /** The API changed the plan (planUpdated), or the idle refresh came: the loop re-reads it. */
  refreshWanted = false;
  /** Set by `start`, before the loop or any request needs it. */
  snapshot!: PlanSnapshot;
  /** The plan has ended: requests are refused as closed. */
  private closed = false;
  private readonly answers = new Map<string, PaymentPlanRequestRecord>();
  private publishedStatus: string | null = null;
  /** What the loop waits for next (its timer's summary) and the last charge's answer, for the current details. */
  private nextStep: string | null = null;
  private lastPayment: string | null = null;

  constructor(
    private readonly input: PaymentPlanWorkflowInput,
    readonly time: WorkflowTime,
  ) {
    this.state = {
      planId: input.planId,
      status: 'pending',
      nextWakeAt: null,
      nextAction: null,
      installmentsPaid: 0,
      installmentsCount: 0,
      openTerminalPayments: [],
      requests: [],
    };
  }

  /** On a test clock, activities record what they write at the clock's time (src/lib/clock-time.ts). */
  private clockTime() {
    return this.time.testClock ? { clockTime: this.time.now() } : {};
  }

  /** The `state` query: the state, with its times in ISO-8601. */
  view(): PaymentPlanWorkflowState {
    const { state } = this;
    return {
      ...state,
      times: isoTimes({
        nextWakeAt: state.nextWakeAt,
        ...Object.fromEntries(state.requests.map((request, index) => [`requests.${index}.at`, request.at])),
        ...Object.fromEntries(
          state.openTerminalPayments.map((payment, index) => [`openTerminalPayments.${index}.since`, payment.since]),
        ),
      }),
    };
  }

  ended(): boolean {
    return FINAL_PLAN_STATUSES.includes(this.snapshot.status);
  }

  /**
   * An older signal's handler. A signal cannot be refused (it has no answer): a bad argument is
   * recorded as refused in the `state` query's `requests` and logged, instead of being queued.
   */
  signalled(kind: PaymentPlanRequestKind) {
    return (args?: PaymentPlanRequestArgs): void => {
      const parsed = parseRequestArgs(kind, args, { strict: false });
      if (!parsed.ok) {
        log.warn('payment plan signal refused', { planId: this.input.planId, signal: kind, ...parsed.issue });
        this.state.requests.push({
          request_id: uuid4(),
          signal: kind,
          at: this.time.now(),
          applied: false,
          ...parsed.issue,
        });
        return;
      }
      this.queue.push({ kind, args: parsed.args });
    };
  }

  /** An update's validator: a bad argument is refused before anything reaches the history, naming the field. */
  static validate(request: PaymentPlanRequestKind, args: PaymentPlanRequestArgs): void {
    const parsed = parseRequestArgs(request, args, { strict: true });
    if (!parsed.ok) throw argumentRefusal(parsed.issue);
  }

  /** An update's handler: queues the request for the loop and answers its record once carried out (a refusal fails the update). */
  async requested(request: PaymentPlanRequestKind, args: PaymentPlanRequestArgs): Promise<PaymentPlanRequestRecord> {
    const parsed = parseRequestArgs(request, args, { strict: true });
    const checked = parsed.ok ? parsed.args : {};
    const requestId = checked.request_id ?? uuid4();
    if (this.closed) {
      const record = this.closedRecord(request, requestId);
      if (patched(PATCHES.refusalsFail)) throw refusal(record);
      return record;
    }
    const answerKey = uuid4();
    this.queue.push({ kind: request, args: { ...checked, request_id: requestId }, answerKey });
    await condition(() => this.answers.has(answerKey));
    const answer = this.answers.get(answerKey)!;
    this.answers.delete(answerKey);
    if (!answer.applied && patched(PATCHES.refusalsFail)) throw refusal(answer);
    return answer;
  }

  /** The planUpdated signal: sent by the API with no argument; anything else is somebody's mistake, shown in the worker's log. */
  planUpdated(args: unknown[]): void {
    if (args.length > 0)
      log.warn('planUpdated takes no argument; the argument was ignored', { planId: this.input.planId });
    this.refreshWanted = true;
  }

  private sync(): Promise<PlanSnapshot> {
    return planSteps.syncPaymentPlan.executeWithOptions({ summary: `read plan ${this.input.planId}` }, [
      { planId: this.input.planId },
    ]);
  }

  /** The first read of the plan. */
  async start(): Promise<void> {
    this.snapshot = await this.sync();
    this.observe(this.snapshot);
  }

  /** Re-reads the plan (planUpdated, or the idle refresh). */
  async refresh(): Promise<void> {
    this.refreshWanted = false;
    this.observe(await this.sync());
  }

  private observe(next: PlanSnapshot): void {
    this.snapshot = next;
    if (next.status !== this.publishedStatus) {
      // Operators filter plans in the Web UI with `BillingStatus = "past_due"` and the like.
      if (this.publishedStatus !== null || next.status !== 'pending')
        upsertSearchAttributes([{ key: BILLING_STATUS, value: next.status }]);
      this.publishedStatus = next.status;
    }
    const { state } = this;
    state.status = next.status;
    state.installmentsCount = next.installments.length;
    state.installmentsPaid = next.installments.filter((row) => row.status === 'paid').length;
    state.openTerminalPayments = next.openTerminalPayments;
    this.showDetails();
  }

  /** The Web UI's current details of the workflow (no command: replays unchanged). */
  private showDetails(): void {
    setCurrentDetails(planCurrentDetails(this.snapshot, this.state, this.nextStep, this.lastPayment));
  }

  private record(request: QueuedRequest, requestId: string, result: PaymentPlanRequestResult): void {
    const entry: PaymentPlanRequestRecord = {
      request_id: requestId,
      signal: request.kind,
      at: this.time.now(),
      ...result,
    };
    const { requests } = this.state;
    requests.push(entry);
    if (requests.length > REQUESTS_KEPT) requests.splice(0, requests.length - REQUESTS_KEPT);
    if (request.answerKey) this.answers.set(request.answerKey, entry);
  }

  private closedRecord(kind: PaymentPlanRequestKind, requestId: string): PaymentPlanRefusalRecord {
    return {
      request_id: requestId,
      signal: kind,
      at: this.time.now(),
      applied: false,
      code: PLAN_CLOSED,
      message: `Payment plan ${this.input.planId} is ${this.snapshot.status}.`,
    };
  }

  /** Carries out a request (its activity answers what was done, applied or refused) and records it. */
  async carryOut(request: QueuedRequest): Promise<void> {
    const requestId = typeof request.args.request_id === 'string' ? request.args.request_id : uuid4();
    const done = await planSteps.applyPaymentPlanRequest.executeWithOptions(
      { summary: `${request.kind} (request ${requestId})` },
      [
        {
          planId: this.input.planId,
          signal: request.kind,
          args: { ...request.args, request_id: requestId },
          at: this.time.now(),
          ...this.clockTime(),
        },
      ],
    );
    this.record(request, requestId, done.result);
    this.observe(done.snapshot);
  }

  /** What the schedule calls for now. */
  dueWork(): DueWork {
    const { time, snapshot } = this;
    let now = time.now();
    const settleMissedDeposit = missedDeposit(snapshot) && patched(PATCHES.settleMissedDeposit);
    let work = nextWork(snapshot, now, { settleMissedDeposit });
    // On a test clock, what falls due up to the advance's time is due now, at its own time (never on the wall clock: `work` waits for a later time).
    if (work.kind === 'wait' && work.wakeAt !== null && time.due(work.wakeAt)) {
      now = time.now();
      work = nextWork(snapshot, now, { settleMissedDeposit });
    }
    return { work, now };
  }

  private of(): string {
    return `of ${this.snapshot.installments.length}`;
  }

  /** Charges a due installment (the deposit of a pending plan, or an active plan's installment), attempt by attempt. */
  async charge(work: Extract<PlanWork, { kind: 'charge' }>, now: number): Promise<void> {
    const what =
      work.number === 1 && this.snapshot.status === 'pending'
        ? `deposit (installment 1 ${this.of()})`
        : `installment ${work.number} ${this.of()}`;
    const charged = await chargeAnswer(
      planSteps.chargePaymentPlanInstallment.executeWithOptions({ summary: `charge ${what} attempt ${work.attempt}` }, [
        { planId: this.input.planId, number: work.number, attempt: work.attempt, at: now, ...this.clockTime() },
      ]),
    );
    this.lastPayment = `${what}: ${paymentLine(charged, now)}`;
    this.observe(charged.snapshot);
  }

  /** An installment fell due unpaid with no automatic charge (no card, or the plan past_due or defaulted). */
  async markOverdue(work: Extract<PlanWork, { kind: 'overdue' }>, now: number): Promise<void> {
    this.observe(
      await planSteps.markPaymentPlanInstallmentOverdue.executeWithOptions(
        { summary: `installment ${work.number} ${this.of()} overdue` },
        [{ planId: this.input.planId, number: work.number, at: now, ...this.clockTime() }],
      ),
    );
  }

  /** The plan stayed past_due for its account's days (decisions.md §9). */
  async defaultPlan(work: Extract<PlanWork, { kind: 'default' }>, now: number): Promise<void> {
    this.observe(
      await planSteps.defaultPaymentPlan.executeWithOptions(
        { summary: `default the plan (past due since ${isoDay(work.pastDueAt)})` },
        [{ planId: this.input.planId, pastDueAt: work.pastDueAt, at: now, ...this.clockTime() }],
      ),
    );
  }

  /** Shows in the `state` query what the loop waits for. */
  expect(work: Extract<PlanWork, { kind: 'wait' }>): void {
    this.state.nextWakeAt = work.wakeAt;
    this.state.nextAction = work.action;
  }

  /**
   * Waits for the next step's time, a request or the API's nudge; with nothing scheduled, the plan is
   * re-read after a day anyway.
   */
  async waitFor(work: Extract<PlanWork, { kind: 'wait' }>, now: number): Promise<void> {
    const wakeAt = work.wakeAt ?? now + IDLE_REFRESH_MS;
    const summary = planTimerSummary(work, this.snapshot, wakeAt);
    this.nextStep = summary;
    this.showDetails();
    const woken = await this.time.sleep(() => this.queue.length > 0 || this.refreshWanted, wakeAt, summary);
    if (!woken && work.wakeAt === null) this.refreshWanted = true;
  }

  /** The plan ended: nothing is scheduled, later requests are refused, and those already queued are answered so nobody waits for them. */
  async close(): Promise<void> {
    this.state.nextWakeAt = null;
    this.state.nextAction = null;
    this.closed = true;
    this.nextStep = null;
    this.showDetails();
    await this.time.release();
    for (const request of this.queue.splice(0)) {
      const requestId = typeof request.args.request_id === 'string' ? request.args.request_id : uuid4();
      this.record(request, requestId, {
        applied: false,
        code: PLAN_CLOSED,
        message: `Payment plan ${this.input.planId} is ${this.snapshot.status}.`,
      });
    }
  }
}
