import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  log,
  makeContinueAsNewFunc,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { Mutex } from 'async-mutex';
import type { PersistSubscriptionInput, RenewalChargeResult, SubscriptionActivities } from '../activities/subscriptions';
import { periodBounds } from '../src/subscriptions/billing-dates';
import {
  billed,
  billingCycle,
  cancel,
  DUNNING,
  dunningExhausted,
  dunningResolved,
  end,
  endTrial,
  initialState,
  isEnded,
  nextAction,
  nextAttempt,
  nextBillingAt,
  pause,
  REQUESTED,
  resume,
  retryFailed,
  start,
  startDunning,
  SubscriptionRuleError,
  update,
  assertCanPause,
  assertCanResume,
  assertCanCancelAtPeriodEnd,
  assertNotEnded,
  type SubscriptionState,
} from '../src/subscriptions/subscription-machine';
import { applicationFailureOf, REJECTION_TYPE, RENEWAL_REJECTED, rejectionFailure, rejectionOf, ruleRejection } from '../src/subscriptions/subscription-rejection';
import type { SubscriptionObject } from '../src/subscriptions/subscription.schemas';
import type { SubscriptionChanges } from '../src/subscriptions/subscription-machine';
import { BILLING_STATUS } from '../src/temporal/search-attributes';
import { workflowTime } from './clock';
import { billingStatusOf, dunningRetryLabel, isoDay, isoTimes, subscriptionTimerSummary } from './summaries';
import {
  argumentPath,
  cancelArgs,
  cancelUpdate,
  changeArgs,
  changeUpdate,
  createdUpdate,
  invoiceSettledSignal,
  noArgs,
  pauseUpdate,
  resumeUpdate,
  stateQuery,
  type SubscriptionWorkflowInput,
} from './subscription-messages';
import { HEARTBEAT_TIMEOUT } from './activity-options';

/** Renewals per run before continue-as-new: a ten-year monthly subscription keeps a short history per run. */
export const RENEWALS_PER_RUN = 12;
/** A run also continues as new when its history grows past this (many updates, long dunning). */
const MAX_HISTORY_EVENTS = 5_000;
/** How long the creation answer waits for what is due at once (the first invoice and its charge). */
const CREATION_WAIT = '20 seconds';
/** Since this patch a pause by dunning keeps the open invoice's dunning entry, so that resume charges it again. */
const RESUME_CHARGES_UNPAID = 'resume-charges-unpaid-invoice';

const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: [REJECTION_TYPE, RENEWAL_REJECTED] };
const records = proxyActivities<SubscriptionActivities>({ startToCloseTimeout: '30 seconds', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry });
// The gateway call may take a while; a retry of a charge finishes the same attempt (attempt key).
const payments = proxyActivities<SubscriptionActivities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry });
const localRecords = proxyLocalActivities<SubscriptionActivities>({ startToCloseTimeout: '30 seconds', retry });
/**
 * Since this patch the creation's projection write (the row and subscription.created) is a local
 * activity: it runs in the first workflow task, so the `created` update of a subscription with
 * nothing due at once is answered after one workflow task instead of two and an activity task. The
 * write stays idempotent (workflow_version); a worker that dies in that task is noticed by the
 * workflow task timeout and the task runs again elsewhere. Renewal steps stay activities (heartbeats,
 * the slow-charge answer). Runs started before it replay with the activity they scheduled.
 */
const LOCAL_CREATION = 'subscription-local-creation';
/** Since this patch a renewal invoice found paid still runs its charge activity, which reports the recorded attempt (the Web UI shows its receipt). */
const FIRST_CHARGE_RECEIPT = 'first-charge-receipt';
/**
 * Since this patch the first invoice of a subscription the API created (decisions.md §14), which the
 * API made and finalized in the creation's transaction and charged before it started the workflow, is
 * settled in the workflow's first task with local activities: one finds the invoice paid (and reports
 * the API's attempt 1, its receipt) or open without a charge due (send_invoice), one records the
 * period. An invoice still open to charge (the API died or its charge was slow) is charged by the
 * charge activity, attempt 1, as a renewal is. Runs started before it replay with the activities they
 * scheduled (create, finalize, charge, persist).
 */
const FIRST_PERIOD_LOCAL = 'first-period-local';
/**
 * Since this patch BillingStatus reads `past_due` while an invoice of an active subscription is in
 * dunning, and the subscription's status again once it is resolved (docs/operations.md). Runs that
 * started dunning before it replay with the upserts they made (the status only).
 */
