import { PLAN_STATUSES, TERMINAL_STATES } from './payment-plan.schemas';
import { columnValue, nullableColumnValue } from '../lib/columns';
import type {
  PaymentPlan,
  PaymentPlanInstallment,
  PaymentPlanPayment,
  Prisma,
  Transaction,
} from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { execute, type AnyTx, type Statement } from '../db/sql';
import { newestFirstList } from '../db/newest-first-list';
import { toUnixSeconds } from '../lib/time';
import type { InstallmentObject, PaymentPlanObject, PlanPaymentObject } from './payment-plan.schemas';
import type { InstallmentStatus, PlanSnapshot, TerminalState } from '../../workflows/payment-plan-contract';
import { updatedMsOf } from '../lib/object-version';

export const PLAN_INCLUDE = {
  installments: { orderBy: { number: 'asc' as const } },
  payments: { where: { deposit: true }, orderBy: [{ createdAt: 'desc' as const }, { id: 'desc' as const }], take: 1 },
};

export type PlanWithDetails = PaymentPlan & { installments: PaymentPlanInstallment[]; payments: PaymentPlanPayment[] };

/** Installments still to be collected: unpaid, not canceled. */
export const OWED_STATUSES: readonly string[] = ['scheduled', 'failed', 'overdue'];
/** Installments that fell due unpaid. */
export const OVERDUE_STATUSES: readonly string[] = ['failed', 'overdue'];
/** Terminal payments that still need the terminal or a person. */
export const OPEN_TERMINAL_STATES: readonly TerminalState[] = ['waiting', 'resolving', 'approved_no_credential'];

const sum = (rows: PaymentPlanInstallment[]) => rows.reduce((total, row) => total + Number(row.amount), 0);

function depositStatus(plan: PlanWithDetails): PaymentPlanObject['deposit']['status'] {
  const first = plan.installments[0];
  const attempt = plan.payments[0];
  const pendingAction = attempt?.terminalState === 'resolving' || attempt?.terminalState === 'approved_no_credential';
  if (pendingAction) return 'action_required';
  if (first?.status === 'paid') return 'paid';
  if (first?.heldByPaymentId) return 'processing';
  return 'unpaid';
}

export function toPlanObject(plan: PlanWithDetails): PaymentPlanObject {
  const paid = plan.installments.filter((row) => row.status === 'paid');
  const overdue = plan.installments.filter((row) => OVERDUE_STATUSES.includes(row.status));
  const next = plan.installments.find((row) => OWED_STATUSES.includes(row.status));
  const attempt = plan.payments[0];
  const amountPaid = sum(paid);
  const open = ['completed', 'canceled'].includes(plan.status)
    ? []
    : plan.installments.filter((row) => row.status !== 'paid');
  return {
    id: plan.id,
    object: 'payment_plan',
    customer: plan.customerId,
    status: columnValue(PLAN_STATUSES, plan.status, 'payment_plans.status'),
    currency: plan.currency,
    total_amount: Number(plan.totalAmount),
    amount_paid: amountPaid,
    amount_remaining: sum(open),
    amount_overdue: sum(overdue),
    amount_refunded: Number(plan.amountRefunded),
    installments_count: plan.installmentsCount,
    installments_paid: paid.length,
    interval: plan.interval as 'week' | 'month',
    interval_count: plan.intervalCount,
    start_date: toUnixSeconds(plan.startDate),
    payment_method: plan.paymentMethodId,
    default_after_days: plan.defaultAfterDays,
    deposit: {
      installment: 1,
      amount: Number(plan.installments[0]?.amount ?? 0n),
      status: depositStatus(plan),
      attempt: attempt
        ? {
            payment: attempt.id,
            method: attempt.method,
            status: attempt.status,
            terminal: attempt.terminalId,
            state: nullableColumnValue(TERMINAL_STATES, attempt.terminalState, 'payment_plan_payments.terminal_state'),
            cancel_requested: attempt.cancelRequestedAt !== null,
            created: toUnixSeconds(attempt.createdAt),
          }
        : null,
    },
    next_installment: next
      ? { number: next.number, amount: Number(next.amount), due_date: toUnixSeconds(next.dueAt) }
      : null,
    activated_at: toUnixSeconds(plan.activatedAt),
    past_due_at: toUnixSeconds(plan.pastDueAt),
    defaulted_at: toUnixSeconds(plan.defaultedAt),
    completed_at: toUnixSeconds(plan.completedAt),
    canceled_at: toUnixSeconds(plan.canceledAt),
    cancellation_reason: plan.cancellationReason,
    created: toUnixSeconds(plan.createdAt),
    updated_ms: updatedMsOf(plan),
    updated: toUnixSeconds(plan.updatedAt),
  };
}

