import { TERMINAL_STATES } from './payment-plan.schemas';
import { nullableColumnValue } from '../lib/columns';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Db, Tx } from '../db/prisma';
import { lockCustomer, withCustomerNames } from '../customers';
import { ApiError, badRequest, conflict, isRefusal, notFound } from '../http/errors';
import { keysetListPage, pageEnvelope, pageWindow, type Page, type PageParams } from '../http/pagination';
import { idFromSeed, newId } from '../lib/ids';
import { fromUnixSeconds } from '../lib/time';
import { DAY_MS, DAY_SECONDS } from '../lib/durations';
import { BILLING_ACCOUNT_ID, BILLING_CUSTOMER_ID, BILLING_STATUS } from '../temporal';
import { displayStartOptions, paymentPlanDisplay } from '../temporal';
import {
  PAYMENT_PLAN_WORKFLOW_TYPE,
  paymentPlanWorkflowId,
  type PaymentPlanRequestArgs,
  type PaymentPlanRequestResult,
  type PaymentPlanRequestKind,
  type PaymentPlanWorkflowInput,
} from '../../workflows/payment-plan-contract';
import { parseRequestArgs } from '../../workflows/payment-plan-requests';
import { methodForPlan, settleCharge } from './plan-payments.service';
import type { Gateways } from '../payments';
import {
  chargesInFlight,
  accountHasPlans,
  cancelOwedInstallments,
  planList,
  findPlanCustomerId,
  insertPlan,
  OVERDUE_STATUSES,
  readDefaultAfterDays,
  readPaymentPlansEnabled,
  readPlanAccountId,
  readPlanPaymentPage,
  readWaitingTerminalPayments,
  updateInstallmentRow,
  updatePlanPaymentRow,
  updatePlanRow,
  readPaymentPlanSettings,
  toInstallmentObject,
  toPaymentObject,
  toPlanObject,
  updatePaymentPlanSettings,
  writePaymentPlanSettings,
} from './payment-plan.records';
import { findPlan, lockPlan } from './plan-lookup';
import { requestSaleCancel } from '../terminals';
import { findCustomerTestClock } from '../customers';
import {
  START_DATE_MAX_AHEAD_DAYS,
  START_DATE_PAST_TOLERANCE_SECONDS,
  type CreatePaymentPlanInput,
  type InstallmentObject,
  type ListPaymentPlansQuery,
  type PaymentPlanObject,
  type PaymentPlanSettingsInput,
  type PaymentPlanSettingsObject,
  type PlanPaymentObject,
} from './payment-plan.schemas';
import { dueDates, splitInstallments } from './schedule';
import { recordPlanEvent, settleStatus } from './payment-plan.status';
import { requestTerminalCancel, resolveTerminalPayment } from './terminal-payments.service';
import { atTime, currentTime } from '../lib/clock-time';
import { customerClock } from '../test-clocks';
import type { TestClockBinding } from '../../workflows/test-clock-contract';

/** decisions.md §9: days a plan may stay past_due before it is defaulted, unless the account set another. */
export const DEFAULT_AFTER_DAYS = 14;

export async function assertPaymentPlansEnabled(prisma: Db, accountId: string): Promise<void> {
  if (!(await readPaymentPlansEnabled(prisma, accountId))) {
    throw new ApiError(
      'permission_error',
      'feature_not_enabled',
      'Payment plans are not enabled for this account: a superadmin turns them on with PUT /settings/payment-plans ' +
        "(the dashboard's Settings), an operator with npm run support -- payment-plans:settings <account> --enable.",
    );
  }
}

/**
 * The guard of every route but create: turning the feature off refuses new plans only. An account
 * that has plans keeps reading, paying, refunding and canceling them (they keep running); one that
 * never had any gets 403 as before.
 */
export async function assertPaymentPlansUsable(prisma: Db, accountId: string): Promise<void> {
  if (await readPaymentPlansEnabled(prisma, accountId)) return;
  if (await accountHasPlans(prisma, accountId)) return;
  await assertPaymentPlansEnabled(prisma, accountId);
}

