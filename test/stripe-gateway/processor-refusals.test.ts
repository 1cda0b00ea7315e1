import {
  apiClient,
  createTestAccount,
  expectStatus,
  startTestApp,
  type ApiClient,
  type TestApp,
} from '../support/harness';
import { createPrisma } from '../../src/db/prisma';
import { wrappedGateways } from '../support/payments';
import {
  startStripeMock,
  startStripeProxy,
  stripeToolMissing,
  type StripeProxy,
  type StripeStandIn,
} from '../support/stripe-tools';

/**
 * Stripe refusing a charge or a refund as a request error (docs/decisions.md §45), through HTTP with the real
 * adapter: a secret key Stripe no longer takes (revoked after it was connected) is a 502 `processor_error` that
 * names it and leaves the attempt in flight under its key, paid once the key works; a request Stripe refuses for
 * what it says (a parameter) is a 400 `processor_refused` and the attempt is recorded failed. Never a 500. The
 * proxy in front of stripe-mock answers Stripe's own error bodies.
 */
const missing = stripeToolMissing('stripe-mock');
if (missing) console.warn(`test/stripe-gateway/processor-refusals.test.ts skipped: ${missing}`);
const describeWithStripeMock = missing ? describe.skip : describe;

const REVOKED = {
  status: 401,
  error: {
    type: 'invalid_request_error',
    code: 'api_key_expired',
    message: 'Expired API Key provided: sk_test_****Refusals',
  },
} as const;

