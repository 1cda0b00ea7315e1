import crypto from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type {
  WebhookActivities,
  WebhookAttemptInput,
  WebhookAttemptResult,
  WebhookDeliveryStatus,
} from '../../activities/webhooks';
import { billingDataConverter } from '../../src/temporal/payload-codec';
import type { DeliverWebhookInput, WebhookDeliveryState } from '../../workflows/webhook-delivery';
import { WEBHOOK_MAX_ATTEMPTS } from '../../workflows/webhook-schedule';
import { createTimeSkippingEnv } from '../support/temporal';
import { quietRuntime, recordWorkflowHistories } from '../support/subscriptions';

/**
 * The webhook delivery workflow's rules on the time-skipping server with a mocked attempt (no
 * database, no HTTP): the retry schedule's 43 minutes pass in milliseconds. The end-to-end scenarios
 * with a real receiver are in test/webhooks/webhook-delivery.test.ts.
 */

type Outcome = WebhookAttemptResult['outcome'];

/** Fixed delays (the relay draws them; here they are given) so the schedule is checked exactly. */
const DELAYS_MS = [10_000, 20_000, 40_000, 80_000, 160_000];

/** The attempt as the real one decides the delivery's status (src/webhooks/delivery-attempt.service.ts). */
function statusAfter(outcome: Outcome, retryDelayMs: number | null): WebhookDeliveryStatus {
  if (outcome === 'success') return 'success';
  return outcome === 'retryable' && retryDelayMs !== null ? 'retry' : 'failure';
}

function attemptResult(attempt: number, outcome: Outcome, retryDelayMs: number | null): WebhookAttemptResult {
  return {
    attempt,
    status: statusAfter(outcome, retryDelayMs),
    outcome,
    statusCode: outcome === 'success' ? 200 : 503,
    error: null,
    durationMs: 5,
  };
}

/** What an attempt answers besides its outcome (`endedAt` when it is answered from its record). */
type Amend = (result: WebhookAttemptResult, input: WebhookAttemptInput) => WebhookAttemptResult;

/** A mocked attempt answering `outcomes[attempt - 1]` (the last one for later attempts), and what it was asked. */
function mockAttempts(outcomes: Outcome[], amend: Amend = (result) => result) {
  const attempts: WebhookAttemptInput[] = [];
  const activities: Partial<WebhookActivities> = {
    async attemptWebhookDelivery(input) {
      attempts.push(input);
      const outcome = outcomes[input.attempt - 1] ?? outcomes.at(-1)!;
      return amend(attemptResult(input.attempt, outcome, input.retryDelayMs), input);
    },
  };
  return { activities, attempts };
}

let env: TestWorkflowEnvironment;

beforeAll(async () => {
  quietRuntime();
  env = await createTimeSkippingEnv();
});

afterAll(() => env?.teardown());

