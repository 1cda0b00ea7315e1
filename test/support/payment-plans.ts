import type { Gateways } from '../../src/payments/gateways';
import crypto from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import {
  PAYMENT_PLAN_STATE_QUERY,
  paymentPlanWorkflowId,
  type PaymentPlanWorkflowState,
} from '../../workflows/payment-plan-contract';
import {
  apiClient,
  createTestAccount,
  expectStatus,
  quietRuntime,
  eventsOf,
  startTestApp,
  type ApiClient,
  type TestApp,
} from './harness';
import { createEnvWorker, createTimeSkippingEnv } from './temporal';
import { createCustomer } from './payments';

export { DAY_MS } from '../../src/lib/durations';

/**
 * The real app and a worker on a time-skipping Temporal environment of their own. Each scenario that
 * skips time gets a fresh environment: its clock starts at the real time, like the API's.
 */
export interface PlanWorld {
  env: TestWorkflowEnvironment;
  app: TestApp;
  api: ApiClient;
  accountId: string;
  taskQueue: string;
  worker: Worker;
  close(): Promise<void>;
}

/** The worker SDK logs every state change at INFO; warnings are what a failing test needs. */

/** The API's gateways are the registered ones unless given (the worker's always are). */
export async function startPlanWorld(options: { gateways?: Gateways } = {}): Promise<PlanWorld> {
  quietRuntime();
  const env = await createTimeSkippingEnv();
  const taskQueue = `payment-plans-${crypto.randomUUID()}`;
  const app = await startTestApp({ temporal: env.client, taskQueue, gateways: options.gateways });
  const worker = await createEnvWorker(env, app.prisma, taskQueue);
  const running = worker.run();
  const account = await createTestAccount(app.prisma, { paymentPlans: true, name: 'Plans Co' });
  return {
    env,
    app,
    api: apiClient(app.baseUrl, account.apiKey),
    accountId: account.accountId,
    taskQueue,
    worker,
    async close() {
      worker.shutdown();
      await running;
      await app.close();
      await env.teardown();
    },
  };
}

/** Polls `read` until `done` holds (the workflow reacts asynchronously to timers and signals). */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function getPlan(api: ApiClient, id: string) {
  return expectStatus(await api.get(`/payment-plans/${id}`), 200, `GET /payment-plans/${id}`);
}

export function planHasStatus(api: ApiClient, id: string, status: string) {
  return eventually(
    () => getPlan(api, id),
    (plan) => plan.status === status,
  );
}

export async function installmentsOf(api: ApiClient, id: string) {
  return expectStatus(await api.get(`/payment-plans/${id}/installments?take=100`), 200, 'GET installments').data;
}

export async function createTerminal(api: ApiClient, label = 'Front desk') {
  return expectStatus(await api.post('/terminals', { label }), 201, 'POST /terminals');
}

/**
 * A plan without a card (`totalAmount` over 3 monthly installments) whose deposit sale waits on a new
 * terminal: the start of every terminal story.
 */
export async function terminalDepositWaiting(
  api: ApiClient,
  {
    customerName,
    terminalLabel,
    totalAmount = 300,
  }: { customerName?: string; terminalLabel?: string; totalAmount?: number } = {},
) {
  const customer = await createCustomer(api, customerName);
  const terminal = await createTerminal(api, terminalLabel);
  const plan = expectStatus(
    await api.post('/payment-plans', {
      customer: customer.id,
      total_amount: totalAmount,
      currency: 'USD',
      installments_count: 3,
      interval: 'month',
    }),
    201,
  );
  const sent = expectStatus(
    await api.post(`/payment-plans/${plan.id}/deposit/terminal`, { terminal: terminal.id }),
    202,
  );
  return { customer, terminal, plan, sent, paymentId: sent.deposit.attempt.payment as string };
}

export async function workflowState(env: TestWorkflowEnvironment, planId: string): Promise<PaymentPlanWorkflowState> {
  return env.client.workflow
    .getHandle(paymentPlanWorkflowId(planId))
    .query<PaymentPlanWorkflowState>(PAYMENT_PLAN_STATE_QUERY);
}

/** payment_plan.* event types of one plan, oldest first. */
export async function planEvents(world: { app: TestApp; accountId: string }, planId: string): Promise<string[]> {
  return (await eventsOf(world.app.prisma, world.accountId))
    .filter((event) => event.type.startsWith('payment_plan.') && (event.data as { id: string }).id === planId)
    .map((event) => event.type.slice('payment_plan.'.length));
}

export { expectStatus, quietRuntime };