const PAST_DUE_STATUS = 'billing-status-past-due';
/**
 * Since this patch the steps of a subscription (updates, renewals, retries) take a FIFO lock: each
 * is decided on the state the previous one wrote, in the order they arrived, and a change of items is
 * checked against the charge ceiling under it (docs/decisions.md §7, "Concurrent changes"). Before
 * it, every step waiting in one activation went at once, and two could write the same version. Runs
 * replay their older part without it. Remove when no run started before it is open.
 */
const SERIAL_STEPS = 'serial-steps';
/**
 * Since this patch the end of dunning is recorded (a new version and subscription.updated), so the
 * row's status leaves `past_due` when the invoice is paid, voided or kept open by `keep_active`.
 * Remove with PAST_DUE_STATUS, when no run that started dunning before it is open.
 */
const DUNNING_END_RECORDED = 'dunning-end-recorded';
/**
 * Since this patch an update that changes nothing (a quantity set to what it is, a withdrawal of a
 * period-end cancel never asked for) writes no version and no event: it answers the row as it is.
 * Remove when no run that took such an update before it is open.
 */
const NO_OP_UNRECORDED = 'no-op-updates-unrecorded';

/** Whether two states differ in anything but their version (a change worth recording). */
function sameState(a: SubscriptionState, b: SubscriptionState): boolean {
  return JSON.stringify({ ...a, version: 0 }) === JSON.stringify({ ...b, version: 0 });
}

function asRuleFailure(error: unknown): never {
  if (error instanceof SubscriptionRuleError) throw ruleRejection(error);
  throw error;
}

/**
 * The update's arguments, parsed: a refusal (400 parameter_invalid naming the argument) when they do
 * not fit. Run by every validator, and again by the handler (which validators never reach with bad input).
 */
function parseArgs<T>(schema: { safeParse(args: unknown[]): { success: true; data: T } | { success: false; error: { issues: Parameters<typeof argumentPath>[0][] } } }, args: unknown[]): T {
  const result = schema.safeParse(args);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = argumentPath(issue);
  throw rejectionFailure({ status: 400, code: 'parameter_invalid', message: `Invalid update argument '${param}': ${issue.message}`, param });
}

/**
 * One subscription's whole life (workflow id `subscription:<sub_id>`, decisions.md §7). The workflow
 * owns the schedule; the database row is its projection, written by `persistSubscription` with each
 * change and its event. API changes arrive as updates whose validators refuse forbidden moves, and
 * every step runs under one lock, so a renewal and an update never interleave.
 */
