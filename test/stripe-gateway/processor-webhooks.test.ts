import Stripe from 'stripe';
import { processorEventReceived } from '../../src/stripe-gateway/processor-events.service';
import { IDEMPOTENCY_METADATA_KEY } from '../../src/stripe-gateway/stripe-gateway';
import { createPrisma } from '../../src/db/prisma';
import { apiClient, createTestAccount, eventsOf, expectStatus, startTestApp, type TestApp } from '../support/harness';
import { wrappedGateways } from '../support/payments';
import { startStripeMock, stripeToolMissing, type StripeStandIn } from '../support/stripe-tools';

/**
 * Stripe's events to each account's processor-webhook URL (docs/api.md, "Payment processors"): signed with
 * the account's webhook secret (signatures made by the stripe client's own test helper), kept once per event
 * id, objects the service did not make ignored, every refusal a 400 (404 for an unknown URL), never a 500,
 * and one account's secret never opens another's URL. stripe-mock only checks the keys at connection.
 */
const missing = stripeToolMissing('stripe-mock');
if (missing) console.warn(`test/stripe-gateway/processor-webhooks.test.ts skipped: ${missing}`);
const describeWithStripeMock = missing ? describe.skip : describe;

const stripe = new Stripe('sk_test_signing_only');

describeWithStripeMock('POST /processor-webhooks/stripe/{webhook_key}', () => {
  let app: TestApp;
  let stripeMock: StripeStandIn;
  const apiBaseBefore = process.env.STRIPE_API_BASE;
  const accounts: Record<'a' | 'b', { accountId: string; url: string; secret: string }> = {} as never;

  beforeAll(async () => {
    stripeMock = await startStripeMock();
    process.env.STRIPE_API_BASE = stripeMock.apiBase;
    app = await startTestApp();
    for (const name of ['a', 'b'] as const) {
      const account = await createTestAccount(app.prisma, { name: `Account ${name}` });
      const secret = `whsec_Secret${name.toUpperCase()}0123456789`;
      const settings = expectStatus(
        await apiClient(app.baseUrl, account.apiKey).put('/settings/gateway', {
          processor: 'stripe',
          secret_key: `sk_test_Key${name}`,
          webhook_secret: secret,
        }),
        200,
      );
      // webhook_url is under PUBLIC_URL; the test posts to the same path on the test app.
      accounts[name] = { accountId: account.accountId, url: new URL(settings.webhook_url).pathname, secret };
    }
  });
  afterAll(async () => {
    process.env.STRIPE_API_BASE = apiBaseBefore;
    await app?.close();
    await stripeMock?.stop();
  });

  let sequence = 0;
  function event(type: string, object: object, fields: object = {}) {
    sequence += 1;
    return {
      id: `evt_test_${sequence}_${Date.now()}`,
      object: 'event',
      type,
      livemode: false,
      created: Math.floor(Date.now() / 1000),
      api_version: '2026-08-26.dahlia',
      data: { object },
      ...fields,
    };
  }
  const paymentIntent = (status: string, key = 'charge:in_1:1') => ({
    id: `pi_${sequence}`,
    object: 'payment_intent',
    status,
    amount: 2500,
    currency: 'usd',
    metadata: { invoice_id: 'in_1', [IDEMPOTENCY_METADATA_KEY]: key },
  });

  async function post(path: string, body: string, signature?: string) {
    const response = await fetch(`${app.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signature ? { 'stripe-signature': signature } : {}) },
      body,
    });
    return { status: response.status, body: (await response.json()) as any };
  }
  const signed = (payload: string, secret: string, timestamp?: number) =>
    stripe.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });
  const rowsOf = (accountId: string) =>
    app.prisma.processorEvent.findMany({ where: { accountId }, orderBy: { receivedAt: 'asc' } });

  it("records a payment's event once per event id: a redelivery answers 200 and changes nothing", async () => {
    const { url, secret, accountId } = accounts.a;
    const payload = JSON.stringify(event('payment_intent.succeeded', paymentIntent('succeeded')));
    const first = await post(url, payload, signed(payload, secret));
    expect(first).toEqual({ status: 200, body: { received: true, status: 'recorded' } });
    const again = await post(url, payload, signed(payload, secret));
    expect(again).toEqual({ status: 200, body: { received: true, status: 'duplicate' } });
    const rows = (await rowsOf(accountId)).filter((row) => row.eventId === JSON.parse(payload).id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ processor: 'stripe', type: 'payment_intent.succeeded', outcome: 'recorded' });
  });

  it('hands the charge protocol the outcome a PaymentIntent or refund event reports, under the same key', async () => {
    const { accountId } = accounts.a;
    const cases: [object, object][] = [
      [
        event('payment_intent.succeeded', paymentIntent('succeeded', 'k:ok')),
        { kind: 'charge', idempotencyKey: 'k:ok', result: { status: 'succeeded' } },
      ],
      [
        event('payment_intent.processing', paymentIntent('processing', 'k:ach')),
        { kind: 'charge', idempotencyKey: 'k:ach', result: { status: 'pending' } },
      ],
      [
        event('payment_intent.payment_failed', {
          ...paymentIntent('requires_payment_method', 'k:no'),
          last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'No funds' },
        }),
        {
          kind: 'charge',
          idempotencyKey: 'k:no',
          result: {
            status: 'failed',
            failureCode: 'insufficient_funds',
            declineCode: 'insufficient_funds',
            retryable: true,
          },
        },
      ],
      [
        event('refund.updated', {
          id: 're_1',
          object: 'refund',
          status: 'succeeded',
          metadata: { [IDEMPOTENCY_METADATA_KEY]: 'k:re' },
        }),
        { kind: 'refund', idempotencyKey: 'k:re', result: { status: 'succeeded', refundId: 're_1' } },
      ],
    ];
    for (const [sent, report] of cases) {
      const outcome = await processorEventReceived(app.prisma, accountId, sent as Stripe.Event, false);
      expect(outcome.status).toBe('recorded');
      expect(outcome.report).toMatchObject({ ...report, accountId });
    }
    // A dispute of one of its PaymentIntents is recorded for the protocol to read by that PaymentIntent.
    expect(
      await processorEventReceived(
        app.prisma,
        accountId,
        event('charge.dispute.created', {
          id: 'dp_1',
          object: 'dispute',
          payment_intent: 'pi_1',
          status: 'needs_response',
        }) as never,
        false,
      ),
    ).toEqual({ status: 'recorded', report: null, saleReport: null });
    // A terminal sale's PaymentIntent (its metadata names the sale) reports the sale, not a charge.
    expect(
      await processorEventReceived(
        app.prisma,
        accountId,
        event('payment_intent.payment_failed', {
          id: 'pi_terminal',
          object: 'payment_intent',
          status: 'requires_payment_method',
          metadata: { terminal_sale_id: 'tms_1' },
        }) as never,
        false,
      ),
    ).toEqual({
      status: 'recorded',
      report: null,
      saleReport: { accountId, sale: { id: 'tms_1' }, outcome: 'declined' },
    });
  });

  it('ignores (200) objects the service did not make and events of the other mode', async () => {
    const { url, secret, accountId } = accounts.a;
    const foreign = [
      event('customer.created', { id: 'cus_1', object: 'customer', metadata: {} }),
      event('payment_intent.succeeded', { ...paymentIntent('succeeded'), metadata: {} }),
      event('payment_intent.succeeded', paymentIntent('succeeded'), { livemode: true }),
    ];
    for (const sent of foreign) {
      const payload = JSON.stringify(sent);
      expect(await post(url, payload, signed(payload, secret))).toEqual({
        status: 200,
        body: { received: true, status: 'ignored' },
      });
    }
    const rows = await rowsOf(accountId);
    for (const sent of foreign) expect(rows.find((row) => row.eventId === sent.id)?.outcome).toBe('ignored');
  });

  it('refuses a bad, missing or stale signature with a 400, and an unknown URL with a 404', async () => {
    const { url, secret, accountId } = accounts.a;
    const before = (await rowsOf(accountId)).length;
    const payload = JSON.stringify(event('payment_intent.succeeded', paymentIntent('succeeded')));
    const refusals = [
      await post(url, payload, signed(payload, 'whsec_NotTheSecret')),
      await post(url, payload, signed(`${payload} `, secret)),
      await post(url, payload, signed(payload, secret, Math.floor(Date.now() / 1000) - 3600)),
      await post(url, payload, 't=1,v1=00'),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'signature_invalid', param: 'Stripe-Signature' });
    }
    expect((await post(url, payload)).body.error).toMatchObject({ code: 'signature_missing' });
    const notJson = 'not json';
    expect(await post(url, notJson, signed(notJson, secret))).toMatchObject({
      status: 400,
      body: { error: { code: 'body_invalid' } },
    });
    const unknown = await post('/processor-webhooks/stripe/gwk_unknown', payload, signed(payload, secret));
    expect(unknown.status).toBe(404);
    expect((await rowsOf(accountId)).length).toBe(before);
  });

  it("refuses on B's URL an event signed with A's secret, and records nothing for either", async () => {
    const a = accounts.a;
    const b = accounts.b;
    const [beforeA, beforeB] = [(await rowsOf(a.accountId)).length, (await rowsOf(b.accountId)).length];
    const payload = JSON.stringify(event('payment_intent.succeeded', paymentIntent('succeeded')));
    const refused = await post(b.url, payload, signed(payload, a.secret));
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('signature_invalid');
    expect((await rowsOf(a.accountId)).length).toBe(beforeA);
    expect((await rowsOf(b.accountId)).length).toBe(beforeB);
    // Signed with B's own secret, the same event is B's.
    expect((await post(b.url, payload, signed(payload, b.secret))).body.status).toBe('recorded');
    expect((await rowsOf(b.accountId)).map((row) => row.eventId)).toContain(JSON.parse(payload).id);
    expect((await rowsOf(a.accountId)).map((row) => row.eventId)).not.toContain(JSON.parse(payload).id);
  });
});

/**
 * A payment whose answer was lost stays `unknown` (docs/decisions.md §40) until Stripe's event says what became
 * of it: the event settles the invoice, once, however often Stripe sends it; another account's URL settles nothing.
 */
describeWithStripeMock('a Stripe event settles the invoice payment it reports', () => {
  let app: TestApp;
  let stripeMock: StripeStandIn;
  const apiBaseBefore = process.env.STRIPE_API_BASE;
  const secret = 'whsec_SettlesLostAnswers0123';

  beforeAll(async () => {
    stripeMock = await startStripeMock();
    process.env.STRIPE_API_BASE = stripeMock.apiBase;
    const prisma = createPrisma(process.env.DATABASE_URL!, 2);
    // Stripe takes the charge; its answer never comes back.
    app = await startTestApp({
      gateways: wrappedGateways(prisma, () => ({ charge: async () => ({ status: 'unknown', reason: 'answer lost' }) })),
    });
  });
  afterAll(async () => {
    process.env.STRIPE_API_BASE = apiBaseBefore;
    await app?.close();
    await stripeMock?.stop();
  });

  it('pays the invoice once, from the event under the payment key', async () => {
    const account = await createTestAccount(app.prisma, { name: 'Lost answers' });
    const api = apiClient(app.baseUrl, account.apiKey);
    const settings = expectStatus(
      await api.put('/settings/gateway', {
        processor: 'stripe',
        secret_key: 'sk_test_Settles1',
        webhook_secret: secret,
      }),
      200,
    );
    const customer = expectStatus(await api.post('/customers', { name: 'Ada', email: 'ada@example.com' }), 201);
    expectStatus(await api.post('/payment-methods/pm_webhooks_visa/attach', { customer: customer.id }), 200);
    const invoice = expectStatus(
      await api.post('/invoices', { customer: customer.id, lines: [{ description: 'Work', amount: 2500 }] }),
      201,
    );
    // The answer lost: the invoice stays open with its payment unknown, neither paid nor failed.
    expect(expectStatus(await api.put(`/invoices/${invoice.id}`), 200).status).toBe('open');
    const attempt = await app.prisma.transaction.findFirstOrThrow({
      where: { invoiceId: invoice.id, type: 'payment' },
    });
    expect(attempt.status).toBe('unknown');

    const sent = JSON.stringify({
      id: `evt_settles_${Date.now()}`,
      object: 'event',
      type: 'payment_intent.succeeded',
      livemode: false,
      created: Math.floor(Date.now() / 1000),
      api_version: '2026-08-26.dahlia',
      data: {
        object: {
          id: 'pi_settles',
          object: 'payment_intent',
          status: 'succeeded',
          amount: 2500,
          currency: 'usd',
          metadata: { invoice_id: invoice.id, [IDEMPOTENCY_METADATA_KEY]: attempt.gatewayKey },
        },
      },
    });
    const path = new URL(settings.webhook_url).pathname;
    const deliver = () =>
      fetch(`${app.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signedWith(sent, secret) },
        body: sent,
      });
    expect((await deliver()).status).toBe(200);
    expect((await deliver()).status).toBe(200);
    expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
      status: 'paid',
      amount_paid: 2500,
    });
    const succeeded = await eventsOf(app.prisma, account.accountId, 'invoice.payment_succeeded');
    expect(succeeded).toHaveLength(1);
    expect(
      await app.prisma.transaction.count({ where: { invoiceId: invoice.id, type: 'payment', status: 'succeeded' } }),
    ).toBe(1);
  });
});

function signedWith(payload: string, secret: string): string {
  return stripe.webhooks.generateTestHeaderString({ payload, secret });
}
