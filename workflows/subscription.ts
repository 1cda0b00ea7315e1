import {
  allHandlersFinished,
  condition,
  makeContinueAsNewFunc,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  assertCanCancelAtPeriodEnd,
  assertCanPause,
  assertCanResume,
  assertNotEnded,
  cancel,
  isEnded,
  nextAction,
  pause,
  REQUESTED,
  resume,
  SubscriptionRuleError,
  update,
  type SubscriptionState,
} from '../src/subscriptions/subscription-machine';
import { rejectionFailure } from '../src/subscriptions/subscription-rejection';
import { withOrigin, type EventOrigin } from '../src/lib/event-origin';
import { workflowTime } from './clock';
import {
  argumentPath,
  cancelArgs,
  cancelUpdate,
  changeArgs,
  changeUpdate,
  createdUpdate,
  invoiceSettledSignal,
  usageReportedSignal,
  noArgs,
  originArgs,
  pauseUpdate,
  resumeUpdate,
  stateQuery,
  type SubscriptionWorkflowInput,
} from './subscription-messages';
import { SUBSCRIPTION_PATCHES as PATCHES } from './subscription-patches';
import { asRuleFailure, SubscriptionRun } from './subscription-run';

/** Renewals per run before continue-as-new: a ten-year monthly subscription keeps a short history per run. */
export const RENEWALS_PER_RUN = 12;
/** A run also continues as new when its history grows past this (many updates, long dunning). */
const MAX_HISTORY_EVENTS = 5_000;
/** How long the creation answer waits for what is due at once (the first invoice and its charge). */
const CREATION_WAIT = '20 seconds';

/**
 * The update's arguments, parsed: a refusal (400 parameter_invalid naming the argument) when they do
 * not fit. Run by every validator, and again by the handler (which validators never reach with bad input).
 */
function parseArgs<T>(
  schema: {
    safeParse(
      args: unknown[],
    ): { success: true; data: T } | { success: false; error: { issues: Parameters<typeof argumentPath>[0][] } };
  },
  args: unknown[],
): T {
  const result = schema.safeParse(args);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = argumentPath(issue);
  throw rejectionFailure({
    kind: 'invalid',
    code: 'parameter_invalid',
    message: `Invalid update argument '${param}': ${issue.message}`,
    param,
  });
}

/** A validator: the arguments must parse, then `check` judges them against the current state. */
function validator<T>(
  run: SubscriptionRun,
  schema: Parameters<typeof parseArgs<T>>[0],
  check: (current: SubscriptionState, args: T) => void,
) {
  return (...args: unknown[]) => {
    const parsed = parseArgs(schema, args);
    if (run.state.version === 0)
      throw rejectionFailure({
        kind: 'conflict',
        code: 'subscription_starting',
        message: `Subscription ${run.state.id} is still being created.`,
      });
    try {
      check(run.state, parsed);
    } catch (error) {
      asRuleFailure(error);
    }
  };
}

/** The event of a requested change, naming the hosted page it was asked on if any (docs/decisions.md §38). */
const requested = (
  type: 'subscription.paused' | 'subscription.resumed' | 'subscription.canceled',
  origin?: EventOrigin,
) => withOrigin({ type, cause: REQUESTED }, origin);

/** The API's wait for a new subscription: answered once it is recorded and its first billing settled or timed out. */
function handleCreated(run: SubscriptionRun, input: SubscriptionWorkflowInput): void {
  setHandler(
    createdUpdate,
    async () => {
      await condition(() => run.creationFailure !== undefined || run.state.version > 0);
      if (run.creationFailure) throw run.creationFailure;
      // After the wait the answer says what is true: billing still running is billingPending, not a finished-looking object.
      const done = await condition(() => run.settled || isEnded(run.state), CREATION_WAIT);
      return { subscription: run.latest!, billingPending: !done };
    },
    {
      validator: (...args: unknown[]) => {
        parseArgs(noArgs, args);
        if (!('create' in input))
          throw rejectionFailure({
            kind: 'conflict',
            code: 'subscription_exists',
            message: `Subscription ${run.state.id} exists already.`,
          });
      },
    },
  );
}

/** Pause, resume and cancel: each checked on the current state before anything is recorded. */
function handlePauseResumeCancel(run: SubscriptionRun): void {
  for (const [update, transition, type, check] of [
    [pauseUpdate, pause, 'subscription.paused', assertCanPause],
    [resumeUpdate, resume, 'subscription.resumed', assertCanResume],
  ] as const) {
    setHandler(
      update,
      (...args: unknown[]) => {
        const origin = parseArgs(originArgs, args);
        return run.change(transition, () => requested(type, origin));
      },
      { validator: validator(run, originArgs, check) },
    );
  }
  setHandler(
    cancelUpdate,
    (...args: unknown[]) => {
      const { atPeriodEnd, prorate, origin } = parseArgs(cancelArgs, args);
      return run.change(
        (current, nowMs) => cancel(current, nowMs, atPeriodEnd, origin),
        (next) =>
          next.status === 'canceled'
            ? requested('subscription.canceled', origin)
            : withOrigin({ type: 'subscription.updated' as const }, origin),
        undefined,
        // Ending now with lines waiting or a credit asked for invoices them (docs/decisions.md §25), judged
        // under the lock; only runs that used proration reach the patch, so recorded histories replay as before.
        async (current, next, nowMs) =>
          !atPeriodEnd &&
          (((prorate || Boolean(current.pendingLines?.length)) && patched(PATCHES.prorations)) ||
            run.finalUsage(current, nowMs) !== null)
            ? run.endingProrated(current, next, nowMs, prorate === true)
            : next,
      );
    },
    {
      validator: validator(run, cancelArgs, (current, { atPeriodEnd }) => {
        assertNotEnded(current);
        if (atPeriodEnd) assertCanCancelAtPeriodEnd(current, run.wholeSecondsNow());
      }),
    },
  );
}

