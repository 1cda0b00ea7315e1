import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { stateQuery, subscriptionWorkflowId, type SubscriptionStateView } from '../../workflows/subscription-messages';
import type { Gateways } from '../../src/payments/gateways';
import {
  apiClient,
  createTestAccount,
  expectStatus,
  quietRuntime,
  startTestApp,
  type ApiClient,
  type TestApp,
} from './harness';
import { createEnvWorker, createTimeSkippingEnv } from './temporal';
import { addPaymentMethod, cardBody, CARDS, createCustomer } from './payments';

export { DAY_MS } from '../../src/lib/durations';
const { History } = temporal.api.history.v1;
export const HISTORIES_DIR = path.join(__dirname, '..', 'fixtures', 'histories');

/** The worker SDK logs every state change at INFO; a failing test needs its warnings only. */

/**
 * The real HTTP app and a worker on a time-skipping Temporal environment of their own, so a
 * scenario's clock (env.sleep) moves only its own subscriptions. The environment's clock starts at
 * the real time; the workflow judges dates by it.
 */
export interface SubscriptionWorld {
  env: TestWorkflowEnvironment;
  app: TestApp;
  api: ApiClient;
  accountId: string;
  taskQueue: string;
  worker: Worker | null;
  /** Starts the project's worker (real activities) unless one runs; returns it. */
  startWorker(): Promise<Worker>;
  /** Stops the running worker and waits until it has stopped. */
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

export async function startSubscriptionWorld(
  options: { worker?: boolean; gateways?: Gateways } = {},
): Promise<SubscriptionWorld> {
  quietRuntime();
  const env = await createTimeSkippingEnv();
  const taskQueue = `subscriptions-${crypto.randomUUID()}`;
  // New subscriptions are dated by the environment's clock, which env.sleep moves ahead of the wall clock.
  const app = await startTestApp({
    temporal: env.client,
    taskQueue,
    gateways: options.gateways,
    temporalNow: () => env.currentTimeMs(),
  });
  const account = await createTestAccount(app.prisma, { name: 'Subscriptions Co' });
  let running: Promise<void> | null = null;
  const world: SubscriptionWorld = {
    env,
    app,
    api: apiClient(app.baseUrl, account.apiKey),
    accountId: account.accountId,
    taskQueue,
    worker: null,
    async startWorker() {
      if (world.worker) return world.worker;
      const worker = await createEnvWorker(env, app.prisma, taskQueue);
      world.worker = worker;
      running = worker.run();
      return worker;
    },
    async stopWorker() {
      if (!world.worker) return;
      if (world.worker.getState() === 'RUNNING') world.worker.shutdown();
      await running;
      world.worker = null;
    },
    async close() {
      await world.stopWorker();
      await app.close();
      await env.teardown();
    },
  };
  if (options.worker !== false) await world.startWorker();
  return world;
}

let productCounter = 0;

/** A product whose first price is recurring (month x1 unless given); answers the price id. */
export async function recurringPrice(
  api: ApiClient,
  options: {
    unitAmount?: number;
    interval?: 'day' | 'week' | 'month' | 'year';
    intervalCount?: number;
    currency?: string;
    taxBehavior?: 'inclusive' | 'exclusive';
  } = {},
): Promise<string> {
  productCounter += 1;
  const product = expectStatus(
    await api.post('/products', {
      name: `Plan ${productCounter} ${crypto.randomUUID().slice(0, 8)}`,
      currency: options.currency ?? 'USD',
      unit_amount: options.unitAmount ?? 2000,
      type: 'recurring',
      recurring: { interval: options.interval ?? 'month', interval_count: options.intervalCount ?? 1 },
      ...(options.taxBehavior ? { tax_behavior: options.taxBehavior } : {}),
    }),
    201,
    'POST /products',
  );
  return product.default_price;
}

/** The default price of a new monthly product named `name` (the dashboard names a subscription by it). */
export async function namedMonthlyPrice(api: ApiClient, name: string, unitAmount: number): Promise<string> {
  const product = expectStatus(
    await api.post('/products', {
      name,
      currency: 'USD',
      unit_amount: unitAmount,
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1 },
    }),
    201,
    'POST /products',
  );
  return product.default_price as string;
}

