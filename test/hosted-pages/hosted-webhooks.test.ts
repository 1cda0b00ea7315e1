import { startRelay, type Relay } from '../../src/webhooks/relay';
import {
  apiClient,
  createTestAccount,
  eventsOf,
  expectStatus,
  startTestApp,
  startTestWorker,
  type TestApp,
} from '../support/harness';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { allowPrivateWebhookTargets } from '../support/webhooks';
import { CARDS, createCustomer, simpleInvoice } from '../support/payments';
import { recurringPrice } from '../support/subscriptions';
import { CHECKOUT_BUYER, EXPIRY, pageForm, postForm } from './pages';

/**
 * The webhooks of a payment made on the hosted invoice page and of a completed hosted checkout,
 * delivered end to end (relay, delivery workflow on the suite's Temporal dev server, a receiver on
 * loopback): each type once, in the documented order of one object's changes (docs/api.md "Ordering
 * events": `updated_ms`, `createdAt`; "Hosted pages" for which events and in what order).
 */
const TASK_QUEUE = 'hosted-pages-webhooks-test';

let app: TestApp;
let testWorker: Awaited<ReturnType<typeof startTestWorker>>;
let relay: Relay;
let receiver: WebhookReceiver;
const relayed: string[] = [];

beforeAll(async () => {
  allowPrivateWebhookTargets();
  // The workflows the API starts (a checkout's subscription) run on this file's worker.
  app = await startTestApp({ taskQueue: TASK_QUEUE });
  testWorker = await startTestWorker(app.prisma, TASK_QUEUE);
  relay = startRelay({
    prisma: app.prisma,
    databaseUrl: process.env.DATABASE_URL!,
    temporal: app.temporal,
    taskQueue: TASK_QUEUE,
    accountIds: () => relayed,
  });
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await relay.stop();
  await testWorker.stop();
  await receiver.close();
  await app.close();
});

it('a declined then a good card on the page: the webhooks arrive once each, in the documented order', async () => {
  const account = await createTestAccount(app.prisma, { name: 'Acme Rockets' });
  relayed.push(account.accountId);
  const api = apiClient(app.baseUrl, account.apiKey);
  expectStatus(await api.post('/webhook/destination', { url: receiver.url }), 201);
  const customer = await createCustomer(api, 'Ada Lovelace');
  const draft = await simpleInvoice(api, customer.id, 3000);
  const invoice = expectStatus(await api.post(`/invoices/${draft.id}/finalize`, {}), 200);
  const path = new URL(invoice.hosted_invoice_url).pathname;
  for (const number of [CARDS.declined, CARDS.succeeds]) {
    const form = await pageForm(app.baseUrl, path);
    const paid = await postForm(app.baseUrl, `${path}/pay`, { ...form, name: 'Ada', number, exp: EXPIRY, cvc: '123' });
    expect(paid.status).toBe(303);
  }

  const expected = [
    'customer.created',
    'invoice.created',
    'invoice.finalized',
    'payment_method.attached',
    'invoice.payment_failed',
    'payment_method.attached',
    'invoice.payment_succeeded',
  ];
  const mine = (request: { json: { data?: { id?: string; customer?: string } } }) =>
    request.json?.data?.id === customer.id || request.json?.data?.customer === customer.id;
  const received = await receiver.waitFor(expected.length, { timeoutMs: 30_000, filter: mine });
  const envelopes = received.map(
    (request) => request.json as { id: string; event: string; createdAt: string; data: { updated_ms: number } },
  );
  expect(new Set(envelopes.map((envelope) => envelope.id)).size).toBe(expected.length);
  // Arrival may interleave (each delivery is its own workflow): every event once, and one object's
  // events ordered by its updated_ms, as docs/api.md "Ordering events" tells receivers to order them.
  expect(envelopes.map((envelope) => envelope.event).sort()).toEqual([...expected].sort());
  const invoiceEvents = envelopes
    .filter((envelope) => envelope.event.startsWith('invoice.'))
    .sort((a, b) => a.data.updated_ms - b.data.updated_ms);
  expect(invoiceEvents.map((envelope) => envelope.event)).toEqual(
    expected.filter((type) => type.startsWith('invoice.')),
  );
  const times = invoiceEvents.map((envelope) => envelope.createdAt);
  expect(times).toEqual([...times].sort());
  expect(invoiceEvents.at(-1)!.data).toMatchObject({ status: 'paid', hosted_invoice_url: invoice.hosted_invoice_url });
  // What the customer did on the page says so (docs/decisions.md §38); what the merchant's API did does not.
  const origins = envelopes.map((envelope) => [envelope.event, (envelope.data as { origin?: string }).origin]).sort();
  expect(origins).toEqual(
    expected
      .map((type) => [
        type,
        ['customer.created', 'invoice.created', 'invoice.finalized'].includes(type) ? undefined : 'hosted_invoice_page',
      ])
      .sort(),
  );
});

