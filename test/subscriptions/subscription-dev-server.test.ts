import { startTestWorker, type ApiClient, type TestApp, startWorkerApp } from '../support/harness';
import { customerWithCard } from '../support/payments';
import { expectStatus, recurringPrice, unix } from '../support/subscriptions';
import { stateQuery, subscriptionWorkflowId } from '../../workflows/subscription-messages';

// The suite's Temporal CLI dev server (the server `npm start` runs), in real time: update-with-start,
// updates, the `state` query and the operators' search-attribute filters work there too.

let app: TestApp;
let api: ApiClient;
let accountId: string;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

beforeAll(async () => {
  ({ app, worker, api, accountId } = await startWorkerApp('subscriptions-dev', { name: 'Dev server subscriptions' }));
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
});

async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

it('creates, queries, pauses, resumes and cancels a subscription; operators find it by account and status', async () => {
  const { customer } = await customerWithCard(api);
  const price = await recurringPrice(api);
  const subscription = expectStatus(
    await api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      trial_days: 0,
      start_date: unix(Date.now()),
    }),
    201,
    'POST /subscriptions',
  );
  expect(subscription).toMatchObject({ status: 'active', latest_invoice: expect.any(String) });

  const handle = app.temporal.workflow.getHandle(subscriptionWorkflowId(subscription.id));
  // The API invoiced, charged and recorded the first period; the workflow's first task ran at once from that
  // state (docs/decisions.md §14), so the state query answers from the start.
  expect((await handle.describe()).executionTime!.getTime()).toBeLessThan(subscription.current_period_end * 1000);
  expect(
    await eventually(
      () => handle.query(stateQuery),
      (current) => !current.busy,
    ),
  ).toMatchObject({
    status: 'active',
    invoicesIssued: 1,
    latestInvoiceId: subscription.latest_invoice,
  });

  expect(expectStatus(await api.post(`/subscriptions/${subscription.id}/pause`), 200).status).toBe('paused');
  const state = await eventually(
    () => handle.query(stateQuery),
    (current) => !current.busy,
  );
  expect(state).toMatchObject({
    status: 'paused',
    invoicesIssued: 1,
    currentPeriodEnd: subscription.current_period_end * 1000,
    dunning: [],
  });
  const listPaused = async () => {
    const ids: string[] = [];
    for await (const execution of app.temporal.workflow.list({
      query: `BillingAccountId = '${accountId}' AND BillingStatus = 'paused'`,
    }))
      ids.push(execution.workflowId);
    return ids;
  };
  expect(await eventually(listPaused, (ids) => ids.length === 1)).toEqual([subscriptionWorkflowId(subscription.id)]);

  expect(expectStatus(await api.post(`/subscriptions/${subscription.id}/resume`), 200).status).toBe('active');
  expect((await api.post(`/subscriptions/${subscription.id}/resume`)).status).toBe(409);
  expect(expectStatus(await api.delete(`/subscriptions/${subscription.id}`), 200).status).toBe('canceled');
  const result = await handle.result();
  expect(result).toMatchObject({ status: 'canceled' });
});

it('with no worker answering for a while, the upcoming invoice waits for one instead of answering 503', async () => {
  const { customer } = await customerWithCard(api);
  const price = await recurringPrice(api, { unitAmount: 2500 });
  const subscription = expectStatus(
    await api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price, quantity: 2 }],
      trial_days: 0,
      start_date: unix(Date.now()),
    }),
    201,
    'POST /subscriptions',
  );
  const path = `/invoices/upcoming?subscription=${subscription.id}`;
  const expected = expectStatus(await api.get(path), 200);
  expect(expected).toMatchObject({ subscription: subscription.id, total: 5000 });
  const taskQueue = (await app.temporal.workflow.getHandle(subscriptionWorkflowId(subscription.id)).describe())
    .taskQueue;
  await worker.stop();
  const asked = api.get(path);
  // Longer than the query runs alone (0.5 s) and the probe takes: Temporal answers, the read waits on a worker, as
  // behind a busy period end (docs/decisions.md §25).
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  worker = await startTestWorker(app.prisma, taskQueue);
  // The same invoice: each preview's lines are made anew (their ids) at its own time (updated_ms).
  const comparable = (invoice: any) =>
    JSON.stringify(invoice, (key, value) => (key === 'updated_ms' || /^il_/.test(value) ? undefined : value));
  expect(comparable(expectStatus(await asked, 200, 'the upcoming invoice asked while no worker ran'))).toEqual(
    comparable(expected),
  );
});
