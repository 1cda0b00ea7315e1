import type { Client } from '@temporalio/client';
import type { Db } from '../db/prisma';
import { currentTime } from '../lib/clock-time';
import { MINUTE_MS } from '../lib/durations';
import { toUnixSeconds } from '../lib/time';
import type { Gateways } from '../payments';
import { onCustomerTime } from '../test-clocks';
import type { TransactionObject } from '../transactions';
import { toTransactionObject } from '../transactions';
import type { PaymentPlanRequestArgs, PaymentPlanRequestKind } from '../../workflows/payment-plan-contract';
import { findPlanCustomerId, listOpenTerminalPayments, toPaymentObject } from './payment-plan.records';
import { findPayment, findPlan } from './plan-lookup';
import type {
  CreatePlanPaymentInput,
  OpenTerminalPaymentObject,
  PaymentPlanObject,
  PlanPaymentObject,
  ResolveTerminalInput,
} from './payment-plan.schemas';
import { applyPlanRequest, getPaymentPlan } from './payment-plan.service';
import { assertPlanOpen, chargeStoredMethod, recordExternalPayment } from './plan-payments.service';
import { refundPlanPayment } from './plan-refunds.service';
import {
  checkCancellable,
  checkResolution,
  currentDepositAttempt,
  startDepositOnTerminal,
  startTerminalPayment,
} from './terminal-payments.service';
import { planPaymentChanged } from './plan-settlement';
import { notifyPlanUpdated, rejectionError, sendPlanRequest, tellingPlansOfChangedPayments } from './workflow-client';

/**
 * What the API asks of a running plan (src/payment-plans/payment-plan.routes.ts calls one of these per
 * route): a change the API makes itself (a payment, a terminal sale, a refund) and then tells the workflow
 * of (planUpdated), or a request the workflow carries out (its updates: cancelPlan, resolveDeposit...,
 * refused as 400 naming the field or 409). Every change of a plan whose customer is on a test clock runs at
 * the clock's time (409 while the clock advances).
 */
export interface PlanActionDeps {
  prisma: Db;
  temporal: Client;
  gateways: Gateways;
}

async function onPlanTime<T>(prisma: Db, accountId: string, planId: string, work: () => Promise<T>): Promise<T> {
  const customerId = await findPlanCustomerId(prisma, accountId, planId);
  return customerId ? onCustomerTime(prisma, accountId, customerId, work) : work();
}

/**
 * Sends a request update, which answers once the workflow carried it out (a plan whose workflow has
 * ended has it carried out here), and turns a refusal into its 4xx.
 */
async function requestOfPlan(
  { prisma, temporal, gateways }: PlanActionDeps,
  accountId: string,
  planId: string,
  kind: PaymentPlanRequestKind,
  args: PaymentPlanRequestArgs,
): Promise<void> {
  const record = await onPlanTime(prisma, accountId, planId, () =>
    sendPlanRequest(
      temporal,
      planId,
      kind,
      { ...args, source: 'api' },
      { whenEnded: (sent) => applyPlanRequest(prisma, planId, kind, sent, currentTime(), gateways) },
    ),
  );
  if (!record.applied) throw rejectionError(record);
}

/** POST /payment-plans/{id}/cancel (update cancelPlan): 409 when the plan is completed or canceled already. */
export async function cancelPaymentPlan(
  deps: PlanActionDeps,
  accountId: string,
  planId: string,
): Promise<PaymentPlanObject> {
  assertPlanOpen(await findPlan(deps.prisma, accountId, planId));
  await requestOfPlan(deps, accountId, planId, 'cancelPlan', {});
  return getPaymentPlan(deps.prisma, accountId, planId);
}

/** POST /payment-plans/{id}/deposit/terminal: installment 1 sent to `terminalId`, the workflow told. */
export async function sendDepositToTerminal(
  deps: PlanActionDeps,
  accountId: string,
  planId: string,
  terminalId: string,
): Promise<PaymentPlanObject> {
  await onPlanTime(deps.prisma, accountId, planId, () =>
    startDepositOnTerminal(deps.prisma, accountId, planId, terminalId),
  );
  await notifyPlanUpdated(deps.temporal, planId);
  return getPaymentPlan(deps.prisma, accountId, planId);
}

/**
 * POST /payment-plans/{id}/deposit (update resolveDeposit). Without an outcome, a `resolving` deposit
 * continues with the one its terminal's processor recorded (decisions.md §8).
 */
export async function resolveDeposit(
  deps: PlanActionDeps,
  accountId: string,
  planId: string,
  input: ResolveTerminalInput,
): Promise<PaymentPlanObject> {
  const plan = await findPlan(deps.prisma, accountId, planId);
  const attempt = await currentDepositAttempt(deps.prisma, plan.id);
  const resolution = await checkResolution(deps.prisma, plan, attempt, input);
  await requestOfPlan(deps, accountId, plan.id, 'resolveDeposit', resolution);
  return getPaymentPlan(deps.prisma, accountId, plan.id);
}

