import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * "Settle an invoice" (docs/decisions.md §7): a subscription's workflow learns that one of its open
 * invoices was paid or voided by a request (the API, a hosted page), so that its dunning ends at once.
 * The invoice says so where it becomes paid or void (`invoiceSettled`, in the transaction that marks it),
 * and the request's plumbing tells the workflows once the request's work has committed
 * (`tellingSettledInvoices`): no entry point has to remember it, and each invoice is told once per request.
 * A workflow's own activities (a renewal, a dunning retry) run outside any request: the workflow made the
 * change and reads its outcome, so nothing is told.
 */

export interface SettledInvoice {
  invoiceId: string;
  subscriptionId: string;
}

const settledInRequest = new AsyncLocalStorage<Map<string, SettledInvoice>>();

/**
 * An open invoice just became paid or void, in the caller's transaction. A transaction rolled back after
 * this call tells of an invoice still open: the workflow reads the invoice before it ends a dunning.
 */
export function invoiceSettled(invoice: { id: string; subscriptionId: string | null }): void {
  if (!invoice.subscriptionId) return;
  settledInRequest.getStore()?.set(invoice.id, { invoiceId: invoice.id, subscriptionId: invoice.subscriptionId });
}

/**
 * A payment its processor held (a bank debit, days: docs/decisions.md §40) failed on an open invoice: the
 * subscription's workflow, which waits for that outcome instead of retrying beside it, is told as for a settlement,
 * and reads what became of its attempt.
 */
export function heldPaymentFailed(invoice: { id: string; subscriptionId: string | null }): void {
  invoiceSettled(invoice);
}

/** Runs a request's work, then hands `tell` the invoices it settled, each once (also when it failed after a commit). */
export async function tellingSettledInvoices<T>(
  tell: (settled: SettledInvoice[]) => Promise<void>,
  work: () => Promise<T>,
): Promise<T> {
  const settled = new Map<string, SettledInvoice>();
  try {
    return await settledInRequest.run(settled, work);
  } finally {
    if (settled.size > 0) await tell([...settled.values()]);
  }
}

/**
 * `tellingSettledInvoices` for a request that answers from inside its handler (a hosted page's redirect):
 * runs `next` in the scope, and tells once the answer is sent or the connection closed.
 */
export function tellSettledAfterAnswer(
  tell: (settled: SettledInvoice[]) => Promise<void>,
  answered: (done: () => void) => void,
  next: () => void,
): void {
  const settled = new Map<string, SettledInvoice>();
  answered(() => {
    if (settled.size > 0) void tell([...settled.values()]);
  });
  settledInRequest.run(settled, next);
}

/**
 * Work whose settlements the subscription's workflow learns another way: a subscription's first invoice,
 * which its workflow starts from (the start carries the first charge's outcome).
 */
export function withoutSettlementNotice<T>(work: () => T): T {
  return settledInRequest.exit(work);
}
