import { Context } from '@temporalio/activity';
import type { Db } from '../src/db/prisma';
import type { Gateways } from '../src/payments';
import { tellingSettledInvoices } from '../src/invoices';
import { noticeInvoicesSettled } from '../src/subscriptions';
import { tellingPlansOfChangedPayments } from '../src/payment-plans';
import { settleSimulatedBankDebit } from '../src/use-cases';
import { atTime, type ClockTimed } from '../src/lib/clock-time';

/**
 * The simulated bank's settlement of a debit (workflows/bank-debit-settlement.ts). The subscription whose invoice
 * it pays or returns is told, as for a request's payment (docs/decisions.md §40): its dunning waits for this. So is
 * the payment plan whose installment it pays or returns (docs/decisions.md §9).
 */
export function createBankDebitActivities({ prisma, gateways }: { prisma: Db; gateways: Gateways }) {
  return {
    /** On a test clock (`clockTime`), the outcome is dated at the clock's time of the settlement. */
    async settleBankDebit(
      debit: { accountId: string; chargeId: string } & ClockTimed,
    ): Promise<'recorded' | 'ignored'> {
      const { clockTime, ...charge } = debit;
      const { client } = Context.current();
      return atTime(clockTime, () =>
        tellingSettledInvoices(noticeInvoicesSettled(client), () =>
          tellingPlansOfChangedPayments(client, () => settleSimulatedBankDebit(prisma, gateways, charge)),
        ),
      );
    },
  };
}

export type BankDebitActivities = ReturnType<typeof createBankDebitActivities>;