/** POST /payment-plans/{id}/deposit/cancel (update cancelDeposit): the waiting deposit sale asked to cancel. */
export async function cancelDeposit(
  deps: PlanActionDeps,
  accountId: string,
  planId: string,
): Promise<PaymentPlanObject> {
  const plan = await findPlan(deps.prisma, accountId, planId);
  await currentDepositAttempt(deps.prisma, plan.id, ['waiting']);
  await requestOfPlan(deps, accountId, plan.id, 'cancelDeposit', {});
  return getPaymentPlan(deps.prisma, accountId, plan.id);
}

/**
 * POST /payment-plans/{id}/payments: what is owed paid by the means `input` names (recorded as collected
 * outside, taken on a terminal, or charged to a stored method), then the workflow told.
 */
export async function payPlan(
  deps: PlanActionDeps,
  accountId: string,
  planId: string,
  input: CreatePlanPaymentInput,
): Promise<PlanPaymentObject> {
  const { prisma, gateways } = deps;
  // A charge opened or settled here is told to the workflow also when the request fails after it (a 502: the
  // processor could not be reached, or its answer was lost), so it knows of the payment in flight.
  const payment = await tellingPlansOfChangedPayments(deps.temporal, async () => {
    const paid = await onPlanTime(prisma, accountId, planId, () => {
      if (input.external) return recordExternalPayment(prisma, accountId, planId, input.external_reference);
      if (typeof input.payment_method === 'object')
        return startTerminalPayment(prisma, accountId, planId, input.payment_method.terminal);
      return chargeStoredMethod(prisma, gateways, accountId, planId, {
        paymentMethodId: input.payment_method,
        save: input.save_payment_method,
      });
    });
    planPaymentChanged(planId);
    return paid;
  });
  return toPaymentObject(payment);
}

/** GET /payment-plans/{id}/payments/{payment_id}: 404 for a plan or payment of another account. */
export async function getPlanPayment(
  prisma: Db,
  accountId: string,
  planId: string,
  paymentId: string,
): Promise<PlanPaymentObject> {
  await findPlan(prisma, accountId, planId);
  return toPaymentObject(await findPayment(prisma, accountId, planId, paymentId));
}

/** At most this many rows in GET /terminal-payments. */
const STUCK_LIST_SIZE = 500;

/**
 * GET /terminal-payments: the account's terminal payments in the same state for `olderThanMinutes` or
 * more, oldest first. A sale waits on its terminal in the real world: its time there is measured on the
 * wall clock (terminal-payments.service.ts).
 */
export async function listStuckTerminalPayments(
  prisma: Db,
  accountId: string,
  olderThanMinutes: number,
): Promise<{ data: OpenTerminalPaymentObject[] }> {
  const open = await listOpenTerminalPayments(prisma, {
    accountId,
    before: new Date(Date.now() - olderThanMinutes * MINUTE_MS),
    take: STUCK_LIST_SIZE,
  });
  return {
    data: open.map(({ payment, customer, terminalLabel }) => ({
      payment: toPaymentObject(payment),
      customer_name: customer?.name ?? null,
      terminal_label: terminalLabel,
      since: toUnixSeconds(payment.stateChangedAt),
    })),
  };
}

/** POST /payment-plans/{id}/payments/{payment_id}/resolve (update resolveTerminalPayment): answers the payment. */
export async function resolvePlanPayment(
  deps: PlanActionDeps,
  accountId: string,
  planId: string,
  paymentId: string,
  input: ResolveTerminalInput,
): Promise<PlanPaymentObject> {
  const plan = await findPlan(deps.prisma, accountId, planId);
  const payment = await findPayment(deps.prisma, accountId, plan.id, paymentId);
  const resolution = await checkResolution(deps.prisma, plan, payment, input);
  await requestOfPlan(deps, accountId, plan.id, 'resolveTerminalPayment', { ...resolution, payment_id: payment.id });
  return toPaymentObject(await findPayment(deps.prisma, accountId, plan.id, payment.id));
}

/** POST /payment-plans/{id}/payments/{payment_id}/cancel (update cancelTerminalPayment): answers the payment. */
export async function cancelPlanPayment(
  deps: PlanActionDeps,
  accountId: string,
  planId: string,
  paymentId: string,
): Promise<PlanPaymentObject> {
  const plan = await findPlan(deps.prisma, accountId, planId);
  const payment = await findPayment(deps.prisma, accountId, plan.id, paymentId);
  checkCancellable(payment);
  await requestOfPlan(deps, accountId, plan.id, 'cancelTerminalPayment', { payment_id: payment.id });
  return toPaymentObject(await findPayment(deps.prisma, accountId, plan.id, payment.id));
}

/** POST /payment-plans/{id}/payments/{payment_id}/refund: answers the refund transaction. */
export async function refundPaymentOfPlan(
  deps: PlanActionDeps,
  accountId: string,
  planId: string,
  paymentId: string,
  input: { amount?: number; attemptKey?: string },
): Promise<TransactionObject> {
  await findPlan(deps.prisma, accountId, planId);
  const refund = await onPlanTime(deps.prisma, accountId, planId, () =>
    refundPlanPayment(deps.prisma, deps.gateways, accountId, planId, paymentId, input),
  );
  return toTransactionObject(refund);
}