export async function createSubscription(api: ApiClient, body: Record<string, unknown>) {
  return expectStatus(await api.post('/subscriptions', body), 201, 'POST /subscriptions');
}

/** POST /subscriptions of `items` for `customerId`, starting now without a trial (the answer as it is). */
export function subscribeNow(
  api: ApiClient,
  customerId: string,
  items: unknown[],
  extra: Record<string, unknown> = {},
) {
  return api.post('/subscriptions', {
    customer: customerId,
    items,
    trial_days: 0,
    start_date: Math.floor(Date.now() / 1000),
    ...extra,
  });
}

/** A subscription whose own card declines: its first invoice open and in dunning, the subscription past due. */
export async function subscriptionInDunning(world: SubscriptionWorld) {
  const customer = await createCustomer(world.api);
  const declining = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.declined));
  const subscription = await createSubscription(world.api, {
    customer: customer.id,
    items: [{ price: await recurringPrice(world.api, { unitAmount: 3000 }), quantity: 1 }],
    trial_days: 0,
    start_date: Math.floor((await world.env.currentTimeMs()) / 1000),
    default_payment_method: declining.id,
  });
  await settled(world, subscription.id);
  const current = expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200);
  expect(current).toMatchObject({ status: 'past_due', default_payment_method: declining.id });
  const invoice = expectStatus(await world.api.get(`/invoices/${current.latest_invoice}`), 200);
  expect(invoice.status).toBe('open');
  return { customer, declining, subscription, invoice };
}

export const unix = (ms: number) => Math.floor(ms / 1000);
export const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

export function workflowHandle(world: SubscriptionWorld, subscriptionId: string) {
  return world.env.client.workflow.getHandle(subscriptionWorkflowId(subscriptionId));
}

export function subscriptionState(world: SubscriptionWorld, subscriptionId: string): Promise<SubscriptionStateView> {
  return workflowHandle(world, subscriptionId).query(stateQuery);
}

/**
 * Waits until the workflow has done everything due at the environment's current time: it waits
 * for a later action (or for nothing), no step runs, and the database row shows its last change.
 * A workflow that has ended (canceled, expired) is settled once its row says so, and one whose first
 * task waits on its start delay (the API created it with nothing due before then) as it is: both
 * answer null, having no state to query.
 */