export async function defaultAfterDaysOf(prisma: Db, accountId: string): Promise<number> {
  return (await readDefaultAfterDays(prisma, accountId)) ?? DEFAULT_AFTER_DAYS;
}

/**
 * The account's payment plan settings (GET /settings/payment-plans, `npm run support -- payment-plans:settings`):
 * null for an unknown account. default_after_days is DEFAULT_AFTER_DAYS until the account sets it.
 */
export async function findPaymentPlanSettings(
  db: Db | Tx,
  accountId: string,
): Promise<PaymentPlanSettingsObject | null> {
  const stored = await readPaymentPlanSettings(db, accountId);
  if (!stored) return null;
  return {
    object: 'payment_plan_settings',
    enabled: stored.enabled,
    default_after_days: stored.defaultAfterDays ?? DEFAULT_AFTER_DAYS,
  };
}

export async function getPaymentPlanSettings(db: Db | Tx, accountId: string): Promise<PaymentPlanSettingsObject> {
  const settings = await findPaymentPlanSettings(db, accountId);
  if (!settings) throw notFound('account', accountId, 'account');
  return settings;
}

const settingsChange = (input: PaymentPlanSettingsInput) => ({
  enabled: input.enabled,
  defaultAfterDays: input.default_after_days,
});

/**
 * Changes what `input` gives of the settings in `tx`, with what the caller records in it (the support
 * command its operator action). Turning plans off refuses new plans only (assertPaymentPlansUsable);
 * default_after_days applies to plans created from now on (each plan keeps its own).
 */
export function changePaymentPlanSettings(tx: Tx, accountId: string, input: PaymentPlanSettingsInput): Promise<void> {
  return writePaymentPlanSettings(tx, accountId, settingsChange(input));
}

/** PUT /settings/payment-plans: the change in a transaction of its own; answers the settings. */
export async function putPaymentPlanSettings(
  prisma: Db,
  accountId: string,
  input: PaymentPlanSettingsInput,
): Promise<PaymentPlanSettingsObject> {
  await updatePaymentPlanSettings(prisma, accountId, settingsChange(input));
  return getPaymentPlanSettings(prisma, accountId);
}

function startDateOf(input: CreatePaymentPlanInput, now: Date): Date {
  if (input.start_date === undefined) return now;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (input.start_date < nowSeconds - START_DATE_PAST_TOLERANCE_SECONDS)
    throw badRequest('start_date must not be in the past.', 'start_date');
  if (input.start_date > nowSeconds + START_DATE_MAX_AHEAD_DAYS * DAY_SECONDS) {
    throw badRequest(`start_date must be within ${START_DATE_MAX_AHEAD_DAYS} days from now.`, 'start_date');
  }
  return fromUnixSeconds(input.start_date);
}

async function withParam<T>(param: string, lookup: () => Promise<T>): Promise<T> {
  try {
    return await lookup();
  } catch (error) {
    if (error instanceof ApiError && error.type === 'not_found')
      throw new ApiError('not_found', error.code, error.message, param);
    throw error;
  }
}

export interface PlanDeps {
  prisma: Db;
  temporal: Client;
  taskQueue: string;
}

/**
 * Creates the plan (status `pending` until its deposit is collected), its installments and the
 * payment_plan.created event, and starts the workflow `payment-plan:<id>` inside the same database
 * transaction: if Temporal refuses, nothing is written. (The workflow's first activity waits for the
 * commit by retrying.) With a payment method the workflow charges installment 1 at once.
 */
export async function createPaymentPlan(
  deps: PlanDeps,
  accountId: string,
  input: CreatePaymentPlanInput,
  { idempotencySeed }: { idempotencySeed?: string } = {},
): Promise<PaymentPlanObject> {
  // With an Idempotency-Key the id is the claim's (src/http/idempotency.ts): a retry taking over a
  // request that died after its commit answers that plan instead of making a second schedule.
  const id = idempotencySeed ? idFromSeed('paymentPlan', idempotencySeed) : newId('paymentPlan');
  if (idempotencySeed && (await findPlanCustomerId(deps.prisma, accountId, id)) !== undefined) {
    return getPaymentPlan(deps.prisma, accountId, id);
  }
  // A customer on a test clock: the plan starts at the clock's time and its workflow runs on it.
  const customer = await findCustomerTestClock(deps.prisma, accountId, input.customer, { live: true });
  const testClock = customer ? await customerClock(deps.prisma, customer) : null;
  return atTime(testClock?.time, () =>
    createPlanAt(deps, accountId, input, testClock, id, idempotencySeed !== undefined),
  );
}

