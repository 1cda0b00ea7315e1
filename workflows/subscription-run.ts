import {
  ApplicationFailure,
  condition,
  log,
  metricMeter,
  ParentClosePolicy,
  patched,
  setCurrentDetails,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { sendEmail } from './email';
import { Mutex } from 'async-mutex';
import { SECOND_MS } from '../src/lib/durations';
import type { PersistSubscriptionInput, RenewalChargeResult } from '../activities/subscriptions';
import type { ImmediateInvoiceInput, RenewalChargeInput } from '../src/subscriptions/period-billing';
import type { ClockTimed } from '../src/lib/clock-time';
import type { ReminderEmailKind } from '../src/emails/email.schemas';
import {
  assertNotEnded,
  billed,
  chargedOnFinalize,
  chargeHeld,
  heldChargeSettled,
  isHeld,
  closingUsagePeriod,
  keepChangedUsage,
  DUNNING,
  dunningExhausted,
  dunningResolved,
  end,
  endTrial,
  initialState,
  nextAction,
  nextAttempt,
  nextBillingAt,
  nextPeriodBilling,
  newVersion,
  pause,
  periodBilled,
  periodNotInvoiced,
  periodToBill,
  reminderAt,
  reminderTarget,
  REQUESTED,
  retryFailed,
  start,
  startDunning,
  SubscriptionRuleError,
  type DunningState,
  type HeldCharge,
  type Action,
  type SubscriptionChanges,
  type SubscriptionState,
} from '../src/subscriptions/subscription-machine';
import {
  applicationFailureOf,
  RENEWAL_REJECTED,
  rejectionFailure,
  rejectionOf,
  ruleRejection,
} from '../src/subscriptions/subscription-rejection';
import type { SubscriptionObject } from '../src/subscriptions/subscription.schemas';
import { withOrigin, type EventOrigin } from '../src/lib/event-origin';
import { BILLING_ACCOUNT_ID, BILLING_STATUS } from '../src/temporal/search-attributes';
import type { WorkflowTime } from './clock';
import {
  chargeInvoice,
  invoiceProrationsNow,
  invoiceThresholdUsage,
  localRecords,
  records,
  reminderEmails,
  reminderRecords,
} from './subscription-activities';
import {
  endingCredits,
  prorationLines,
  prorationPeriod,
  type PendingLine,
  type ProrationBehavior,
  type ProrationLine,
} from '../src/subscriptions/proration';
import type { SubscriptionStateView, SubscriptionWorkflowInput } from './subscription-messages';
import { SUBSCRIPTION_PATCHES as PATCHES } from './subscription-patches';
import {
  billingStatusOf,
  dunningRetryLabel,
  invoiceLabel,
  isoDay,
  isoTimes,
  markdownLines,
  paymentLine,
  subscriptionCurrentDetails,
  subscriptionTimerSummary,
} from './summaries';

/**
 * What an invoice below zero leaves for the next one (docs/decisions.md §25, "Totals below zero"): nothing
 * when its finalization credited the customer's balance with it; its credit, carried, when the activity's
 * result does not say so (recorded before the balance took such credit, so replays carry as they did) or
 * the balance could not take it; nothing otherwise (undefined: the state keeps no empty list, as states
 * before proration had none). The decision reads only recorded results: no command changes, no patch.
 */
function carriedFrom(
  invoiceId: string,
  total: number | undefined,
  creditedToBalance: boolean | undefined,
): PendingLine[] | undefined {
  return total !== undefined && total < 0 && creditedToBalance !== true
    ? [{ kind: 'carried_credit', invoiceId, amount: total }]
    : undefined;
}

/** The projection's writer: an activity, or a local one where the step runs in the workflow task. */
type Recorder = typeof records | typeof localRecords;

/** Whether two states differ in anything but their version (a change worth recording). */
function sameState(a: SubscriptionState, b: SubscriptionState): boolean {
  return JSON.stringify({ ...a, version: 0 }) === JSON.stringify({ ...b, version: 0 });
}

/** A rule of the state machine refused the move: the refusal the API answers (409, or 400 naming the field). */
export function asRuleFailure(error: unknown): never {
  if (error instanceof SubscriptionRuleError) throw ruleRejection(error);
  throw error;
}

/**
 * One run of a subscription's workflow: its state and the steps that move it, each writing the
 * projection (the subscriptions row and its event) through persistSubscription. The workflow
 * (workflows/subscription.ts) wires messages to these steps and runs the loop; the rules themselves
 * are the state machine's (src/subscriptions/subscription-machine.ts). Every step runs under `exclusive`.
 */
export class SubscriptionRun {
  state: SubscriptionState;
  /** The object the last write answered (the `created` update's answer). */
  latest: SubscriptionObject | undefined;
  /** The run's own creation was refused (runs started with `{create}`): the `created` update fails with it. */
  creationFailure: ApplicationFailure | undefined;
  /** A step (renewal, retry, update) is running. */
  busy = false;
  /** The loop waits for the next action's time (or for a change): nothing is due. */
  settled = false;
  renewalsThisRun = 0;
  /**
   * Invoices in dunning reported paid or voided from outside, or whose held charge the processor settled
   * (invoiceSettledSignal), to check under the lock.
   */
  readonly reportedSettled = new Set<string>();
  /**
   * Invoices reported settled before the workflow held their charge (the processor's outcome overtook the charge's
   * answer, or came while the step holding it wrote it): asked about once it is held (recallEarlyNotices).
   */
  private readonly settledBeforeHeld = new Set<string>();
  /** Usage of the customer was reported since the threshold was last checked (usageReported signal). */
  usageReported = false;
  /** BillingStatus as this run set it (a continued run: as the previous run left it). */
  private shownStatus: string;
  /** The last charge this run saw answered (or the API's first charge in its input), for the current details. */
  private lastPayment: string | null;
  private readonly lock = new Mutex();

  constructor(
    private readonly input: SubscriptionWorkflowInput,
    readonly time: WorkflowTime,
  ) {
    this.state =
      'continued' in input
        ? input.continued
        : 'created' in input
          ? input.created
          : initialState(input.create, time.now());
    this.shownStatus = workflowInfo().typedSearchAttributes.get(BILLING_STATUS) ?? this.state.status;
    this.lastPayment = ('firstCharge' in input && input.firstCharge?.description) || null;
    this.startReminderDays = input.reminderDays;
    this.showDetails();
  }

  /** The Web UI's current details of the workflow, from the state and the last charge (no command: replays unchanged). */
  showDetails(): void {
    setCurrentDetails(subscriptionCurrentDetails(this.state, this.lastPayment));
  }

  /** A charge's answer, kept for the current details. */
  private charged(answer: RenewalChargeResult): RenewalChargeResult {
    this.lastPayment = paymentLine(answer, this.time.now());
    return answer;
  }

  /** The API speaks Unix seconds: every time the workflow records is a whole second, so what it stores reads back exactly. */
  wholeSecondsNow(): number {
    return Math.floor(this.time.now() / 1000) * 1000;
  }

  /** On a test clock, activities record what they write at the clock's time (src/lib/clock-time.ts). */
  private clockTime() {
    return this.time.testClock ? { clockTime: this.time.now() } : {};
  }

  /** Runs `step` alone: since PATCHES.serialSteps in arrival order (a FIFO lock), each on the state the previous one wrote. */
  async exclusive<T>(step: () => Promise<T>): Promise<T> {
    const hold = async () => {
      // A step begun before serialSteps (replayed) holds `busy` without the lock: the lock's holder waits for it.
      await condition(() => !this.busy);
      this.busy = true;
      try {
        return await step();
      } finally {
        this.busy = false;
      }
    };
    return patched(PATCHES.serialSteps) ? this.lock.runExclusive(hold) : hold();
  }

  /** The `state` query: the state, what comes next and when, in milliseconds and in ISO-8601. */
  view(): SubscriptionStateView {
    const { state } = this;
    const billingAt = nextBillingAt(state);
    const action = nextAction(state);
    return {
      ...state,
      nextBillingAt: billingAt,
      nextAction: action,
      busy: this.busy,
      settled: this.settled,
      renewalsThisRun: this.renewalsThisRun,
      billingStatus: this.shownStatus,
      times: isoTimes({
        nextBillingAt: billingAt,
        'nextAction.at': action?.at,
        createdAt: state.createdAt,
        startDate: state.startDate,
        startBillingDate: state.startBillingDate,
        endDate: state.endDate,
        trialStart: state.trialStart,
        trialEnd: state.trialEnd,
        anchor: state.anchor,
        currentPeriodStart: state.currentPeriodStart,
        currentPeriodEnd: state.currentPeriodEnd,
        cancelAt: state.cancelAt,
        canceledAt: state.canceledAt,
        endedAt: state.endedAt,
        pausedAt: state.pausedAt,
        ...Object.fromEntries(
          state.dunning.flatMap((entry, index) => [
            [`dunning.${index}.failedAt`, entry.failedAt],
            [`dunning.${index}.nextRetryAt`, entry.nextRetryAt],
          ]),
        ),
      }),
    };
  }

  /**
   * Sets BillingStatus for `next` (the state about to replace `state`). Without dunning in view this
   * is the upsert the code always made (when the status changes); with it, `past_due` and back, since
   * PATCHES.pastDueStatus.
   */
  private showStatus(next: SubscriptionState): void {
    const wanted = billingStatusOf(next);
    if (wanted === this.shownStatus) return;
    if ((wanted === 'past_due' || this.shownStatus === 'past_due') && !patched(PATCHES.pastDueStatus)) {
      if (next.status === this.state.status) return;
      this.shownStatus = next.status;
    } else this.shownStatus = wanted;
    upsertSearchAttributes([{ key: BILLING_STATUS, value: this.shownStatus }]);
  }

  /** Writes `next` with its event (one transaction: the row, the items, the event) and makes it the state. */
  private async commit(
    next: SubscriptionState,
    event: PersistSubscriptionInput['event'],
    recorder: Recorder = records,
    also: Pick<PersistSubscriptionInput, 'coupon' | 'notInvoiced'> = {},
  ): Promise<SubscriptionObject> {
    const redeemed = also.coupon === undefined ? '' : ` with coupon ${also.coupon}`;
    const unbilled = also.notInvoiced ? ' and subscription.period_not_invoiced' : '';
    const object = await recorder.persistSubscription.executeWithOptions(
      {
        summary: `record ${event?.type ?? 'the state'}${redeemed}${unbilled} (version ${next.version}, ${next.status})`,
      },
      [{ state: next, event, ...also, ...this.clockTime() }],
    );
    this.showStatus(next);
    this.state = next;
    this.latest = object;
    this.showDetails();
    return object;
  }

  /** The subscription as the row has it now, for an update that changed nothing (writing the current version writes nothing). */
  private recorded(): Promise<SubscriptionObject> {
    return records.persistSubscription.executeWithOptions(
      { summary: `nothing changed: answer the subscription as recorded (version ${this.state.version})` },
      [{ state: this.state, event: null, ...this.clockTime() }],
    );
  }

  /** The creation's own write (runs started with `{create}`); false when it was refused (creationFailure set). */
  async recordCreation(): Promise<boolean> {
    // The caller set account and customer; the status is the workflow's to tell.
    upsertSearchAttributes([{ key: BILLING_STATUS, value: this.state.status }]);
    try {
      await this.commit(
        newVersion(this.state),
        { type: 'subscription.created' },
        patched(PATCHES.localCreation) ? localRecords : records,
      );
      return true;
    } catch (error) {
      const rejection = rejectionOf(error);
      if (!rejection) throw error;
      this.creationFailure = rejectionFailure(rejection);
      return false;
    }
  }

  /**
   * An update's change: computed from the state it finds once it holds the lock (the rules judge it
   * again there: an update validated against an older state may be refused now), checked, then persisted.
   */
  change(
    transition: (current: SubscriptionState, nowMs: number) => SubscriptionState,
    event: (next: SubscriptionState) => PersistSubscriptionInput['event'],
    check?: (next: SubscriptionState) => Promise<void>,
    amend?: (current: SubscriptionState, next: SubscriptionState, nowMs: number) => Promise<SubscriptionState>,
  ): Promise<SubscriptionObject> {
    return this.exclusive(() => this.changeHeld(transition, event, check, amend));
  }

  /** `change` for a caller that holds the lock already (an update that redeems a coupon after its other fields). */
  async changeHeld(
    transition: (current: SubscriptionState, nowMs: number) => SubscriptionState,
    event: (next: SubscriptionState) => PersistSubscriptionInput['event'],
    check?: (next: SubscriptionState) => Promise<void>,
    amend?: (current: SubscriptionState, next: SubscriptionState, nowMs: number) => Promise<SubscriptionState>,
  ): Promise<SubscriptionObject> {
    let next: SubscriptionState;
    const nowMs = this.wholeSecondsNow();
    try {
      next = transition(this.state, nowMs);
    } catch (error) {
      asRuleFailure(error);
    }
    return this.refusedAsRejection(async () => {
      // Nothing changes: the row is answered as it is (persisting the current version writes nothing).
      if (sameState(next, this.state) && patched(PATCHES.noOpUnrecorded)) return await this.recorded();
      if (check) await check(next);
      if (amend) next = await amend(this.state, next, nowMs);
      return await this.commit(next, event(next));
    });
  }

  /**
   * Redeems `coupon` on the subscription, under the lock (the caller holds it): refused (409) once the
   * subscription has ended, so a redemption racing a cancellation never lands on the canceled one; the
   * redemption is written with a new version and its subscription.updated, in one transaction, or not
   * at all (docs/decisions.md §37).
   */
  async redeemCouponHeld(coupon: string, origin: EventOrigin | undefined): Promise<SubscriptionObject> {
    try {
      assertNotEnded(this.state);
    } catch (error) {
      asRuleFailure(error);
    }
    return this.refusedAsRejection(() =>
      this.commit(newVersion(this.state), withOrigin({ type: 'subscription.updated' as const }, origin), records, {
        coupon,
      }),
    );
  }

  /** Runs `step`; a refusal of one of its activities becomes the update's rejection (the API's 4xx). */
  private async refusedAsRejection<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      const rejection = rejectionOf(error);
      if (rejection) throw rejectionFailure(rejection);
      throw error;
    }
  }

  /**
   * The change from `current` to `next` at `nowMs`, prorated (docs/decisions.md §25): inside a billed
   * period, a credit for the unused time of what the change replaced and a charge for the time left of
   * what replaces it, with the prices' amounts read now (a local activity). `create_prorations` keeps the
   * lines for the next invoice; `always_invoice` invoices them now, with any lines already pending.
   */
  async prorated(
    current: SubscriptionState,
    next: SubscriptionState,
    nowMs: number,
    behavior: Exclude<ProrationBehavior, 'none'>,
  ): Promise<SubscriptionState> {
    const period = prorationPeriod(current, nowMs);
    if (!period) return next;
    const priceIds = [...new Set([...current.items, ...next.items].map((item) => item.priceId))];
    const unitAmounts = await localRecords.prorationPrices.executeWithOptions(
      { summary: `read ${priceIds.length} prices to prorate the change` },
      [{ accountId: current.accountId, priceIds }],
    );
    const lines = await this.capped(
      current,
      period,
      prorationLines(current.items, next.items, unitAmounts, period, nowMs),
    );
    if (lines.length === 0) return next;
    if (behavior === 'create_prorations') return { ...next, pendingLines: [...(next.pendingLines ?? []), ...lines] };
    const invoiced = [...(next.pendingLines ?? []), ...lines];
    const { invoiceId, total, creditedToBalance } = await invoiceProrationsNow(
      `invoice ${invoiced.length} proration lines now`,
      { ...this.invoiceNow(next, nowMs), lines: invoiced },
    );
    return { ...next, latestInvoiceId: invoiceId, pendingLines: carriedFrom(invoiceId, total, creditedToBalance) };
  }

  /**
   * The lines with their credits for unused time capped at what the period still holds (docs/decisions.md
   * §25), read now by a local activity, since PATCHES.unusedTimeCap: a period credited back or refunded, a
   * discount, an invoice still unpaid. Lines without a credit need no read.
   */
  private async capped(
    current: SubscriptionState,
    period: { start: number; end: number },
    lines: ProrationLine[],
  ): Promise<ProrationLine[]> {
    if (!lines.some((line) => line.kind === 'unused') || !patched(PATCHES.unusedTimeCap)) return lines;
    return localRecords.capUnusedTime.executeWithOptions(
      { summary: `cap the credit for unused time at what the period ${isoDay(period.start)} still holds` },
      [
        {
          accountId: current.accountId,
          subscriptionId: current.id,
          period,
          pendingLines: current.pendingLines,
          lines,
        },
      ],
    );
  }

  /**
   * The subscription ends at `atMs` (cancel now, end_date, cancel_at): lines still waiting, and with
   * `prorate` a credit for the unused time of the billed period, are invoiced at once; a total below
   * zero goes to the customer's balance (or, when the balance cannot take it, is refunded to the card
   * from the period's invoice: docs/decisions.md §25), all inside the activity.
   */
  async endingProrated(
    current: SubscriptionState,
    ended: SubscriptionState,
    atMs: number,
    prorate: boolean,
  ): Promise<SubscriptionState> {
    const period = prorate ? prorationPeriod(current, atMs) : null;
    let credits: PendingLine[] = [];
    if (period) {
      const priceIds = [...new Set(current.items.map((item) => item.priceId))];
      const unitAmounts = await localRecords.prorationPrices.executeWithOptions(
        { summary: `read ${priceIds.length} prices to credit the unused time` },
        [{ accountId: current.accountId, priceIds }],
      );
      credits = await this.capped(current, period, endingCredits(current.items, unitAmounts, period, atMs));
    }
    const lines = [...(current.pendingLines ?? []), ...credits];
    const finalUsage = this.finalUsage(current, atMs);
    if (lines.length === 0 && !finalUsage) return { ...ended, pendingLines: undefined };
    const what = finalUsage ? `${lines.length} lines and the final usage` : `${lines.length} lines`;
    const { invoiceId } = await invoiceProrationsNow(`invoice ${what} as the subscription ends`, {
      accountId: ended.accountId,
      subscriptionId: ended.id,
      customerId: ended.customerId,
      currency: ended.currency,
      collectionMethod: ended.collectionMethod,
      paymentMethodId: ended.defaultPaymentMethodId,
      lines,
      at: atMs,
      version: ended.version,
      ...(period ? { endingPeriodStart: period.start } : {}),
      ...(finalUsage ? { finalUsage } : {}),
      ...this.clockTime(),
    });
    return { ...ended, latestInvoiceId: invoiceId, pendingLines: undefined };
  }

  /**
   * What an ending at `atMs` bills of the metered items (docs/decisions.md §43): the usage since the period's
   * start, or null. Only subscriptions with metered items ask the patch.
   */
  finalUsage(current: SubscriptionState, atMs: number): ImmediateInvoiceInput['finalUsage'] | null {
    const period = closingUsagePeriod(current, atMs);
    // Usage kept from a changed item is there only since PATCHES.changedUsage, in runs that already took it.
    const kept = current.keptUsage ?? [];
    if (!period && kept.length === 0) return null;
    if (!patched(PATCHES.finalUsage)) return null;
    return {
      items: current.items.filter((item) => item.metered),
      ...(period ? { period } : {}),
      ...(kept.length > 0 ? { kept } : {}),
    };
  }

  /**
   * A change of items keeps the usage of the metered items it removes or moves, and bills those it adds or
   * moves from now (keepChangedUsage, docs/decisions.md §43). Only changes of metered items ask the patch.
   */
  keptUsage(current: SubscriptionState, next: SubscriptionState, nowMs: number): SubscriptionState {
    const kept = keepChangedUsage(current, next, nowMs);
    return kept && patched(PATCHES.changedUsage) ? kept : next;
  }

  /** Whether an ending owes an invoice (lines waiting, a prorated end, usage): only runs that used proration or metered items reach the patches. */
  private endsWithInvoice(atMs: number): boolean {
    return (
      ((Boolean(this.state.pendingLines?.length) || this.state.prorateEnd === true) && patched(PATCHES.prorations)) ||
      this.finalUsage(this.state, atMs) !== null
    );
  }

  /** The items a change leaves, each with the request field that changed it, against the charge ceiling (an activity: prices live in the database). */
  async checkItemsCeiling(next: SubscriptionState, changes: SubscriptionChanges): Promise<void> {
    const params = new Map((changes.items ?? []).map(({ param, change }) => [change.id, param]));
    await localRecords.checkItemsWithinCeiling.executeWithOptions(
      { summary: `check ${next.items.length} items against the charge ceiling` },
      [
        {
          accountId: this.state.accountId,
          items: next.items.map((item) => ({
            priceId: item.priceId,
            quantity: item.quantity,
            taxRateIds: item.taxRateIds,
            param: params.get(item.id) ?? null,
          })),
        },
      ],
    );
  }

  /** The next period's invoice of `next` (its items and the lines waiting) against the charge ceiling, as the renewal will make it. */
  async checkNextInvoiceCeiling(next: SubscriptionState): Promise<void> {
    const billing = nextPeriodBilling(next);
    if ('none' in billing) return;
    await localRecords.checkPeriodInvoiceWithinCeiling.executeWithOptions(
      {
        summary: `check the invoice of ${isoDay(billing.at)} with ${next.pendingLines?.length ?? 0} lines waiting against the charge ceiling`,
      },
      [periodToBill(next, next.nextPeriodIndex)],
    );
  }

  /** What an invoice made now for `next` (its version names it) says of the subscription. */
  private invoiceNow(next: SubscriptionState, nowMs: number) {
    return {
      accountId: next.accountId,
      subscriptionId: next.id,
      customerId: next.customerId,
      currency: next.currency,
      collectionMethod: next.collectionMethod,
      paymentMethodId: next.defaultPaymentMethodId,
      at: nowMs,
      version: next.version,
      ...this.clockTime(),
    };
  }

  /** A notice of usage written: the loop checks the billing threshold, one check for any number of notices. */
  noticeUsage(): void {
    if (this.state.billingThreshold !== undefined) this.usageReported = true;
  }

  /**
   * The billing threshold (docs/decisions.md §43, "Billing thresholds"), checked under the lock: while a billed
   * period runs (not in its grace, a trial or a pause), the activity prices the usage to date not yet billed and,
   * when it reaches the threshold, invoices and charges it at once under the key of the version written here.
   */
  async checkThreshold(): Promise<void> {
    this.usageReported = false;
    const threshold = this.state.billingThreshold;
    const periodEnd = this.state.currentPeriodEnd;
    if (threshold === undefined || periodEnd === null || this.state.status !== 'active') return;
    const period = closingUsagePeriod(this.state, periodEnd);
    const nowMs = this.wholeSecondsNow();
    if (!period || nowMs >= period.end || !patched(PATCHES.billingThresholds)) return;
    const next = newVersion(this.state);
    const result = await invoiceThresholdUsage(`check the usage to date against the threshold of ${threshold}`, {
      ...this.invoiceNow(next, nowMs),
      lines: [],
      // Events are dated in whole seconds: one dated in the check's own second has happened, and the notice of its
      // batch may be what started this check, which is the last until another batch comes.
      finalUsage: { items: next.items.filter((item) => item.metered), period, upTo: nowMs + SECOND_MS },
      billingReason: 'subscription_threshold',
      threshold,
    });
    if (!result.invoiced) return;
    const invoiced = { ...next, latestInvoiceId: result.invoiceId };
    if (result.held && patched(PATCHES.thresholdHeldCharges)) {
      // Its bank debit waits for the bank as a renewal's does (docs/decisions.md §40, "Who waits for a bank debit").
      const held = chargeHeld(invoiced, {
        invoiceId: result.invoiceId,
        periodStart: period.start,
        attempt: 1,
        earlyInvoiceVersion: next.version,
      });
      await this.commit(held, { type: 'subscription.updated' });
      return;
    }
    if (!result.dunning || !patched(PATCHES.thresholdDunning)) {
      await this.commit(invoiced, { type: 'subscription.updated' });
      return;
    }
    // A declined early invoice is dunned as the period's invoice is (docs/decisions.md §43, "Billing thresholds").
    const dunned = startDunning(invoiced, {
      invoiceId: result.invoiceId,
      periodStart: period.start,
      failedAt: nowMs,
      retryDays: result.dunning.retryDays,
      outcome: result.dunning.outcome,
      earlyInvoiceVersion: next.version,
    });
    await this.commit(dunned, { type: 'subscription.updated' });
    if (dunningExhausted(this.state, result.invoiceId)) await this.applyDunningOutcome(result.invoiceId);
  }

  /**
   * A notice that an invoice was paid or voided outside the workflow, or that its held charge was settled: kept for
   * the loop when it is one in dunning or held, else until the workflow holds its charge (recallEarlyNotices).
   */
  noticeSettled(notice: unknown): void {
    const invoiceId = (notice as { invoiceId?: unknown } | null)?.invoiceId;
    if (typeof invoiceId !== 'string') {
      log.warn('invoiceSettled ignored: no invoice named', { subscriptionId: this.state.id, notice });
      return;
    }
    if (this.state.dunning.some((entry) => entry.invoiceId === invoiceId) || isHeld(this.state, invoiceId))
      this.reportedSettled.add(invoiceId);
    else this.settledBeforeHeld.add(invoiceId);
  }

  /**
   * Moves to the loop's checks the notices that came before the workflow held their invoice's charge (the settlement
   * overtook the charge's answer, or came while the step holding it was writing it): no other notice will come
   * (docs/decisions.md §40).
   */
  recallEarlyNotices(): void {
    for (const invoiceId of [...this.settledBeforeHeld]) {
      if (!isHeld(this.state, invoiceId)) continue;
      this.settledBeforeHeld.delete(invoiceId);
      if (patched(PATCHES.earlySettledNotices)) this.reportedSettled.add(invoiceId);
    }
  }

  /**
   * Ends the dunning of each reported invoice the database shows paid or voided; one still open waits for its retry.
   * An invoice whose charge the processor held is asked about that charge instead (heldOutcome).
   */
  async checkReportedSettled(): Promise<void> {
    for (const invoiceId of [...this.reportedSettled]) {
      this.reportedSettled.delete(invoiceId);
      const held = this.state.held?.find((charge) => charge.invoiceId === invoiceId);
      if (held && patched(PATCHES.heldCharges)) {
        await this.heldOutcome(held);
        continue;
      }
      if (!this.state.dunning.some((entry) => entry.invoiceId === invoiceId)) continue;
      const { status } = await localRecords.invoiceStatus.executeWithOptions(
        { summary: `invoice ${invoiceId} settled outside the workflow?` },
        [{ accountId: this.state.accountId, invoiceId }],
      );
      if (status === 'paid' || status === 'void') await this.endDunning(invoiceId);
    }
  }

  /** Reminders this run queued or found not wanted (`kind:moment`); a later run finds a queued one written once. */
  private readonly remindersDone = new Set<string>();
  /** The account's reminder days, read once per moment (`kind:moment`). */
  private readonly reminderDaysRead = new Map<string, number | null>();

  /** The reminder days the run was started with, for the first moment it asks about (later ones ask the account). */
  private startReminderDays: SubscriptionWorkflowInput['reminderDays'];

  private reminderDaysFromStart(key: string, kind: ReminderEmailKind): number | null | undefined {
    const given = this.startReminderDays;
    if (!given) return undefined;
    this.startReminderDays = undefined;
    this.reminderDaysRead.set(key, given[kind]);
    return given[kind];
  }

  /**
   * The reminder of the next renewal or trial end, when it comes before `action` (docs/decisions.md §31),
   * since PATCHES.reminders: its moment come, it is queued once and its email's workflow started; not
   * yet, the loop waits for it (as for an action: a change wakes it). False: none to send or wait for
   * before the action.
   */
  async remindBefore(action: Action | null): Promise<boolean> {
    const target = reminderTarget(this.state);
    if (!target) return false;
    const key = `${target.kind}:${target.dueAt}`;
    if (this.remindersDone.has(key)) return false;
    let days = this.reminderDaysRead.has(key)
      ? this.reminderDaysRead.get(key)
      : this.reminderDaysFromStart(key, target.kind);
    if (days === undefined) {
      // A run started with the days (never one recorded before reminders existed) needs no patch for them.
      if (!patched(PATCHES.reminders)) return false;
      const read = await reminderRecords.reminderDays.executeWithOptions(
        { summary: `reminder days before ${isoDay(target.dueAt)}` },
        [{ accountId: this.state.accountId }],
      );
      days = read[target.kind];
      this.reminderDaysRead.set(key, days);
    }
    const at = days === null ? null : reminderAt(target, days);
    if (at === null) {
      this.remindersDone.add(key);
      return false;
    }
    if (action !== null && action.at < at) return false;
    if (!this.time.due(at)) {
      this.settled = true;
      const seen = this.state.version;
      await this.time.sleep(
        () => this.state.version !== seen || this.reportedSettled.size > 0 || this.usageReported,
        at,
        `${target.kind} email for ${isoDay(target.dueAt)}`,
      );
      return true;
    }
    const emailId = await reminderEmails.queueReminder.executeWithOptions(
      { summary: `queue the ${target.kind} email for ${isoDay(target.dueAt)}` },
      [{ state: this.state, kind: target.kind, dueAt: target.dueAt, ...this.clockTime() }],
    );
    this.remindersDone.add(key);
    if (emailId) await this.startEmail(emailId, target.kind);
    return true;
  }

  /** The email's own workflow (`email:<eml id>`, workflows/email.ts), left running when this run continues as new or ends. */
  private async startEmail(emailId: string, kind: string): Promise<void> {
    try {
      await startChild<typeof sendEmail>('sendEmail', {
        workflowId: `email:${emailId}`,
        args: [{ emailId }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [{ key: BILLING_ACCOUNT_ID, value: this.state.accountId }],
        staticSummary: `${kind} email`,
        staticDetails: markdownLines([
          `**Email**: ${emailId}`,
          `**Subscription**: ${this.state.id}`,
          `**Account**: ${this.state.accountId}`,
          '**Sends**: once, by its Message-ID; the address and the text are in the emails table, not here',
        ]),
      });
    } catch (error) {
      // A run before a continue-as-new started it already: the email goes once.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  /** Waits until `action` is due, or until something changes the state or reports a settled invoice. */
  async waitFor(action: Action | null): Promise<void> {
    this.settled = true;
    const seen = this.state.version;
    await this.time.sleep(
      () => this.state.version !== seen || this.reportedSettled.size > 0 || this.usageReported,
      action === null ? null : action.at,
      action === null ? undefined : subscriptionTimerSummary(action, this.state),
    );
  }

  /** Performs the action due now, judged again under the lock (an update may have changed everything). */
  async performDue(): Promise<void> {
    const action = nextAction(this.state);
    if (!action || !this.time.due(action.at)) return;
    switch (action.kind) {
      case 'expire':
      case 'cancel': {
        let ended = end(this.state, action.at, action.kind === 'expire' ? 'expired' : 'canceled');
        if (this.endsWithInvoice(action.at))
          ended = await this.endingProrated(this.state, ended, action.at, this.state.prorateEnd === true);
        // A cancellation at period end asked on the customer portal says so when it happens (§38).
        await this.commit(
          ended,
          withOrigin({ type: 'subscription.canceled' as const, cause: REQUESTED }, this.state.cancelOrigin),
        );
        break;
      }
      case 'start':
        await this.commit(start(this.state, this.wholeSecondsNow()), { type: 'subscription.updated' }, this.dueSteps());
        break;
      case 'end_trial':
        await this.commit(endTrial(this.state), { type: 'subscription.updated' }, this.dueSteps());
        break;
      case 'retry':
        await this.retryCharge(action.invoiceId);
        break;
      case 'bill':
        await this.bill(action.index);
        break;
    }
  }

  /** Where a due step records the state: in the workflow task since PATCHES.localSteps (docs/decisions.md §39). */
  private dueSteps(): Recorder {
    return patched(PATCHES.localSteps) ? localRecords : records;
  }

  // --- billing a period ---

  /** The renewal of period `index`: invoice created, finalized, then charged (or sent), in that order. */
  private async bill(index: number): Promise<void> {
    const { state } = this;
    const toBill = periodToBill(state, index);
    const { periodStart, periodEnd } = toBill;
    const period = { accountId: state.accountId, subscriptionId: state.id, periodStart };
    const createdInvoiceId =
      index === 0 && 'created' in this.input && state.invoicesIssued === 0 ? state.latestInvoiceId : null;
    if (createdInvoiceId && patched(PATCHES.firstPeriodLocal)) return this.billCreatedInvoice(index, createdInvoiceId);
    const local = patched(PATCHES.localSteps);
    const steps = local ? localRecords : records;
    let invoiceId: string;
    let total: number | undefined;
    try {
      ({ invoiceId, total } = await steps.createRenewalInvoice.executeWithOptions(
        { summary: `invoice period ${isoDay(periodStart)} to ${isoDay(periodEnd)}` },
        [{ ...toBill, ...this.clockTime() }],
      ));
    } catch (error) {
      const cause = applicationFailureOf(error, RENEWAL_REJECTED);
      if (!cause) throw error;
      if (patched(PATCHES.uninvoicedPastDue)) await this.recordNotInvoiced(index, cause, steps);
      else {
        log.warn('renewal not invoiced', { subscriptionId: state.id, periodStart, reason: cause.message });
        await this.commit(billed(state, index, null, cause.message), { type: 'subscription.updated' }, steps);
      }
      this.renewalsThisRun += 1;
      return;
    }
    const { status, number, creditedToBalance } = await steps.finalizeRenewalInvoice.executeWithOptions(
      { summary: `finalize invoice ${invoiceId}` },
      [{ ...period, invoiceId, ...this.clockTime() }],
    );
    // The first invoice of a subscription the API created is charged by the API before the workflow gets
    // here (finalize then answers paid): the charge activity is still run, so that its recorded result,
    // the receipt of the API's attempt 1 (same attempt key, nothing charged again), shows in the history.
    const foundPaid =
      status === 'paid' && state.collectionMethod === 'charge_automatically' && patched(PATCHES.firstChargeReceipt);
    const charge =
      chargedOnFinalize(state, status) || foundPaid
        ? await this.chargeAttemptOne(index, invoiceId, number, local)
        : null;
    await this.recordBilled(index, invoiceId, charge, steps, number, carriedFrom(invoiceId, total, creditedToBalance));
  }

  /**
   * Period `index` cannot be invoiced (its invoice refused: `cause`). It is not skipped in silence
   * (docs/decisions.md §7): the subscription moves into it past_due (the row, BillingStatus) until a later
   * period is invoiced, with subscription.updated and subscription.period_not_invoiced naming the period and
   * the refusal, the worker's counter billing_periods_not_invoiced{code} (alert BillingPeriodNotInvoiced)
   * and an error in its log; lastError in the `state` query.
   */
  private async recordNotInvoiced(index: number, cause: ApplicationFailure, recorder: Recorder): Promise<void> {
    const { state } = this;
    const { periodStart, periodEnd } = periodToBill(state, index);
    const code = (cause.details?.[0] as { code?: unknown } | undefined)?.code;
    const failureCode = typeof code === 'string' ? code : 'other';
    log.error('period not invoiced', {
      subscriptionId: state.id,
      periodStart,
      code: failureCode,
      reason: cause.message,
    });
    metricMeter
      .createCounter('billing_periods_not_invoiced', 'periods', 'Subscription periods whose invoice could not be made')
      .add(1, { code: failureCode });
    await this.commit(periodNotInvoiced(state, index, cause.message), { type: 'subscription.updated' }, recorder, {
      notInvoiced: { periodStart, periodEnd, code: failureCode, message: cause.message },
    });
  }

  /** Attempt 1 of a period's invoice, the renewal charge: a retried activity finishes the same attempt. */
  private async chargeAttemptOne(
    index: number,
    invoiceId: string,
    number?: string | null,
    local = false,
  ): Promise<RenewalChargeResult> {
    const { state } = this;
    const { periodStart } = periodToBill(state, index);
    const summary = `charge invoice ${invoiceLabel(invoiceId, number)} attempt 1 (renewal ${isoDay(periodStart)})`;
    const attempt = this.attemptOneOf(index, invoiceId);
    const result = this.charged(await chargeInvoice(summary, attempt, local));
    if (!local || result.outcome !== 'failed' || !patched(PATCHES.declinedChargeShown)) return result;
    // A local activity's failure is a marker the Web UI draws like any other: the declined attempt is asked
    // again of the charge activity, whose attempt key answers the recorded attempt (nothing is charged
    // again) and which fails visibly (ChargeFailed), with the same answer the workflow goes on with.
    return this.charged(await chargeInvoice(`${summary} FAILED: the recorded attempt, not charged again`, attempt));
  }

  /** What attempt 1 of a period's invoice charges: the period's key and the subscription's default payment method. */
  private attemptOneOf(index: number, invoiceId: string): RenewalChargeInput & ClockTimed {
    const { state } = this;
    return {
      accountId: state.accountId,
      subscriptionId: state.id,
      periodStart: periodToBill(state, index).periodStart,
      invoiceId,
      attempt: 1,
      paymentMethodId: state.defaultPaymentMethodId,
      ...this.clockTime(),
    };
  }

  /** The first period of a subscription the API created, since PATCHES.firstPeriodLocal (see there). */
  private async billCreatedInvoice(index: number, invoiceId: string): Promise<void> {
    const { state } = this;
    const summary =
      state.collectionMethod === 'charge_automatically'
        ? `first invoice ${invoiceId}: the API's charge, attempt 1`
        : `first invoice ${invoiceId}: finalized at creation`;
    const found = await localRecords.settleCreatedInvoice.executeWithOptions({ summary }, [
      { ...this.attemptOneOf(index, invoiceId), collectionMethod: state.collectionMethod },
    ]);
    if (chargedOnFinalize(state, found.status)) {
      await this.recordBilled(
        index,
        invoiceId,
        await this.chargeAttemptOne(index, invoiceId, found.number),
        records,
        found.number,
      );
      return;
    }
    if (found.apiAttempt) this.charged(found.apiAttempt);
    await this.recordBilled(index, invoiceId, found.apiAttempt, localRecords, found.number);
  }

  /** The period billed with its invoice; a failed charge starts dunning (and applies its outcome when no retry is left). */
  private async recordBilled(
    index: number,
    invoiceId: string,
    charge: RenewalChargeResult | null,
    recorder: Recorder,
    number?: string | null,
    carried?: PendingLine[],
  ): Promise<void> {
    const failure =
      charge?.outcome === 'failed'
        ? { failedAt: this.wholeSecondsNow(), retryDays: charge.retryDays, outcome: charge.dunningOutcome }
        : null;
    const invoiced = periodBilled(this.state, index, { id: invoiceId, number }, failure);
    // A renewal the processor holds (a bank debit) waits for its outcome: neither paid nor failed yet.
    const billedState =
      charge?.outcome === 'pending' && patched(PATCHES.heldCharges)
        ? chargeHeld(invoiced, {
            invoiceId,
            ...(number ? { invoiceNumber: number } : {}),
            periodStart: periodToBill(this.state, index).periodStart,
            attempt: 1,
          })
        : invoiced;
    // A renewal below zero whose credit the customer's balance did not take carries it to the next invoice.
    const next = carried ? { ...billedState, pendingLines: carried } : billedState;
    await this.commit(next, { type: 'subscription.updated' }, recorder);
    this.renewalsThisRun += 1;
    if (charge?.outcome === 'failed' && dunningExhausted(this.state, invoiceId))
      await this.applyDunningOutcome(invoiceId);
  }

  // --- dunning ---

  /**
   * A dunning retry: each failure is its own invoice.payment_failed; the last one applies the account's
   * outcome. The charge made on resume (attempts 0) plays the renewal charge's part: its failure starts
   * a new round on the schedule in force then.
   */
  private async retryCharge(invoiceId: string): Promise<void> {
    const { state } = this;
    const entry = state.dunning.find((candidate) => candidate.invoiceId === invoiceId)!;
    const attempt = nextAttempt(entry);
    const result = this.charged(
      await chargeInvoice(
        `charge invoice ${invoiceLabel(invoiceId, entry.invoiceNumber)} attempt ${attempt} (${dunningRetryLabel(entry)})`,
        {
          accountId: state.accountId,
          subscriptionId: state.id,
          periodStart: entry.periodStart,
          invoiceId,
          attempt,
          paymentMethodId: state.defaultPaymentMethodId,
          // Recorded with the charge, so reports say what it was (src/transactions/transaction-origin.ts).
          retry:
            entry.attempts === 0
              ? { origin: 'charge_after_resume' }
              : { origin: 'dunning_retry', dunningRetry: entry.attempts },
          ...earlyInvoiceKeyOf(state, invoiceId),
          ...this.clockTime(),
        },
      ),
    );
    if (result.outcome === 'pending' && patched(PATCHES.heldCharges)) {
      // The dunning waits for the processor: no retry is made beside a held charge (docs/decisions.md §40).
      this.state = chargeHeld(this.state, {
        invoiceId,
        ...(entry.invoiceNumber ? { invoiceNumber: entry.invoiceNumber } : {}),
        periodStart: entry.periodStart,
        attempt,
      });
      return;
    }
    await this.retryAnswered(entry, result);
  }

  /**
   * A retry's answer (or the outcome of a held one): paid or voided ends the dunning; a failure counts, and the last
   * one applies the account's outcome.
   */
  private async retryAnswered(entry: DunningState, result: RenewalChargeResult): Promise<void> {
    const { invoiceId } = entry;
    if (result.outcome !== 'failed') {
      await this.endDunning(invoiceId);
      return;
    }
    this.state =
      entry.attempts === 0
        ? startDunning(this.state, {
            invoiceId,
            ...(entry.invoiceNumber ? { invoiceNumber: entry.invoiceNumber } : {}),
            periodStart: entry.periodStart,
            failedAt: this.wholeSecondsNow(),
            retryDays: result.retryDays,
            outcome: result.dunningOutcome,
            attemptOffset: entry.attemptOffset ?? 0,
          })
        : retryFailed(this.state, invoiceId);
    if (dunningExhausted(this.state, invoiceId)) await this.applyDunningOutcome(invoiceId);
  }

  /**
   * The processor settled the invoice's held charge (or a notice came early): the same attempt is asked again, under
   * its attempt key, which answers the recorded outcome and charges nothing (docs/decisions.md §40). Still held: it
   * waits on. Paid or voided: collection ends. Failed (a bank debit returned): a failed attempt, and dunning goes on
   * as for a decline (a renewal's return starts it, on the account's schedule from now).
   */
  private async heldOutcome(held: HeldCharge): Promise<void> {
    const { state } = this;
    const result = this.charged(
      await chargeInvoice(
        `outcome of invoice ${invoiceLabel(held.invoiceId, held.invoiceNumber)} attempt ${held.attempt}, held by the processor`,
        {
          accountId: state.accountId,
          subscriptionId: state.id,
          periodStart: held.periodStart,
          invoiceId: held.invoiceId,
          attempt: held.attempt,
          paymentMethodId: state.defaultPaymentMethodId,
          // A retry of a dunned early invoice the processor holds: asked again under that retry's key.
          ...earlyInvoiceKeyOf(state, held.invoiceId),
          ...this.clockTime(),
        },
      ),
    );
    if (result.outcome === 'pending') return;
    this.state = heldChargeSettled(this.state, held.invoiceId);
    const entry = this.state.dunning.find((candidate) => candidate.invoiceId === held.invoiceId);
    if (entry) {
      await this.retryAnswered(entry, result);
      return;
    }
    // Paid or voided: nothing the subscription's row shows has changed.
    if (result.outcome !== 'failed') return;
    this.state = startDunning(this.state, {
      invoiceId: held.invoiceId,
      ...(held.invoiceNumber ? { invoiceNumber: held.invoiceNumber } : {}),
      ...(held.earlyInvoiceVersion !== undefined ? { earlyInvoiceVersion: held.earlyInvoiceVersion } : {}),
      periodStart: held.periodStart,
      failedAt: this.wholeSecondsNow(),
      retryDays: result.retryDays,
      outcome: result.dunningOutcome,
    });
    await this.commit(newVersion(this.state), { type: 'subscription.updated' });
    if (dunningExhausted(this.state, held.invoiceId)) await this.applyDunningOutcome(held.invoiceId);
  }

  /** Dunning of `invoiceId` is over: recorded (the row leaves past_due) since PATCHES.dunningEndRecorded, else in the state only. */
  private async endDunning(invoiceId: string): Promise<void> {
    const resolved = dunningResolved(this.state, invoiceId);
    if (patched(PATCHES.dunningEndRecorded)) {
      await this.commit(newVersion(resolved), { type: 'subscription.updated' });
      return;
    }
    this.showStatus(resolved);
    this.state = resolved;
  }

  private async applyDunningOutcome(invoiceId: string): Promise<void> {
    const entry = this.state.dunning.find((candidate) => candidate.invoiceId === invoiceId)!;
    log.info('dunning exhausted', { subscriptionId: this.state.id, invoiceId, outcome: entry.outcome });
    // A pause keeps the exhausted entry: the invoice is still owed, and resume charges it again.
    const keepForResume =
      entry.outcome === 'pause' && this.state.status === 'active' && patched(PATCHES.resumeChargesUnpaid);
    if (!keepForResume) this.state = dunningResolved(this.state, invoiceId);
    if (entry.outcome === 'cancel') {
      const nowMs = this.wholeSecondsNow();
      let ended = end(this.state, nowMs, 'canceled');
      // Proration lines still waiting are invoiced (no credit: the period was never paid), as any ending does.
      if (
        (this.state.pendingLines?.length && patched(PATCHES.prorations)) ||
        this.finalUsage(this.state, nowMs) !== null
      )
        ended = await this.endingProrated(this.state, ended, nowMs, false);
      await this.commit(ended, { type: 'subscription.canceled', cause: DUNNING });
    } else if (entry.outcome === 'pause' && this.state.status === 'active') {
      await this.commit(pause(this.state, this.wholeSecondsNow()), { type: 'subscription.paused', cause: DUNNING });
    }
    // keep_active: the invoice stays open and the subscription bills on (no longer past_due).
    else if (patched(PATCHES.dunningEndRecorded))
      await this.commit(newVersion(this.state), { type: 'subscription.updated' });
    else this.showStatus(this.state);
  }
}

/** The key an early invoice in dunning charges under (docs/decisions.md §43, "Billing thresholds"); {} for others. */
function earlyInvoiceKeyOf(state: SubscriptionState, invoiceId: string): { earlyInvoiceVersion?: number } {
  const version =
    state.dunning.find((entry) => entry.invoiceId === invoiceId)?.earlyInvoiceVersion ??
    state.held?.find((charge) => charge.invoiceId === invoiceId)?.earlyInvoiceVersion;
  return version === undefined ? {} : { earlyInvoiceVersion: version };
}