export function toInstallmentObject(row: PaymentPlanInstallment, currency: string): InstallmentObject {
  const processing = row.heldByPaymentId !== null && OWED_STATUSES.includes(row.status);
  return {
    object: 'payment_plan_installment',
    plan: row.planId,
    number: row.number,
    amount: Number(row.amount),
    currency,
    due_date: toUnixSeconds(row.dueAt),
    status: processing ? 'processing' : (row.status as InstallmentStatus),
    payment: row.paymentId ?? row.heldByPaymentId,
    paid_at: toUnixSeconds(row.paidAt),
    automatic_attempts: row.automaticAttempts,
    failure_code: row.failureCode,
    failure_message: row.failureMessage,
  };
}

type Resolution = NonNullable<PlanPaymentObject['resolution']>;

export function toPaymentObject(row: PaymentPlanPayment): PlanPaymentObject {
  return {
    id: row.id,
    object: 'payment_plan_payment',
    plan: row.planId,
    customer: row.customerId,
    method: row.method as PlanPaymentObject['method'],
    deposit: row.deposit,
    status: row.status as PlanPaymentObject['status'],
    amount: Number(row.amount),
    currency: row.currency,
    amount_refunded: Number(row.amountRefunded),
    installments: row.installmentNumbers,
    payment_method: row.paymentMethodId,
    transaction: row.transactionId,
    external_reference: row.externalReference,
    terminal:
      row.method === 'terminal'
        ? {
            id: row.terminalId!,
            sale: row.terminalSaleId,
            state: columnValue(TERMINAL_STATES, row.terminalState!, 'payment_plan_payments.terminal_state'),
            cancel_requested: row.cancelRequestedAt !== null,
            cancel_requested_at: toUnixSeconds(row.cancelRequestedAt),
          }
        : null,
    resolution: (row.resolution as Resolution | null) ?? null,
    failure_code: row.failureCode,
    failure_message: row.failureMessage,
    created: toUnixSeconds(row.createdAt),
    updated: toUnixSeconds(row.updatedAt),
  };
}

/** A plan of the account, or null (also for another account's plan). */
export function readPlan(db: Db | Tx, accountId: string, id: string): Promise<PlanWithDetails | null> {
  return db.paymentPlan.findFirst({ where: { id, accountId }, include: PLAN_INCLUDE });
}

/** The customer of the account's plan `id`, or undefined (no such plan in the account). */
export async function findPlanCustomerId(db: Db | Tx, accountId: string, id: string): Promise<string | undefined> {
  const plan = await db.paymentPlan.findFirst({ where: { id, accountId }, select: { customerId: true } });
  return plan?.customerId;
}

/**
 * Locks the plan row for the rest of the transaction and answers it fresh. Every change to a plan,
 * its installments or its payments takes this lock first (API and activities alike), so two
 * payments can never take the same installment. Null when the account has no such plan.
 */
export async function lockPlanRow(tx: Tx, accountId: string, id: string): Promise<PlanWithDetails | null> {
  const locked = await tx.$queryRaw<
    { id: string }[]
  >`SELECT id FROM payment_plans WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`;
  if (locked.length === 0) return null;
  return tx.paymentPlan.findUniqueOrThrow({ where: { id }, include: PLAN_INCLUDE });
}

/** How many of the customer's plans are in one of `statuses`. */
export function countCustomerPlans(db: Db | Tx, accountId: string, customerId: string, statuses: readonly string[]) {
  return db.paymentPlan.count({ where: { accountId, customerId, status: { in: [...statuses] } } });
}