it('a checkout of a subscription without trial: its webhooks arrive once each, in the order docs/api.md gives', async () => {
  const account = await createTestAccount(app.prisma, { name: 'Acme Rockets' });
  relayed.push(account.accountId);
  const api = apiClient(app.baseUrl, account.apiKey);
  expectStatus(await api.post('/webhook/destination', { url: receiver.url }), 201);
  const price = await recurringPrice(api, { unitAmount: 2900 });
  const session = expectStatus(
    await api.post('/checkout/sessions', {
      items: [{ price, quantity: 1 }],
      success_url: 'https://merchant.example/welcome',
      cancel_url: 'https://merchant.example/pricing',
    }),
    201,
  );
  const path = new URL(session.url).pathname;
  const form = await pageForm(app.baseUrl, path);
  const completed = await postForm(app.baseUrl, `${path}/complete`, {
    ...form,
    ...CHECKOUT_BUYER,
    number: CARDS.succeeds,
    exp: EXPIRY,
    cvc: '123',
  });
  expect([completed.status, completed.headers.get('location')]).toEqual([303, 'https://merchant.example/welcome']);
  const done = expectStatus(await api.get(`/checkout/sessions/${session.id}`), 200);
  expect(done).toMatchObject({ status: 'complete', mode: 'subscription' });

  // docs/api.md "Hosted checkout": the customer, the card, then the subscription and, without a trial,
  // its first invoice created, finalized and paid.
  const expected = [
    'customer.created',
    'payment_method.attached',
    'subscription.created',
    'invoice.created',
    'invoice.finalized',
    'invoice.payment_succeeded',
  ];
  // The subscription workflow's own later update (its period) is not the checkout's.
  const checkouts = (type: string) => type !== 'subscription.updated';
  const ofCustomer = (data: { id?: string; customer?: string }) =>
    data.id === done.customer || data.customer === done.customer;
  // Written to the outbox in that order.
  const written = (await eventsOf(app.prisma, account.accountId))
    .filter((event) => ofCustomer(event.data as { id?: string; customer?: string }) && checkouts(event.type))
    .map((event) => event.type);
  expect(written).toEqual(expected);

  const received = await receiver.waitFor(expected.length, {
    timeoutMs: 30_000,
    filter: (request) => ofCustomer(request.json?.data ?? {}) && checkouts(request.json?.event),
  });
  const envelopes = received.map(
    (request) =>
      request.json as {
        id: string;
        event: string;
        createdAt: string;
        data: { id: string; updated_ms: number; origin?: string };
      },
  );
  // Each once; arrival may interleave (each delivery is its own workflow), so the order is the events'
  // own: their createdAt never goes back along the documented order, and one object's updated_ms rises.
  expect(new Set(envelopes.map((envelope) => envelope.id)).size).toBe(expected.length);
  expect(envelopes.map((envelope) => envelope.event).sort()).toEqual([...expected].sort());
  const inOrder = expected.map((type) => envelopes.find((envelope) => envelope.event === type)!);
  const times = inOrder.map((envelope) => envelope.createdAt);
  expect(times).toEqual([...times].sort());
  const invoiceEvents = inOrder.filter((envelope) => envelope.event.startsWith('invoice.'));
  expect(new Set(invoiceEvents.map((envelope) => envelope.data.id)).size).toBe(1);
  const versions = invoiceEvents.map((envelope) => envelope.data.updated_ms);
  expect(versions).toEqual([...versions].sort((a, b) => a - b));
  expect(new Set(versions).size).toBe(versions.length);
  expect(invoiceEvents.at(-1)!.data).toMatchObject({ status: 'paid', subscription: done.subscription });
  // Every one says it came from the checkout page (docs/decisions.md §38).
  expect(inOrder.map((envelope) => [envelope.event, envelope.data.origin])).toEqual(
    expected.map((type) => [type, 'hosted_checkout']),
  );
});