export async function settled(
  world: SubscriptionWorld,
  subscriptionId: string,
  timeoutMs = 30_000,
): Promise<SubscriptionStateView | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const description = await workflowHandle(world, subscriptionId).describe();
    if (description.status.name !== 'RUNNING' && description.status.name !== 'CONTINUED_AS_NEW') {
      const row = await world.app.prisma.subscription.findUnique({ where: { id: subscriptionId } });
      if (row && (row.status === 'canceled' || row.status === 'expired')) return null;
    } else {
      const now = await world.env.currentTimeMs();
      // Only its start event: the first task waits for its time (a query now would fail).
      if (description.historyLength <= 1 && description.executionTime && description.executionTime.getTime() > now)
        return null;
      const state = await subscriptionState(world, subscriptionId).catch(() => null);
      if (state && state.settled && !state.busy && (state.nextAction === null || state.nextAction.at > now)) {
        const row = await world.app.prisma.subscription.findUnique({ where: { id: subscriptionId } });
        if (row && row.workflowVersion === state.version) return state;
      }
    }
    if (Date.now() > deadline) throw new Error(`subscription ${subscriptionId} did not settle in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Moves the test server's clock to `targetMs` (timers fire on the way), then waits for the subscription to settle. */
export async function advanceTo(world: SubscriptionWorld, subscriptionId: string, targetMs: number) {
  const now = await world.env.currentTimeMs();
  if (targetMs > now) await world.env.sleep(targetMs - now);
  return settled(world, subscriptionId);
}

export async function advanceBy(world: SubscriptionWorld, subscriptionId: string, ms: number) {
  return advanceTo(world, subscriptionId, (await world.env.currentTimeMs()) + ms);
}

export async function invoicesOf(world: SubscriptionWorld, subscriptionId: string) {
  return world.app.prisma.invoice.findMany({
    where: { subscriptionId },
    orderBy: { periodStart: 'asc' },
    include: { lines: true },
  });
}

/** The subscription's own events and those of its invoices, oldest first, as [type, data]. */
export async function subscriptionEvents(
  world: SubscriptionWorld,
  subscriptionId: string,
  accountId = world.accountId,
) {
  const events = await world.app.prisma.event.findMany({ where: { accountId }, orderBy: { seq: 'asc' } });
  return events.filter((event) => {
    const data = event.data as { id?: string; subscription?: string };
    return data.id === subscriptionId || data.subscription === subscriptionId;
  });
}

/**
 * Saves the histories of every run of the subscription's workflow (continue-as-new included) for
 * the replay test. Committed fixtures are kept as recorded: they stand for the workflow code that
 * made them; UPDATE_HISTORIES=1 records them again after a deliberate, compatible change.
 */
export function recordHistories(world: SubscriptionWorld, subscriptionId: string, name: string): Promise<void> {
  return recordWorkflowHistories(world.env.client, subscriptionWorkflowId(subscriptionId), name);
}

/** recordHistories of any workflow (deliveries too). */
export async function recordWorkflowHistories(
  client: TestWorkflowEnvironment['client'],
  workflowId: string,
  name: string,
): Promise<void> {
  const file = path.join(HISTORIES_DIR, `${name}.json`);
  if (fs.existsSync(file) && process.env.UPDATE_HISTORIES !== '1') return;
  const current = await client.workflow.getHandle(workflowId).fetchHistory();
  const runs: { workflowId: string; history: unknown }[] = [];
  let runId: string | undefined =
    current.events?.[0]?.workflowExecutionStartedEventAttributes?.firstExecutionRunId ?? undefined;
  while (runId) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    // protobufjs's object form (enum names, int64 and bytes as strings), read back with History.fromObject.
    runs.push({
      workflowId,
      history: History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String }),
    });
    const last = history.events?.at(-1);
    runId = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify({ name, runs })}\n`);
  fs.renameSync(temporary, file);
}

export function readHistories(): {
  name: string;
  workflowId: string;
  history: ReturnType<typeof History.fromObject>;
}[] {
  if (!fs.existsSync(HISTORIES_DIR)) return [];
  return fs
    .readdirSync(HISTORIES_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) => {
      const { name, runs } = JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')) as {
        name: string;
        runs: { workflowId: string; history: unknown }[];
      };
      return runs.map((run, index) => ({
        name: `${name}#${index + 1}`,
        workflowId: run.workflowId,
        history: History.fromObject(run.history as object),
      }));
    });
}

export { expectStatus, quietRuntime };

/**
 * `work` with SUBSCRIPTION_FIRST_TASK=first-step, the option that delays a subscription's first workflow
 * task until its first step (docs/decisions.md §14; the default runs it at once). Read when the API starts a workflow.
 */
export async function withFirstTaskDelayed<T>(work: () => Promise<T>): Promise<T> {
  const before = process.env.SUBSCRIPTION_FIRST_TASK;
  process.env.SUBSCRIPTION_FIRST_TASK = 'first-step';
  try {
    return await work();
  } finally {
    if (before === undefined) delete process.env.SUBSCRIPTION_FIRST_TASK;
    else process.env.SUBSCRIPTION_FIRST_TASK = before;
  }
}
