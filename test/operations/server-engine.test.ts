import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { stateQuery, subscriptionWorkflowId } from '../../workflows/subscription-messages';
import { burst, operation, type BurstTarget } from '../support/subscription-bursts';
import { apiClient, createTestAccount, eventsOf, type ApiClient } from '../support/harness';
import { createTerminal, eventually, getPlan } from '../support/payment-plans';
import { customerWithCard, createCustomer } from '../support/payments';
import { expectStatus, recurringPrice, unix } from '../support/subscriptions';
import { startServerStack, type ServerStack } from '../support/server-engine';
import { startWebhookReceiver } from '../support/webhook-receiver';

// The production topology (TEMPORAL_ENGINE=server): the Temporal server on PostgreSQL, the API as 2
// node:cluster processes on one port and 2 worker processes, all real processes, driven over HTTP
// in real time. One stack for the file: starting it costs about 20 s.

jest.setTimeout(240_000);

let stack: ServerStack;
let api: ApiClient;
let accountId: string;
let other: ApiClient;

beforeAll(async () => {
  stack = await startServerStack({ apiProcesses: 2, workerProcesses: 2 });
  const account = await createTestAccount(stack.prisma, { name: 'Server engine', paymentPlans: true });
  accountId = account.accountId;
  api = apiClient(stack.baseUrl, account.apiKey);
  other = apiClient(
    stack.baseUrl,
    (await createTestAccount(stack.prisma, { name: 'Other', paymentPlans: true })).apiKey,
  );
});

afterAll(() => stack?.stop());

it('the API runs as two processes sharing one port', async () => {
  const children = execFileSync('ps', ['-o', 'args=', '--ppid', String(stack.api.pid)], { encoding: 'utf8' })
    .trim()
    .split('\n');
  expect(children.filter((args) => args.includes('src/cli/api.ts'))).toHaveLength(2);
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => fetch(`${stack.baseUrl}/health`, { headers: { connection: 'close' } })),
  );
  expect(answers.every((response) => response.ok)).toBe(true);
});

it('a subscription is created, billed, paused, resumed and canceled', async () => {
  const { customer } = await customerWithCard(api);
  const price = await recurringPrice(api, { unitAmount: 3100 });
  const created = expectStatus(
    await api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      trial_days: 0,
      start_date: unix(Date.now()),
    }),
    201,
    'POST /subscriptions',
  );
  expect(created).toMatchObject({ status: 'active', latest_invoice: expect.any(String) });
  const invoice = expectStatus(await api.get(`/invoices/${created.latest_invoice}`), 200);
  expect(invoice).toMatchObject({ status: 'paid', total: 3100, amount_paid: 3100 });
  expect((await other.get(`/subscriptions/${created.id}`)).status).toBe(404);

  expect(expectStatus(await api.post(`/subscriptions/${created.id}/pause`), 200).status).toBe('paused');
  // SQL visibility with the project's search attributes: operators find it by account and status.
  const paused = await eventually(
    async () => {
      const ids: string[] = [];
      const query = `BillingAccountId = '${accountId}' AND BillingStatus = 'paused'`;
      for await (const execution of stack.temporal.workflow.list({ query })) ids.push(execution.workflowId);
      return ids;
    },
    (ids) => ids.length === 1,
  );
  expect(paused).toEqual([subscriptionWorkflowId(created.id)]);
  expect(expectStatus(await api.post(`/subscriptions/${created.id}/resume`), 200).status).toBe('active');
  expect(expectStatus(await api.delete(`/subscriptions/${created.id}`), 200).status).toBe('canceled');
  expect(await stack.temporal.workflow.getHandle(subscriptionWorkflowId(created.id)).result()).toMatchObject({
    status: 'canceled',
  });

  const types = (await eventsOf(stack.prisma, accountId))
    .filter((event) => [created.id, created.latest_invoice].includes((event.data as { id?: string }).id))
    .map((event) => event.type);
  expect(types.filter((type) => type.startsWith('subscription.') && type !== 'subscription.updated')).toEqual([
    'subscription.created',
    'subscription.paused',
    'subscription.resumed',
    'subscription.canceled',
  ]);
  expect(types.filter((type) => type === 'invoice.payment_succeeded')).toHaveLength(1);
});

