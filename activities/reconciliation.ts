import type { Db } from '../src/db/prisma';
import type { Gateways, ReconciliationPass, ReconciliationPassInput } from '../src/payments';
import { reconcilePayments } from '../src/use-cases';

/** The payment reconciliation's activity (docs/decisions.md §40): one batch of charges and refunds in flight. */
export function createReconciliationActivities({ prisma, gateways }: { prisma: Db; gateways: Gateways }) {
  return {
    async reconcilePayments(input: ReconciliationPassInput): Promise<ReconciliationPass> {
      return reconcilePayments(prisma, gateways, input);
    },
  };
}

export type ReconciliationActivities = ReturnType<typeof createReconciliationActivities>;
