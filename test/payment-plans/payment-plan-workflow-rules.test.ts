import crypto from 'node:crypto';
import { DAY_MS } from '../../src/lib/durations';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { PaymentPlanActivities } from '../../activities/payment-plans';
import { billingDataConverter } from '../../src/temporal/payload-codec';
import {
  PAYMENT_PLAN_SIGNALS,
  PAYMENT_PLAN_UPDATES,
  PAYMENT_PLAN_WORKFLOW_TYPE,
  paymentPlanWorkflowId,
  REQUEST_REFUSED_FAILURE,
  type PaymentPlanRequestArgs,
  type PaymentPlanRequestRecord,
  type PaymentPlanWorkflowState,
  type PlanSnapshot,
} from '../../workflows/payment-plan-contract';
import { createTimeSkippingEnv, terminateWhenIdle } from '../support/temporal';
import { quietRuntime, recordWorkflowHistories } from '../support/subscriptions';

/**
 * The payment-plan workflow's rules on the time-skipping server with mocked activities (no database,
 * no gateway, no terminal): weeks pass in milliseconds, so each rule of the loop is checked directly.
 * The end-to-end scenarios through HTTP (test/payment-plans/payment-plans.test.ts, -terminals, -api) check the same
 * rules with the real activities; the schedule's pure rules are in test/payment-plans/payment-plan-schedule.test.ts.
 */

const DEFAULT_AFTER_DAYS = 14;

/** An in-memory plan the mocked activities change as the real ones would, and what the workflow asked for, in order. */
function mockPlan(options: {
  startMs: number;
  installments: number;
  everyDays: number;
  hasPaymentMethod: boolean;
  /** Whether the charge of installment `number`, attempt `attempt`, is declined. */
  declines?: (number: number, attempt: number) => boolean;
}) {
  const plan: PlanSnapshot = {
    planId: `ppl_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`,
    status: 'pending',
    hasPaymentMethod: options.hasPaymentMethod,
    pastDueAt: null,
    defaultAfterDays: DEFAULT_AFTER_DAYS,
    installments: Array.from({ length: options.installments }, (_, index) => ({
      number: index + 1,
      dueAt: options.startMs + index * options.everyDays * DAY_MS,
      status: 'scheduled' as const,
      held: false,
      automaticAttempts: 0,
    })),
    openTerminalPayments: [],
  };
  const calls: { call: string; at: number }[] = [];
  const snapshot = (): PlanSnapshot => structuredClone(plan);
  const installment = (number: number) => plan.installments.find((row) => row.number === number)!;
  const pastDue = (at: number) => {
    plan.status = 'past_due';
    plan.pastDueAt ??= at;
  };
  const activities: Partial<PaymentPlanActivities> = {
    async syncPaymentPlan() {
      return snapshot();
    },
    async chargePaymentPlanInstallment({ number, attempt, at }) {
      calls.push({ call: `charge ${number} attempt ${attempt}`, at });
      const row = installment(number);
      row.automaticAttempts = attempt;
      if (options.declines?.(number, attempt)) {
        row.status = 'failed';
        pastDue(at);
        return { outcome: 'failed' as const, snapshot: snapshot(), charge: null };
      }
      row.status = 'paid';
      if (plan.status === 'pending') plan.status = 'active';
      if (plan.installments.every((each) => each.status === 'paid')) plan.status = 'completed';
      return { outcome: 'succeeded' as const, snapshot: snapshot(), charge: null };
    },
    async markPaymentPlanInstallmentOverdue({ number, at }) {
      calls.push({ call: `overdue ${number}`, at });
      installment(number).status = 'overdue';
      if (plan.status === 'active') pastDue(at);
      return snapshot();
    },
    async defaultPaymentPlan({ pastDueAt, at }) {
      calls.push({ call: `default (past due since ${pastDueAt})`, at });
      plan.status = 'defaulted';
      return snapshot();
    },
    async applyPaymentPlanRequest({ signal, args, at }) {
      calls.push({ call: signal, at });
      if (signal === 'cancelPlan') {
        plan.status = 'canceled';
        return { result: { applied: true, message: `Payment plan ${plan.planId} canceled.` }, snapshot: snapshot() };
      }
      return {
        result: {
          applied: false,
          code: 'invalid_state',
          message: 'No deposit is waiting on a terminal.',
          payment_id: args.payment_id ?? null,
        },
        snapshot: snapshot(),
      };
    },
  };
  return { plan, activities, calls, names: () => calls.map((entry) => entry.call) };
}