async function createPlanAt(
  deps: PlanDeps,
  accountId: string,
  input: CreatePaymentPlanInput,
  testClock: TestClockBinding | null,
  id: string,
  keyed: boolean,
): Promise<PaymentPlanObject> {
  const { prisma } = deps;
  const now = currentTime();
  const startDate = startDateOf(input, now);
  const amounts = splitInstallments(input.total_amount, input.installments_count);
  const dates = dueDates(startDate, input.installments_count, input.interval, input.interval_count);
  const defaultAfterDays = await defaultAfterDaysOf(prisma, accountId);
  const workflowId = paymentPlanWorkflowId(id);

  return prisma.$transaction(
    async (tx) => {
      // Locked until commit, as a new invoice locks it: a concurrent DELETE /customers/{id} waits and then
      // refuses (the plan is running), or comes first and this answers 404 (decisions.md §4).
      const customer = await withParam('customer', () => lockCustomer(tx, accountId, input.customer, 'share'));
      const plan = await insertPlan(tx, {
        id,
        accountId,
        customerId: customer.id,
        status: 'pending',
        currency: input.currency,
        totalAmount: BigInt(input.total_amount),
        installmentsCount: input.installments_count,
        interval: input.interval,
        intervalCount: input.interval_count,
        startDate,
        defaultAfterDays,
        workflowId,
        createdAt: now,
        taskQueue: deps.taskQueue,
        installments: {
          create: amounts.map((amount, index) => ({
            number: index + 1,
            accountId,
            amount: BigInt(amount),
            dueAt: dates[index]!,
            status: 'scheduled',
          })),
        },
      });
      if (input.payment_method) {
        const method = await methodForPlan(tx, plan, input.payment_method, 'payment_method');
        await updatePlanRow(tx, id, { paymentMethodId: method.id });
      }
      await recordPlanEvent(tx, id, 'created');
      const workflowInput: PaymentPlanWorkflowInput = {
        planId: id,
        accountId,
        customerId: customer.id,
        ...(testClock ? { testClock } : {}),
      };
      const shown = displayStartOptions(
        paymentPlanDisplay({
          accountId,
          customer,
          totalAmount: input.total_amount,
          currency: input.currency,
          installments: input.installments_count,
          interval: input.interval,
          intervalCount: input.interval_count,
        }),
      );
      try {
        await deps.temporal.workflow.start(PAYMENT_PLAN_WORKFLOW_TYPE, {
          workflowId,
          taskQueue: deps.taskQueue,
          args: [workflowInput],
          // A plan id from an Idempotency-Key may have had its workflow started by a request that died
          // before its commit: that run gave up on the missing row (failed) and is replaced.
          workflowIdReusePolicy: keyed ? 'ALLOW_DUPLICATE_FAILED_ONLY' : 'REJECT_DUPLICATE',
          staticSummary: shown.staticSummary,
          staticDetails: shown.staticDetails,
          typedSearchAttributes: [
            { key: BILLING_ACCOUNT_ID, value: accountId },
            { key: BILLING_CUSTOMER_ID, value: customer.id },
            { key: BILLING_STATUS, value: 'pending' },
            ...shown.emailHashAttribute,
          ],
        });
      } catch (error) {
        // Still running: that earlier attempt's workflow (same id, same input) waits for this commit.
        if (!(keyed && error instanceof WorkflowExecutionAlreadyStartedError)) {
          throw new ApiError(
            'api_error',
            'workflow_unavailable',
            `Temporal did not start the plan's workflow: ${(error as Error).message}`,
            undefined,
            503,
          );
        }
      }
      return toPlanObject(await findPlan(tx, accountId, id));
    },
    { timeout: 15_000 },
  );
}

export async function getPaymentPlan(prisma: Db, accountId: string, id: string): Promise<PaymentPlanObject> {
  return toPlanObject(await findPlan(prisma, accountId, id));
}