export async function subscriptionWorkflow(input: SubscriptionWorkflowInput): Promise<SubscriptionState> {
  // The wall clock, or the test clock's time (workflows/clock.ts): every read of time below goes through it.
  const time = workflowTime(input.testClock);
  /** The API speaks Unix seconds: every time the workflow records is a whole second, so what it stores reads back exactly. */
  const wholeSecondsNow = () => Math.floor(time.now() / 1000) * 1000;
  /** On a test clock, activities record what they write at the clock's time (src/lib/clock-time.ts). */
  const clockTime = () => (time.testClock ? { clockTime: time.now() } : {});
  let state: SubscriptionState = 'continued' in input ? input.continued : 'created' in input ? input.created : initialState(input.create, time.now());
  let latest: SubscriptionObject | undefined;
  let creationFailure: ApplicationFailure | undefined;
  let busy = false;
  const steps = new Mutex();
  let settled = false;
  let renewalsThisRun = 0;
  /** Invoices in dunning reported paid or voided from outside (invoiceSettledSignal), to check under the lock. */
  const reportedSettled = new Set<string>();
  /** BillingStatus as this run set it (a continued run: as the previous run left it). */
  let shownStatus = workflowInfo().typedSearchAttributes.get(BILLING_STATUS) ?? state.status;

  async function exclusive<T>(step: () => Promise<T>): Promise<T> {
    const hold = async () => {
      // A step begun before SERIAL_STEPS (replayed) holds `busy` without the lock: the lock's holder waits for it.
      await condition(() => !busy);
      busy = true;
      try {
        return await step();
      } finally {
        busy = false;
      }
    };
    return patched(SERIAL_STEPS) ? steps.runExclusive(hold) : hold();
  }

  /**
   * Sets BillingStatus for `next` (the state about to replace `state`). Without dunning in view this
   * is the upsert the code always made (when the status changes); with it, `past_due` and back, since
   * PAST_DUE_STATUS.
   */
  function showStatus(next: SubscriptionState): void {
    const wanted = billingStatusOf(next);
    if (wanted === shownStatus) return;
    if ((wanted === 'past_due' || shownStatus === 'past_due') && !patched(PAST_DUE_STATUS)) {
      if (next.status === state.status) return;
      shownStatus = next.status;
    } else shownStatus = wanted;
    upsertSearchAttributes([{ key: BILLING_STATUS, value: shownStatus }]);
  }

  async function commit(next: SubscriptionState, event: PersistSubscriptionInput['event'], steps = records): Promise<SubscriptionObject> {
    const object = await steps.persistSubscription.executeWithOptions({ summary: `record ${event?.type ?? 'the state'} (version ${next.version}, ${next.status})` }, [
      { state: next, event, ...clockTime() },
    ]);
    showStatus(next);
    state = next;
    latest = object;
    return object;
  }

  /** The subscription as the row has it now, for an update that changed nothing (writing the current version writes nothing). */
  async function recorded(): Promise<SubscriptionObject> {
    return records.persistSubscription.executeWithOptions({ summary: `nothing changed: answer the subscription as recorded (version ${state.version})` }, [
      { state, event: null, ...clockTime() },
    ]);
  }

  /**
   * An update's change: computed from the state it finds once it holds the lock (the rules judge it
   * again there: an update validated against an older state may be refused now), checked, then persisted.
   */
  function changeBy(
    transition: (current: SubscriptionState, nowMs: number) => SubscriptionState,
    event: (next: SubscriptionState) => PersistSubscriptionInput['event'],
    check?: (next: SubscriptionState) => Promise<void>,
  ) {
    return () =>
      exclusive(async () => {
        let next: SubscriptionState;
        try {
          next = transition(state, wholeSecondsNow());
        } catch (error) {
          asRuleFailure(error);
        }
        try {
          // Nothing changes: the row is answered as it is (persisting the current version writes nothing).
          if (sameState(next, state) && patched(NO_OP_UNRECORDED)) return await recorded();
          if (check) await check(next);
          return await commit(next, event(next));
        } catch (error) {
          const rejection = rejectionOf(error);
          if (rejection) throw rejectionFailure(rejection);
          throw error;
        }
      });
  }

  /** A validator: the arguments must parse, then `check` judges them against the current state. */
  function validator<T>(schema: Parameters<typeof parseArgs<T>>[0], check: (current: SubscriptionState, args: T) => void) {
    return (...args: unknown[]) => {
      const parsed = parseArgs(schema, args);
      if (state.version === 0) throw rejectionFailure({ status: 409, code: 'subscription_starting', message: `Subscription ${state.id} is still being created.` });
      try {
        check(state, parsed);
      } catch (error) {
        asRuleFailure(error);
      }
    };
  }

  setHandler(stateQuery, () => {
    const billingAt = nextBillingAt(state);
    const action = nextAction(state);
    return {
      ...state,
      nextBillingAt: billingAt,
      nextAction: action,
      busy,
      settled,
      renewalsThisRun,
      billingStatus: shownStatus,
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
  });

  setHandler(
    createdUpdate,
    async () => {
      await condition(() => creationFailure !== undefined || state.version > 0);
      if (creationFailure) throw creationFailure;
      // After the wait the answer says what is true: billing still running is billingPending, not a finished-looking object.
      const done = await condition(() => settled || isEnded(state), CREATION_WAIT);
      return { subscription: latest!, billingPending: !done };
    },
    {
      validator: (...args: unknown[]) => {
        parseArgs(noArgs, args);
        if (!('create' in input)) throw rejectionFailure({ status: 409, code: 'subscription_exists', message: `Subscription ${state.id} exists already.` });
      },
    },
  );

  setHandler(pauseUpdate, changeBy(pause, () => ({ type: 'subscription.paused', cause: REQUESTED })), { validator: validator(noArgs, assertCanPause) });
  setHandler(resumeUpdate, changeBy(resume, () => ({ type: 'subscription.resumed', cause: REQUESTED })), { validator: validator(noArgs, assertCanResume) });
  setHandler(
    cancelUpdate,
    (...args: unknown[]) => {
      const { atPeriodEnd } = parseArgs(cancelArgs, args);
      return changeBy(
        (current, nowMs) => cancel(current, nowMs, atPeriodEnd),
        (next) => (next.status === 'canceled' ? { type: 'subscription.canceled', cause: REQUESTED } : { type: 'subscription.updated' }),
      )();
    },
    {
      validator: validator(cancelArgs, (current, { atPeriodEnd }) => {
        assertNotEnded(current);
        if (atPeriodEnd) assertCanCancelAtPeriodEnd(current, wholeSecondsNow());
      }),
    },
  );
  setHandler(
    changeUpdate,
    (...args: unknown[]) => {
      const changes = parseArgs(changeArgs, args);
      return changeBy(
        (current, nowMs) => update(current, changes, nowMs),
        () => ({ type: 'subscription.updated' }),
        changes.items && patched(SERIAL_STEPS) ? (next) => checkItemsCeiling(next, changes) : undefined,
      )();
    },
    // A dry run on the current state: unknown item ids and forbidden moves are refused before anything is recorded.
    {
      validator: validator(changeArgs, (current, changes) => {
        if (Object.keys(changes).length === 0) {
          throw new SubscriptionRuleError('invalid', 'parameter_missing', 'The update changes nothing: give at least one field to change.', 'args.0');
        }
        update(current, changes, wholeSecondsNow());
      }),
    },
  );

  /** The items a change leaves, each with the request field that changed it, against the charge ceiling (an activity: prices live in the database). */
  async function checkItemsCeiling(next: SubscriptionState, changes: SubscriptionChanges): Promise<void> {
    const params = new Map((changes.items ?? []).map(({ param, change }) => [change.id, param]));
    await localRecords.checkItemsWithinCeiling.executeWithOptions({ summary: `check ${next.items.length} items against the charge ceiling` }, [
      {
        accountId: state.accountId,
        items: next.items.map((item) => ({ priceId: item.priceId, quantity: item.quantity, taxRateIds: item.taxRateIds, param: params.get(item.id) ?? null })),
      },
    ]);
  }

  /** Dunning of `invoiceId` is over: recorded (the row leaves past_due) since DUNNING_END_RECORDED, else in the workflow's state only. */
  async function endDunning(invoiceId: string): Promise<void> {
    const resolved = dunningResolved(state, invoiceId);
    if (patched(DUNNING_END_RECORDED)) {
      await commit({ ...resolved, version: state.version + 1 }, { type: 'subscription.updated' });
      return;
    }
    showStatus(resolved);
    state = resolved;
  }

  setHandler(invoiceSettledSignal, (notice: unknown) => {
    const invoiceId = (notice as { invoiceId?: unknown } | null)?.invoiceId;
    if (typeof invoiceId === 'string' && state.dunning.some((entry) => entry.invoiceId === invoiceId)) reportedSettled.add(invoiceId);
    else log.warn('invoiceSettled ignored: not an invoice in dunning', { subscriptionId: state.id, notice });
  });

  /** Ends the dunning of each reported invoice the database shows paid or voided; one still open waits for its retry. */
  async function checkReportedSettled(): Promise<void> {
    for (const invoiceId of [...reportedSettled]) {
      reportedSettled.delete(invoiceId);
      if (!state.dunning.some((entry) => entry.invoiceId === invoiceId)) continue;
      const { status } = await localRecords.invoiceStatus.executeWithOptions({ summary: `invoice ${invoiceId} settled outside the workflow?` }, [
        { accountId: state.accountId, invoiceId },
      ]);
      if (status === 'paid' || status === 'void') await endDunning(invoiceId);
    }
  }

  async function applyDunningOutcome(invoiceId: string): Promise<void> {
    const entry = state.dunning.find((candidate) => candidate.invoiceId === invoiceId)!;
    log.info('dunning exhausted', { subscriptionId: state.id, invoiceId, outcome: entry.outcome });
    // A pause keeps the exhausted entry: the invoice is still owed, and resume charges it again.
    const keepForResume = entry.outcome === 'pause' && state.status === 'active' && patched(RESUME_CHARGES_UNPAID);
    if (!keepForResume) state = dunningResolved(state, invoiceId);
    if (entry.outcome === 'cancel') await commit(end(state, wholeSecondsNow(), 'canceled'), { type: 'subscription.canceled', cause: DUNNING });
    else if (entry.outcome === 'pause' && state.status === 'active') await commit(pause(state, wholeSecondsNow()), { type: 'subscription.paused', cause: DUNNING });
    // keep_active: the invoice stays open and the subscription bills on (no longer past_due).
    else if (patched(DUNNING_END_RECORDED)) await commit({ ...state, version: state.version + 1 }, { type: 'subscription.updated' });
    else showStatus(state);
  }

  /** The renewal of period `index`: invoice created, finalized, then charged (or sent), in that order. */
  async function bill(index: number): Promise<void> {
    const { start: periodStart, end: periodEnd } = periodBounds(billingCycle(state), index);
    const period = { accountId: state.accountId, subscriptionId: state.id, periodStart };
    const createdInvoiceId = index === 0 && 'created' in input && state.invoicesIssued === 0 ? state.latestInvoiceId : null;
    if (createdInvoiceId && patched(FIRST_PERIOD_LOCAL)) return billCreatedInvoice(index, createdInvoiceId);
    let invoiceId: string;
    try {
      ({ invoiceId } = await records.createRenewalInvoice.executeWithOptions({ summary: `invoice period ${isoDay(periodStart)} to ${isoDay(periodEnd)}` }, [
        {
          ...period,
          ...clockTime(),
          periodEnd,
          customerId: state.customerId,
          currency: state.currency,
          collectionMethod: state.collectionMethod,
          billingReason: state.invoicesIssued === 0 ? 'subscription_create' : 'subscription_cycle',
          items: state.items,
        },
      ]));
    } catch (error) {
      const cause = applicationFailureOf(error, RENEWAL_REJECTED);
      if (!cause) throw error;
      log.warn('renewal not invoiced', { subscriptionId: state.id, periodStart, reason: cause.message });
      await commit(billed(state, index, null, cause.message), { type: 'subscription.updated' });
      renewalsThisRun += 1;
      return;
    }
    const { status } = await records.finalizeRenewalInvoice.executeWithOptions({ summary: `finalize invoice ${invoiceId}` }, [{ ...period, invoiceId, ...clockTime() }]);
    // The first invoice of a subscription the API created is charged by the API before the workflow gets
    // here (finalize then answers paid): the charge activity is still run, so that its recorded result,
    // the receipt of the API's attempt 1 (same attempt key, nothing charged again), shows in the history.
    const foundPaid = status === 'paid' && state.collectionMethod === 'charge_automatically' && patched(FIRST_CHARGE_RECEIPT);
    const charge = (status === 'open' || foundPaid) && state.collectionMethod === 'charge_automatically' ? await chargeAttemptOne(index, invoiceId) : null;
    await recordBilled(index, invoiceId, charge, records);
  }

  /** Attempt 1 of a period's invoice, the renewal charge: a retried activity finishes the same attempt. */
  function chargeAttemptOne(index: number, invoiceId: string): Promise<RenewalChargeResult> {
    const { start: periodStart } = periodBounds(billingCycle(state), index);
    return payments.chargeRenewalInvoice.executeWithOptions({ summary: `charge invoice ${invoiceId} attempt 1 (renewal ${isoDay(periodStart)})` }, [
      { accountId: state.accountId, subscriptionId: state.id, periodStart, invoiceId, attempt: 1, paymentMethodId: state.defaultPaymentMethodId, ...clockTime() },
    ]);
  }

  /** The first period of a subscription the API created, since FIRST_PERIOD_LOCAL (see there). */
  async function billCreatedInvoice(index: number, invoiceId: string): Promise<void> {
    const { start: periodStart } = periodBounds(billingCycle(state), index);
    const summary =
      state.collectionMethod === 'charge_automatically' ? `first invoice ${invoiceId}: the API's charge, attempt 1` : `first invoice ${invoiceId}: finalized at creation`;
    const found = await localRecords.settleCreatedInvoice.executeWithOptions({ summary }, [
      {
        accountId: state.accountId,
        subscriptionId: state.id,
        periodStart,
        invoiceId,
        attempt: 1,
        paymentMethodId: state.defaultPaymentMethodId,
        collectionMethod: state.collectionMethod,
        ...clockTime(),
      },
    ]);
    if (found.status === 'open' && state.collectionMethod === 'charge_automatically') {
      await recordBilled(index, invoiceId, await chargeAttemptOne(index, invoiceId), records);
      return;
    }
    await recordBilled(index, invoiceId, found.apiAttempt, localRecords);
  }

  /** The period billed with its invoice; a failed charge starts dunning (and applies its outcome when no retry is left). */
  async function recordBilled(index: number, invoiceId: string, charge: RenewalChargeResult | null, steps: typeof records): Promise<void> {
    const { start: periodStart } = periodBounds(billingCycle(state), index);
    let next = billed(state, index, invoiceId);
    if (charge?.outcome === 'failed') {
      next = startDunning(next, { invoiceId, periodStart, failedAt: wholeSecondsNow(), retryDays: charge.retryDays, outcome: charge.dunningOutcome });
    }
    await commit(next, { type: 'subscription.updated' }, steps);
    renewalsThisRun += 1;
    if (charge?.outcome === 'failed' && dunningExhausted(state, invoiceId)) await applyDunningOutcome(invoiceId);
  }

  /**
   * A dunning retry: each failure is its own invoice.payment_failed; the last one applies the account's
   * outcome. The charge made on resume (attempts 0) plays the renewal charge's part: its failure starts
   * a new round on the schedule in force then.
   */
  async function retryCharge(invoiceId: string): Promise<void> {
    const entry = state.dunning.find((candidate) => candidate.invoiceId === invoiceId)!;
    const attempt = nextAttempt(entry);
    const result = await payments.chargeRenewalInvoice.executeWithOptions({ summary: `charge invoice ${invoiceId} attempt ${attempt} (${dunningRetryLabel(entry)})` }, [
      {
        accountId: state.accountId,
        subscriptionId: state.id,
        periodStart: entry.periodStart,
        invoiceId,
        attempt,
        paymentMethodId: state.defaultPaymentMethodId,
        ...clockTime(),
      },
    ]);
    if (result.outcome !== 'failed') {
      await endDunning(invoiceId);
      return;
    }
    state =
      entry.attempts === 0
        ? startDunning(state, {
            invoiceId,
            periodStart: entry.periodStart,
            failedAt: wholeSecondsNow(),
            retryDays: result.retryDays,
            outcome: result.dunningOutcome,
            attemptOffset: entry.attemptOffset ?? 0,
          })
        : retryFailed(state, invoiceId);
    if (dunningExhausted(state, invoiceId)) await applyDunningOutcome(invoiceId);
  }

  /** Performs the action due now, judged again under the lock (an update may have changed everything). */
  async function performDue(): Promise<void> {
    const action = nextAction(state);
    if (!action || !time.due(action.at)) return;
    switch (action.kind) {
      case 'expire':
        await commit(end(state, action.at, 'expired'), { type: 'subscription.canceled', cause: REQUESTED });
        break;
      case 'cancel':
        await commit(end(state, action.at, 'canceled'), { type: 'subscription.canceled', cause: REQUESTED });
        break;
      case 'start':
        await commit(start(state, wholeSecondsNow()), { type: 'subscription.updated' });
        break;
      case 'end_trial':
        await commit(endTrial(state), { type: 'subscription.updated' });
        break;
      case 'retry':
        await retryCharge(action.invoiceId);
        break;
      case 'bill':
        await bill(action.index);
        break;
    }
  }

  if ('create' in input) {
    // The caller set account and customer; the status is the workflow's to tell.
    upsertSearchAttributes([{ key: BILLING_STATUS, value: state.status }]);
    try {
      await commit({ ...state, version: 1 }, { type: 'subscription.created' }, patched(LOCAL_CREATION) ? localRecords : records);
    } catch (error) {
      const rejection = rejectionOf(error);
      if (!rejection) throw error;
      creationFailure = rejectionFailure(rejection);
      await condition(allHandlersFinished);
      return state;
    }
  }

  for (;;) {
    if (isEnded(state)) break;
    const info = workflowInfo();
    if (renewalsThisRun >= RENEWALS_PER_RUN || info.continueAsNewSuggested || info.historyLength > MAX_HISTORY_EVENTS) {
      await condition(() => !busy && allHandlersFinished());
      if (!isEnded(state)) {
        // Memo and search attributes (as upserted until now) go on explicitly: the next run is found by the same filters.
        const { memo, typedSearchAttributes } = workflowInfo();
        await makeContinueAsNewFunc<typeof subscriptionWorkflow>({ memo, typedSearchAttributes })({ continued: state, ...(time.testClock ? { testClock: time.testClock } : {}) });
      }
      continue;
    }
    if (reportedSettled.size > 0) {
      await exclusive(checkReportedSettled);
      continue;
    }
    const action = nextAction(state);
    if (action === null || !time.due(action.at)) {
      settled = true;
      const seen = state.version;
      await time.sleep(
        () => state.version !== seen || reportedSettled.size > 0,
        action === null ? null : action.at,
        action === null ? undefined : subscriptionTimerSummary(action, state),
      );
      continue;
    }
    settled = false;
    await exclusive(performDue);
  }
  await time.release();
  await condition(allHandlersFinished);
  return state;
}
