import type { Transaction } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { runTransaction } from '../db/sql-transaction';
import { badRequest, conflict } from '../http/errors';
import type { Gateways } from '../payments';
import { REFUND_UNAVAILABLE, moveMoney } from '../payments';
import { countPendingEntries, isInFlight, openPending, settlePending } from '../transactions';
import { readEntryById } from '../transactions';
import type { AttemptStep, LedgerOutcome } from '../transactions';
import { toTransactionObject } from '../transactions';
import type { TransactionObject } from '../transactions';
import {
  countInvoiceRefunds,
  findRefundByKey,
  latestGatewayPayment,
  oldestRefundInFlight,
  setAmountRefunded,
  type InvoiceWithLines,
} from './invoice.records';
import { assertNoDisputeHoldsFunds } from './invoice-dispute.service';
import { lockInvoice } from './invoice-lock';
import { invoiceCreditable } from './period-held';

export interface RefundInvoiceOptions {
  /** Cents; everything still refundable when absent. */
  amount?: number;
  /** The caller's name for this refund (an Idempotency-Key): a second call answers the same refund. */
  attemptKey?: string;
}

async function nextStep(
  tx: Tx,
  accountId: string,
  invoiceId: string,
  opts: RefundInvoiceOptions,
): Promise<AttemptStep<Transaction>> {
  const invoice = await lockInvoice(tx, accountId, invoiceId);
  const attemptKey = opts.attemptKey ? `refund:${opts.attemptKey}` : null;
  if (attemptKey) {
    const mine = await findRefundByKey(tx, accountId, invoiceId, attemptKey);
    if (mine) return isInFlight(mine) ? { kind: 'settle', entry: mine, own: true } : { kind: 'done', value: mine };
  }
  const inFlight = await oldestRefundInFlight(tx, accountId, invoiceId);
  if (inFlight) return { kind: 'settle', entry: inFlight, own: false };

  if (invoice.status !== 'paid')
    throw conflict(
      `Invoice ${invoiceId} is ${invoice.status}; only a paid invoice can be refunded.`,
      'invoice_not_paid',
    );
  assertNoDisputeHoldsFunds(invoice);
  // Credit notes to the customer's balance or settled outside gave part of it back already (docs/decisions.md §22),
  // and a subscription's credits for the period's unused time (§25).
  const cardLeft = invoice.amountPaid - invoice.amountRefunded;
  const creditable = await invoiceCreditable(tx, invoice);
  const refundable = Number(cardLeft < creditable ? cardLeft : creditable);
  if (refundable <= 0) throw conflict(`Invoice ${invoiceId} has nothing left to refund.`, 'nothing_to_refund');
  const amount = opts.amount ?? refundable;
  if (amount > refundable)
    throw badRequest(
      `amount ${amount} exceeds the ${refundable} cents left to refund on invoice ${invoiceId}.`,
      'amount',
    );
  const refund = await openRefund(tx, invoice, amount, attemptKey);
  if (!refund) throw conflict(`Invoice ${invoiceId} has nothing left to refund.`, 'nothing_to_refund');
  return { kind: 'settle', entry: refund, own: true, opened: true };
}

/**
 * Opens the pending refund of `amount` cents of a paid invoice's card payment, in the caller's
 * transaction (the invoice locked, the amount checked against what is left): undefined when no card
 * payment paid it (a zero invoice, one paid by the customer's balance). `attemptKey` names it.
 */
export async function openRefund(
  tx: Tx,
  invoice: InvoiceWithLines,
  amount: number,
  attemptKey: string | null,
): Promise<Transaction | undefined> {
  const { accountId, id: invoiceId } = invoice;
  const payment = await latestGatewayPayment(tx, accountId, invoiceId);
  if (!payment) return undefined;
  const sequence = (await countInvoiceRefunds(tx, accountId, invoiceId)) + 1;
  return openPending(tx, {
    accountId,
    type: 'refund',
    amount: BigInt(-amount),
    currency: invoice.currency,
    customerId: invoice.customerId,
    invoiceId,
    paymentMethodId: payment.paymentMethodId,
    sourceTransactionId: payment.id,
    attemptKey,
    gatewayKey: attemptKey ? `invoice:${invoiceId}:${attemptKey}` : `invoice:${invoiceId}:refund:${sequence}`,
    description: `Refund on invoice ${invoice.number}`,
  });
}

/** Whether a refund of the invoice is pending (in flight at the gateway, or left by a crash). */
export async function refundInFlight(tx: Tx, accountId: string, invoiceId: string): Promise<boolean> {
  return (await countPendingEntries(tx, accountId, invoiceId, 'refund')) > 0;
}

/**
 * Records an invoice refund's outcome once: a success adds to the invoice's amount_refunded. The charge protocol's
 * recorder of invoice refunds (credit notes' refunds add their own step: src/credit-notes).
 */
export async function recordInvoiceRefund(
  prisma: Db,
  refund: Transaction,
  outcome: LedgerOutcome,
): Promise<Transaction> {
  return runTransaction(prisma, async (tx) => {
    const invoice = await lockInvoice(tx, refund.accountId, refund.invoiceId!);
    if ((await settlePending(tx, refund.id, outcome)) && outcome.status === 'succeeded') {
      await setAmountRefunded(tx, invoice.id, invoice.amountRefunded - refund.amount);
    }
    return readEntryById(tx, refund.id);
  });
}

/**
 * POST /invoices/{id}/refund: a full or partial refund of a paid invoice through the gateway,
 * recorded as a `refund` transaction (negative amount). Never more than what is left: the invoice
 * lock and amount_refunded see to that; the gateway checks the charge too.
 */
export async function refundInvoice(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  invoiceId: string,
  opts: RefundInvoiceOptions = {},
): Promise<TransactionObject> {
  const ran = await moveMoney(prisma, gateways, {
    next: (tx: Tx) => nextStep(tx, accountId, invoiceId, opts),
    record: (refund, outcome) => recordInvoiceRefund(prisma, refund, outcome),
    unavailable: REFUND_UNAVAILABLE,
    settledOnly: true,
  });
  if (ran) return toTransactionObject(ran.value);
  throw conflict(`Refunds of invoice ${invoiceId} are in progress; try again.`, 'refund_in_progress');
}
