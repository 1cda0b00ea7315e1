import crypto from 'node:crypto';
import pg from 'pg';
import type { Client, Connection } from '@temporalio/client';
import { connectTemporal, temporalClient } from '../../src/temporal/client';
import {
  apiClient,
  createTestAccount,
  quietRuntime,
  startTestApp,
  startTestWorker,
  type ApiClient,
  type TestApp,
} from '../support/harness';
import { advanceClock, customerOnClock, subscribeOnClock } from '../support/clocks';
import { expectStatus, recurringPrice } from '../support/subscriptions';
import { stateQuery, subscriptionWorkflowId } from '../../workflows/subscription-messages';
import { KnownStates } from '../../src/subscriptions/known-states';
import type { SubscriptionState } from '../../src/subscriptions/subscription-machine';

// The upcoming invoice reads the workflow's state by the `state` query only when the workflow's history has moved
// since this API process last asked (docs/decisions.md §25, "The upcoming invoice's state"). Counted on the API's own
// Temporal client: every `state` query it sends passes its interceptor. The invoice is made on the state last read
// while the history is described, and made again when the history has moved: the previews are counted by the
// statement that reads a preview's inputs (the app runs in this process, on this `pg`).

const DAY_S = 86_400;
const START = Date.UTC(2026, 4, 4, 8, 0, 0) / 1000;

let connection: Connection;
let app: TestApp;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let api: ApiClient;
let other: ApiClient;
const stateQueries: string[] = [];
let previewsMade = 0;
/** The test's own client, not counted: it waits for a workflow to have done what is due. */
let observer: Client;