export async function listPaymentPlans(
  prisma: Db,
  accountId: string,
  query: ListPaymentPlansQuery,
): Promise<Page<PaymentPlanObject>> {
  const filter = { customerId: query.customer, status: query.status };
  return keysetListPage(query, {
    kind: 'payment_plan',
    ...planList.reads(prisma, accountId, filter),
    objects: (rows) => {
      const objects = rows.map(toPlanObject);
      return query.include === 'names' ? withCustomerNames(prisma, accountId, objects) : objects;
    },
  });
}

export async function listInstallments(
  prisma: Db,
  accountId: string,
  id: string,
  page: PageParams,
): Promise<Page<InstallmentObject>> {
  const plan = await findPlan(prisma, accountId, id);
  const { skip, take } = pageWindow(page);
  return pageEnvelope(
    plan.installments.slice(skip, skip + take).map((row) => toInstallmentObject(row, plan.currency)),
    plan.installments.length,
    page,
  );
}

export async function listPlanPayments(
  prisma: Db,
  accountId: string,
  id: string,
  page: PageParams,
): Promise<Page<PlanPaymentObject>> {
  await findPlan(prisma, accountId, id);
  const [rows, total] = await readPlanPaymentPage(prisma, accountId, id, pageWindow(page));
  return pageEnvelope(rows.map(toPaymentObject), total, page);
}

/* ---- Changes the workflow makes (through its activities), at workflow time `at`. ---- */

/**
 * An installment fell due and was not charged (no card on file, or the plan is past_due/defaulted,
 * which makes no automatic charges): it is overdue, and an active plan becomes past_due.
 */
export async function markInstallmentOverdue(prisma: Db, planId: string, number: number, at: Date): Promise<void> {
  const accountId = await readPlanAccountId(prisma, planId);
  await prisma.$transaction(async (tx) => {
    const plan = await lockPlan(tx, accountId, planId);
    const installment = plan.installments.find((row) => row.number === number);
    if (!installment) return;
    if (OVERDUE_STATUSES.includes(installment.status)) {
      // Missed already (a pending plan's failed deposit, from before such a plan went past_due): only the status follows.
      await settleStatus(tx, planId, at);
      return;
    }
    if (installment.status !== 'scheduled' || installment.heldByPaymentId) return;
    if (!['active', 'past_due', 'defaulted'].includes(plan.status)) return;
    await updateInstallmentRow(tx, planId, number, { status: 'overdue' });
    await settleStatus(tx, planId, at);
  });
}

/**
 * The past_due deadline passed: defaulted, unless the plan moved on (paid, or past_due again since).
 * `defaulted_at` is the deadline itself (past_due_at + the plan's days), not when the worker got to
 * it, so it reads exactly "defaulted after N days" however late the timer's activity ran.
 */
export async function markDefaulted(prisma: Db, planId: string, pastDueAt: number, _at: Date): Promise<void> {
  const accountId = await readPlanAccountId(prisma, planId);
  await prisma.$transaction(async (tx) => {
    const plan = await lockPlan(tx, accountId, planId);
    if (plan.status !== 'past_due' || plan.pastDueAt?.getTime() !== pastDueAt) return;
    const deadline = new Date(pastDueAt + plan.defaultAfterDays * DAY_MS);
    await updatePlanRow(tx, planId, { status: 'defaulted', defaultedAt: deadline });
    await recordPlanEvent(tx, planId, 'defaulted');
  });
}

/** Card payments the cancel waits for before it gives up waiting (each settles in one gateway call). */
const CANCEL_SETTLE_ROUNDS = 3;

/**
 * Cancels the plan: no more charges, owed installments canceled, a sale waiting on a terminal asked
 * to cancel. Paid installments stay paid (refunds are a separate matter). A card payment being
 * charged when the cancel arrives came first: it is settled before the plan is canceled (the same
 * gateway key, so nothing is charged twice) and pays its installments, instead of being charged and
 * then refunded; a payment asked for after the cancel is refused (409 payment_plan_closed).
 * decisions.md §9.
 */
