import type { Db } from '../src/db/prisma';
import { reconcileInvoicePayments, type ReconciliationPass, type ReconciliationPassInput } from '../src/invoices';
import type { Gateways } from '../src/payments';

/** The payment reconciliation's activity (docs/decisions.md §40): one batch of attempts in flight. */
export function createReconciliationActivities({ prisma, gateways }: { prisma: Db; gateways: Gateways }) {
  return {
    async reconcilePayments(input: ReconciliationPassInput): Promise<ReconciliationPass> {
      return reconcileInvoicePayments(prisma, gateways, input);
    },
  };
}

export type ReconciliationActivities = ReturnType<typeof createReconciliationActivities>;