/** The workflows and billing intervals of the customers' plans whose status is none of `excluded`. */
export function readPlanIntervals(
  db: Db | Tx,
  customerIds: string[],
  excluded: readonly string[],
): Promise<{ id: string; workflowId: string; interval: string; intervalCount: number }[]> {
  return db.paymentPlan.findMany({
    where: { customerId: { in: customerIds }, status: { notIn: [...excluded] } },
    select: { id: true, workflowId: true, interval: true, intervalCount: true },
  });
}

/** Writes `data` to the plan's row. */
export async function updatePlanRow(tx: Tx, id: string, data: Prisma.PaymentPlanUncheckedUpdateInput): Promise<void> {
  await tx.paymentPlan.update({ where: { id }, data, select: { id: true } });
}

/** A new plan with its installments (`data.installments`), answered with them. */
export function insertPlan(tx: Tx, data: Prisma.PaymentPlanUncheckedCreateInput): Promise<PlanWithDetails> {
  return tx.paymentPlan.create({ data, include: PLAN_INCLUDE });
}

/** The account of plan `id`, which exists (a workflow's plan). */
export async function readPlanAccountId(db: Db | Tx, id: string): Promise<string> {
  return (await db.paymentPlan.findUniqueOrThrow({ where: { id }, select: { accountId: true } })).accountId;
}

/** Whether the account has ever had a plan. */
export async function accountHasPlans(db: Db | Tx, accountId: string): Promise<boolean> {
  return (await db.paymentPlan.findFirst({ where: { accountId }, select: { id: true } })) !== null;
}

/** Whether the account has payment plans turned on (false for an unknown account). */
export async function readPaymentPlansEnabled(db: Db | Tx, accountId: string): Promise<boolean> {
  const account = await db.account.findUnique({ where: { id: accountId }, select: { paymentPlansEnabled: true } });
  return account?.paymentPlansEnabled ?? false;
}

/** The days before default the account set, or null when it set none. */
export async function readDefaultAfterDays(db: Db | Tx, accountId: string): Promise<number | null> {
  const settings = await db.paymentPlanSettings.findUnique({
    where: { accountId },
    select: { defaultAfterDays: true },
  });
  return settings?.defaultAfterDays ?? null;
}

/** Writes `data` to installment `number` of the plan. */
export function updateInstallmentRow(
  tx: Tx,
  planId: string,
  number: number,
  data: Prisma.PaymentPlanInstallmentUncheckedUpdateInput,
): Promise<PaymentPlanInstallment> {
  return tx.paymentPlanInstallment.update({ where: { planId_number: { planId, number } }, data });
}

/** The plan's installments still owed (OWED_STATUSES) are canceled. */
export async function cancelOwedInstallments(tx: Tx, planId: string): Promise<void> {
  await tx.paymentPlanInstallment.updateMany({
    where: { planId, status: { in: [...OWED_STATUSES] } },
    data: { status: 'canceled' },
  });
}

/** Writes `data` to the plan payment's row. */
export function updatePlanPaymentRow(
  tx: Tx,
  id: string,
  data: Prisma.PaymentPlanPaymentUncheckedUpdateInput,
): Promise<PaymentPlanPayment> {
  return tx.paymentPlanPayment.update({ where: { id }, data });
}

/** Takes installments `numbers` for payment `paymentId` in flight (or lets them go: null). */
export async function holdInstallmentRows(tx: Tx, planId: string, numbers: number[], paymentId: string): Promise<void> {
  await tx.paymentPlanInstallment.updateMany({
    where: { planId, number: { in: numbers } },
    data: { heldByPaymentId: paymentId },
  });
}

/** Lets go of the installments payment `paymentId` held. */
export async function releaseInstallments(tx: Tx, planId: string, paymentId: string): Promise<void> {
  await tx.paymentPlanInstallment.updateMany({
    where: { planId, heldByPaymentId: paymentId },
    data: { heldByPaymentId: null },
  });
}