describeWithStripeMock('Stripe refusing a charge or a refund', () => {
  let app: TestApp;
  let stripeMock: StripeStandIn;
  let proxy: StripeProxy;
  let api: ApiClient;
  let customer: string;
  const apiBaseBefore = process.env.STRIPE_API_BASE;
  let chargesSucceed = false;

  beforeAll(async () => {
    stripeMock = await startStripeMock();
    proxy = await startStripeProxy(stripeMock.apiBase);
    process.env.STRIPE_API_BASE = proxy.apiBase;
    const prisma = createPrisma(process.env.DATABASE_URL!, 2);
    // stripe-mock's PaymentIntents never succeed: the refund's test has its charge answered succeeded here, and
    // its refund goes to Stripe through the real adapter.
    app = await startTestApp({
      gateways: wrappedGateways(prisma, (real) => ({
        charge: (request) =>
          chargesSucceed ? Promise.resolve({ status: 'succeeded', chargeId: 'pi_refusals' }) : real.charge(request),
      })),
    });
    const account = await createTestAccount(app.prisma, { name: 'Refusals' });
    api = apiClient(app.baseUrl, account.apiKey);
    expectStatus(
      await api.put('/settings/gateway', {
        processor: 'stripe',
        secret_key: 'sk_test_Refusals',
        webhook_secret: 'whsec_Refusals0123456789',
      }),
      200,
    );
    customer = expectStatus(await api.post('/customers', { name: 'Ada', email: 'ada@example.com' }), 201).id;
    expectStatus(await api.post('/payment-methods/pm_refusals_visa/attach', { customer }), 200);
  });
  afterEach(() => {
    proxy.mode('forward');
    chargesSucceed = false;
  });
  afterAll(async () => {
    process.env.STRIPE_API_BASE = apiBaseBefore;
    await app?.close();
    await proxy?.close();
    await stripeMock?.stop();
  });

  const invoice = async (amount = 2500) =>
    expectStatus(await api.post('/invoices', { customer, lines: [{ description: 'Work', amount }] }), 201);
  const paymentsOf = (invoiceId: string) =>
    app.prisma.transaction.findMany({ where: { invoiceId, type: 'payment' }, orderBy: { createdAt: 'asc' } });

  it('answers a revoked key with 502 processor_error, keeps the attempt in flight, and sends it again under its key once the key works', async () => {
    const { id } = await invoice();
    proxy.mode(REVOKED);
    const refused = await api.put(`/invoices/${id}`);
    expect(refused.status).toBe(502);
    expect(refused.body.error).toMatchObject({ type: 'api_error', code: 'processor_error' });
    expect(refused.body.error.message).toContain('api_key_expired');
    expect(refused.body.error.message).not.toContain('sk_test');
    expect(expectStatus(await api.get(`/invoices/${id}`), 200).status).toBe('open');
    const [attempt] = await paymentsOf(id);
    expect(attempt).toMatchObject({ status: 'pending', gatewayReference: null });

    proxy.mode('forward');
    const sentBefore = proxy.requests.length;
    expectStatus(await api.put(`/invoices/${id}`), 200);
    // The attempt left in flight is asked about first (Stripe has nothing under its key), then sent again under its
    // own key and settled; only then may the request make its own (stripe-mock's PaymentIntent does not succeed, so
    // it does).
    const sent = proxy.requests.slice(sentBefore).filter((request) => request.path.startsWith('/v1/payment_intents'));
    expect(sent[0]).toMatchObject({ method: 'GET', answered: { status: 200 } });
    const resent = sent.filter((request) => request.method === 'POST');
    expect(resent[0]!.headers['idempotency-key']).toBe(attempt!.gatewayKey);
    const [first] = await paymentsOf(id);
    expect(first!.id).toBe(attempt!.id);
    expect(first!.status).not.toBe('pending');
  });

  it('answers a refund refused for a revoked key with 502 processor_error, the refund left pending', async () => {
    const { id } = await invoice();
    chargesSucceed = true;
    expect(expectStatus(await api.put(`/invoices/${id}`), 200).status).toBe('paid');
    proxy.mode(REVOKED);
    const refused = await api.post(`/invoices/${id}/refund`, { amount: 1000 });
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe('processor_error');
    expect(expectStatus(await api.get(`/invoices/${id}`), 200).amount_refunded).toBe(0);
    const refunds = await app.prisma.transaction.findMany({ where: { invoiceId: id, type: 'refund' } });
    expect(refunds.map((refund) => refund.status)).toEqual(['pending']);
  });

  it('answers a request Stripe refuses for a parameter with 400 processor_refused, the attempt recorded failed', async () => {
    const { id } = await invoice(30);
    proxy.mode({
      status: 400,
      error: {
        type: 'invalid_request_error',
        code: 'amount_too_small',
        message: 'Amount must be at least $0.50 usd',
      },
    });
    const refused = await api.put(`/invoices/${id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'processor_refused' });
    expect(refused.body.error.message).toContain('Amount must be at least $0.50 usd');
    expect(expectStatus(await api.get(`/invoices/${id}`), 200).status).toBe('open');
    const payments = await paymentsOf(id);
    expect(payments.map((payment) => [payment.status, payment.failureCode])).toEqual([['failed', 'amount_too_small']]);
  });
  it("answers 409 payment_method_unavailable for a processor's id another account holds, writing nothing", async () => {
    const other = await createTestAccount(app.prisma, { name: 'Refusals other' });
    const otherApi = apiClient(app.baseUrl, other.apiKey);
    expectStatus(
      await otherApi.put('/settings/gateway', {
        processor: 'stripe',
        secret_key: 'sk_test_RefusalsOther',
        webhook_secret: 'whsec_RefusalsOther0123456789',
      }),
      200,
    );
    const theirs = expectStatus(await otherApi.post('/customers', { name: 'Bo', email: 'bo@example.com' }), 201).id;
    // stripe-mock answers the id it is asked for, as if the same method were attached anew.
    const refused = await otherApi.post('/payment-methods/pm_refusals_visa/attach', { customer: theirs });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'payment_method_unavailable' });
    expect(expectStatus(await otherApi.get(`/payment-methods?customer=${theirs}`), 200).data).toEqual([]);
    expect(expectStatus(await api.get('/payment-methods/pm_refusals_visa'), 200).customer).toBe(customer);
  });
});
