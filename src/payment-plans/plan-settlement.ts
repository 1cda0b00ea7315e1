import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * "Who tells the plan's workflow" (docs/decisions.md §9): a plan's payment opened or settled outside its workflow
 * (a merchant's request, the reconciliation's pass, a processor's report, a bank's settlement) is told to the
 * workflow once the work has committed, so that it re-reads the plan instead of waiting for a payment settled
 * long ago or charging beside one in flight. The plan says so where the payment changes (`planPaymentChanged`,
 * in the transaction) and the entry point tells each plan once (`tellingChangedPlans`), also when its work failed
 * after a commit (a request answered 502 with its payment left processing). The workflow's own activities run
 * outside any scope: the workflow reads what they answer.
 */

const changedInScope = new AsyncLocalStorage<Set<string>>();

/** A payment of plan `planId` was opened or settled in the caller's transaction; a rolled-back one costs a re-read. */
export function planPaymentChanged(planId: string): void {
  changedInScope.getStore()?.add(planId);
}

/** Runs `work`, then hands `tell` the plans whose payments it opened or settled, each once (also when it failed). */
export async function tellingChangedPlans<T>(
  tell: (planIds: string[]) => Promise<void>,
  work: () => Promise<T>,
): Promise<T> {
  const changed = new Set<string>();
  try {
    return await changedInScope.run(changed, work);
  } finally {
    if (changed.size > 0) await tell([...changed]);
  }
}
