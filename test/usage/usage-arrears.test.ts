import { apiClient, createTestAccount, startWorkerApp, type ApiClient, type WorkerApp } from '../support/harness';
import { subscriptionInvoices } from '../support/clocks';
import { expectStatus, recurringPrice } from '../support/subscriptions';
import { customerWithCard } from '../support/payments';

// Metered items billed in arrears through HTTP, with a worker and test clocks (docs/api.md "Usage-based billing",
// docs/decisions.md §43): a metered item takes no quantity, the first invoice bills only the licensed items, and
// each period's end bills the usage of the period that closed, priced through its tiers, after the grace.

// The grace for late events is a setting: small here, so a clock moved an hour past a period's end bills it.
process.env.USAGE_GRACE = '30m';

const monthly = { interval: 'month', interval_count: 1 };

let stack: WorkerApp;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  stack = await startWorkerApp('usage-arrears');
  api = stack.api;
  other = apiClient(stack.app.baseUrl, (await createTestAccount(stack.app.prisma, { name: 'Other' })).apiKey);
}, 60_000);

afterAll(() => stack?.close());

let meterCounter = 0;

/** A meter summing `tokens` of its own event name, and a metered price on it (`terms`: its scheme). */
async function meteredPrice(client: ApiClient, terms: Record<string, unknown> = { unit_amount: 3 }) {
  meterCounter += 1;
  const eventName = `tokens_${meterCounter}`;
  const meter = expectStatus(
    await client.post('/meters', {
      name: 'Tokens',
      event_name: eventName,
      aggregation: 'sum',
      value_property: 'tokens',
    }),
    201,
  );
  // The product of a new licensed price (support's helper): the metered price is a second price of it.
  const productId = expectStatus(
    await client.get(`/prices/${await recurringPrice(client, { unitAmount: 1 })}`),
    200,
  ).product;
  const price = expectStatus(
    await client.post(`/prices/${productId}`, {
      currency: 'USD',
      type: 'recurring',
      recurring: { ...monthly, usage_type: 'metered', meter: meter.id },
      ...terms,
    }),
    201,
  );
  return { eventName, meter, price: price.id as string };
}

describe('a subscription item on a metered price', () => {
  it('takes no quantity, shows the price as metered, and the first invoice bills the licensed items only', async () => {
    const licensed = await recurringPrice(api, { unitAmount: 2000 });
    const { price: metered } = await meteredPrice(api);
    const { customer, method } = await customerWithCard(api);
    const body = (items: unknown[]) => ({
      customer: customer.id,
      items,
      trial_days: 0,
      start_date: Math.floor(Date.now() / 1000),
      default_payment_method: method.id,
    });

    const quantified = await api.post(
      '/subscriptions',
      body([
        { price: licensed, quantity: 1 },
        { price: metered, quantity: 2 },
      ]),
    );
    expect([quantified.status, quantified.body.error.code, quantified.body.error.param]).toEqual([
      400,
      'parameter_invalid',
      'items.1.quantity',
    ]);
    const unquantified = await api.post('/subscriptions', body([{ price: licensed }]));
    expect([unquantified.status, unquantified.body.error.code, unquantified.body.error.param]).toEqual([
      400,
      'parameter_missing',
      'items.0.quantity',
    ]);

    const subscription = expectStatus(
      await api.post('/subscriptions', body([{ price: licensed, quantity: 1 }, { price: metered }])),
      201,
    );
    const items = subscription.items.data;
    expect(items.map((item: any) => [item.price.id, item.quantity, item.price.recurring.usage_type])).toEqual([
      [licensed, 1, 'licensed'],
      [metered, 0, 'metered'],
    ]);
    const [first] = await subscriptionInvoices(api, subscription.id);
    expect(first.lines.map((line: any) => [line.price, line.amount])).toEqual([[licensed, 2000]]);
    expect([first.total, first.status]).toEqual([2000, 'paid']);

    // A quantity on the metered item is refused; a metered item added by PATCH takes none.
    const patched = await api.patch(`/subscriptions/${subscription.id}`, { items: [{ id: items[1].id, quantity: 3 }] });
    expect([patched.status, patched.body.error.param]).toEqual([400, 'items.0.quantity']);
    const { price: second } = await meteredPrice(api);
    const added = expectStatus(
      await api.patch(`/subscriptions/${subscription.id}`, { items: [{ price: second }] }),
      200,
    );
    expect(added.items.data.map((item: any) => item.quantity)).toEqual([1, 0, 0]);
  });

  it('makes a $0 first invoice when every item is metered (as Stripe does)', async () => {
    const { price } = await meteredPrice(api);
    const { customer, method } = await customerWithCard(api);
    const subscription = expectStatus(
      await api.post('/subscriptions', {
        customer: customer.id,
        items: [{ price }],
        trial_days: 0,
        start_date: Math.floor(Date.now() / 1000),
        default_payment_method: method.id,
      }),
      201,
    );
    const invoices = await subscriptionInvoices(api, subscription.id);
    expect(invoices.map((invoice) => [invoice.total, invoice.status, invoice.lines.length])).toEqual([[0, 'paid', 0]]);
    expect(subscription.status).toBe('active');
  });

  it("refuses another account's metered price (404 naming it)", async () => {
    const { price } = await meteredPrice(other);
    const { customer } = await customerWithCard(api);
    const refused = await api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price }],
      trial_days: 0,
      start_date: Math.floor(Date.now() / 1000),
    });
    expect([refused.status, refused.body.error.param]).toEqual([404, 'items.0.price']);
  });
});
