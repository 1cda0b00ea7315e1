import { proxyActivities } from '@temporalio/workflow';
import type { ReconciliationActivities } from '../activities/reconciliation';
import { HEARTBEAT_TIMEOUT } from './activity-options';

/**
 * One pass asks the processor about a batch of attempts in flight: a database or processor error is retried
 * here, and an attempt the processor still cannot answer stays in flight for the next pass.
 */
const passes = proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

export interface PaymentReconciliationInput {
  /** A `pending` attempt younger than this is left to the request that opened it (a payment in progress). */
  pendingOlderThanMs?: number;
}

export interface PaymentReconciliationResult {
  asked: number;
  settled: number;
}

/**
 * `payment-reconciliation` (docs/decisions.md §40), started by the Temporal schedule of the same name: every
 * payment attempt whose outcome is `unknown`, or left `pending` by a crash or a processor that settles later,
 * is asked of its processor under its own key (`retrieveCharge`) and recorded; one it never received is sent
 * again under the same key. Nothing is charged under a new key.
 */
export async function paymentReconciliation(
  input: PaymentReconciliationInput = {},
): Promise<PaymentReconciliationResult> {
  const total: PaymentReconciliationResult = { asked: 0, settled: 0 };
  let after: string | null = null;
  for (;;) {
    const pass = await passes.reconcilePayments.executeWithOptions(
      { summary: 'ask the processor about payments in flight' },
      [{ pendingOlderThanMs: input.pendingOlderThanMs, after }],
    );
    total.asked += pass.asked;
    total.settled += pass.settled;
    if (pass.after === null) return total;
    after = pass.after;
  }
}
