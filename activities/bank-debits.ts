import { Context } from '@temporalio/activity';
import type { Db } from '../src/db/prisma';
import type { Gateways } from '../src/payments';
import { tellingSettledInvoices } from '../src/invoices';
import { noticeInvoicesSettled } from '../src/subscriptions';
import { settleSimulatedBankDebit } from '../src/use-cases';

/**
 * The simulated bank's settlement of a debit (workflows/bank-debit-settlement.ts). The subscription whose invoice
 * it pays or returns is told, as for a request's payment (docs/decisions.md §40): its dunning waits for this.
 */
export function createBankDebitActivities({ prisma, gateways }: { prisma: Db; gateways: Gateways }) {
  return {
    async settleBankDebit(debit: { accountId: string; chargeId: string }): Promise<'recorded' | 'ignored'> {
      return tellingSettledInvoices(noticeInvoicesSettled(Context.current().client), () =>
        settleSimulatedBankDebit(prisma, gateways, debit),
      );
    },
  };
}

export type BankDebitActivities = ReturnType<typeof createBankDebitActivities>;