it('a webhook delivery answered 500 is retried once and then delivered', async () => {
  const receiver = await startWebhookReceiver({ reply: (_request, index) => (index === 0 ? 500 : 200) });
  try {
    expectStatus(await api.post('/webhook/destination', { url: receiver.url }), 201);
    const customer = await createCustomer(api, 'Webhook customer');
    const [first, second] = await receiver.waitFor(2, {
      timeoutMs: 60_000,
      filter: (request) => request.json?.data?.id === customer.id,
    });
    expect(first!.json).toMatchObject({ event: 'customer.created', data: { id: customer.id } });
    expect(second!.json.id).toBe(first!.json.id);
    // The retry waited the first delay of the schedule: 15 s, times a factor in [0.8, 1.2].
    expect(second!.at - first!.at).toBeGreaterThan(11_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.received.filter((request) => request.json?.data?.id === customer.id)).toHaveLength(2);
  } finally {
    await receiver.close();
  }
});

it('bursts of concurrent changes to one subscription (2 API processes, 2 workers): row, GET, last event and workflow agree', async () => {
  const { customer } = await customerWithCard(api);
  const price = await recurringPrice(api, { unitAmount: 1200 });
  const target: BurstTarget = {
    api,
    prisma: stack.prisma,
    temporal: stack.temporal,
    accountId,
    extraPrices: [await recurringPrice(api, { unitAmount: 500 }), await recurringPrice(api, { unitAmount: 250 })],
    settle: (id) =>
      eventually(
        async () => {
          const handle = stack.temporal.workflow.getHandle(subscriptionWorkflowId(id));
          if ((await handle.describe()).status.name === 'COMPLETED') return { done: true, state: null };
          const state = await handle.query(stateQuery);
          const row = await stack.prisma.subscription.findUniqueOrThrow({ where: { id } });
          return { done: !state.busy && row.workflowVersion === state.version, state };
        },
        (result) => result.done,
      ).then((result) => result.state),
  };
  await fc.assert(
    fc.asyncProperty(fc.array(operation, { minLength: 2, maxLength: 6 }), async (operations) => {
      const created = expectStatus(
        await api.post('/subscriptions', {
          customer: customer.id,
          items: [{ price, quantity: 1 }],
          trial_days: 0,
          start_date: unix(Date.now()),
        }),
        201,
        'POST /subscriptions',
      );
      await burst(target, created, operations);
    }),
    { numRuns: 5 },
  );
});