/** A change of items, quantities, settings or coupon, held under the run's lock with the changes before it. */
function handleChange(run: SubscriptionRun): void {
  setHandler(
    changeUpdate,
    (...args: unknown[]) => {
      const { coupon, ...changes } = parseArgs(changeArgs, args);
      // Only an update that asks for proration reaches the patch: every recorded history replays as before.
      const prorate =
        changes.items &&
        changes.prorationBehavior &&
        changes.prorationBehavior !== 'none' &&
        patched(PATCHES.prorations)
          ? changes.prorationBehavior
          : undefined;
      const changeFields = () =>
        run.changeHeld(
          (current, nowMs) => update(current, changes, nowMs),
          () => withOrigin({ type: 'subscription.updated' as const }, changes.origin),
          changes.items && patched(PATCHES.serialSteps) ? (next) => run.checkItemsCeiling(next, changes) : undefined,
          changes.items
            ? async (current, changed, nowMs) => {
                const next = run.keptUsage(current, changed, nowMs);
                const prorated = prorate ? await run.prorated(current, next, nowMs, prorate) : next;
                // Charges left waiting make the next invoice more than its items: it is judged too, here under the
                // lock, where every change decided before this one is in the state (an invoice made at once by
                // always_invoice leaves none, so nothing is refused after a charge).
                if (
                  prorated.pendingLines?.some((line) => line.kind === 'remaining') &&
                  patched(PATCHES.nextInvoiceCeiling)
                )
                  await run.checkNextInvoiceCeiling(prorated);
                return prorated;
              }
            : undefined,
        );
      if (coupon === undefined) return run.exclusive(changeFields);
      // The coupon after the other fields, in the same hold of the lock (docs/decisions.md §37). Updates
      // sent before the API sent coupons had none: their commands are as before, so no patch is needed.
      return run.exclusive(async () => {
        if (Object.keys(changes).some((key) => key !== 'origin')) await changeFields();
        return run.redeemCouponHeld(coupon, changes.origin);
      });
    },
    // A dry run on the current state: unknown item ids and forbidden moves are refused before anything is recorded.
    {
      validator: validator(run, changeArgs, (current, changes) => {
        if (Object.keys(changes).filter((key) => key !== 'origin').length === 0) {
          throw new SubscriptionRuleError(
            'invalid',
            'parameter_missing',
            'The update changes nothing: give at least one field to change.',
            'args.0',
          );
        }
        update(current, changes, run.wholeSecondsNow());
      }),
    },
  );
}

/**
 * One subscription's whole life (workflow id `subscription:<sub_id>`, decisions.md §7). The workflow
 * owns the schedule; the database row is its projection, written with each change and its event
 * (workflows/subscription-run.ts). First the messages: a `state` query, the updates the API and
 * operators send (their validators refuse forbidden moves before anything is recorded) and a notice
 * of invoices settled elsewhere. Then the loop: do what is due, under the same lock as the updates,
 * or wait for it; continue as new now and then.
 */
export async function subscriptionWorkflow(input: SubscriptionWorkflowInput): Promise<SubscriptionState> {
  // The wall clock, or the test clock's time (workflows/clock.ts): every read of time goes through it.
  const time = workflowTime(input.testClock);
  const run = new SubscriptionRun(input, time);

  setHandler(stateQuery, () => run.view());
  handleCreated(run, input);
  handlePauseResumeCancel(run);
  handleChange(run);
  setHandler(invoiceSettledSignal, (notice: unknown) => run.noticeSettled(notice));
  setHandler(usageReportedSignal, () => run.noticeUsage());

  if ('create' in input && !(await run.recordCreation())) {
    await condition(allHandlersFinished);
    return run.state;
  }

  for (;;) {
    // A retry's failure or the end of dunning moves the state without a write: the details follow here too.
    run.showDetails();
    if (isEnded(run.state)) break;
    run.recallEarlyNotices();
    const info = workflowInfo();
    if (
      run.renewalsThisRun >= RENEWALS_PER_RUN ||
      info.continueAsNewSuggested ||
      info.historyLength > MAX_HISTORY_EVENTS
    ) {
      await condition(() => !run.busy && allHandlersFinished());
      if (!isEnded(run.state)) {
        // Memo and search attributes (as upserted until now) go on explicitly: the next run is found by the same filters.
        const { memo, typedSearchAttributes } = workflowInfo();
        await makeContinueAsNewFunc<typeof subscriptionWorkflow>({ memo, typedSearchAttributes })({
          continued: run.state,
          ...(time.testClock ? { testClock: time.testClock } : {}),
        });
      }
      continue;
    }
    if (run.reportedSettled.size > 0) {
      await run.exclusive(() => run.checkReportedSettled());
      continue;
    }
    if (run.usageReported) {
      await run.exclusive(() => run.checkThreshold());
      continue;
    }
    const action = nextAction(run.state);
    if (action === null || !time.due(action.at)) {
      // A renewal's or a trial's end's reminder comes first when it is due before (docs/decisions.md §31).
      if (await run.remindBefore(action)) continue;
      await run.waitFor(action);
      continue;
    }
    run.settled = false;
    await run.exclusive(() => run.performDue());
  }
  await time.release();
  await condition(allHandlersFinished);
  return run.state;
}
