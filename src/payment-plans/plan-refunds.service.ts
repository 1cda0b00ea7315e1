import type { PaymentPlanPayment, Transaction } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { runTransaction } from '../db/sql-transaction';
import { badRequest, conflict } from '../http/errors';
import type { Gateways } from '../payments';
import { REFUND_UNAVAILABLE, moveMoney } from '../payments';
import { entryByGatewayKey, isInFlight, openPending, readEntryById, settlePending } from '../transactions';
import type { AttemptStep, LedgerOutcome } from '../transactions';
import {
  countRefundsOf,
  oldestRefundInFlightOf,
  readPaymentOfEntry,
  readPaymentRow,
  updatePlanPaymentRow,
  updatePlanRow,
} from './payment-plan.records';
import { findPayment, lockPlan } from './plan-lookup';
import { recordPlanEvent } from './payment-plan.status';

/**
 * Refunds of payment-plan payments: a `refund` transaction (negative amount) whose
 * `source_transaction` is the payment's transaction, like invoice refunds. A payment charged through
 * the gateway is refunded there (idempotency key `payment-plan:<id>:payment:<ppay>:refund:<key>`). A
 * terminal sale has no gateway charge: its refund is recorded against the sale's transaction and
 * settled at once (`gateway_reference` the sale `tms_`), the way the terminal's processor reverses a
 * sale it settled. An external payment moved no money here and cannot be refunded here (409).
 * A refund never reopens installments: what they paid stays paid; the plan counts `amount_refunded`.
 */
export interface RefundPlanPaymentOptions {
  /** Cents; everything still refundable when absent. */
  amount?: number;
  /** The caller's name for this refund (an Idempotency-Key): a second call answers the same refund. */
  attemptKey?: string;
  /** The service's own name for the refund (not a caller's key), e.g. `plan-canceled`. */
  internalKey?: string;
}

function refundKey(planId: string, paymentId: string, key: string): string {
  return `payment-plan:${planId}:payment:${paymentId}:refund:${key}`;
}

/** Opens a pending refund of `amount` cents of `payment` (checked by the caller) under `key`. */
async function openRefund(
  tx: Tx,
  payment: PaymentPlanPayment,
  amount: bigint,
  key: string,
  attemptKey: string | null,
): Promise<Transaction> {
  const source = await readEntryById(tx, payment.transactionId!);
  return openPending(tx, {
    accountId: payment.accountId,
    type: 'refund',
    amount: -amount,
    currency: payment.currency,
    customerId: payment.customerId,
    paymentMethodId: source.paymentMethodId,
    sourceTransactionId: source.id,
    attemptKey,
    gatewayKey: refundKey(payment.planId, payment.id, key),
    description: `Refund of payment ${payment.id} on payment plan ${payment.planId}`,
  });
}

/**
 * Records the outcome of a pending refund once (plan locked by the caller): the transaction settles;
 * when it succeeded the payment and the plan count it (a payment refunded in full is `refunded`) and
 * payment_plan.payment_refunded is recorded with the plan and the payment after the refund.
 */
async function recordRefundOutcome(tx: Tx, refund: Transaction, outcome: LedgerOutcome): Promise<void> {
  if (!(await settlePending(tx, refund.id, outcome)) || outcome.status !== 'succeeded') return;
  const amount = -refund.amount;
  const payment = await readPaymentOfEntry(tx, refund.accountId, refund.sourceTransactionId!);
  const refunded = payment.amountRefunded + amount;
  const after = await updatePlanPaymentRow(tx, payment.id, {
    amountRefunded: refunded,
    ...(refunded >= payment.amount ? { status: 'refunded' } : {}),
  });
  await updatePlanRow(tx, payment.planId, { amountRefunded: { increment: amount } });
  await recordPlanEvent(tx, payment.planId, 'payment_refunded', { payment: after });
}

/**
 * A terminal sale approved for a plan that is canceled by then: the money is given back at once, in
 * the caller's transaction (plan locked, the sale's transaction recorded succeeded).
 */
export async function refundCanceledPlanSale(tx: Tx, payment: PaymentPlanPayment): Promise<void> {
  const fresh = await readPaymentRow(tx, payment.id);
  const refund = await openRefund(tx, fresh, fresh.amount - fresh.amountRefunded, 'plan-canceled', null);
  await recordRefundOutcome(tx, refund, { status: 'succeeded', gatewayReference: fresh.terminalSaleId! });
}

