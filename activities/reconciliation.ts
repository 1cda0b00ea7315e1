import { Context } from '@temporalio/activity';
import type { Db } from '../src/db/prisma';
import type { Gateways, ReconciliationPass, ReconciliationPassInput } from '../src/payments';
import { reconcilePayments } from '../src/use-cases';
import { tellingSettledInvoices } from '../src/invoices';
import { noticeInvoicesSettled } from '../src/subscriptions';
import { tellingPlansOfChangedPayments } from '../src/payment-plans';

/**
 * The payment reconciliation's activity (docs/decisions.md §40): one batch of charges and refunds in flight. A
 * subscription's invoice it settles is told to its workflow, as a request's payment is (dunning waits for it), and
 * so is a payment plan whose charge it settles (docs/decisions.md §9).
 */
export function createReconciliationActivities({ prisma, gateways }: { prisma: Db; gateways: Gateways }) {
  return {
    async reconcilePayments(input: ReconciliationPassInput): Promise<ReconciliationPass> {
      const { client } = Context.current();
      return tellingSettledInvoices(noticeInvoicesSettled(client), () =>
        tellingPlansOfChangedPayments(client, () => reconcilePayments(prisma, gateways, input)),
      );
    },
  };
}

export type ReconciliationActivities = ReturnType<typeof createReconciliationActivities>;
