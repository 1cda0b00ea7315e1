import Stripe from 'stripe';
import { createPrisma } from '../../src/db/prisma';
import {
  apiClient,
  createTestAccount,
  eventsOf,
  expectStatus,
  startTestApp,
  type ApiClient,
  type TestApp,
} from '../support/harness';
import { wrappedGateways } from '../support/payments';
import { startStripeMock, stripeToolMissing, type StripeStandIn } from '../support/stripe-tools';

/**
 * Stripe's dispute events for a charge that paid an invoice (docs/decisions.md §44): the ledger withdraws the
 * disputed cents when the dispute opens and gives them back when it is won, the invoice shows the dispute, and the
 * merchant is told charge.dispute.created and charge.dispute.closed once each however often Stripe delivers.
 * Another account's URL touches nothing of this account. stripe-mock checks the keys at connection and attaches
 * the card; the charges answer a PaymentIntent id of the test's own, so each invoice's charge is told apart.
 */
const missing = stripeToolMissing('stripe-mock');
if (missing) console.warn(`test/stripe-gateway/processor-disputes.test.ts skipped: ${missing}`);
const describeWithStripeMock = missing ? describe.skip : describe;

const stripe = new Stripe('sk_test_signing_only');

describeWithStripeMock('Stripe disputes of a charge that paid an invoice', () => {
  let app: TestApp;
  let stripeMock: StripeStandIn;
  const apiBaseBefore = process.env.STRIPE_API_BASE;
  let charges = 0;
  const accounts: Record<'a' | 'b', { accountId: string; api: ApiClient; url: string; secret: string }> = {} as never;

  beforeAll(async () => {
    stripeMock = await startStripeMock();
    process.env.STRIPE_API_BASE = stripeMock.apiBase;
    const prisma = createPrisma(process.env.DATABASE_URL!, 2);
    app = await startTestApp({
      gateways: wrappedGateways(prisma, () => ({
        charge: async () => ({ status: 'succeeded', chargeId: `pi_disputed_${++charges}_${Date.now()}` }),
      })),
    });
    for (const name of ['a', 'b'] as const) {
      const account = await createTestAccount(app.prisma, { name: `Disputes ${name}` });
      const api = apiClient(app.baseUrl, account.apiKey);
      const secret = `whsec_Disputes${name.toUpperCase()}0123456789`;
      const settings = expectStatus(
        await api.put('/settings/gateway', {
          processor: 'stripe',
          secret_key: `sk_test_Disp${name}`,
          webhook_secret: secret,
        }),
        200,
      );
      accounts[name] = { accountId: account.accountId, api, url: new URL(settings.webhook_url).pathname, secret };
    }
  });
  afterAll(async () => {
    process.env.STRIPE_API_BASE = apiBaseBefore;
    await app?.close();
    await stripeMock?.stop();
  });

  /** Each account's one customer, with a payment method id of its own (stripe-mock answers the id it is asked for). */
  const customers = new Map<ApiClient, string>();
  async function customerOf(api: ApiClient): Promise<string> {
    if (!customers.has(api)) {
      const customer = expectStatus(await api.post('/customers', { name: 'Ada', email: 'ada@example.com' }), 201);
      expectStatus(
        await api.post(`/payment-methods/pm_disputes_visa${customers.size}/attach`, { customer: customer.id }),
        200,
      );
      customers.set(api, customer.id);
    }
    return customers.get(api)!;
  }

  /** An invoice of `amount` cents paid at "Stripe": its payment entry and the PaymentIntent id it holds. */
  async function paidInvoice(api: ApiClient, amount = 2500) {
    const customer = { id: await customerOf(api) };
    const invoice = expectStatus(
      await api.post('/invoices', { customer: customer.id, lines: [{ description: 'Work', amount }] }),
      201,
    );
    expect(expectStatus(await api.put(`/invoices/${invoice.id}`), 200).status).toBe('paid');
    const payment = await app.prisma.transaction.findFirstOrThrow({
      where: { invoiceId: invoice.id, type: 'payment', status: 'succeeded' },
    });
    return { invoice, payment, intent: payment.gatewayReference! };
  }

  let sequence = 0;
  function disputeEvent(type: string, intent: string, status: string, fields: { id?: string; amount?: number } = {}) {
    sequence += 1;
    return JSON.stringify({
      id: `evt_dispute_${sequence}_${Date.now()}`,
      object: 'event',
      type,
      livemode: false,
      created: Math.floor(Date.now() / 1000),
      api_version: '2026-08-26.dahlia',
      data: {
        object: {
          id: fields.id ?? `dp_${intent}`,
          object: 'dispute',
          amount: fields.amount ?? 2500,
          currency: 'usd',
          charge: `ch_${intent}`,
          payment_intent: intent,
          reason: 'fraudulent',
          status,
          created: 1_780_000_000,
          livemode: false,
          metadata: {},
        },
      },
    });
  }
  async function deliver(to: 'a' | 'b', payload: string, signedBy: 'a' | 'b' = to) {
    const response = await fetch(`${app.baseUrl}${accounts[to].url}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload, secret: accounts[signedBy].secret }),
      },
      body: payload,
    });
    return { status: response.status, body: (await response.json()) as any };
  }
  const disputeEntries = (invoiceId: string) =>
    app.prisma.transaction.findMany({ where: { invoiceId, type: 'dispute' }, orderBy: { createdAt: 'asc' } });
  const disputeEventsOf = async (accountId: string, type: string, disputeId: string) =>
    (await eventsOf(app.prisma, accountId, type)).filter((event) => (event.data as any).id === disputeId);

  it('withdraws the disputed cents when it opens and gives them back when it is won, telling the merchant once each', async () => {
    const { api, accountId } = accounts.a;
    const { invoice, payment, intent } = await paidInvoice(api);
    const disputeId = `dp_${intent}`;

    const opened = disputeEvent('charge.dispute.created', intent, 'needs_response');
    expect(await deliver('a', opened)).toEqual({ status: 200, body: { received: true, status: 'recorded' } });
    expect(await deliver('a', opened)).toEqual({ status: 200, body: { received: true, status: 'duplicate' } });
    const shown = expectStatus(await api.get(`/invoices/${invoice.id}`), 200);
    expect(shown).toMatchObject({
      status: 'paid',
      amount_paid: 2500,
      dispute: {
        id: disputeId,
        object: 'dispute',
        amount: 2500,
        currency: 'USD',
        status: 'needs_response',
        closed: false,
        reason: 'fraudulent',
        charge: intent,
        invoice: invoice.id,
      },
    });
    const listed = expectStatus(await api.get(`/transactions?type=dispute&invoice=${invoice.id}`), 200);
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({
      type: 'dispute',
      status: 'succeeded',
      amount: -2500,
      source_transaction: payment.id,
    });

    // Stripe moves the dispute on, and sends its created event again late: nothing is withdrawn twice.
    expect((await deliver('a', disputeEvent('charge.dispute.updated', intent, 'under_review'))).status).toBe(200);
    expect((await deliver('a', disputeEvent('charge.dispute.created', intent, 'needs_response'))).status).toBe(200);
    expect((await disputeEntries(invoice.id)).map((entry) => Number(entry.amount))).toEqual([-2500]);

    const won = disputeEvent('charge.dispute.closed', intent, 'won');
    expect((await deliver('a', won)).status).toBe(200);
    expect((await deliver('a', won)).body.status).toBe('duplicate');
    // An older update delivered after the close does not open it again.
    expect((await deliver('a', disputeEvent('charge.dispute.updated', intent, 'under_review'))).status).toBe(200);
    expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200).dispute).toMatchObject({
      status: 'won',
      closed: true,
    });
    const entries = await disputeEntries(invoice.id);
    expect(entries.map((entry) => [Number(entry.amount), entry.status, entry.sourceTransactionId])).toEqual([
      [-2500, 'succeeded', payment.id],
      [2500, 'succeeded', payment.id],
    ]);
    expect(await disputeEventsOf(accountId, 'charge.dispute.created', disputeId)).toHaveLength(1);
    const closed = await disputeEventsOf(accountId, 'charge.dispute.closed', disputeId);
    expect(closed).toHaveLength(1);
    expect(closed[0]!.data).toMatchObject({ status: 'won', closed: true, invoice: invoice.id });
  });

  it('keeps the cents withdrawn for a lost dispute, and moves none for an inquiry', async () => {
    const { api, accountId } = accounts.a;
    const lost = await paidInvoice(api, 4000);
    const before = expectStatus(await api.get('/balance'), 200);
    const availableUsd = (balance: any) =>
      balance.available.find((entry: any) => entry.currency === 'USD')?.amount ?? 0;
    expect(
      (await deliver('a', disputeEvent('charge.dispute.created', lost.intent, 'needs_response', { amount: 1500 })))
        .status,
    ).toBe(200);
    expect(
      (await deliver('a', disputeEvent('charge.dispute.closed', lost.intent, 'lost', { amount: 1500 }))).status,
    ).toBe(200);
    expect((await disputeEntries(lost.invoice.id)).map((entry) => Number(entry.amount))).toEqual([-1500]);
    expect(availableUsd(expectStatus(await api.get('/balance'), 200))).toBe(availableUsd(before) - 1500);
    expect(expectStatus(await api.get(`/invoices/${lost.invoice.id}`), 200).dispute).toMatchObject({
      status: 'lost',
      amount: 1500,
      closed: true,
    });
    expect(await disputeEventsOf(accountId, 'charge.dispute.closed', `dp_${lost.intent}`)).toHaveLength(1);
    // The processor took the disputed money back: neither a refund nor a credit note gives it back again.
    for (const refused of [
      await api.post(`/invoices/${lost.invoice.id}/refund`, { amount: 100 }),
      await api.post('/credit-notes', { invoice: lost.invoice.id, amount: 100, reason: 'duplicate' }),
    ]) {
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'invoice_disputed' });
    }
    expect(expectStatus(await api.get(`/invoices/${lost.invoice.id}`), 200)).toMatchObject({ amount_refunded: 0 });

    const inquiry = await paidInvoice(api);
    expect(
      (await deliver('a', disputeEvent('charge.dispute.created', inquiry.intent, 'warning_needs_response'))).status,
    ).toBe(200);
    expect(await disputeEntries(inquiry.invoice.id)).toEqual([]);
    expect(expectStatus(await api.get(`/invoices/${inquiry.invoice.id}`), 200).dispute).toMatchObject({
      status: 'warning_needs_response',
      closed: false,
    });
  });

  it("ignores a dispute of a charge the service did not make, and another account's URL touches none of this account's invoices", async () => {
    const a = accounts.a;
    const b = accounts.b;
    const { invoice, intent } = await paidInvoice(a.api);
    const theirs = disputeEvent('charge.dispute.created', intent, 'needs_response');
    // Signed with B's secret on B's URL: B made no such charge, so nothing of A's changes.
    expect(await deliver('b', theirs)).toEqual({ status: 200, body: { received: true, status: 'recorded' } });
    // A's secret on B's URL is refused outright.
    expect((await deliver('b', disputeEvent('charge.dispute.created', intent, 'needs_response'), 'a')).status).toBe(
      400,
    );
    expect(expectStatus(await a.api.get(`/invoices/${invoice.id}`), 200).dispute).toBeNull();
    expect(await disputeEntries(invoice.id)).toEqual([]);
    expect(await eventsOf(app.prisma, b.accountId, 'charge.dispute.created')).toEqual([]);
    expect(await disputeEventsOf(a.accountId, 'charge.dispute.created', `dp_${intent}`)).toEqual([]);
    expect((await b.api.get(`/invoices/${invoice.id}`)).status).toBe(404);

    // A charge the account never made: answered 200, nothing recorded anywhere.
    expect((await deliver('a', disputeEvent('charge.dispute.created', 'pi_not_ours', 'needs_response'))).status).toBe(
      200,
    );
    expect(
      await app.prisma.transaction.count({
        where: { accountId: a.accountId, gatewayKey: 'dispute:dp_pi_not_ours:withdrawal' },
      }),
    ).toBe(0);
  });
});