export async function cancelPlan(
  prisma: Db,
  gateways: Gateways,
  planId: string,
  reason: string | undefined,
  at: Date,
): Promise<void> {
  const accountId = await readPlanAccountId(prisma, planId);
  for (let round = 0; ; round++) {
    for (const payment of await chargesInFlight(prisma, planId)) {
      // A gateway that does not answer leaves the charge processing: the cancel goes on, and the charge, when it settles, is refunded.
      await settleCharge(prisma, gateways, payment.id, at).catch(() => undefined);
    }
    const canceled = await prisma.$transaction(async (tx) => {
      const plan = await lockPlan(tx, accountId, planId);
      if (plan.status === 'completed' || plan.status === 'canceled') {
        throw conflict(`Payment plan ${planId} is ${plan.status} already.`, 'payment_plan_closed');
      }
      if (round < CANCEL_SETTLE_ROUNDS && (await chargesInFlight(tx, planId)).length > 0) return false;
      await updatePlanRow(tx, planId, {
        status: 'canceled',
        canceledAt: at,
        cancellationReason: reason ?? 'requested',
      });
      await cancelOwedInstallments(tx, planId);
      for (const payment of await readWaitingTerminalPayments(tx, planId)) {
        await requestSaleCancel(tx, payment.terminalSaleId!, at);
        await updatePlanPaymentRow(tx, payment.id, { cancelRequestedAt: at });
      }
      await recordPlanEvent(tx, planId, 'canceled');
      return true;
    });
    if (canceled) return;
  }
}

/**
 * Carries out one request (update or signal). Refusals (the plan or payment is not in a state for
 * it, a field is missing) are answered, not thrown, so the workflow records them and carries on.
 * Signal arguments come from people too (Web UI): checked here like a request body, unknown fields
 * ignored (updates were checked already, strictly, by their validators).
 */
export async function applyPlanRequest(
  prisma: Db,
  planId: string,
  kind: PaymentPlanRequestKind,
  args: PaymentPlanRequestArgs,
  at: Date,
  gateways: Gateways,
): Promise<PaymentPlanRequestResult> {
  const parsed = parseRequestArgs(kind, args, { strict: false });
  if (!parsed.ok) return { applied: false, ...parsed.issue, payment_id: null };
  args = parsed.args;
  const source = args.source ?? 'signal';
  try {
    switch (kind) {
      case 'resolveTerminalPayment':
      case 'resolveDeposit': {
        const paymentId = kind === 'resolveDeposit' ? 'deposit' : requirePaymentId(args);
        const payment = await resolveTerminalPayment(prisma, planId, paymentId, args, source);
        return {
          applied: true,
          message: `Payment ${payment.id} resolved: ${payment.terminalState} (${payment.status}).`,
          payment_id: payment.id,
          terminal_state: nullableColumnValue(
            TERMINAL_STATES,
            payment.terminalState,
            'payment_plan_payments.terminal_state',
          ),
        };
      }
      case 'cancelTerminalPayment':
      case 'cancelDeposit': {
        const paymentId = kind === 'cancelDeposit' ? 'deposit' : requirePaymentId(args);
        const payment = await requestTerminalCancel(prisma, planId, paymentId);
        return {
          applied: true,
          message: `Cancellation of payment ${payment.id} requested from terminal ${payment.terminalId}; it ends cancelled when the terminal reports it.`,
          payment_id: payment.id,
          terminal_state: nullableColumnValue(
            TERMINAL_STATES,
            payment.terminalState,
            'payment_plan_payments.terminal_state',
          ),
        };
      }
      case 'cancelPlan':
        await cancelPlan(prisma, gateways, planId, args.reason, at);
        return { applied: true, message: `Payment plan ${planId} canceled.` };
    }
  } catch (error) {
    if (isRefusal(error)) {
      return {
        applied: false,
        code: error.code,
        param: error.param,
        message: error.message,
        payment_id: args.payment_id ?? null,
      };
    }
    throw error;
  }
}

function requirePaymentId(args: PaymentPlanRequestArgs): string {
  if (typeof args.payment_id !== 'string')
    throw badRequest('payment_id (ppay_...) is required.', 'payment_id', 'parameter_missing');
  return args.payment_id;
}
