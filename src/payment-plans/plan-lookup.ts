import type { PaymentPlanPayment } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { orNotFound } from '../http/errors';
import { lockPlanRow, readPlan, readPlanPayment, type PlanWithDetails } from './payment-plan.records';

/** A plan of the account, or 404 (also for another account's plan). */
export async function findPlan(db: Db | Tx, accountId: string, id: string): Promise<PlanWithDetails> {
  return orNotFound(await readPlan(db, accountId, id), 'payment plan', id);
}

/** The account's plan locked for the rest of the transaction (lockPlanRow), or 404. */
export async function lockPlan(tx: Tx, accountId: string, id: string): Promise<PlanWithDetails> {
  return orNotFound(await lockPlanRow(tx, accountId, id), 'payment plan', id);
}

/** A payment of the account's plan, or 404 naming the payment. */
export async function findPayment(
  db: Db | Tx,
  accountId: string,
  planId: string,
  paymentId: string,
): Promise<PaymentPlanPayment> {
  return orNotFound(await readPlanPayment(db, accountId, planId, paymentId), 'payment plan payment', paymentId);
}