/** Runs one delivery to its end on a worker of its own; `record` saves its history for the replay test. */
async function deliver(
  outcomes: Outcome[],
  input: (startMs: number) => Partial<DeliverWebhookInput> = () => ({}),
  record?: string,
  amend?: (startMs: number) => Amend,
): Promise<{ state: WebhookDeliveryState; attempts: WebhookAttemptInput[]; startMs: number }> {
  const startMs = await env.currentTimeMs();
  const mock = mockAttempts(outcomes, amend?.(startMs));
  const taskQueue = `webhook-rules-${crypto.randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities: mock.activities,
    // The environment's client encrypts payloads (test/support/temporal.ts): the worker decodes them the same way.
    dataConverter: billingDataConverter(),
  });
  const id = crypto.randomUUID().replace(/-/g, '').slice(0, 20);
  const workflowId = `webhook:evt_${id}:we_${id}`;
  const state = await worker.runUntil(async () => {
    const args: DeliverWebhookInput = {
      deliveryId: `whd_${id}`,
      eventId: `evt_${id}`,
      destinationId: `we_${id}`,
      retryDelaysMs: DELAYS_MS,
      ...input(startMs),
    };
    const handle = await env.client.workflow.start('deliverWebhook', { taskQueue, workflowId, args: [args] });
    const result = (await handle.result()) as WebhookDeliveryState;
    if (record) await recordWorkflowHistories(env.client, workflowId, record);
    return result;
  });
  return { state, attempts: mock.attempts, startMs };
}

/** Each attempt's time after the one before it (the first: after the start). */
function gaps(startMs: number, attempts: WebhookAttemptInput[]): number[] {
  return attempts.map((attempt, index) => attempt.scheduledAt - (attempts[index - 1]?.scheduledAt ?? startMs));
}

/**
 * Each gap is the delay asked for, plus the real time a workflow task and the attempt take (the first
 * task of a fresh worker, a second or so): well under the shortest delay.
 */
function expectGaps(actual: number[], expected: number[]) {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((gap, index) => {
    expect(gap).toBeGreaterThanOrEqual(expected[index]!);
    expect(gap - expected[index]!).toBeLessThan(5_000);
  });
}

describe('webhook delivery workflow rules (mocked attempt, time skipping)', () => {
  it('retries a retryable failure after each delay of its schedule, until delivered', async () => {
    const { state, attempts, startMs } = await deliver(
      ['retryable', 'retryable', 'success'],
      undefined,
      'webhook-rules-retried',
    );
    expect(state.status).toBe('success');
    expect(state.nextAttemptAt).toBeNull();
    expect(attempts.map((attempt) => [attempt.attempt, attempt.retryDelayMs])).toEqual([
      [1, DELAYS_MS[0]],
      [2, DELAYS_MS[1]],
      [3, DELAYS_MS[2]],
    ]);
    expectGaps(gaps(startMs, attempts), [0, DELAYS_MS[0]!, DELAYS_MS[1]!]);
  });

  it(`gives up after attempt ${WEBHOOK_MAX_ATTEMPTS}: the last attempt has no retry delay and ends the delivery failure`, async () => {
    const { state, attempts, startMs } = await deliver(['retryable']);
    expect(state.status).toBe('failure');
    expect(attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(attempts.map((attempt) => attempt.retryDelayMs)).toEqual([...DELAYS_MS, null]);
    expectGaps(gaps(startMs, attempts), [0, ...DELAYS_MS]);
    expect(state.attempts.map((attempt) => attempt.status)).toEqual([...DELAYS_MS.map(() => 'retry'), 'failure']);
  });

  it('does not retry a permanent failure', async () => {
    const { state, attempts } = await deliver(['permanent']);
    expect(state.status).toBe('failure');
    expect(attempts.map((attempt) => attempt.attempt)).toEqual([1]);
  });

  it("goes on from the relay's attempt 1: the first retry after the first delay; nothing more after its success", async () => {
    const retried = await deliver(['success'], (startMs) => ({
      firstAttempt: { ...attemptResult(1, 'retryable', DELAYS_MS[0]!), scheduledAt: startMs },
    }));
    expect(retried.state.status).toBe('success');
    expect(retried.attempts.map((attempt) => attempt.attempt)).toEqual([2]);
    expectGaps(gaps(retried.startMs, retried.attempts), [DELAYS_MS[0]!]);
    expect(retried.state.attempts.map((attempt) => attempt.attempt)).toEqual([1, 2]);

    // Started late (a busy worker's first task): the delay counts from the end of the relay's attempt.
    const startedLate = await deliver(['success'], (startMs) => ({
      firstAttempt: {
        ...attemptResult(1, 'retryable', DELAYS_MS[0]!),
        scheduledAt: startMs - 3_005,
        endedAt: startMs - 3_000,
      },
    }));
    expect(startedLate.attempts.map((attempt) => attempt.attempt)).toEqual([2]);
    expectGaps(gaps(startedLate.startMs, startedLate.attempts), [DELAYS_MS[0]! - 3_000]);

    const delivered = await deliver(['success'], (startMs) => ({
      firstAttempt: { ...attemptResult(1, 'success', DELAYS_MS[0]!), scheduledAt: startMs },
    }));
    expect(delivered.state.status).toBe('success');
    expect(delivered.attempts).toEqual([]);
  });

  it("after the relay's slow attempt 1, found recorded: the retry comes its delay after that attempt's end, not after the answer", async () => {
    // The relay's attempt 1 began 2 s before the start (the relay waited that long for it) and timed out 10 s later.
    const endedAt = (startMs: number) => startMs - 2_000 + 10_000;
    const { state, attempts, startMs } = await deliver(
      ['retryable', 'success'],
      () => ({ firstAttemptAfterMs: 15_000 }),
      'webhook-rules-retry-after-relay-timeout',
      (startMs) => (result, input) => (input.attempt === 1 ? { ...result, endedAt: endedAt(startMs) } : result),
    );
    expect(state.status).toBe('success');
    expect(attempts.map((attempt) => attempt.attempt)).toEqual([1, 2]);
    const retryAfterEnd = attempts[1]!.scheduledAt - endedAt(startMs);
    expect(retryAfterEnd).toBeGreaterThanOrEqual(DELAYS_MS[0]!);
    expect(retryAfterEnd - DELAYS_MS[0]!).toBeLessThan(2_000);
    expect(state.nextAttemptAt).toBeNull();

    // Found so late that its delay has passed: the retry comes at once.
    const late = await deliver(
      ['retryable', 'success'],
      () => ({ firstAttemptAfterMs: 15_000 }),
      undefined,
      (startMs) => (result, input) => (input.attempt === 1 ? { ...result, endedAt: startMs - 30_000 } : result),
    );
    expectGaps(gaps(late.startMs, late.attempts), [15_000, 0]);
  });

  it("waits past the relay's slow attempt 1 before making attempt 1 itself", async () => {
    const { state, attempts, startMs } = await deliver(['success'], () => ({ firstAttemptAfterMs: 12_000 }));
    expect(state.status).toBe('success');
    expect(attempts.map((attempt) => attempt.attempt)).toEqual([1]);
    expectGaps(gaps(startMs, attempts), [12_000]);
  });
});