/** The status of plan `id`, which exists. */
export async function readPlanStatus(db: Db | Tx, id: string): Promise<string> {
  return (await db.paymentPlan.findUniqueOrThrow({ where: { id }, select: { status: true } })).status;
}

/** Payment `id`, which exists (one the caller holds or has just written). */
export function readPaymentRow(db: Db | Tx, id: string): Promise<PaymentPlanPayment> {
  return db.paymentPlanPayment.findUniqueOrThrow({ where: { id } });
}

/** The plan's payment under `attemptKey`, or null. */
export function findAttempt(db: Db | Tx, planId: string, attemptKey: string): Promise<PaymentPlanPayment | null> {
  return db.paymentPlanPayment.findUnique({ where: { planId_attemptKey: { planId, attemptKey } } });
}

/** The account's plan payment whose ledger entry is `transactionId`, which exists (a charge or a refund's source). */
export function readPaymentOfEntry(db: Db | Tx, accountId: string, transactionId: string): Promise<PaymentPlanPayment> {
  return db.paymentPlanPayment.findFirstOrThrow({ where: { accountId, transactionId } });
}

/** The oldest refund in flight (pending or unknown at the gateway) of the payment entry `sourceTransactionId`, or null. */
export function oldestRefundInFlightOf(
  tx: Tx,
  accountId: string,
  sourceTransactionId: string,
): Promise<Transaction | null> {
  return tx.transaction.findFirst({
    where: { accountId, type: 'refund', status: { in: ['pending', 'unknown'] }, sourceTransactionId },
    orderBy: { createdAt: 'asc' },
  });
}

/** How many refunds of the payment entry `sourceTransactionId` the ledger holds, whatever their outcome. */
export function countRefundsOf(tx: Tx, accountId: string, sourceTransactionId: string): Promise<number> {
  return tx.transaction.count({ where: { accountId, type: 'refund', sourceTransactionId } });
}

/** One of the plan's card payments left processing (a gateway that did not answer), or null. */
export function findUnfinishedCardPayment(
  tx: Tx,
  accountId: string,
  planId: string,
): Promise<PaymentPlanPayment | null> {
  return tx.paymentPlanPayment.findFirst({
    where: { accountId, planId, method: 'payment_method', status: 'processing' },
  });
}

/** The plan's card payments left processing (a gateway that did not answer). */
export function readUnfinishedCardPayments(db: Db, accountId: string, planId: string): Promise<PaymentPlanPayment[]> {
  return db.paymentPlanPayment.findMany({
    where: { accountId, planId, method: 'payment_method', status: 'processing' },
  });
}

export function insertPlanPayment(
  tx: Tx,
  data: Prisma.PaymentPlanPaymentUncheckedCreateInput,
): Promise<PaymentPlanPayment> {
  return tx.paymentPlanPayment.create({ data });
}

/** The plan's sales waiting on a terminal that nobody has asked to cancel yet. */
export function readWaitingTerminalPayments(tx: Tx, planId: string): Promise<PaymentPlanPayment[]> {
  return tx.paymentPlanPayment.findMany({
    where: { planId, method: 'terminal', terminalState: 'waiting', cancelRequestedAt: null },
  });
}

/** The payment's terminal state (null for a card payment), or null for no such payment. */
export async function readPaymentTerminalState(db: Db | Tx, id: string): Promise<string | null> {
  const payment = await db.paymentPlanPayment.findUnique({ where: { id }, select: { terminalState: true } });
  return payment?.terminalState ?? null;
}

/** A page of the plan's payments, newest first, and how many it has. */
export function readPlanPaymentPage(
  db: Db,
  accountId: string,
  planId: string,
  window: { take: number; skip: number },
): Promise<[PaymentPlanPayment[], number]> {
  const where = { accountId, planId };
  return Promise.all([
    db.paymentPlanPayment.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...window }),
    db.paymentPlanPayment.count({ where }),
  ]);
}

/** Payment `paymentId` of plan `planId` in whichever account (the operators' tools), or null. */
export function readPaymentOfPlan(db: Db | Tx, planId: string, paymentId: string): Promise<PaymentPlanPayment | null> {
  return db.paymentPlanPayment.findFirst({ where: { id: paymentId, planId } });
}

