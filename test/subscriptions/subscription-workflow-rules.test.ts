import crypto from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type {
  PersistSubscriptionInput,
  RenewalChargeInput,
  RenewalChargeResult,
  RenewalInvoiceInput,
  SubscriptionActivities,
} from '../../activities/subscriptions';
import { DAY_MS } from '../../src/lib/durations';
import { periodBounds } from '../../src/subscriptions/billing-dates';
import { billingCycle, initialState, type SubscriptionState } from '../../src/subscriptions/subscription-machine';
import type { SubscriptionObject } from '../../src/subscriptions/subscription.schemas';
import {
  cancelUpdate,
  invoiceSettledSignal,
  pauseUpdate,
  resumeUpdate,
  stateQuery,
  SUBSCRIPTION_WORKFLOW_TYPE,
  subscriptionWorkflowId,
} from '../../workflows/subscription-messages';
import { billingDataConverter } from '../../src/temporal/payload-codec';
import { createTimeSkippingEnv, terminateWhenIdle } from '../support/temporal';
import { quietRuntime } from '../support/subscriptions';
import { waitUntil } from '../support/webhooks';

/**
 * The subscription workflow's rules on the time-skipping server with mocked activities (no
 * database, no gateway): months pass in milliseconds, so each rule of the loop is checked directly.
 * The end-to-end scenarios through HTTP (test/subscriptions/subscription-billing.test.ts, -dunning, -concurrency)
 * check the same rules with the real activities.
 */

type Charge = (input: RenewalChargeInput) => RenewalChargeResult;

/** In-memory activities: what the workflow asked for, in order. */
function mockActivities(charge: Charge) {
  const calls: string[] = [];
  const persisted: PersistSubscriptionInput[] = [];
  const activities: Partial<SubscriptionActivities> = {
    async persistSubscription(input) {
      persisted.push(input);
      return {
        id: input.state.id,
        status: input.state.status,
        updated_ms: input.state.version,
      } as unknown as SubscriptionObject;
    },
    async createRenewalInvoice(input: RenewalInvoiceInput) {
      calls.push(`invoice ${new Date(input.periodStart).toISOString().slice(0, 10)}`);
      return { invoiceId: `in_${input.periodStart}` };
    },
    async finalizeRenewalInvoice() {
      return { status: 'open' as const };
    },
    async chargeRenewalInvoice(input: RenewalChargeInput) {
      calls.push(`charge ${input.invoiceId} attempt ${input.attempt}`);
      return charge(input);
    },
    async checkItemsWithinCeiling() {},
    async invoiceStatus() {
      return { status: 'open' };
    },
  };
  return { activities, calls, persisted };
}

let env: TestWorkflowEnvironment;

beforeAll(async () => {
  quietRuntime();
  env = await createTimeSkippingEnv();
});

afterAll(() => env?.teardown());

/** A monthly subscription already created by the API (version 1), billing from now. */
function createdState(nowMs: number): SubscriptionState {
  const start = Math.floor(nowMs / 1000) * 1000;
  return {
    ...initialState(
      {
        id: `sub_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`,
        accountId: 'acct_rules',
        customerId: 'cus_rules',
        currency: 'USD',
        interval: 'month',
        intervalCount: 1,
        collectionMethod: 'charge_automatically',
        defaultPaymentMethodId: 'pm_rules',
        items: [{ id: 'si_1', priceId: 'price_1', quantity: 1, taxRateIds: [] }],
        trialDays: 0,
        startDate: start,
        endDate: null,
        startBillingDate: null,
      },
      nowMs,
    ),
    version: 1,
  };
}

