import { apiClient, createTestAccount, expectStatus, type ApiClient } from '../support/harness';
import { customerWithCard, simpleInvoice } from '../support/payments';
import {
  createSubscription,
  namedMonthlyPrice,
  startSubscriptionWorld,
  unix,
  type SubscriptionWorld,
} from '../support/subscriptions';

/**
 * `include=names` (docs/api.md, "Names on list rows"): subscriptions, prices, transactions and payment plans
 * answer the names of what they refer to beside its id when asked, and only then; a bad value is a 400 naming
 * `include`; another account's ids stay 404 and its lists name nothing of this one.
 */
let world: SubscriptionWorld;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  world = await startSubscriptionWorld();
  api = world.api;
  other = apiClient(world.app.baseUrl, (await createTestAccount(world.app.prisma, { name: 'Other' })).apiKey);
});
afterAll(() => world?.close());

describe('include=names', () => {
  it("answers subscriptions with their customer's and products' names, in the list and the retrieve", async () => {
    const { customer } = await customerWithCard(api);
    expectStatus(await api.patch(`/customers/${customer.id}`, { name: 'Ada Lovelace' }), 200);
    const pro = await namedMonthlyPrice(api, 'Analytical Engine Pro', 4900);
    const seats = await namedMonthlyPrice(api, 'Extra seats', 900);
    const subscription = await createSubscription(api, {
      customer: customer.id,
      items: [
        { price: pro, quantity: 1 },
        { price: seats, quantity: 3 },
      ],
      trial_days: 0,
      start_date: unix(await world.env.currentTimeMs()),
    });

    const listed = expectStatus(await api.get(`/subscriptions?customer=${customer.id}&include=names`), 200);
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({ id: subscription.id, customer: customer.id, customer_name: 'Ada Lovelace' });
    expect(listed.data[0].items.data.map((item: any) => [item.price.id, item.price.product_name])).toEqual([
      [pro, 'Analytical Engine Pro'],
      [seats, 'Extra seats'],
    ]);
    const retrieved = expectStatus(await api.get(`/subscriptions/${subscription.id}?include=names`), 200);
    expect(retrieved).toEqual(listed.data[0]);

    // Without the parameter the objects are as before: no names.
    const plain = expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200);
    expect(plain).not.toHaveProperty('customer_name');
    expect(plain.items.data[0].price).not.toHaveProperty('product_name');
    const { customer_name: _name, items: _items, ...rest } = retrieved;
    expect(plain).toMatchObject(rest);

    // Another account: 404 for the id, and its own list names nothing of this account.
    expect((await other.get(`/subscriptions/${subscription.id}?include=names`)).status).toBe(404);
    expect(expectStatus(await other.get('/subscriptions?include=names'), 200).data).toEqual([]);
  });

  it("answers prices with their product's name, transactions with the customer's name and the invoice's number", async () => {
    const price = await namedMonthlyPrice(api, 'Difference Engine', 1500);
    const prices = expectStatus(await api.get(`/prices?include=names&take=100`), 200).data as any[];
    expect(prices.find((each) => each.id === price)).toMatchObject({ product_name: 'Difference Engine' });
    expect((expectStatus(await api.get('/prices?take=100'), 200).data as any[])[0]).not.toHaveProperty('product_name');

    const { customer } = await customerWithCard(api);
    expectStatus(await api.patch(`/customers/${customer.id}`, { name: 'Charles Babbage' }), 200);
    const invoice = await simpleInvoice(api, customer.id, 3100);
    const paid = expectStatus(await api.put(`/invoices/${invoice.id}`), 200, 'pay');
    const transactions = expectStatus(await api.get(`/transactions?customer=${customer.id}&include=names`), 200);
    expect(transactions.data).toHaveLength(1);
    expect(transactions.data[0]).toMatchObject({
      customer: customer.id,
      customer_name: 'Charles Babbage',
      invoice: invoice.id,
      invoice_number: paid.number,
    });
    expect(paid.number).toMatch(/^INV-\d{6}$/);
    const plain = expectStatus(await api.get(`/transactions?customer=${customer.id}`), 200).data[0];
    expect(plain).not.toHaveProperty('customer_name');
    expect(plain).not.toHaveProperty('invoice_number');
    // A deleted customer keeps its name on its rows.
    expectStatus(await api.delete(`/customers/${customer.id}`), 200, 'DELETE /customers');
    expect(
      expectStatus(await api.get(`/transactions?invoice=${invoice.id}&include=names`), 200).data[0].customer_name,
    ).toBe('Charles Babbage');

    expect(expectStatus(await other.get(`/transactions?invoice=${invoice.id}&include=names`), 200).data).toEqual([]);
  });

  it("answers payment plans with their customer's name", async () => {
    const account = await createTestAccount(world.app.prisma, { name: 'Plans', paymentPlans: true });
    const client = apiClient(world.app.baseUrl, account.apiKey);
    const { customer } = await customerWithCard(client);
    expectStatus(await client.patch(`/customers/${customer.id}`, { name: 'Grace Hopper' }), 200);
    const plan = expectStatus(
      await client.post('/payment-plans', {
        customer: customer.id,
        total_amount: 1000,
        currency: 'USD',
        installments_count: 4,
        interval: 'month',
      }),
      201,
      'POST /payment-plans',
    );
    const plans = expectStatus(await client.get('/payment-plans?include=names'), 200).data;
    expect(plans).toEqual([expect.objectContaining({ id: plan.id, customer_name: 'Grace Hopper' })]);
    const refused = await client.get('/payment-plans?include=customer');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ param: 'include' });
  });

  it.each(['/subscriptions', '/subscriptions/sub_x', '/prices', '/transactions'])(
    '%s?include=ids -> 400 naming include',
    async (path) => {
      const response = await api.get(`${path}?include=ids`);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param: 'include' });
    },
  );
});
