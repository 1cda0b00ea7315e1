import type { Client } from '@temporalio/client';
import type { TestClock } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { dateOf, dateOrNull } from '../db/sql';
import { ApiError, badRequest, conflict, notFound } from '../http/errors';
import { pageEnvelope, pageWindow, type Page, type PageParams } from '../http/pagination';
import { columnValue } from '../lib/columns';
import { atTime, currentTime } from '../lib/clock-time';
import { newId } from '../lib/ids';
import { fromUnixSeconds, toUnixSeconds } from '../lib/time';
import { addIntervals, BILLING_INTERVALS } from '../subscriptions';
import { cancelUpdate, subscriptionWorkflowId } from '../../workflows/subscription-messages';
import { FINAL_PLAN_STATUSES } from '../../workflows/payment-plan-contract';
import {
  TEST_CLOCK_SIGNALS,
  TEST_CLOCK_WORKFLOW_TYPE,
  testClockWorkflowId,
  type ClockAdvance,
  type TestClockBinding,
  type TestClockWorkflowInput,
} from '../../workflows/test-clock-contract';
import { updateSubscriptionWorkflow } from '../subscriptions';
import { sendPlanRequest } from '../payment-plans';
import { TEST_CLOCK_STATUSES, type CreateTestClockInput, type TestClockObject } from './test-clock.schemas';
import {
  insertTestClock,
  lockTestClock,
  markTestClockReady,
  readLiveTestClock,
  readTestClockPage,
  readTestClockRow,
  updateTestClockRow,
} from './test-clock.records';
import { testClockDisplay } from '../temporal';
import { findCustomerTestClock, readClockCustomerIds } from '../customers';
import { readSubscriptionIntervals } from '../subscriptions';
import { readPlanIntervals } from '../payment-plans';
import { readClockPendingDebitIds } from '../simulated-gateway';
import { bankDebitSettlementId } from '../../workflows/bank-debit-settlement';

export interface TestClockDeps {
  prisma: Db;
  temporal: Client;
  taskQueue: string;
}

/** Subscriptions in these statuses have ended: their workflows are gone, nothing on them moves with the clock. */
const ENDED_SUBSCRIPTION_STATUSES = ['canceled', 'expired'];
/** Without subscriptions or plans, a clock moves as if it had a yearly one: two years at most. */
const EMPTY_CLOCK_INTERVAL = { interval: 'year', count: 1 } as const;

export function toTestClockObject(clock: TestClock): TestClockObject {
  return {
    id: clock.id,
    object: 'test_clock',
    frozen_time: toUnixSeconds(clock.frozenTime),
    status: columnValue(TEST_CLOCK_STATUSES, clock.status, 'test_clocks.status'),
    name: clock.name,
    created: toUnixSeconds(clock.createdAt),
  };
}

/** A clock of the account, or 404 (another account's and deleted ones too). */
export async function findTestClock(db: Db | Tx, accountId: string, id: string): Promise<TestClock> {
  const clock = await readLiveTestClock(db, accountId, id);
  if (!clock) throw notFound('test_clock', id);
  return clock;
}

export async function createTestClock(
  prisma: Db,
  accountId: string,
  input: CreateTestClockInput,
): Promise<TestClockObject> {
  const clock = await insertTestClock(prisma, {
    id: newId('testClock'),
    accountId,
    name: input.name ?? null,
    frozenTime: fromUnixSeconds(input.frozen_time),
  });
  return toTestClockObject(clock);
}

export async function getTestClock(prisma: Db, accountId: string, id: string): Promise<TestClockObject> {
  return toTestClockObject(await findTestClock(prisma, accountId, id));
}

export async function listTestClocks(prisma: Db, accountId: string, page: PageParams): Promise<Page<TestClockObject>> {
  const { rows, total } = await readTestClockPage(prisma, accountId, pageWindow(page));
  return pageEnvelope(rows.map(toTestClockObject), total, page);
}

const advancingConflict = (clockId: string) =>
  conflict(
    `Test clock ${clockId} is advancing; its objects change once it is ready again (GET /test-helpers/test-clocks/${clockId}).`,
    'test_clock_advancing',
  );

/**
 * The clock a customer's subscriptions and payment plans run on, or null. Refused with 409 while the
 * clock advances (`test_clock_advancing`) and once it is deleted (`test_clock_deleted`).
 */
export async function customerClock(
  db: Db | Tx,
  customer: { testClockId: string | null },
): Promise<TestClockBinding | null> {
  if (!customer.testClockId) return null;
  return clockBinding(await readTestClockRow(db, customer.testClockId));
}

