import type {
  PaymentMethod,
  PaymentPlanInstallment,
  PaymentPlanPayment,
  Prisma,
  Transaction,
} from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { runTransaction } from '../db/sql-transaction';
import { ApiError, badRequest, conflict } from '../http/errors';
import { newId } from '../lib/ids';
import type { Gateways } from '../payments';
import { finishEntry, moveMoney, type EntryRecording } from '../payments';
import { findPaymentMethod, readPaymentMethod } from '../payments';
import { assertPaysCurrency } from '../payments';
import {
  isSettled,
  openPending,
  readEntryById,
  settlePending,
  type AttemptStep,
  type LedgerOutcome,
} from '../transactions';
import {
  OVERDUE_STATUSES,
  findAttempt,
  findUnfinishedCardPayment,
  holdInstallmentRows,
  insertPlanPayment,
  readPaymentOfEntry,
  readPaymentRow,
  readPlanAccountId,
  readPlanStatus,
  releaseInstallments,
  updateInstallmentRow,
  updatePlanPaymentRow,
  updatePlanRow,
  type PlanWithDetails,
} from './payment-plan.records';
import { lockPlan } from './plan-lookup';
import { moveStatus, recordPlanEvent, settleStatus } from './payment-plan.status';
import { refundAfterCancellation } from './plan-refunds.service';
import { currentTime } from '../lib/clock-time';
import { planPaymentChanged } from './plan-settlement';

export type PaymentUpdate = Prisma.PaymentPlanPaymentUncheckedUpdateInput;

/** Plans that take no more payments. */
export function assertPlanOpen(plan: PlanWithDetails): void {
  if (plan.status === 'completed' || plan.status === 'canceled') {
    throw conflict(`Payment plan ${plan.id} is ${plan.status}; it takes no more payments.`, 'payment_plan_closed');
  }
}

/**
 * What a payment pays: every overdue installment (failed or fallen due unpaid), oldest first; when
 * nothing is overdue, the next scheduled one (paying ahead). Installments another payment is
 * collecting right now are left out.
 */
export function owedInstallments(plan: PlanWithDetails): number[] {
  const free = plan.installments.filter((row) => row.heldByPaymentId === null);
  const overdue = free.filter((row) => OVERDUE_STATUSES.includes(row.status));
  if (overdue.length > 0) return overdue.map((row) => row.number);
  const next = free.find((row) => row.status === 'scheduled');
  if (next) return [next.number];
  throw conflict(`Nothing is due on payment plan ${plan.id}: every installment is paid or being paid.`, 'nothing_due');
}

export function amountOf(plan: PlanWithDetails, numbers: number[]): bigint {
  return plan.installments.filter((row) => numbers.includes(row.number)).reduce((total, row) => total + row.amount, 0n);
}

/** A method attached to the plan's customer that pays the plan's currency (decisions.md §5), or 400/404 naming `param`. */
export async function methodForPlan(
  db: Db | Tx,
  plan: PlanWithDetails,
  id: string,
  param: string,
): Promise<PaymentMethod> {
  let method: PaymentMethod;
  try {
    method = await findPaymentMethod(db, plan.accountId, id);
  } catch (error) {
    if (error instanceof ApiError && error.type === 'not_found')
      throw new ApiError('not_found', error.code, error.message, param);
    throw error;
  }
  if (method.customerId !== plan.customerId) {
    throw badRequest(
      `Payment method ${id} is not attached to customer ${plan.customerId}.`,
      param,
      'payment_method_not_attached',
    );
  }
  assertPaysCurrency(method, plan.currency, param);
  return method;
}

/** Takes installments for a payment in flight, so no other payment collects them meanwhile. */
export async function holdInstallments(tx: Tx, planId: string, numbers: number[], paymentId: string): Promise<void> {
  await holdInstallmentRows(tx, planId, numbers, paymentId);
}

/** Installment 1 of a plan that never ran (pending, or past_due/defaulted because its deposit was missed). */
export function isDeposit(plan: PlanWithDetails, numbers: number[]): boolean {
  return plan.activatedAt === null && numbers.includes(1);
}

/**
 * Money in: the payment succeeds, its installments are paid, and the plan's status follows; then the
 * events, in this order: payment_succeeded, installment_paid (each), then the status move (activated,
 * reactivated, completed). Every event's `data` is the plan after the whole change.
 * On a plan canceled meanwhile (a terminal sale approved or resolved after the cancellation, a charge
 * racing it) nothing is paid: the payment is succeeded, its installments let go, and the caller owes
 * the customer a refund ('refund_due').
 */
