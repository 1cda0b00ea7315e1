import crypto from 'node:crypto';
import { apiClient, createTestAccount, startWorkerApp, type ApiClient, type WorkerApp } from '../support/harness';
import { addPaymentMethod, cardBody, CARDS } from '../support/payments';
import { createSubscription, expectStatus, recurringPrice } from '../support/subscriptions';

// GET /search: the dashboard's search box, through HTTP against the real database and worker.

let stack: WorkerApp;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  stack = await startWorkerApp('search', { paymentPlans: true, name: 'Search Co' });
  api = stack.api;
  other = apiClient(stack.app.baseUrl, (await createTestAccount(stack.app.prisma, { name: 'Elsewhere' })).apiKey);
}, 60_000);

afterAll(() => stack?.close());

const search = async (client: ApiClient, query: string) =>
  expectStatus(await client.get(`/search?${new URLSearchParams({ query })}`), 200, `GET /search ${query}`);

/** A customer with a card, an invoice paid in full, a credit note on it, a subscription and a payment plan. */
async function world() {
  const tag = crypto.randomUUID().slice(0, 8);
  const customer = expectStatus(
    await api.post('/customers', { name: `Ada Lovelace ${tag}`, email: `ada.${tag}@example.com` }),
    201,
  );
  const card = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
  const invoice = expectStatus(
    await api.post('/invoices', { customer: customer.id, lines: [{ description: 'Setup', amount: 12_345 }] }),
    201,
  );
  const paid = expectStatus(await api.put(`/invoices/${invoice.id}`, { payment_method: card.id }), 200);
  const note = expectStatus(
    await api.post('/credit-notes', {
      invoice: invoice.id,
      amount: 345,
      reason: 'order_change',
      refund_to: 'customer_balance',
    }),
    201,
  );
  const subscription = await createSubscription(api, {
    customer: customer.id,
    items: [{ price: await recurringPrice(api), quantity: 1 }],
    trial_days: 0,
    start_date: Math.floor(Date.now() / 1000),
    default_payment_method: card.id,
  });
  const plan = expectStatus(
    await api.post('/payment-plans', {
      customer: customer.id,
      total_amount: 40_000,
      currency: 'USD',
      installments_count: 4,
      interval: 'month',
    }),
    201,
  );
  return { tag, customer, invoice: paid, note, subscription, plan };
}

describe('GET /search', () => {
  it('finds each object by its id, an invoice or credit note by its number however typed, customers by name or email', async () => {
    const { tag, customer, invoice, note, subscription, plan } = await world();
    expect(invoice.number).toMatch(/^INV-\d{6}$/);

    expect(await search(api, customer.id)).toEqual({
      object: 'search_result',
      query: customer.id,
      data: [
        {
          object: 'customer',
          id: customer.id,
          title: `Ada Lovelace ${tag}`,
          detail: `ada.${tag}@example.com`,
          customer: null,
          invoice: null,
        },
      ],
    });
    expect((await search(api, invoice.id.toUpperCase())).data).toEqual([
      {
        object: 'invoice',
        id: invoice.id,
        title: `Invoice ${invoice.number}`,
        detail: `paid · $123.45 · Ada Lovelace ${tag}`,
        customer: customer.id,
        invoice: null,
      },
    ]);
    const digits = String(Number(invoice.number.slice(4)));
    for (const typed of [invoice.number, invoice.number.toLowerCase(), `INV-${digits}`, `inv${digits}`]) {
      expect((await search(api, typed)).data.map((hit: { id: string }) => hit.id)).toEqual([invoice.id]);
    }
    expect((await search(api, note.number)).data).toEqual([
      {
        object: 'credit_note',
        id: note.id,
        title: `Credit note ${note.number}`,
        detail: 'issued · $3.45',
        customer: customer.id,
        invoice: invoice.id,
      },
    ]);
    expect((await search(api, note.id)).data.map((hit: { object: string }) => hit.object)).toEqual(['credit_note']);
    expect((await search(api, subscription.id)).data).toEqual([
      expect.objectContaining({ object: 'subscription', id: subscription.id, customer: customer.id }),
    ]);
    expect((await search(api, plan.id)).data).toEqual([
      expect.objectContaining({
        object: 'payment_plan',
        id: plan.id,
        detail: `${plan.status} · $400.00`,
        customer: customer.id,
      }),
    ]);

    // Text: the customers whose name or email holds it, with spaces around it trimmed.
    const byName = await search(api, `  lovelace ${tag} `);
    expect(byName.query).toBe(`lovelace ${tag}`);
    expect(byName.data.map((hit: { id: string }) => hit.id)).toEqual([customer.id]);
    expect((await search(api, `ada.${tag}@example.com`)).data.map((hit: { id: string }) => hit.id)).toEqual([
      customer.id,
    ]);
    // An id or number the account does not have finds nothing, and is not read as a name.
    expect((await search(api, 'sub_doesNotExist123')).data).toEqual([]);
    expect((await search(api, 'INV-999999999')).data).toEqual([]);
    expect((await search(api, crypto.randomUUID())).data).toEqual([]);
  }, 60_000);

  it('another account finds none of it, by id, number, name or email', async () => {
    const { tag, customer, invoice, note, subscription, plan } = await world();
    for (const query of [
      customer.id,
      invoice.id,
      invoice.number,
      note.id,
      subscription.id,
      plan.id,
      `Lovelace ${tag}`,
      `ada.${tag}@example.com`,
    ]) {
      expect((await search(other, query)).data).toEqual([]);
    }
    // The other account's own invoice with the same number is its own.
    const theirs = expectStatus(await other.post('/customers', { name: 'Theirs' }), 201);
    const draft = expectStatus(
      await other.post('/invoices', { customer: theirs.id, lines: [{ description: 'x', amount: 100 }] }),
      201,
    );
    const finalized = expectStatus(await other.post(`/invoices/${draft.id}/finalize`), 200);
    expect((await search(other, finalized.number)).data.map((hit: { id: string }) => hit.id)).toEqual([draft.id]);
    expect((await search(api, finalized.number)).data.map((hit: { id: string }) => hit.id)).not.toContain(draft.id);
  }, 60_000);

  it('refuses a missing, empty or too long query with 400 naming `query`, and an unknown parameter', async () => {
    for (const path of ['/search', '/search?query=', '/search?query=%20%20', `/search?query=${'a'.repeat(201)}`]) {
      const response = await api.get(path);
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe('query');
    }
    const extra = await api.get('/search?query=ada&limit=3');
    expect(extra.status).toBe(400);
    expect(extra.body.error.param).toBe('limit');
    expect((await apiClient(stack.app.baseUrl, 'nope').get('/search?query=ada')).status).toBe(401);
  });
});