async function run<T>(
  charge: Charge,
  scenario: (state: SubscriptionState, mocks: ReturnType<typeof mockActivities>) => Promise<T>,
): Promise<T> {
  const mocks = mockActivities(charge);
  const taskQueue = `rules-${crypto.randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities: {
      ...mocks.activities,
      // The account sends no reminders (the reminders' own rules: test/emails/reminder-emails.test.ts).
      reminderDays: async () => ({ renewal_reminder: null, trial_ending: null }),
    },
    // The environment's client encrypts payloads (test/support/temporal.ts): the worker decodes them the same way.
    dataConverter: billingDataConverter(),
  });
  const state = createdState(await env.currentTimeMs());
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start(SUBSCRIPTION_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: subscriptionWorkflowId(state.id),
      args: [{ created: state }],
    });
    try {
      return await scenario(state, mocks);
    } finally {
      // Nothing left running on the shared server once the scenario's worker stops (its timers would hold time skipping).
      await terminateWhenIdle(handle, 'scenario over');
    }
  });
}

const paid: Charge = () => ({ outcome: 'paid' });
const declined: Charge = () => ({
  outcome: 'failed',
  failureCode: 'card_declined',
  retryDays: [1, 3, 5],
  dunningOutcome: 'cancel',
});

describe('subscription workflow rules (mocked activities, time skipping)', () => {
  it('bills each monthly period once, in order: invoice, then attempt 1', async () => {
    await run(paid, async (state, { calls }) => {
      await env.sleep(95 * DAY_MS);
      const starts = [0, 1, 2, 3].map((index) => periodBounds(billingCycle(state), index).start);
      expect(calls).toEqual(
        starts.flatMap((start) => [
          `invoice ${new Date(start).toISOString().slice(0, 10)}`,
          `charge in_${start} attempt 1`,
        ]),
      );
    });
  });

  it('a declined renewal is retried 1, 3 and 5 days after it failed, then the subscription is canceled by dunning', async () => {
    await run(declined, async (state, { calls, persisted }) => {
      const handle = env.client.workflow.getHandle(subscriptionWorkflowId(state.id));
      const result = await handle.result();
      expect(result.status).toBe('canceled');
      const charges = calls.filter((call) => call.startsWith('charge'));
      // Attempt 1, declined in the workflow task, is asked again of the charge activity so that the Web UI
      // draws it failed (its attempt key answers the recorded attempt: the real activity charges once).
      expect(charges).toEqual([1, 1, 2, 3, 4].map((attempt) => `charge in_${state.anchor} attempt ${attempt}`));
      const canceled = persisted.at(-1)!;
      expect(canceled.event).toEqual({
        type: 'subscription.canceled',
        cause: { reason: 'dunning', initiatedBy: 'system' },
      });
      expect(canceled.state.endedAt! - state.anchor).toBeGreaterThanOrEqual(5 * DAY_MS);
      expect(canceled.state.endedAt! - state.anchor).toBeLessThan(6 * DAY_MS);
    });
  });

  it('a charge the processor holds is neither retried nor counted; told of its outcome, the workflow asks the same attempt again', async () => {
    let outcome: RenewalChargeResult = { outcome: 'pending' };
    await run(
      () => outcome,
      async (state, { calls }) => {
        const handle = env.client.workflow.getHandle(subscriptionWorkflowId(state.id));
        const invoiceId = `in_${state.anchor}`;
        await env.sleep(10 * DAY_MS);
        expect(calls.filter((call) => call.startsWith('charge'))).toEqual([`charge ${invoiceId} attempt 1`]);
        const waiting = await handle.query(stateQuery);
        expect(waiting.held).toEqual([expect.objectContaining({ invoiceId, attempt: 1 })]);
        expect(waiting.dunning).toEqual([]);

        // The bank returned the debit: a failed attempt, and dunning starts on the schedule from then.
        outcome = declined({} as RenewalChargeInput);
        await handle.signal(invoiceSettledSignal, { invoiceId });
        const returned = await waitUntil(async () => {
          const view = await handle.query(stateQuery);
          return view.dunning.length === 1 && !view.busy ? view : null;
        });
        expect(returned.held).toBeUndefined();
        expect(returned.dunning[0]).toMatchObject({ invoiceId, attempts: 1 });
        expect(calls.filter((call) => call.startsWith('charge'))).toEqual([
          `charge ${invoiceId} attempt 1`,
          `charge ${invoiceId} attempt 1`,
        ]);
      },
    );
  });

  it('updates sent at once are written one after another: every version once, in order, each decided on the one before', async () => {
    await run(paid, async (state, { persisted }) => {
      const handle = env.client.workflow.getHandle(subscriptionWorkflowId(state.id));
      await env.sleep(DAY_MS);
      const before = persisted.length;
      const answers = await Promise.allSettled([
        handle.executeUpdate(pauseUpdate, { args: [{}] }),
        handle.executeUpdate(resumeUpdate, { args: [{}] }),
        handle.executeUpdate(cancelUpdate, { args: [{ atPeriodEnd: true }] }),
        handle.executeUpdate(pauseUpdate, { args: [{}] }),
      ]);
      const versions = persisted.map((input) => input.state.version);
      expect(versions).toEqual([...versions].sort((a, b) => a - b));
      expect(new Set(versions).size).toBe(versions.length);
      // Each accepted update wrote exactly one version.
      const accepted = answers.filter((answer) => answer.status === 'fulfilled').length;
      expect(persisted.slice(before).filter((input) => input.event !== null)).toHaveLength(accepted);
      const view = await handle.query(stateQuery);
      expect(view.version).toBe(persisted.at(-1)!.state.version);
      expect(view.busy).toBe(false);
    });
  });
});
