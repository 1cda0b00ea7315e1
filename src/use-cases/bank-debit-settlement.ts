import type { Db } from '../db/prisma';
import type { Gateways } from '../payments';
import { settleBankDebit } from '../simulated-gateway';
import { recordProcessorReport } from './payment-reconciliation';

/**
 * The simulated bank answers a debit it accepted days ago (workflows/bank-debit-settlement.ts; docs/decisions.md
 * §40): the debit settled at the simulator, then its outcome recorded by the payment's owner as any processor's
 * report of a later outcome is. `ignored`: the reconciliation, which asks about pending debits every minute, had
 * recorded it first, or nothing of the service was sent under the debit.
 */
export async function settleSimulatedBankDebit(
  prisma: Db,
  gateways: Gateways,
  debit: { accountId: string; chargeId: string },
): Promise<'recorded' | 'ignored'> {
  const report = await settleBankDebit(prisma, debit);
  return report ? recordProcessorReport(prisma, gateways, report) : 'ignored';
}