/** customerClock's judgement of a clock already read. */
export function clockBinding(clock: Pick<TestClock, 'id' | 'frozenTime' | 'status' | 'deletedAt'>): TestClockBinding {
  if (clock.deletedAt)
    throw conflict(`Test clock ${clock.id} was deleted; its customers take no new changes.`, 'test_clock_deleted');
  if (clock.status === 'advancing') throw advancingConflict(clock.id);
  return { id: clock.id, time: clock.frozenTime.getTime() };
}

/** clockBinding of a clock a statement answered as JSON, its times as text (another module's statement joins it). */
export function clockBindingOfColumns(clock: {
  id: string;
  frozenTime: string;
  status: string;
  deletedAt: string | null;
}): TestClockBinding {
  return clockBinding({
    id: clock.id,
    frozenTime: dateOf(clock.frozenTime),
    status: clock.status as TestClock['status'],
    deletedAt: dateOrNull(clock.deletedAt),
  });
}

/**
 * Runs a change of customer `customerId`'s objects: at the clock's time when the customer is on a
 * test clock (src/lib/clock-time.ts), refused while the clock advances; on the wall clock otherwise.
 */
export async function onCustomerTime<T>(
  db: Db | Tx,
  accountId: string,
  customerId: string,
  work: (clock: TestClockBinding | null) => Promise<T>,
): Promise<T> {
  // Another account's customer runs on the wall clock: its clock's state must not answer for it (404 follows).
  const customer = await findCustomerTestClock(db, accountId, customerId);
  const clock = customer ? await customerClock(db, customer) : null;
  return atTime(clock?.time, () => work(clock));
}

/** The clock a new customer is put on: one of the account's (404 naming `test_clock` otherwise). */
export async function clockForNewCustomer(
  db: Db | Tx,
  accountId: string,
  clockId: string | undefined,
): Promise<string | null> {
  if (clockId === undefined) return null;
  try {
    return (await findTestClock(db, accountId, clockId)).id;
  } catch (error) {
    if (error instanceof ApiError) throw new ApiError('not_found', error.code, error.message, 'test_clock');
    throw error;
  }
}

interface LiveObjects {
  subscriptions: { id: string; interval: string; intervalCount: number }[];
  plans: { id: string; workflowId: string; interval: string; intervalCount: number }[];
}

async function liveObjects(db: Db | Tx, clockId: string): Promise<LiveObjects> {
  const customerIds = await readClockCustomerIds(db, clockId);
  const [subscriptions, plans] = await Promise.all([
    readSubscriptionIntervals(db, customerIds, ENDED_SUBSCRIPTION_STATUSES),
    readPlanIntervals(db, customerIds, FINAL_PLAN_STATUSES),
  ]);
  return { subscriptions, plans };
}

/**
 * The workflows on the clock that still run: what an advance must wait for. Its customers' pending bank debits
 * settle on its time too (docs/decisions.md §40), so `ready` means the ones due by then are settled.
 */
export async function liveClockWorkflows(prisma: Db, clockId: string): Promise<string[]> {
  const [{ subscriptions, plans }, debits] = await Promise.all([
    liveObjects(prisma, clockId),
    readClockPendingDebitIds(prisma, clockId),
  ]);
  return [
    ...subscriptions.map((row) => subscriptionWorkflowId(row.id)),
    ...plans.map((row) => row.workflowId),
    ...debits.map(bankDebitSettlementId),
  ];
}

/**
 * The advance rule: at most two of the longest billing interval among the clock's live subscriptions
 * and payment plans (two years without any), like Stripe's, so that one advance stays a bounded
 * amount of work per workflow.
 */
function latestAllowed(frozenMs: number, live: LiveObjects): number {
  const intervals = [
    ...live.subscriptions.map((row) => ({
      interval: columnValue(BILLING_INTERVALS, row.interval, 'subscriptions.interval'),
      count: row.intervalCount,
    })),
    ...live.plans.map((row) => ({
      interval: columnValue(BILLING_INTERVALS, row.interval, 'payment_plans.interval'),
      count: row.intervalCount,
    })),
  ];
  if (intervals.length === 0) intervals.push(EMPTY_CLOCK_INTERVAL);
  return Math.max(...intervals.map(({ interval, count }) => addIntervals(frozenMs, interval, 2 * count)));
}

/**
 * POST .../advance: the clock moves to `frozen_time` and is `advancing` until the workflow
 * `test-clock:<id>` has told every subscription and payment plan on it and heard back from each.
 * The workflow starts inside the transaction that marks the clock: if Temporal refuses, nothing changed.
 */