export async function applyPaymentSucceeded(
  tx: Tx,
  payment: PaymentPlanPayment,
  at: Date,
  update: PaymentUpdate = {},
): Promise<'paid' | 'refund_due'> {
  const status = await readPlanStatus(tx, payment.planId);
  if (status === 'canceled') {
    await updatePlanPaymentRow(tx, payment.id, { status: 'succeeded', ...update });
    await releaseInstallments(tx, payment.planId, payment.id);
    return 'refund_due';
  }
  const paid = await updatePlanPaymentRow(tx, payment.id, { status: 'succeeded', ...update });
  const installments: PaymentPlanInstallment[] = [];
  for (const number of payment.installmentNumbers) {
    installments.push(
      await updateInstallmentRow(tx, payment.planId, number, {
        status: 'paid',
        paymentId: payment.id,
        paidAt: at,
        heldByPaymentId: null,
        failureCode: null,
        failureMessage: null,
      }),
    );
  }
  if (paid.savePaymentMethod && paid.paymentMethodId) {
    await updatePlanRow(tx, payment.planId, { paymentMethodId: paid.paymentMethodId });
  }
  const move = await moveStatus(tx, payment.planId, at);
  await recordPlanEvent(tx, payment.planId, 'payment_succeeded', { payment: paid });
  for (const installment of installments)
    await recordPlanEvent(tx, payment.planId, 'installment_paid', { installment });
  if (move) await recordPlanEvent(tx, payment.planId, move);
  return 'paid';
}

/**
 * No money: the payment fails and lets its installments go. Only a declined automatic charge fails
 * the installments themselves (installment_failed, and past_due for an active plan).
 */
export async function applyPaymentFailed(
  tx: Tx,
  payment: PaymentPlanPayment,
  failure: { code: string; message: string },
  at: Date,
  update: PaymentUpdate = {},
): Promise<void> {
  await updatePlanPaymentRow(tx, payment.id, {
    status: 'failed',
    failureCode: failure.code,
    failureMessage: failure.message,
    ...update,
  });
  await releaseInstallments(tx, payment.planId, payment.id);
  if (payment.method !== 'automatic') return;
  for (const number of payment.installmentNumbers) {
    const installment = await updateInstallmentRow(tx, payment.planId, number, {
      status: 'failed',
      failureCode: failure.code,
      failureMessage: failure.message,
    });
    await recordPlanEvent(tx, payment.planId, 'installment_failed', { installment });
  }
  await settleStatus(tx, payment.planId, at);
}

export async function applyPaymentCanceled(
  tx: Tx,
  payment: PaymentPlanPayment,
  update: PaymentUpdate = {},
): Promise<void> {
  await updatePlanPaymentRow(tx, payment.id, { status: 'canceled', ...update });
  await releaseInstallments(tx, payment.planId, payment.id);
}

async function lockPlanById(tx: Tx, planId: string): Promise<PlanWithDetails> {
  return lockPlan(tx, await readPlanAccountId(tx, planId), planId);
}

/**
 * The charge protocol's recorder of plan payments: the outcome recorded once, under the plan's lock, with what it
 * does to the payment and its installments (`at` is when it is paid: the workflow's time for an installment). One
 * still in flight leaves the payment processing. A charge that succeeded on a plan canceled meanwhile is refunded.
 */
export async function recordPlanCharge(
  prisma: Db,
  gateways: Gateways,
  entry: Transaction,
  outcome: LedgerOutcome,
  at: Date = currentTime(),
): Promise<PaymentPlanPayment> {
  const payment = await readPaymentOfEntry(prisma, entry.accountId, entry.id);
  const recorded = await runTransaction(prisma, async (tx) => {
    await lockPlanById(tx, payment.planId);
    const fresh = await readPaymentRow(tx, payment.id);
    if (fresh.status !== 'processing') return 'recorded';
    await settlePending(tx, entry.id, outcome);
    if (isSettled(outcome)) planPaymentChanged(fresh.planId);
    if (outcome.status === 'succeeded') return applyPaymentSucceeded(tx, fresh, at);
    if (outcome.status === 'failed')
      await applyPaymentFailed(tx, fresh, { code: outcome.failureCode, message: outcome.failureMessage }, at);
    return 'recorded';
  });
  if (recorded === 'refund_due') await refundAfterCancellation(prisma, gateways, payment);
  return readPaymentRow(prisma, payment.id);
}