async function nextStep(
  tx: Tx,
  accountId: string,
  planId: string,
  paymentId: string,
  opts: RefundPlanPaymentOptions,
): Promise<AttemptStep<Transaction>> {
  await lockPlan(tx, accountId, planId);
  const payment = await findPayment(tx, accountId, planId, paymentId);
  const key = opts.internalKey ?? (opts.attemptKey ? `key:${opts.attemptKey}` : null);
  if (key) {
    const mine = await entryByGatewayKey(tx, accountId, refundKey(planId, paymentId, key));
    if (mine) return isInFlight(mine) ? { kind: 'settle', entry: mine, own: true } : { kind: 'done', value: mine };
  }
  if (payment.transactionId) {
    const inFlight = await oldestRefundInFlightOf(tx, accountId, payment.transactionId);
    if (inFlight) return { kind: 'settle', entry: inFlight, own: false };
  }

  if (!payment.transactionId) {
    throw conflict(
      `Payment ${paymentId} was collected outside the service (external); refund it there.`,
      'payment_not_refundable',
    );
  }
  if (payment.status !== 'succeeded') {
    throw conflict(
      `Payment ${paymentId} is ${payment.status}; only a succeeded payment can be refunded.`,
      'payment_not_refundable',
    );
  }
  const refundable = payment.amount - payment.amountRefunded;
  const amount = opts.amount === undefined ? refundable : BigInt(opts.amount);
  if (amount > refundable)
    throw badRequest(
      `amount ${amount} exceeds the ${refundable} cents left to refund on payment ${paymentId}.`,
      'amount',
    );
  const sequence = (await countRefundsOf(tx, accountId, payment.transactionId)) + 1;
  const refund = await openRefund(tx, payment, amount, key ?? `${sequence}`, opts.attemptKey ?? null);
  if (payment.method === 'terminal') {
    await recordRefundOutcome(tx, refund, { status: 'succeeded', gatewayReference: payment.terminalSaleId! });
    return { kind: 'done', value: await readEntryById(tx, refund.id) };
  }
  return { kind: 'settle', entry: refund, own: true, opened: true };
}

/** The charge protocol's recorder of plan refunds: the outcome recorded once, under the plan's lock. */
export async function recordPlanRefund(prisma: Db, refund: Transaction, outcome: LedgerOutcome): Promise<Transaction> {
  const payment = await readPaymentOfEntry(prisma, refund.accountId, refund.sourceTransactionId!);
  return runTransaction(prisma, async (tx) => {
    await lockPlan(tx, refund.accountId, payment.planId);
    await recordRefundOutcome(tx, refund, outcome);
    return readEntryById(tx, refund.id);
  });
}

/**
 * POST /payment-plans/{id}/payments/{payment_id}/refund: a full or partial refund of a succeeded
 * payment, answered as the refund transaction. Never more than what is left: the plan lock and
 * amount_refunded see to that (the gateway checks the charge too).
 */
export async function refundPlanPayment(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  planId: string,
  paymentId: string,
  opts: RefundPlanPaymentOptions = {},
): Promise<Transaction> {
  const ran = await moveMoney(prisma, gateways, {
    next: (tx: Tx) => nextStep(tx, accountId, planId, paymentId, opts),
    record: (refund, outcome) => recordPlanRefund(prisma, refund, outcome),
    unavailable: REFUND_UNAVAILABLE,
    settledOnly: true,
  });
  if (ran) return ran.value;
  throw conflict(`Refunds of payment ${paymentId} are in progress; try again.`, 'refund_in_progress');
}

/**
 * A gateway charge that succeeded after its plan was canceled (a payment racing the cancellation):
 * refunded in full at once. Idempotent by its key; an outage leaves the refund pending, completed by
 * the next refund request on the payment.
 */
export async function refundAfterCancellation(
  prisma: Db,
  gateways: Gateways,
  payment: PaymentPlanPayment,
): Promise<void> {
  await refundPlanPayment(prisma, gateways, payment.accountId, payment.planId, payment.id, {
    internalKey: 'plan-canceled',
  });
}