export async function advanceTestClock(
  deps: TestClockDeps,
  accountId: string,
  id: string,
  frozenTime: number,
): Promise<TestClockObject> {
  const { prisma } = deps;
  return prisma.$transaction(
    async (tx) => {
      await findTestClock(tx, accountId, id);
      const clock = await lockTestClock(tx, id);
      if (clock!.status === 'advancing') throw advancingConflict(id);
      const fromMs = clock!.frozenTime.getTime();
      const toMs = frozenTime * 1000;
      if (toMs <= fromMs)
        throw badRequest(
          `frozen_time must be after the clock's frozen_time (${toUnixSeconds(clock!.frozenTime)}); clocks move forward only.`,
          'frozen_time',
        );
      const limit = latestAllowed(fromMs, await liveObjects(tx, id));
      if (toMs > limit) {
        throw badRequest(
          `frozen_time may be at most ${Math.floor(limit / 1000)} (two of the longest billing interval on the clock); advance in several steps.`,
          'frozen_time',
        );
      }
      const updated = await updateTestClockRow(tx, id, { status: 'advancing', frozenTime: new Date(toMs) });
      const input: TestClockWorkflowInput = { clockId: id, time: toMs };
      try {
        await deps.temporal.workflow.start(TEST_CLOCK_WORKFLOW_TYPE, {
          workflowId: testClockWorkflowId(id),
          taskQueue: deps.taskQueue,
          args: [input],
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          // The clock is ready, so a run still open under this id has marked it so and is only completing: it is replaced.
          workflowIdConflictPolicy: 'TERMINATE_EXISTING',
          ...testClockDisplay({ accountId, clockId: id, fromMs, toMs }),
        });
      } catch (error) {
        throw new ApiError(
          'api_error',
          'workflow_unavailable',
          `Temporal did not start the clock's workflow: ${(error as Error).message}`,
          undefined,
          503,
        );
      }
      return toTestClockObject(updated);
    },
    { timeout: 15_000 },
  );
}

/**
 * Nothing advances a deleted clock, so a debit pending on it would wait for its bank forever (and be asked about by
 * every reconciliation pass): the money was sent, so its bank answers now, as it would have after four days of the
 * clock. Its timer is told that every settlement is due; one not running (never started: Temporal was down) is given
 * a timer on the wall clock when the reconciliation asks about it, the clock no longer being live.
 */
async function settleClockDebits({ prisma, temporal }: TestClockDeps, clockId: string): Promise<void> {
  const advance: ClockAdvance = { time: EVERY_SETTLEMENT_DUE, ackWorkflowId: testClockWorkflowId(clockId) };
  for (const chargeId of await readClockPendingDebitIds(prisma, clockId)) {
    try {
      await temporal.workflow.getHandle(bankDebitSettlementId(chargeId)).signal(TEST_CLOCK_SIGNALS.advance, advance);
    } catch {
      // Its timer is not running: the reconciliation starts one (docs/decisions.md §40).
    }
  }
}

/** Called by `test-clock:<id>` once every workflow on the clock has caught up with `time`. */
export async function finishTestClockAdvance(prisma: Db, clockId: string, time: number): Promise<void> {
  await markTestClockReady(prisma, clockId, new Date(time));
}

/**
 * An advance past every debit's four days: a debit's timer takes it as its bank's answer falling due, dated when it
 * would have come (the debit's time + four days).
 */
const EVERY_SETTLEMENT_DUE = Number.MAX_SAFE_INTEGER;

/**
 * DELETE: the clock answers 404 from now on, its advance (if any) stops, and what hangs on it is
 * canceled through its workflow: subscriptions cancel now, payment plans are canceled. Its customers' bank debits
 * still pending are answered by their bank at once (docs/decisions.md §40, "On a test clock").
 */
export async function deleteTestClock(
  deps: TestClockDeps,
  accountId: string,
  id: string,
): Promise<{ id: string; object: 'test_clock'; deleted: true }> {
  const { prisma, temporal } = deps;
  await findTestClock(prisma, accountId, id);
  await updateTestClockRow(prisma, id, { deletedAt: currentTime(), status: 'ready' });
  try {
    await temporal.workflow.getHandle(testClockWorkflowId(id)).terminate('test clock deleted');
  } catch {
    // No advance running: nothing to stop.
  }
  const { subscriptions, plans } = await liveObjects(prisma, id);
  const ignoreEnded = (error: unknown) => {
    if (!(error instanceof ApiError && error.status === 409)) throw error;
  };
  for (const row of subscriptions)
    await updateSubscriptionWorkflow(deps, row.id, cancelUpdate, [{ atPeriodEnd: false }]).catch(ignoreEnded);
  for (const row of plans) await sendPlanRequest(temporal, row.id, 'cancelPlan', { source: 'api' }).catch(ignoreEnded);
  await settleClockDebits(deps, id);
  return { id, object: 'test_clock', deleted: true };
}