/** The account and ledger entry of the plan's payment under `attemptKey` (an automatic charge's), or null. */
export function readAttemptPayment(
  db: Db | Tx,
  planId: string,
  attemptKey: string,
): Promise<Pick<PaymentPlanPayment, 'accountId' | 'transactionId'> | null> {
  return db.paymentPlanPayment.findUnique({
    where: { planId_attemptKey: { planId, attemptKey } },
    select: { accountId: true, transactionId: true },
  });
}

/** The plan's latest deposit attempt on a terminal, or null. */
export function readLatestTerminalDeposit(db: Db | Tx, planId: string): Promise<PaymentPlanPayment | null> {
  return db.paymentPlanPayment.findFirst({
    where: { planId, deposit: true, method: 'terminal' },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}

/** Card charges of the plan between their pending and settled steps (a request's or the workflow's automatic charge). */
export function chargesInFlight(db: Db | Tx, planId: string): Promise<{ id: string }[]> {
  return db.paymentPlanPayment.findMany({
    where: { planId, method: { in: ['payment_method', 'automatic'] }, status: 'processing' },
    select: { id: true },
  });
}

const TOUCH_PLAN: Statement = {
  name: 'payment_plan_touch',
  text: 'UPDATE payment_plans SET updated_at = now() WHERE id = $1',
};

/** Sets the plan's updated_at to now, which makes its row's trigger bump `updated_ms`. */
export async function touchPlan(tx: AnyTx, planId: string): Promise<void> {
  await execute(tx, TOUCH_PLAN, [planId]);
}

export async function reloadPlan(tx: Tx | Db, id: string): Promise<PlanWithDetails> {
  return tx.paymentPlan.findUniqueOrThrow({ where: { id }, include: PLAN_INCLUDE });
}

export function readPlanPayment(
  db: Db | Tx,
  accountId: string,
  planId: string,
  paymentId: string,
): Promise<PaymentPlanPayment | null> {
  return db.paymentPlanPayment.findFirst({ where: { id: paymentId, planId, accountId } });
}

export async function snapshotOf(db: Db | Tx, planId: string): Promise<PlanSnapshot | null> {
  const plan = await db.paymentPlan.findUnique({
    where: { id: planId },
    include: { installments: { orderBy: { number: 'asc' } } },
  });
  if (!plan) return null;
  const open = await db.paymentPlanPayment.findMany({
    where: { planId, method: 'terminal', terminalState: { in: [...OPEN_TERMINAL_STATES] } },
    orderBy: { createdAt: 'asc' },
  });
  return {
    planId: plan.id,
    status: columnValue(PLAN_STATUSES, plan.status, 'payment_plans.status'),
    hasPaymentMethod: plan.paymentMethodId !== null,
    pastDueAt: plan.pastDueAt?.getTime() ?? null,
    defaultAfterDays: plan.defaultAfterDays,
    installments: plan.installments.map((row) => ({
      number: row.number,
      dueAt: row.dueAt.getTime(),
      status: row.status as InstallmentStatus,
      held: row.heldByPaymentId !== null,
      automaticAttempts: row.automaticAttempts,
    })),
    openTerminalPayments: open.map((payment) => ({
      paymentId: payment.id,
      terminalId: payment.terminalId,
      state: columnValue(TERMINAL_STATES, payment.terminalState!, 'payment_plan_payments.terminal_state'),
      deposit: payment.deposit,
      since: payment.stateChangedAt.getTime(),
    })),
  };
}

/** A terminal payment not settled yet (OPEN_TERMINAL_STATES), with what support needs to act on it. */
export interface OpenTerminalPayment {
  payment: PaymentPlanPayment;
  customer: { id: string; name: string } | null;
  terminalLabel: string | null;
}

/**
 * Terminal payments waiting on a terminal or needing a resolution since `before` or earlier, oldest
 * first: what `npm run support -- terminal:stuck` and the dashboard's terminal screen list. Every
 * account's when `accountId` is absent (the operator's command).
 */
export async function listOpenTerminalPayments(
  db: Db,
  { accountId, before, take }: { accountId?: string; before: Date; take: number },
): Promise<OpenTerminalPayment[]> {
  const payments = await db.paymentPlanPayment.findMany({
    where: {
      method: 'terminal',
      terminalState: { in: [...OPEN_TERMINAL_STATES] },
      stateChangedAt: { lte: before },
      ...(accountId ? { accountId } : {}),
    },
    orderBy: { stateChangedAt: 'asc' },
    take,
  });
  if (payments.length === 0) return [];
  const terminalIds = [...new Set(payments.map((payment) => payment.terminalId).filter((id) => id !== null))];
  const planIds = [...new Set(payments.map((payment) => payment.planId))];
  const [terminals, plans] = await Promise.all([
    db.terminal.findMany({ where: { id: { in: terminalIds } }, select: { id: true, label: true } }),
    db.paymentPlan.findMany({
      where: { id: { in: planIds } },
      select: { id: true, accountId: true, customerId: true },
    }),
  ]);
  const customers = await db.customer.findMany({
    where: { OR: plans.map((plan) => ({ id: plan.customerId, accountId: plan.accountId })) },
    select: { id: true, name: true },
  });
  const labelOf = new Map(terminals.map((terminal) => [terminal.id, terminal.label]));
  const customerOf = new Map(
    plans.map((plan) => [plan.id, customers.find((customer) => customer.id === plan.customerId) ?? null]),
  );
  return payments.map((payment) => ({
    payment,
    customer: customerOf.get(payment.planId) ?? null,
    terminalLabel: payment.terminalId ? (labelOf.get(payment.terminalId) ?? null) : null,
  }));
}

export interface PlanFilter {
  customerId?: string;
  status?: string;
}

/** The account's payment plans with their installments and payments, newest first (GET /payment-plans). */
export const planList = newestFirstList<PlanWithDetails, PlanFilter>({
  table: 'payment_plans',
  columns: { customerId: 'customer_id', status: 'status' },
  findMany: (db, read) => db.paymentPlan.findMany({ ...read, include: PLAN_INCLUDE }),
  count: (db, where) => db.paymentPlan.count({ where }),
});

/** An account's payment plan settings as stored: `defaultAfterDays` null while the account never set it. */
export interface StoredPaymentPlanSettings {
  enabled: boolean;
  defaultAfterDays: number | null;
}

/** The account's payment plan settings, or null for an unknown account. */
export async function readPaymentPlanSettings(
  db: Db | Tx,
  accountId: string,
): Promise<StoredPaymentPlanSettings | null> {
  const account = await db.account.findUnique({ where: { id: accountId }, select: { paymentPlansEnabled: true } });
  if (!account) return null;
  const stored = await db.paymentPlanSettings.findUnique({
    where: { accountId },
    select: { defaultAfterDays: true },
  });
  return { enabled: account.paymentPlansEnabled, defaultAfterDays: stored?.defaultAfterDays ?? null };
}

/** Changes what is given of the account's payment plan settings (the rest stays). */
export async function writePaymentPlanSettings(
  tx: Tx,
  accountId: string,
  change: { enabled?: boolean; defaultAfterDays?: number },
): Promise<void> {
  if (change.enabled !== undefined) {
    await tx.account.update({
      where: { id: accountId },
      data: { paymentPlansEnabled: change.enabled },
      select: { id: true },
    });
  }
  if (change.defaultAfterDays !== undefined) {
    await tx.paymentPlanSettings.upsert({
      where: { accountId },
      create: { accountId, defaultAfterDays: change.defaultAfterDays },
      update: { defaultAfterDays: change.defaultAfterDays },
    });
  }
}

/** writePaymentPlanSettings in a transaction of its own. */
export function updatePaymentPlanSettings(
  db: Db,
  accountId: string,
  change: { enabled?: boolean; defaultAfterDays?: number },
): Promise<void> {
  return db.$transaction((tx) => writePaymentPlanSettings(tx, accountId, change));
}