beforeAll(async () => {
  quietRuntime();
  const query = pg.Client.prototype.query;
  jest.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    if ((args[0] as { name?: string } | undefined)?.name === 'invoice_draft_inputs_unlocked') previewsMade += 1;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query);
  const taskQueue = `known-state-${crypto.randomUUID()}`;
  connection = await connectTemporal({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = temporalClient(connection, 'default', {
    workflow: [
      {
        async query(input, next) {
          if (input.queryType === 'state') stateQueries.push(input.workflowExecution.workflowId);
          return next(input);
        },
      },
    ],
  });
  observer = temporalClient(connection, 'default');
  app = await startTestApp({ taskQueue, temporal });
  worker = await startTestWorker(app.prisma, taskQueue);
  api = apiClient(app.baseUrl, (await createTestAccount(app.prisma, { prorationBehavior: 'account default' })).apiKey);
  other = apiClient(app.baseUrl, (await createTestAccount(app.prisma, { name: 'Other' })).apiKey);
}, 60_000);

afterAll(async () => {
  jest.restoreAllMocks();
  await worker?.stop();
  await app?.close();
  await connection?.close();
});

/** An answer without what each preview draws anew: the moment it was asked (`updated_ms`) and its lines' ids. */
const asOfNow = ({ updated_ms: _asked, lines, ...invoice }: any) => ({
  ...invoice,
  lines: lines.map(({ id: _drawn, ...line }: any) => line),
});

/** Waits until the workflow runs no step and its row shows its last change: its history stays as it is. */
async function settled(subscriptionId: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const state = await observer.workflow
      .getHandle(subscriptionWorkflowId(subscriptionId))
      .query(stateQuery)
      .catch(() => null);
    const row = await app.prisma.subscription.findUnique({ where: { id: subscriptionId } });
    if (state?.settled && !state.busy && row?.workflowVersion === state.version) return;
    if (Date.now() > deadline) throw new Error(`subscription ${subscriptionId} did not settle`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const queriesOf = (subscriptionId: string) => stateQueries.filter((id) => id.endsWith(subscriptionId)).length;

test('a repeated upcoming invoice asks the state again only after the workflow moved: a change, a renewal', async () => {
  const owner = await customerOnClock(api, START);
  const price = await recurringPrice(api, { unitAmount: 3_000 });
  const subscription = await subscribeOnClock(api, owner, [{ price, quantity: 1 }], START);
  const upcoming = async () =>
    asOfNow(
      expectStatus(await api.get(`/invoices/upcoming?subscription=${subscription.id}`), 200, 'GET /invoices/upcoming'),
    );
  /**
   * The previews the next read makes: 1 when the state it started on held, 2 when the history had moved. A dropped
   * preview may still be on its way to the database when the answer arrives: waited for up to 5 s.
   */
  const previewsOf = async (read: () => Promise<unknown>, expected: number) => {
    const before = previewsMade;
    await read();
    for (const deadline = Date.now() + 5_000; previewsMade - before < expected && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 20));
    return previewsMade - before;
  };

  await settled(subscription.id);
  const first = await upcoming();
  expect(first.total).toBe(3_000);
  const asked = queriesOf(subscription.id);
  expect(asked).toBe(1);
  expect(await upcoming()).toEqual(first);
  expect(await upcoming()).toEqual(first);
  expect(queriesOf(subscription.id)).toBe(asked);
  expect(await previewsOf(upcoming, 1)).toBe(1);

  // Another account's read is refused as before, and shows nothing of the state.
  const refused = await other.get(`/invoices/upcoming?subscription=${subscription.id}`);
  expect(refused.status).toBe(404);
  expect(JSON.stringify(refused.body)).not.toContain(price);

  // A change prorated into the next invoice: the history moved, the state is asked again and shows it at once.
  const item = subscription.items.data[0].id;
  expectStatus(
    await api.patch(`/subscriptions/${subscription.id}`, {
      items: [{ id: item, quantity: 3 }],
      proration_behavior: 'create_prorations',
    }),
    200,
  );
  await settled(subscription.id);
  let changed: any;
  // The preview made on the state before the change is dropped: the answer is the one made on the state asked anew.
  expect(await previewsOf(async () => (changed = await upcoming()), 2)).toBe(2);
  expect(queriesOf(subscription.id)).toBe(asked + 1);
  expect(changed.lines.some((line: any) => line.proration)).toBe(true);
  expect(changed.total).toBeGreaterThan(9_000);
  expect(await upcoming()).toEqual(changed);
  expect(queriesOf(subscription.id)).toBe(asked + 1);

  // The renewal moves the period: the next read is of the period after it.
  await advanceClock(api, owner.clock.id, first.period_start + DAY_S);
  await settled(subscription.id);
  let renewed: any;
  expect(await previewsOf(async () => (renewed = await upcoming()), 2)).toBe(2);
  expect(queriesOf(subscription.id)).toBe(asked + 2);
  expect(renewed.period_start).toBe(first.period_end);
  expect(renewed.total).toBe(9_000);
  expect(renewed.lines.some((line: any) => line.proration)).toBe(false);
}, 120_000);

test('the known states are bounded, the least recently read dropped first, and each read gets its own copy', () => {
  const states = new KnownStates(2);
  const mark = (historyLength: number) => ({ runId: 'run-1', historyLength });
  const state = (id: string) => ({ id, items: [{ priceId: 'price_1', quantity: 1 }] }) as unknown as SubscriptionState;
  states.remember('sub_a', mark(5), state('sub_a'));
  states.remember('sub_b', mark(7), state('sub_b'));
  expect(states.at('sub_a', mark(5))?.id).toBe('sub_a');
  states.remember('sub_c', mark(9), state('sub_c'));
  expect(states.at('sub_b', mark(7))).toBeUndefined();
  expect(states.at('sub_a', mark(6))).toBeUndefined();
  expect(states.at('sub_a', { runId: 'run-2', historyLength: 5 })).toBeUndefined();
  const copy = states.at('sub_c', mark(9))!;
  (copy.items as { quantity: number }[])[0]!.quantity = 99;
  expect(states.at('sub_c', mark(9))?.items[0]?.quantity).toBe(1);
  // The last state kept, before any describe: with the mark it holds at, as a copy too.
  const latest = states.latest('sub_c')!;
  expect(latest.mark).toEqual(mark(9));
  (latest.state.items as { quantity: number }[])[0]!.quantity = 7;
  expect(states.latest('sub_c')?.state.items[0]?.quantity).toBe(1);
  expect(states.latest('sub_b')).toBeUndefined();
});
