import { payInvoice } from '../../src/invoices/invoice-payment.service';
import { recordAdjustment } from '../../src/transactions/transaction.service';
import { apiClient, createTestAccount, type ApiClient, type TestApp, startTwoAccountApp } from '../support/harness';
import { CARDS, createCustomer, customerWithCard, simpleInvoice, wrappedGateways } from '../support/payments';

let app: TestApp;
let api: ApiClient;
let accountId: string;
let other: ApiClient;

beforeAll(async () => {
  ({ app, api, accountId, other } = await startTwoAccountApp());
});

afterAll(() => app.close());

async function allTransactions(client: ApiClient) {
  const all: any[] = [];
  for (let page = 1; ; page++) {
    const response = await client.get(`/transactions?take=7&page=${page}`);
    all.push(...response.body.data);
    if (page >= response.body.meta.pagesTotal) return all;
  }
}

describe('transactions and balance', () => {
  let good: { customer: any };
  let bad: { customer: any };
  const invoices = { paid: '', refunded: '', declined: '', pending: '' };

  beforeAll(async () => {
    good = await customerWithCard(api, CARDS.succeeds);
    bad = await customerWithCard(api, CARDS.declined);
    invoices.paid = (await simpleInvoice(api, good.customer.id, 10000)).id;
    await api.put(`/invoices/${invoices.paid}`);
    invoices.refunded = (await simpleInvoice(api, good.customer.id, 4000)).id;
    await api.put(`/invoices/${invoices.refunded}`);
    await api.post(`/invoices/${invoices.refunded}/refund`, { amount: 1500 });
    invoices.declined = (await simpleInvoice(api, bad.customer.id, 999)).id;
    await api.put(`/invoices/${invoices.declined}`);
    await api.put(`/invoices/${invoices.declined}`);
    // An attempt whose outcome never came back stays pending.
    invoices.pending = (await simpleInvoice(api, good.customer.id, 700)).id;
    const silent = wrappedGateways(app.prisma, () => ({
      charge: () => Promise.reject(new Error('timeout')),
    }));
    await expect(payInvoice(app.prisma, silent, accountId, invoices.pending)).rejects.toMatchObject({ status: 502 });
    await recordAdjustment(app.prisma, accountId, {
      amount: -250,
      currency: 'usd',
      description: 'Goodwill credit',
      customerId: good.customer.id,
    });
  });

  it('lists every attempt, refund and adjustment, newest first, with the transaction shape', async () => {
    const all = await allTransactions(api);
    expect(all.map((t) => [t.type, t.status, t.amount])).toEqual([
      ['adjustment', 'succeeded', -250],
      ['payment', 'pending', 700],
      ['payment', 'failed', 999],
      ['payment', 'failed', 999],
      ['refund', 'succeeded', -1500],
      ['payment', 'succeeded', 4000],
      ['payment', 'succeeded', 10000],
    ]);
    expect(all[0]).toEqual({
      id: expect.stringMatching(/^txn_/),
      object: 'transaction',
      type: 'adjustment',
      status: 'succeeded',
      amount: -250,
      currency: 'USD',
      customer: good.customer.id,
      invoice: null,
      payment_method: null,
      source_transaction: null,
      attempt: null,
      gateway_reference: null,
      failure_code: null,
      failure_message: null,
      description: 'Goodwill credit',
      created: expect.any(Number),
    });
    expect(all[2]).toMatchObject({
      invoice: invoices.declined,
      attempt: 2,
      failure_code: 'card_declined',
      customer: bad.customer.id,
    });
    expect(all[3]).toMatchObject({ attempt: 1 });
  });

  it('filters by type, status, customer and invoice', async () => {
    const types = async (query: string) =>
      (await api.get(`/transactions?${query}`)).body.data.map((t: any) => `${t.type}:${t.status}:${t.amount}`);
    expect(await types('type=refund')).toEqual(['refund:succeeded:-1500']);
    expect(await types('status=failed')).toEqual(['payment:failed:999', 'payment:failed:999']);
    expect(await types('status=pending')).toEqual(['payment:pending:700']);
    expect(await types(`customer=${bad.customer.id}`)).toEqual(['payment:failed:999', 'payment:failed:999']);
    expect(await types(`invoice=${invoices.refunded}`)).toEqual(['refund:succeeded:-1500', 'payment:succeeded:4000']);
    expect(await types(`type=payment&status=succeeded&customer=${good.customer.id}`)).toEqual([
      'payment:succeeded:4000',
      'payment:succeeded:10000',
    ]);
    for (const [query, param] of [
      ['type=charge', 'type'],
      ['status=done', 'status'],
      ['invoice=abc', 'invoice'],
      ['customer=x', 'customer'],
      ['take=500', 'take'],
    ]) {
      const response = await api.get(`/transactions?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe(param);
    }
  });

  it('retrieves one transaction, also under its invoice (and 404s it under another invoice)', async () => {
    const [refund, payment] = (await api.get(`/invoices/${invoices.refunded}/transactions`)).body.data;
    expect(refund.source_transaction).toBe(payment.id);
    expect((await api.get(`/transactions/${payment.id}`)).body).toEqual(payment);
    expect((await api.get(`/invoices/${invoices.refunded}/transactions/${refund.id}`)).body).toEqual(refund);
    expect((await api.get(`/invoices/${invoices.paid}/transactions/${refund.id}`)).status).toBe(404);
    expect((await api.get('/transactions/txn_missing')).status).toBe(404);
    const paged = await api.get(`/invoices/${invoices.declined}/transactions?take=1&page=2`);
    expect(paged.body.meta).toEqual({ page: 2, take: 1, itemsTotal: 2, pagesTotal: 2 });
  });

  it('GET /balance equals the sum of succeeded (available) and pending transactions per currency', async () => {
    const balance = await api.get('/balance');
    expect(balance.status).toBe(200);
    const all = await allTransactions(api);
    const sum = (status: string) =>
      all.filter((t) => t.status === status && t.currency === 'USD').reduce((total, t) => total + t.amount, 0);
    expect(balance.body).toEqual({
      object: 'balance',
      available: [{ amount: sum('succeeded'), currency: 'USD' }],
      pending: [{ amount: sum('pending'), currency: 'USD' }],
    });
    // Hand-checked: 10000 + 4000 - 1500 - 250 available, 700 pending.
    expect(balance.body.available[0].amount).toBe(12250);
    expect(balance.body.pending[0].amount).toBe(700);
  });

  it('keeps currencies apart and starts empty for a new account', async () => {
    const fresh = apiClient(app.baseUrl, (await createTestAccount(app.prisma)).apiKey);
    expect((await fresh.get('/balance')).body).toEqual({ object: 'balance', available: [], pending: [] });
    const account = await createTestAccount(app.prisma);
    const multi = apiClient(app.baseUrl, account.apiKey);
    const customer = (await customerWithCard(multi)).customer;
    const eur = await simpleInvoice(multi, customer.id, 500, { currency: 'eur' });
    expect(eur.currency).toBe('EUR');
    await multi.put(`/invoices/${eur.id}`);
    await multi.put(`/invoices/${(await simpleInvoice(multi, customer.id, 800)).id}`);
    expect((await multi.get('/balance')).body).toEqual({
      object: 'balance',
      available: [
        { amount: 500, currency: 'EUR' },
        { amount: 800, currency: 'USD' },
      ],
      pending: [
        { amount: 0, currency: 'EUR' },
        { amount: 0, currency: 'USD' },
      ],
    });
  });

  it("answers 404 for another account's transactions and shows it none of them", async () => {
    const [transaction] = (await api.get('/transactions')).body.data;
    expect((await other.get(`/transactions/${transaction.id}`)).status).toBe(404);
    expect((await other.get(`/invoices/${invoices.paid}/transactions`)).status).toBe(404);
    expect((await other.get(`/transactions?customer=${good.customer.id}`)).body.data).toEqual([]);
    expect((await other.get(`/transactions?invoice=${invoices.paid}`)).body.data).toEqual([]);
    expect((await other.get('/balance')).body).toEqual({ object: 'balance', available: [], pending: [] });
  });

  it('a customer without invoices has no transactions', async () => {
    const customer = await createCustomer(api);
    expect((await api.get(`/transactions?customer=${customer.id}`)).body).toEqual({
      data: [],
      meta: { page: 1, take: 10, itemsTotal: 0, pagesTotal: 0 },
    });
  });
});
