import type { Transaction } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { creditNoteOfRefund, recordCreditNoteRefund } from '../credit-notes';
import { recordInvoiceDispute, recordInvoicePayment, recordInvoiceRefund } from '../invoices';
import { recordPlanCharge } from '../payment-plans';
import { recordPlanRefund } from '../payment-plans';
import { chargeOutcome, reconcileEntries, refundOutcome } from '../payments';
import type {
  Gateways,
  OutcomeRecorder,
  ProcessorReport,
  ReconciliationPass,
  ReconciliationPassInput,
} from '../payments';
import { entryByGatewayKey, isInFlight } from '../transactions';

/**
 * Who records an entry's outcome in the charge protocol (docs/architecture.md, "Payment processors"): its invoice
 * (a payment; a refund, which voids its credit note when refused) or its payment plan (a charge, a refund).
 */
function recorderOf(prisma: Db, gateways: Gateways): (entry: Transaction) => OutcomeRecorder<unknown> {
  return (entry) => {
    if (entry.type === 'payment')
      return entry.invoiceId
        ? (sent, outcome) => recordInvoicePayment(prisma, sent, outcome)
        : (sent, outcome) => recordPlanCharge(prisma, gateways, sent, outcome);
    if (!entry.invoiceId) return (sent, outcome) => recordPlanRefund(prisma, sent, outcome);
    return async (sent, outcome) => {
      const note = await creditNoteOfRefund(prisma, sent);
      return note ? recordCreditNoteRefund(prisma, note, sent, outcome) : recordInvoiceRefund(prisma, sent, outcome);
    };
  };
}

/** One batch of the payment reconciliation (docs/decisions.md §40): charges and refunds in flight, of every owner. */
export function reconcilePayments(
  prisma: Db,
  gateways: Gateways,
  input: ReconciliationPassInput,
): Promise<ReconciliationPass> {
  return reconcileEntries(prisma, gateways, input, recorderOf(prisma, gateways));
}

/**
 * A processor's own report of what became of a charge or refund (its webhook: docs/architecture.md, "Payment
 * processors"), recorded by the entry's owner as its outcome, once. `ignored`: nothing of the account was sent
 * under that key (an object the service did not create), or its entry is settled already. A dispute's report is
 * its invoice's (docs/decisions.md §44).
 */
export async function recordProcessorReport(
  prisma: Db,
  gateways: Gateways,
  report: ProcessorReport,
): Promise<'recorded' | 'ignored'> {
  if (report.kind === 'dispute') return recordInvoiceDispute(prisma, report.accountId, report.dispute);
  const entry = await entryByGatewayKey(prisma, report.accountId, report.idempotencyKey);
  const type = report.kind === 'charge' ? 'payment' : 'refund';
  if (!entry || entry.type !== type || !isInFlight(entry)) return 'ignored';
  const outcome = report.kind === 'charge' ? chargeOutcome(report.result) : refundOutcome(report.result);
  await recorderOf(prisma, gateways)(entry)(entry, outcome);
  return 'recorded';
}
