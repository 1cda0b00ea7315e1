import type { Transaction } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { ApiError, badRequest, conflict } from '../http/errors';
import { newId } from '../lib/ids';
import { GatewayRequestError, type PaymentGateway, type RefundResult } from '../payments/gateway';
import { toTransactionObject } from '../transactions/transaction.service';
import type { TransactionObject } from '../transactions/transaction.schemas';
import { lockInvoice } from './invoice.records';

export interface RefundInvoiceOptions {
  /** Cents; everything still refundable when absent. */
  amount?: number;
  /** The caller's name for this refund (an Idempotency-Key): a second call answers the same refund. */
  attemptKey?: string;
}

type Step = { kind: 'done'; refund: Transaction } | { kind: 'settle'; refund: Transaction; own: boolean };

async function nextStep(tx: Tx, accountId: string, invoiceId: string, opts: RefundInvoiceOptions): Promise<Step> {
  const invoice = await lockInvoice(tx, accountId, invoiceId);
  const attemptKey = opts.attemptKey ? `refund:${opts.attemptKey}` : null;
  if (attemptKey) {
    const mine = await tx.transaction.findFirst({ where: { accountId, invoiceId, type: 'refund', attemptKey } });
    if (mine) return mine.status === 'pending' ? { kind: 'settle', refund: mine, own: true } : { kind: 'done', refund: mine };
  }
  const inFlight = await tx.transaction.findFirst({ where: { accountId, invoiceId, type: 'refund', status: 'pending' }, orderBy: { createdAt: 'asc' } });
  if (inFlight) return { kind: 'settle', refund: inFlight, own: false };

  if (invoice.status !== 'paid') throw conflict(`Invoice ${invoiceId} is ${invoice.status}; only a paid invoice can be refunded.`, 'invoice_not_paid');
  const payment = await tx.transaction.findFirst({
    where: { accountId, invoiceId, type: 'payment', status: 'succeeded', gatewayReference: { not: null } },
    orderBy: { createdAt: 'desc' },
  });
  const refundable = Number(invoice.amountPaid - invoice.amountRefunded);
  if (!payment || refundable <= 0) throw conflict(`Invoice ${invoiceId} has nothing left to refund.`, 'nothing_to_refund');
  const amount = opts.amount ?? refundable;
  if (amount > refundable) throw badRequest(`amount ${amount} exceeds the ${refundable} cents left to refund on invoice ${invoiceId}.`, 'amount');

  const sequence = (await tx.transaction.count({ where: { accountId, invoiceId, type: 'refund' } })) + 1;
  const refund = await tx.transaction.create({
    data: {
      id: newId('transaction'),
      accountId,
      type: 'refund',
      status: 'pending',
      amount: BigInt(-amount),
      currency: invoice.currency,
      customerId: invoice.customerId,
      invoiceId,
      paymentMethodId: payment.paymentMethodId,
      sourceTransactionId: payment.id,
      attemptKey,
      gatewayKey: attemptKey ? `invoice:${invoiceId}:${attemptKey}` : `invoice:${invoiceId}:refund:${sequence}`,
      description: `Refund on invoice ${invoice.number}`,
    },
  });
  return { kind: 'settle', refund, own: true };
}

async function settle(prisma: Db, gateway: PaymentGateway, accountId: string, refund: Transaction): Promise<Transaction> {
  const payment = await prisma.transaction.findFirstOrThrow({ where: { id: refund.sourceTransactionId!, accountId } });
  let result: RefundResult;
  try {
    result = await gateway.refund({ chargeId: payment.gatewayReference!, amount: Number(-refund.amount), idempotencyKey: refund.gatewayKey! });
  } catch (error) {
    if (error instanceof GatewayRequestError) throw error;
    throw new ApiError('api_error', 'gateway_unavailable', 'The payment gateway did not answer. The refund stays pending; asking again completes it.', undefined, 502);
  }
  return prisma.$transaction(async (tx) => {
    const invoice = await lockInvoice(tx, accountId, refund.invoiceId!);
    const settled = await tx.transaction.updateMany({
      where: { id: refund.id, status: 'pending' },
      data: {
        status: result.status,
        gatewayReference: result.refundId,
        failureCode: result.status === 'failed' ? result.failureCode : null,
        failureMessage: result.status === 'failed' ? result.failureMessage : null,
      },
    });
    if (settled.count > 0 && result.status === 'succeeded') {
      await tx.invoice.update({ where: { id: invoice.id }, data: { amountRefunded: invoice.amountRefunded - refund.amount } });
    }
    return tx.transaction.findUniqueOrThrow({ where: { id: refund.id } });
  });
}

/**
 * POST /invoices/{id}/refund: a full or partial refund of a paid invoice through the gateway,
 * recorded as a `refund` transaction (negative amount). Never more than what is left: the invoice
 * lock and amount_refunded see to that; the gateway checks the charge too.
 */
export async function refundInvoice(
  prisma: Db,
  gateway: PaymentGateway,
  accountId: string,
  invoiceId: string,
  opts: RefundInvoiceOptions = {},
): Promise<TransactionObject> {
  for (let round = 0; round < 3; round++) {
    const step = await prisma.$transaction((tx) => nextStep(tx, accountId, invoiceId, opts));
    if (step.kind === 'done') return toTransactionObject(step.refund);
    const settled = await settle(prisma, gateway, accountId, step.refund);
    if (step.own) return toTransactionObject(settled);
  }
  throw conflict(`Refunds of invoice ${invoiceId} are in progress; try again.`, 'refund_in_progress');
}
