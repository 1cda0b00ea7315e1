import { allHandlersFinished, condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import { workflowTime } from './clock';
import type {
  PaymentPlanRequestKind,
  PaymentPlanWorkflowInput,
  PaymentPlanWorkflowState,
} from './payment-plan-contract';
import {
  cancelDepositSignal,
  cancelPlanSignal,
  cancelTerminalPaymentSignal,
  paymentPlanRequestUpdates,
  paymentPlanStateQuery,
  planUpdatedSignal,
  resolveDepositSignal,
  resolveTerminalPaymentSignal,
  type RequestUpdate,
} from './payment-plan-messages';
import { PaymentPlanRun } from './payment-plan-run';

/**
 * One payment plan (workflow id `payment-plan:<id>`, decisions.md §9): holds the schedule as durable
 * timers, charges installments through idempotent activities, marks them overdue and defaults the
 * plan on time, and carries out the requests (resolve/cancel a terminal payment or deposit, cancel the
 * plan) one at a time. First the messages: a `state` query, the requests as updates (validated,
 * answered with what was done once the loop carried them out) and as the older signals (answered in
 * the `state` query only), and the API's planUpdated nudge (it never polls a terminal: the API records
 * what a terminal reports and nudges). Then the loop: a request, a re-read, or what the schedule calls
 * for, else wait for it. Ends when the plan is completed or canceled.
 */
export async function paymentPlanWorkflow(input: PaymentPlanWorkflowInput): Promise<PaymentPlanWorkflowState> {
  // The wall clock, or the test clock's time (workflows/clock.ts).
  const time = workflowTime(input.testClock);
  const run = new PaymentPlanRun(input, time);

  setHandler(paymentPlanStateQuery, () => run.view());
  setHandler(resolveTerminalPaymentSignal, run.signalled('resolveTerminalPayment'));
  setHandler(cancelTerminalPaymentSignal, run.signalled('cancelTerminalPayment'));
  setHandler(resolveDepositSignal, run.signalled('resolveDeposit'));
  setHandler(cancelDepositSignal, run.signalled('cancelDeposit'));
  setHandler(cancelPlanSignal, run.signalled('cancelPlan'));
  for (const [request, update] of Object.entries(paymentPlanRequestUpdates) as [
    PaymentPlanRequestKind,
    RequestUpdate,
  ][]) {
    setHandler(update, (args) => run.requested(request, args), {
      validator: (args) => PaymentPlanRun.validate(request, args),
      description: `Validated ${request}: answers what the workflow did (applied, or code and message).`,
    });
  }
  setHandler(planUpdatedSignal, (...args: unknown[]) => run.planUpdated(args));

  await run.start();
  while (!run.ended()) {
    const request = run.queue.shift();
    if (request) {
      await run.carryOut(request);
      continue;
    }
    if (run.refreshWanted) {
      await run.refresh();
      continue;
    }
    const { work, now } = run.dueWork();
    if (work.kind === 'charge') {
      await run.charge(work, now);
      continue;
    }
    if (work.kind === 'overdue') {
      await run.markOverdue(work, now);
      continue;
    }
    if (work.kind === 'default') {
      await run.defaultPlan(work, now);
      continue;
    }
    run.expect(work);
    if (workflowInfo().continueAsNewSuggested && run.queue.length === 0 && allHandlersFinished()) {
      await continueAsNew<typeof paymentPlanWorkflow>(time.testClock ? { ...input, testClock: time.testClock } : input);
    }
    await run.waitFor(work, now);
  }

  await run.close();
  // Update handlers hand their answers back before the workflow completes.
  await condition(allHandlersFinished);
  return run.state;
}
