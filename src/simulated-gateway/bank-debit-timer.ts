import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { GatewayTemporal } from '../payments';
import { logger } from '../http/logger';
import type { bankDebitSettlement } from '../../workflows/bank-debit-settlement';
import { bankDebitSettlementId, type BankDebitSettlementInput } from '../../workflows/bank-debit-settlement';

/**
 * The Temporal the simulated bank's timers are started on: the one the gateway was built with (the API's), else,
 * in an activity (a renewal, a dunning retry, the reconciliation), the worker's own client and task queue.
 */
function temporalOf(given: GatewayTemporal | undefined): GatewayTemporal | undefined {
  if (given) return given;
  try {
    const context = Context.current();
    return { client: context.client, taskQueue: context.info.taskQueue };
  } catch {
    return undefined;
  }
}

/**
 * How long a debit's request gives Temporal to take its timer's start: unreachable, the client would retry for some
 * 20 s before failing, and the request that made the debit would wait as long for nothing (docs/decisions.md §40).
 */
const TIMER_START_DEADLINE_MS = 2_000;

/**
 * Makes sure the debit's settlement timer runs (workflows/bank-debit-settlement.ts): started under an id derived
 * from the charge, so a second start (a repeated charge, every reconciliation pass that asks about the debit) is
 * refused and changes nothing. Without a Temporal at hand (a CLI), or with one that cannot be reached within the
 * deadline, the debit is answered all the same (it was made): the next reconciliation pass, which asks about it,
 * starts its timer.
 * A debit of a customer on a test clock carries the clock (`testClock`): its timer waits on the clock's time.
 */
export async function ensureSettlementTimer(
  temporal: GatewayTemporal | undefined,
  debit: BankDebitSettlementInput,
): Promise<void> {
  const target = temporalOf(temporal);
  if (!target) return;
  try {
    await target.client.withDeadline(Date.now() + TIMER_START_DEADLINE_MS, () =>
      target.client.workflow.start<typeof bankDebitSettlement>('bankDebitSettlement', {
        workflowId: bankDebitSettlementId(debit.chargeId),
        taskQueue: target.taskQueue,
        args: [debit],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return;
    logger.warn(
      { err: error, chargeId: debit.chargeId },
      'bank debit settlement timer not started; the reconciliation starts it',
    );
  }
}