it("a payment plan's deposit paid on a terminal activates the plan", async () => {
  const customer = await createCustomer(api);
  const terminal = await createTerminal(api);
  const plan = expectStatus(
    await api.post('/payment-plans', {
      customer: customer.id,
      total_amount: 300,
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
  expect(sent).toMatchObject({
    status: 'pending',
    deposit: { status: 'processing', attempt: { method: 'terminal', state: 'waiting' } },
  });
  const payment = expectStatus(
    await api.post(`/test-helpers/terminals/${terminal.id}/present-card`, { outcome: 'approved' }),
    200,
  );
  expect(payment).toMatchObject({ status: 'succeeded', deposit: true, terminal: { state: 'approved' } });
  const active = await eventually(
    () => getPlan(api, plan.id),
    (value) => value.status === 'active',
  );
  expect(active).toMatchObject({ deposit: { status: 'paid' }, payment_method: payment.payment_method });
  expect((await other.get(`/payment-plans/${plan.id}`)).status).toBe(404);
});

/**
 * Why each retried activity attempt of a workflow was retried: the server records no event for a failed
 * attempt that is retried, but the next attempt's started event carries the previous attempt's failure.
 */
async function retriedAttempts(workflowId: string): Promise<string[]> {
  const history = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const started = event.activityTaskStartedEventAttributes;
    if (!started || (started.attempt ?? 1) <= 1) return [];
    const failure = started.lastFailure;
    return [[failure?.message, failure?.cause?.message].filter(Boolean).join(': ') || 'unknown'];
  });
}

it('kill -9 of one of two workers while 50 subscriptions bill at once: one invoice, one charge, one payment_succeeded each', async () => {
  const SUBSCRIPTIONS = 50;
  const account = await createTestAccount(stack.prisma, { name: 'Failover' });
  const failover = apiClient(stack.baseUrl, account.apiKey);
  const { customer } = await customerWithCard(failover);
  const price = await recurringPrice(failover, { unitAmount: 1500 });
  const startAt = Date.now() + 25_000;
  const ids: string[] = [];
  for (let batch = 0; batch < SUBSCRIPTIONS; batch += 10) {
    const created = await Promise.all(
      Array.from({ length: 10 }, () =>
        failover.post('/subscriptions', {
          customer: customer.id,
          items: [{ price, quantity: 1 }],
          trial_days: 0,
          start_date: unix(startAt),
        }),
      ),
    );
    for (const response of created) ids.push(expectStatus(response, 201, 'POST /subscriptions').id);
  }
  expect(Date.now()).toBeLessThan(startAt - 2_000);

  // Kill a worker once billing is under way: some invoices exist, not all are paid.
  await eventually(
    () => stack.prisma.invoice.count({ where: { accountId: account.accountId } }),
    (count) => count > 0,
    40_000,
  );
  const killedAt = Date.now();
  stack.workers[0]!.kill('SIGKILL');

  const paid = () => stack.prisma.invoice.count({ where: { accountId: account.accountId, status: 'paid' } });
  await eventually(paid, (count) => count >= SUBSCRIPTIONS, 90_000);
  const recoverySeconds = (Date.now() - killedAt) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 3_000)); // room for a duplicate to show up

  const invoices = await stack.prisma.invoice.findMany({ where: { accountId: account.accountId } });
  expect(invoices).toHaveLength(SUBSCRIPTIONS);
  expect(new Set(invoices.map((invoice) => invoice.subscriptionId))).toEqual(new Set(ids));
  expect(invoices.every((invoice) => invoice.status === 'paid' && invoice.amountPaid === 1500n)).toBe(true);
  const charges = await stack.prisma.gatewayCharge.findMany({
    where: { accountId: account.accountId, kind: 'charge' },
  });
  expect(charges).toHaveLength(SUBSCRIPTIONS);
  const succeeded = await eventsOf(stack.prisma, account.accountId, 'invoice.payment_succeeded');
  expect(succeeded.map((event) => (event.data as { id: string }).id).sort()).toEqual(
    invoices.map((invoice) => invoice.id).sort(),
  );

  // The dead worker's activities were retried once their heartbeats stopped (seconds), not after their
  // 30 s / 2 min start-to-close timeouts, and no attempt failed for want of a database connection.
  const retried = (await Promise.all(ids.map((id) => retriedAttempts(subscriptionWorkflowId(id))))).flat();
  expect(retried.filter((reason) => /Unable to start a transaction|start.?to.?close/i.test(reason))).toEqual([]);
  const reasons = [...new Set(retried)].join('; ');
  console.log(
    `failover: all ${SUBSCRIPTIONS} paid ${recoverySeconds.toFixed(1)} s after the kill; ${retried.length} activity attempts retried (${reasons})`,
  );
});

it('the workers made the retention sweep’s schedule (created once by two workers), its sweep runs on them, and the namespace keeps closed workflows 30 days', async () => {
  const handle = stack.temporal.schedule.getHandle('retention-sweep');
  const described = await handle.describe();
  expect(described.action).toMatchObject({
    type: 'startWorkflow',
    workflowType: 'retentionSweep',
    taskQueue: 'billing',
  });
  expect(described.spec.intervals).toEqual([expect.objectContaining({ every: 3_600_000 })]);
  await handle.trigger();
  const actions = await eventually(
    async () => (await handle.describe()).info.recentActions,
    (recent) => recent.length > 0,
  );
  const result = await stack.temporal.workflow.getHandle(actions[0]!.action.workflow.workflowId).result();
  expect(result).toEqual(expect.objectContaining({ events: expect.any(Number) }));
  const namespace = await stack.temporal.workflowService.describeNamespace({ namespace: 'default' });
  expect(Number(namespace.config?.workflowExecutionRetentionTtl?.seconds)).toBe(30 * 86_400);
});
