import type { PaymentPlanInstallment, PaymentPlanPayment } from '../generated/prisma/client';
import type { Tx } from '../db/prisma';
import { recordEvent } from '../lib/events';
import {
  OVERDUE_STATUSES,
  readPaymentTerminalState,
  reloadPlan,
  updatePlanRow,
  touchPlan,
  toInstallmentObject,
  toPaymentObject,
  toPlanObject,
  type PlanWithDetails,
} from './payment-plan.records';

/**
 * `data` of every payment_plan.* event is the plan object after the change; installment events add
 * `installment`, payment_succeeded adds `payment`.
 */
export async function recordPlanEvent(
  tx: Tx,
  planId: string,
  type: string,
  extra: { installment?: PaymentPlanInstallment; payment?: PaymentPlanPayment } = {},
): Promise<void> {
  // Installment and payment changes leave the plan row as it was: touch it, so that `updated_ms`
  // (bumped by the row's trigger) tells every version of the plan apart, in order.
  await touchPlan(tx, planId);
  const plan = await reloadPlan(tx, planId);
  await recordEvent(tx, plan.accountId, `payment_plan.${type}`, {
    ...toPlanObject(plan),
    ...(extra.installment ? { installment: toInstallmentObject(extra.installment, plan.currency) } : {}),
    ...(extra.payment ? { payment: toPaymentObject(extra.payment) } : {}),
  });
}

/** The deposit was charged on a terminal that kept no card, and nobody has said yet how the plan goes on. */
async function depositAwaitsContinuation(tx: Tx, plan: PlanWithDetails): Promise<boolean> {
  const paidBy = plan.installments[0]?.paymentId;
  if (!paidBy) return false;
  return (await readPaymentTerminalState(tx, paidBy)) === 'approved_no_credential';
}

export type StatusMove = 'activated' | 'past_due' | 'reactivated' | 'completed';

/**
 * Brings the plan's status in line with its installments, inside the caller's transaction (plan
 * locked), and answers the event type of the move without recording it (see settleStatus). The rules
 * (spec table, decisions.md §9):
 * - every installment paid -> completed (from any state but canceled), with no other event on the way;
 * - pending or active -> past_due when an installment is failed or overdue (a pending plan whose
 *   deposit charge failed follows the same past_due/defaulted rules as a missed installment);
 * - pending -> active (`activated`) once the deposit is paid and not waiting for a continuation;
 * - past_due or defaulted -> active when nothing is overdue any more: `reactivated`, or `activated`
 *   for a plan that never ran (its deposit was missed, then paid).
 * defaulted is set only by the workflow's deadline (markDefaulted). `at` is the time of the move
 * (workflow time when a workflow drives it).
 */
export async function moveStatus(tx: Tx, planId: string, at: Date): Promise<StatusMove | null> {
  const plan = await reloadPlan(tx, planId);
  if (plan.status === 'canceled' || plan.status === 'completed') return null;
  const allPaid = plan.installments.every((row) => row.status === 'paid');
  const overdue = plan.installments.some((row) => OVERDUE_STATUSES.includes(row.status));

  if (allPaid) {
    // Paid off: completed straight away, whatever the state (no activated/reactivated on the way).
    await updatePlanRow(tx, planId, { status: 'completed', completedAt: at, pastDueAt: null });
    return 'completed';
  }
  if ((plan.status === 'active' || plan.status === 'pending') && overdue) {
    await updatePlanRow(tx, planId, { status: 'past_due', pastDueAt: at });
    return 'past_due';
  }
  if (plan.status === 'pending') {
    const depositPaid = plan.installments[0]?.status === 'paid';
    if (!depositPaid || (await depositAwaitsContinuation(tx, plan))) return null;
    await updatePlanRow(tx, planId, { status: 'active', activatedAt: at });
    return 'activated';
  }
  if ((plan.status === 'past_due' || plan.status === 'defaulted') && !overdue) {
    if (
      plan.activatedAt === null &&
      (plan.installments[0]?.status !== 'paid' || (await depositAwaitsContinuation(tx, plan)))
    ) {
      // The missed deposit is no longer overdue but not paid either (a payment holds it): it stays as it is.
      return null;
    }
    await updatePlanRow(tx, planId, {
      status: 'active',
      pastDueAt: null,
      defaultedAt: null,
      ...(plan.activatedAt === null ? { activatedAt: at } : {}),
    });
    return plan.activatedAt === null ? 'activated' : 'reactivated';
  }
  return null;
}

/** moveStatus, and the event of the move recorded at once. */
export async function settleStatus(tx: Tx, planId: string, at: Date): Promise<void> {
  const move = await moveStatus(tx, planId, at);
  if (move) await recordPlanEvent(tx, planId, move);
}