/** How a plan's charges are recorded (at `at`): one still in flight is a 502 saying how it gets finished. */
function planChargeRecording(prisma: Db, gateways: Gateways, at: Date): EntryRecording<PaymentPlanPayment> {
  return {
    record: (entry, outcome) => recordPlanCharge(prisma, gateways, entry, outcome, at),
    unavailable:
      "The payment stays processing; the next payment request on this plan (or the workflow's retry) completes it without a second charge.",
    settledOnly: true,
  };
}

/** A plan's charge through the charge protocol: `next` opens it under the plan's lock, or hands over one in flight. */
function planCharge<T>(prisma: Db, gateways: Gateways, at: Date, next: (tx: Tx) => Promise<AttemptStep<T>>) {
  return moveMoney(prisma, gateways, { ...planChargeRecording(prisma, gateways, at), next });
}

/** Finishes a processing charge at the processor (its own key: never twice) and records the outcome at `at`. */
export async function settleCharge(
  prisma: Db,
  gateways: Gateways,
  paymentId: string,
  at: Date,
): Promise<PaymentPlanPayment> {
  const payment = await readPaymentRow(prisma, paymentId);
  if (payment.status !== 'processing') return payment;
  const entry = await readEntryById(prisma, payment.transactionId!);
  return finishEntry(prisma, gateways, entry, planChargeRecording(prisma, gateways, at));
}

/** Opens a charge of `method` for `numbers`: payment and pending transaction (answered), installments held. */
async function openCharge(
  tx: Tx,
  plan: PlanWithDetails,
  numbers: number[],
  method: PaymentMethod,
  options: {
    kind: 'automatic' | 'payment_method';
    attemptKey?: string;
    attempt?: number;
    gatewayKey?: string;
    save?: boolean;
  },
): Promise<Transaction> {
  const id = newId('paymentPlanPayment');
  const gatewayKey = options.gatewayKey ?? `payment-plan:${plan.id}:payment:${id}`;
  const amount = amountOf(plan, numbers);
  const transaction = await openPending(tx, {
    accountId: plan.accountId,
    type: 'payment',
    customerId: plan.customerId,
    amount,
    currency: plan.currency,
    paymentMethodId: method.id,
    gatewayKey,
    attempt: options.attempt ?? null,
    description: `Payment plan ${plan.id}, installment ${numbers.join(', ')}`,
  });
  const payment = await insertPlanPayment(tx, {
    id,
    accountId: plan.accountId,
    planId: plan.id,
    customerId: plan.customerId,
    method: options.kind,
    deposit: isDeposit(plan, numbers),
    status: 'processing',
    amount,
    currency: plan.currency,
    installmentNumbers: numbers,
    paymentMethodId: method.id,
    createdAt: currentTime(),
    savePaymentMethod: options.save ?? false,
    attemptKey: options.attemptKey ?? null,
    gatewayKey,
    transactionId: transaction.id,
  });
  await holdInstallments(tx, plan.id, numbers, payment.id);
  planPaymentChanged(plan.id);
  return transaction;
}

export type AutomaticChargeOutcome = 'succeeded' | 'failed' | 'skipped';

/** The plan's key of the workflow's automatic charge `attempt` of installment `number` (payment_plan_payments.attempt_key). */
export function installmentAttemptKey(number: number, attempt: number): string {
  return `installment:${number}:attempt:${attempt}`;
}

/**
 * The workflow's charge of installment `number` (attempt `attempt`). Idempotent: the attempt is
 * found again by its key `installment:<n>:attempt:<k>` and the gateway key
 * `payment-plan:<id>:installment:<n>:attempt:<k>` never charges twice. Skipped when the
 * installment is no longer to be charged (paid ahead, taken by another payment, plan moved on).
 */