type MockPlan = ReturnType<typeof mockPlan>;

let env: TestWorkflowEnvironment;

beforeAll(async () => {
  quietRuntime();
  env = await createTimeSkippingEnv();
});

afterAll(() => env?.teardown());

/** Runs the plan's workflow on a worker of its own; `record` saves its history for the replay test. */
async function run<T>(
  options: Omit<Parameters<typeof mockPlan>[0], 'startMs'>,
  scenario: (
    mock: MockPlan,
    handle: ReturnType<TestWorkflowEnvironment['client']['workflow']['getHandle']>,
  ) => Promise<T>,
  record?: string,
): Promise<T> {
  const mock = mockPlan({ ...options, startMs: await env.currentTimeMs() });
  const taskQueue = `plan-rules-${crypto.randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities: mock.activities,
    // The environment's client encrypts payloads (test/support/temporal.ts): the worker decodes them the same way.
    dataConverter: billingDataConverter(),
  });
  const workflowId = paymentPlanWorkflowId(mock.plan.planId);
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start(PAYMENT_PLAN_WORKFLOW_TYPE, {
      taskQueue,
      workflowId,
      args: [{ planId: mock.plan.planId, accountId: 'acct_rules', customerId: 'cus_rules' }],
    });
    try {
      const result = await scenario(mock, handle);
      if (record) await recordWorkflowHistories(env.client, workflowId, record);
      return result;
    } finally {
      // Nothing left running on the shared server once the scenario's worker stops (its timers would hold time skipping).
      await terminateWhenIdle(handle, 'scenario over');
    }
  });
}

/** The refusal an update failed with: its ApplicationFailure's type and first detail. */
async function refusalOf(update: Promise<unknown>): Promise<{ type: string | null | undefined; detail: unknown }> {
  const error = await update.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (error as WorkflowUpdateFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return { type: (cause as ApplicationFailure).type, detail: (cause as ApplicationFailure).details?.[0] };
}

describe('payment plan workflow rules (mocked activities, time skipping)', () => {
  it('charges each installment on its due date, in order, attempt 1, and ends when all are paid', async () => {
    await run(
      { installments: 4, everyDays: 30, hasPaymentMethod: true },
      async ({ plan, calls, names }, handle) => {
        const state = (await handle.result()) as PaymentPlanWorkflowState;
        expect(state.status).toBe('completed');
        expect(state.installmentsPaid).toBe(4);
        expect(names()).toEqual([1, 2, 3, 4].map((number) => `charge ${number} attempt 1`));
        calls.forEach(({ at }, index) => {
          const { dueAt } = plan.installments[index]!;
          expect(at).toBeGreaterThanOrEqual(dueAt);
          expect(at - dueAt).toBeLessThan(60_000);
        });
      },
      'payment-plan-completed',
    );
  });

  it('a declined installment is not charged again: the plan is past_due, the next falls overdue on its date, and the plan defaults 14 days after', async () => {
    await run(
      { installments: 4, everyDays: 10, hasPaymentMethod: true, declines: (number) => number === 2 },
      async ({ plan, calls, names }, handle) => {
        await env.sleep(35 * DAY_MS);
        const pastDueAt = plan.pastDueAt!;
        expect(names()).toEqual([
          'charge 1 attempt 1',
          'charge 2 attempt 1',
          'overdue 3',
          `default (past due since ${pastDueAt})`,
          'overdue 4',
        ]);
        const at = (call: string) => calls.find((entry) => entry.call.startsWith(call))!.at;
        expect(at('overdue 3') - plan.installments[2]!.dueAt).toBeLessThan(60_000);
        expect(at('default') - pastDueAt).toBeGreaterThanOrEqual(DEFAULT_AFTER_DAYS * DAY_MS);
        expect(at('default') - pastDueAt).toBeLessThan(DEFAULT_AFTER_DAYS * DAY_MS + 60_000);
        const state = await handle.query<PaymentPlanWorkflowState>('state');
        expect(state.status).toBe('defaulted');
      },
      'payment-plan-defaulted',
    );
  });

  it('a past_due plan paid up before its deadline (the API nudges with planUpdated) is not defaulted and is charged on', async () => {
    await run(
      { installments: 4, everyDays: 10, hasPaymentMethod: true, declines: (number) => number === 2 },
      async ({ plan, names }, handle) => {
        await env.sleep(12 * DAY_MS);
        expect(names()).toEqual(['charge 1 attempt 1', 'charge 2 attempt 1']);
        // What the API does when the overdue installment is paid: the plan is active again.
        plan.installments[1]!.status = 'paid';
        plan.status = 'active';
        plan.pastDueAt = null;
        await handle.signal(PAYMENT_PLAN_SIGNALS.planUpdated);
        const state = (await handle.result()) as PaymentPlanWorkflowState;
        expect(state.status).toBe('completed');
        expect(names()).toEqual([
          'charge 1 attempt 1',
          'charge 2 attempt 1',
          'charge 3 attempt 1',
          'charge 4 attempt 1',
        ]);
      },
      'payment-plan-reactivated',
    );
  });

  it('requests: a bad argument is refused by the validator, a refusal fails the update with its record, a cancel ends the plan', async () => {
    await run(
      { installments: 3, everyDays: 30, hasPaymentMethod: false },
      async ({ names }, handle) => {
        const invalid = await refusalOf(
          handle.executeUpdate(PAYMENT_PLAN_UPDATES.resolveTerminalPayment, { args: [{ payment_id: 'nope' }] }),
        );
        expect(invalid.type).toBe(REQUEST_REFUSED_FAILURE);
        expect(invalid.detail).toMatchObject({ code: 'parameter_invalid', param: 'payment_id' });
        expect(names()).toEqual([]);

        const refused = await refusalOf(
          handle.executeUpdate(PAYMENT_PLAN_UPDATES.cancelDeposit, { args: [{ request_id: 'req_deposit' }] }),
        );
        expect(refused.type).toBe(REQUEST_REFUSED_FAILURE);
        expect(refused.detail).toMatchObject({
          request_id: 'req_deposit',
          signal: 'cancelDeposit',
          applied: false,
          code: 'invalid_state',
        });

        const canceled = await handle.executeUpdate<PaymentPlanRequestRecord, [PaymentPlanRequestArgs]>(
          PAYMENT_PLAN_UPDATES.cancelPlan,
          {
            args: [{ reason: 'asked', request_id: 'req_cancel' }],
          },
        );
        expect(canceled).toMatchObject({ request_id: 'req_cancel', signal: 'cancelPlan', applied: true });
        const state = (await handle.result()) as PaymentPlanWorkflowState;
        expect(state.status).toBe('canceled');
        expect(names()).toEqual(['cancelDeposit', 'cancelPlan']);
        expect(state.requests.map((request) => [request.signal, request.applied])).toEqual([
          ['cancelDeposit', false],
          ['cancelPlan', true],
        ]);
      },
      'payment-plan-requests',
    );
  });

  it('older signals: a bad argument is recorded refused in the state query (a signal has no answer); a good one is carried out', async () => {
    await run(
      { installments: 3, everyDays: 30, hasPaymentMethod: false },
      async ({ names }, handle) => {
        await handle.signal(PAYMENT_PLAN_SIGNALS.resolveTerminalPayment, { payment_id: 'nope' });
        await handle.signal(PAYMENT_PLAN_SIGNALS.cancelPlan, { reason: 'asked', request_id: 'req_signal' });
        const state = (await handle.result()) as PaymentPlanWorkflowState;
        expect(state.status).toBe('canceled');
        expect(names()).toEqual(['cancelPlan']);
        expect(state.requests).toMatchObject([
          { signal: 'resolveTerminalPayment', applied: false, code: 'parameter_invalid', param: 'payment_id' },
          { signal: 'cancelPlan', applied: true, request_id: 'req_signal' },
        ]);
      },
      'payment-plan-signals',
    );
  });
});