export async function chargeInstallment(
  prisma: Db,
  gateways: Gateways,
  input: { planId: string; number: number; attempt: number; at: Date },
): Promise<AutomaticChargeOutcome> {
  const attemptKey = installmentAttemptKey(input.number, input.attempt);
  const ran = await planCharge(prisma, gateways, input.at, async (tx): Promise<AttemptStep<AutomaticChargeOutcome>> => {
    const plan = await lockPlanById(tx, input.planId);
    const existing = await findAttempt(tx, plan.id, attemptKey);
    if (existing?.status === 'processing')
      return { kind: 'settle', entry: await readEntryById(tx, existing.transactionId!), own: true };
    if (existing) return { kind: 'done', value: existing.status === 'succeeded' ? 'succeeded' : 'failed' };
    const installment = plan.installments.find((row) => row.number === input.number);
    const chargeable = plan.status === 'active' || (plan.status === 'pending' && input.number === 1);
    if (
      !installment ||
      installment.status !== 'scheduled' ||
      installment.heldByPaymentId ||
      !chargeable ||
      !plan.paymentMethodId
    ) {
      return { kind: 'done', value: 'skipped' };
    }
    const method = await readPaymentMethod(tx, plan.accountId, plan.paymentMethodId);
    await updateInstallmentRow(tx, plan.id, input.number, { automaticAttempts: input.attempt });
    if (!method || method.customerId !== plan.customerId) {
      // The card was detached from the customer: nothing may be charged, the installment fails as a decline would.
      const installmentRow = await updateInstallmentRow(tx, plan.id, input.number, {
        status: 'failed',
        failureCode: 'payment_method_unavailable',
        failureMessage: `Payment method ${plan.paymentMethodId} is no longer attached to the customer.`,
      });
      await recordPlanEvent(tx, plan.id, 'installment_failed', { installment: installmentRow });
      await settleStatus(tx, plan.id, input.at);
      return { kind: 'done', value: 'failed' };
    }
    const opened = await openCharge(tx, plan, [input.number], method, {
      kind: 'automatic',
      attemptKey,
      attempt: input.attempt,
      gatewayKey: `payment-plan:${plan.id}:installment:${input.number}:attempt:${input.attempt}`,
    });
    return { kind: 'settle', entry: opened, own: true, opened: true };
  });
  if (ran?.kind === 'done') return ran.value;
  return ran?.value.status === 'succeeded' ? 'succeeded' : 'failed';
}

/**
 * POST /payment-plans/{id}/payments with a stored method: charges what is owed now. A charge left
 * processing by a gateway outage is completed first, under its own key.
 */
export async function chargeStoredMethod(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  planId: string,
  input: { paymentMethodId?: string; save?: boolean },
): Promise<PaymentPlanPayment> {
  const ran = await planCharge(prisma, gateways, currentTime(), async (tx): Promise<AttemptStep<never>> => {
    const plan = await lockPlan(tx, accountId, planId);
    // A charge left processing (a processor that could not answer) is finished first, under its own key.
    const unfinished = await findUnfinishedCardPayment(tx, accountId, planId);
    if (unfinished) return { kind: 'settle', entry: await readEntryById(tx, unfinished.transactionId!), own: false };
    assertPlanOpen(plan);
    const methodId = input.paymentMethodId ?? plan.paymentMethodId;
    if (!methodId) {
      throw badRequest(
        `Payment plan ${planId} has no card on file; name a payment_method, or use external or a terminal.`,
        'payment_method',
        'payment_method_missing',
      );
    }
    const method = await methodForPlan(tx, plan, methodId, 'payment_method');
    const opened = await openCharge(tx, plan, owedInstallments(plan), method, {
      kind: 'payment_method',
      save: input.save,
    });
    return { kind: 'settle', entry: opened, own: true, opened: true };
  });
  if (ran?.kind !== 'settled')
    throw conflict(`Payments of payment plan ${planId} are in progress; try again.`, 'payment_in_progress');
  return ran.value;
}

/** POST /payment-plans/{id}/payments with external: true: money collected elsewhere, recorded as paid (no charge, no transaction). */
export async function recordExternalPayment(
  prisma: Db,
  accountId: string,
  planId: string,
  reference: string | undefined,
): Promise<PaymentPlanPayment> {
  return runTransaction(prisma, async (tx) => {
    const plan = await lockPlan(tx, accountId, planId);
    assertPlanOpen(plan);
    const numbers = owedInstallments(plan);
    const payment = await insertPlanPayment(tx, {
      id: newId('paymentPlanPayment'),
      accountId,
      planId,
      customerId: plan.customerId,
      method: 'external',
      deposit: isDeposit(plan, numbers),
      status: 'processing',
      amount: amountOf(plan, numbers),
      currency: plan.currency,
      installmentNumbers: numbers,
      externalReference: reference ?? null,
      createdAt: currentTime(),
    });
    await applyPaymentSucceeded(tx, payment, currentTime());
    return readPaymentRow(tx, payment.id);
  });
}
