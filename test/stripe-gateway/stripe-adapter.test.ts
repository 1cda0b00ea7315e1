import '../../src/gateway-registrations';
import { createApiKey } from '../../src/accounts/account.service';
import { createGateways } from '../../src/payments/gateways';
import { GatewayRequestError, GatewayUnavailableError, type PaymentGateway } from '../../src/payments/gateway';
import { StripeGateway, IDEMPOTENCY_METADATA_KEY } from '../../src/stripe-gateway/stripe-gateway';
import { paymentIntentResult, refundResult } from '../../src/stripe-gateway/stripe-outcomes';
import { attachStripePaymentMethod, detachStripePaymentMethod } from '../../src/stripe-gateway/stripe-payment-methods';
import { freePort } from '../support/ports';
import { apiClient, createTestAccount, expectStatus, startTestApp, type TestApp } from '../support/harness';
import { createCustomer } from '../support/payments';
import {
  startStripeMock,
  startStripeProxy,
  stripeToolMissing,
  type StripeProxy,
  type StripeStandIn,
} from '../support/stripe-tools';

/**
 * Every call of the Stripe adapter (src/stripe-gateway/) against stripe-mock, which validates each request
 * against Stripe's published OpenAPI (a request it does not accept answers 400, which the adapter would
 * throw as a GatewayRequestError) and answers Stripe's fixtures. A recording proxy in front of it shows what
 * was sent, and loses answers or plays Stripe's outages for the unknown and unavailable outcomes.
 */
const missing = stripeToolMissing('stripe-mock');
if (missing) console.warn(`test/stripe-gateway/stripe-adapter.test.ts skipped: ${missing}`);
const describeWithStripeMock = missing ? describe.skip : describe;

describeWithStripeMock('Stripe adapter against stripe-mock', () => {
  let app: TestApp;
  let stripeMock: StripeStandIn;
  let proxy: StripeProxy;
  let accountId: string;
  let customerId: string;
  let gateway: PaymentGateway;
  const apiBaseBefore = process.env.STRIPE_API_BASE;

  beforeAll(async () => {
    stripeMock = await startStripeMock();
    proxy = await startStripeProxy(stripeMock.apiBase);
    process.env.STRIPE_API_BASE = proxy.apiBase;
    app = await startTestApp();
    const account = await createTestAccount(app.prisma, { name: 'On Stripe' });
    accountId = account.accountId;
    const api = apiClient(app.baseUrl, account.apiKey);
    expectStatus(
      await api.put('/settings/gateway', {
        processor: 'stripe',
        secret_key: 'sk_test_AdapterKey1234',
        webhook_secret: 'whsec_AdapterSecret',
      }),
      200,
    );
    customerId = (await createCustomer(api)).id;
    gateway = await createGateways(app.prisma).gatewayFor(accountId);
  });
  afterAll(async () => {
    process.env.STRIPE_API_BASE = apiBaseBefore;
    await app?.close();
    await proxy?.close();
    await stripeMock?.stop();
  });
  beforeEach(() => {
    proxy.mode('forward');
    proxy.requests.length = 0;
  });

  const lastRequest = () => proxy.requests[proxy.requests.length - 1]!;

  it('is the adapter gatewayFor chooses once the account connected Stripe', () => {
    expect(gateway).toBeInstanceOf(StripeGateway);
  });

  it("attaches a Stripe payment method to the customer's Stripe customer, made once, and reads the card from Stripe", async () => {
    const first = await attachStripePaymentMethod(app.prisma, accountId, {
      paymentMethodId: 'pm_card_visa',
      customerId,
    });
    expect(proxy.requests.map((request) => `${request.method} ${request.path.split('?')[0]}`)).toEqual([
      'POST /v1/customers',
      'POST /v1/payment_methods/pm_card_visa/attach',
    ]);
    expect(proxy.requests.every((request) => request.answered?.status === 200)).toBe(true);
    expect(proxy.requests[0]!.form).toEqual({ 'metadata[billing_customer_id]': customerId });
    expect(proxy.requests[0]!.headers['idempotency-key']).toBe(`customer:${accountId}:${customerId}:test`);
    const stripeCustomer = proxy.requests[0]!.answered!.body.id as string;
    expect(proxy.requests[1]!.form).toEqual({ customer: stripeCustomer });
    const fixture = proxy.requests[1]!.answered!.body;
    expect(first).toEqual({
      id: fixture.id,
      type: 'card',
      livemode: false,
      fingerprint: fixture.card.fingerprint,
      last4: fixture.card.last4,
      billingName: fixture.billing_details?.name ?? null,
      card: {
        brand: fixture.card.brand,
        expMonth: fixture.card.exp_month,
        expYear: fixture.card.exp_year,
        wallet: fixture.card.wallet?.type ?? null,
      },
      bank: null,
    });

    proxy.requests.length = 0;
    await attachStripePaymentMethod(app.prisma, accountId, { paymentMethodId: 'pm_card_mastercard', customerId });
    expect(proxy.requests.map((request) => request.path)).toEqual(['/v1/payment_methods/pm_card_mastercard/attach']);
    expect(lastRequest().form).toEqual({ customer: stripeCustomer });
  });

  it('detaches a payment method at Stripe', async () => {
    await detachStripePaymentMethod(app.prisma, accountId, 'pm_card_visa');
    expect(lastRequest()).toMatchObject({ method: 'POST', path: '/v1/payment_methods/pm_card_visa/detach' });
    expect(lastRequest().answered?.status).toBe(200);
  });

  it('charges with an off-session confirmed PaymentIntent under the service key, the invoice id in its metadata', async () => {
    const result = await gateway.charge({
      amount: 2500,
      currency: 'usd',
      paymentMethod: { id: 'pm_card_visa', accountId, type: 'card', customerId },
      idempotencyKey: 'charge:in_123:1',
      description: 'Invoice INV-0001',
      metadata: { invoice_id: 'in_123' },
    });
    const sent = lastRequest();
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/payment_intents');
    expect(sent.headers['idempotency-key']).toBe('charge:in_123:1');
    const stripeCustomer = (await app.prisma.stripeCustomer.findFirstOrThrow({ where: { accountId, customerId } }))
      .stripeCustomerId;
    expect(sent.form).toEqual({
      amount: '2500',
      currency: 'usd',
      payment_method: 'pm_card_visa',
      customer: stripeCustomer,
      'automatic_payment_methods[enabled]': 'true',
      'automatic_payment_methods[allow_redirects]': 'never',
      off_session: 'true',
      confirm: 'true',
      description: 'Invoice INV-0001',
      'metadata[invoice_id]': 'in_123',
      [`metadata[${IDEMPOTENCY_METADATA_KEY}]`]: 'charge:in_123:1',
    });
    // stripe-mock accepted it (its OpenAPI check answers 400 otherwise) and answered its fixture, read as Stripe's.
    expect(sent.answered?.status).toBe(200);
    expect(result).toEqual(paymentIntentResult(sent.answered!.body));
  });

  it('refunds the PaymentIntent under the service key', async () => {
    const result = await gateway.refund({
      chargeId: 'pi_123',
      amount: 700,
      idempotencyKey: 'refund:cn_1',
      metadata: { credit_note_id: 'cn_1' },
    });
    const sent = lastRequest();
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/refunds' });
    expect(sent.headers['idempotency-key']).toBe('refund:cn_1');
    expect(sent.form).toEqual({
      payment_intent: 'pi_123',
      amount: '700',
      'metadata[credit_note_id]': 'cn_1',
      [`metadata[${IDEMPOTENCY_METADATA_KEY}]`]: 'refund:cn_1',
    });
    expect(sent.answered?.status).toBe(200);
    expect(result).toEqual(refundResult(sent.answered!.body));
  });

  it('retrieves a charge by its PaymentIntent id, or searches it by the key', async () => {
    const byId = await gateway.retrieveCharge({ idempotencyKey: 'charge:in_123:1', chargeId: 'pi_123' });
    expect(lastRequest()).toMatchObject({ method: 'GET', path: '/v1/payment_intents/pi_123' });
    expect(byId).toEqual(paymentIntentResult(lastRequest().answered!.body));

    const byKey = await gateway.retrieveCharge({ idempotencyKey: "charge:in_'9':1" });
    const search = new URL(lastRequest().path, 'http://x');
    expect(search.pathname).toBe('/v1/payment_intents/search');
    expect(search.searchParams.get('query')).toBe(`metadata['${IDEMPOTENCY_METADATA_KEY}']:'charge:in_\\'9\\':1'`);
    expect(lastRequest().answered?.status).toBe(200);
    expect(byKey).toEqual(paymentIntentResult(lastRequest().answered!.body.data[0]));
  });

  it("lists the Stripe customer's PaymentIntents since the attempt opened, rather than searching, when the customer is known", async () => {
    const { stripeCustomerId } = await app.prisma.stripeCustomer.findFirstOrThrow({ where: { accountId, customerId } });
    const openedAt = new Date();
    const sentTo = { paymentMethod: { id: 'pm_card_visa', accountId, type: 'card', customerId }, openedAt };
    // stripe-mock's listed fixture carries no such metadata: none is found, and no search is made.
    expect(await gateway.retrieveCharge({ idempotencyKey: 'charge:in_listed:1', sentTo })).toBeNull();
    expect(proxy.requests).toHaveLength(1);
    const listed = new URL(lastRequest().path, 'http://x');
    expect(listed.pathname).toBe('/v1/payment_intents');
    expect(Object.fromEntries(listed.searchParams)).toEqual({
      customer: stripeCustomerId,
      'created[gte]': String(Math.floor(openedAt.getTime() / 1000) - 300),
      limit: '100',
    });
    expect(lastRequest().answered?.status).toBe(200);

    // A test clock's time ahead of Stripe's is not trusted: the list starts from now at the latest.
    const ahead = new Date(Date.now() + 30 * 24 * 3600_000);
    await gateway.retrieveCharge({ idempotencyKey: 'charge:in_listed:2', sentTo: { ...sentTo, openedAt: ahead } });
    const since = Number(new URL(lastRequest().path, 'http://x').searchParams.get('created[gte]'));
    expect(since).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) - 300);

    // A customer without a Stripe customer: its charges were sent without one, so only the search finds them.
    proxy.requests.length = 0;
    const noStripeCustomer = { ...sentTo, paymentMethod: { ...sentTo.paymentMethod, customerId: 'cus_none' } };
    await gateway.retrieveCharge({ idempotencyKey: 'charge:in_listed:3', sentTo: noStripeCustomer });
    expect(proxy.requests.map((sent) => new URL(sent.path, 'http://x').pathname)).toEqual([
      '/v1/payment_intents/search',
    ]);
  });

  it('retrieves a refund by id, or by the key among the recent refunds', async () => {
    const byId = await gateway.retrieveRefund({ idempotencyKey: 'refund:cn_1', refundId: 're_123' });
    expect(lastRequest()).toMatchObject({ method: 'GET', path: '/v1/refunds/re_123' });
    expect(byId).toEqual(refundResult(lastRequest().answered!.body));

    // stripe-mock's listed fixture carries no such metadata: none is found, after one page.
    expect(await gateway.retrieveRefund({ idempotencyKey: 'refund:cn_404' })).toBeNull();
    expect(new URL(lastRequest().path, 'http://x').pathname).toBe('/v1/refunds');
    expect(lastRequest().answered?.status).toBe(200);
  });

  const chargeRequest = () => ({
    amount: 1000,
    currency: 'usd',
    paymentMethod: { id: 'pm_card_visa', accountId, type: 'card', customerId },
    idempotencyKey: `charge:${Math.random()}`,
    metadata: { invoice_id: 'in_9' },
  });

  it('answers unknown when the request reached Stripe and its answer was lost, and retrieveCharge finds it', async () => {
    proxy.mode('cut');
    const request = chargeRequest();
    const result = await gateway.charge(request);
    expect(result).toMatchObject({ status: 'unknown' });
    // Stripe received it (at least once: the client retries a closed connection once, under the same key).
    const received = proxy.requests.filter((sent) => sent.path === '/v1/payment_intents');
    expect(received.length).toBeGreaterThanOrEqual(1);
    expect(received.every((sent) => sent.answered?.status === 200)).toBe(true);
    expect(new Set(received.map((sent) => sent.headers['idempotency-key']))).toEqual(new Set([request.idempotencyKey]));
    proxy.mode('forward');
    expect(await gateway.retrieveCharge({ idempotencyKey: request.idempotencyKey })).not.toBeNull();
  });

  it('answers unknown for a 500 (Stripe: may or may not have been processed)', async () => {
    proxy.mode({ status: 500, error: { type: 'api_error', message: 'Something went wrong' } });
    expect(await gateway.charge(chargeRequest())).toMatchObject({ status: 'unknown' });
  });

  it('throws GatewayUnavailableError for a rate limit, a 503 or a refused connection: nothing happened at Stripe', async () => {
    proxy.mode({ status: 429, error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many' } });
    await expect(gateway.charge(chargeRequest())).rejects.toBeInstanceOf(GatewayUnavailableError);
    proxy.mode({ status: 503, error: { type: 'api_error', message: 'Unavailable' } });
    await expect(gateway.refund({ chargeId: 'pi_1', amount: 1, idempotencyKey: 'r:503' })).rejects.toBeInstanceOf(
      GatewayUnavailableError,
    );
    process.env.STRIPE_API_BASE = `http://127.0.0.1:${await freePort()}`;
    try {
      const closed = await createGateways(app.prisma).gatewayFor(accountId);
      await expect(closed.charge(chargeRequest())).rejects.toBeInstanceOf(GatewayUnavailableError);
      await expect(closed.retrieveCharge({ idempotencyKey: 'k' })).rejects.toBeInstanceOf(GatewayUnavailableError);
    } finally {
      process.env.STRIPE_API_BASE = proxy.apiBase;
    }
  });

  it('answers a card error as failed with the decline code, and whether a retry may help from Stripe’s advice', async () => {
    proxy.mode({
      status: 402,
      error: { type: 'card_error', code: 'card_declined', message: 'Your card has insufficient funds.' },
    });
    const declined = (body: object) => {
      proxy.mode({ status: 402, error: { type: 'card_error', message: 'Declined', ...body } });
      return gateway.charge(chargeRequest());
    };
    expect(await declined({ code: 'card_declined', decline_code: 'insufficient_funds' })).toMatchObject({
      status: 'failed',
      failureCode: 'insufficient_funds',
      declineCode: 'insufficient_funds',
      retryable: true,
    });
    expect(await declined({ code: 'card_declined', decline_code: 'stolen_card' })).toMatchObject({
      status: 'failed',
      failureCode: 'card_declined',
      declineCode: 'stolen_card',
      retryable: false,
    });
    expect(
      await declined({ code: 'card_declined', decline_code: 'generic_decline', advice_code: 'do_not_try_again' }),
    ).toMatchObject({ failureCode: 'card_declined', retryable: false });
    expect(await declined({ code: 'expired_card' })).toMatchObject({ failureCode: 'expired_card', retryable: false });
  });

  it('throws GatewayRequestError when Stripe refuses the call itself', async () => {
    proxy.mode({
      status: 400,
      error: {
        type: 'idempotency_error',
        message: 'Keys for idempotent requests can only be used with the same parameters',
      },
    });
    await expect(gateway.charge(chargeRequest())).rejects.toBeInstanceOf(GatewayRequestError);
    proxy.mode({
      status: 404,
      error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such payment_method' },
    });
    await expect(
      attachStripePaymentMethod(app.prisma, accountId, { paymentMethodId: 'pm_nope', customerId }),
    ).rejects.toMatchObject({ code: 'payment_method_unknown' });
  });

  it("another account's adapter never uses this account's key", async () => {
    const other = await createTestAccount(app.prisma, { name: 'Not on Stripe' });
    const otherApi = apiClient(app.baseUrl, (await createApiKey(app.prisma, other.accountId, 'developer')).api_key);
    expectStatus(
      await otherApi.put('/settings/gateway', {
        processor: 'stripe',
        secret_key: 'sk_test_OtherAccount99',
        webhook_secret: 'whsec_Other',
      }),
      200,
    );
    await (await createGateways(app.prisma).gatewayFor(other.accountId)).charge(chargeRequest());
    await gateway.charge(chargeRequest());
    const [otherCharge, ownCharge] = proxy.requests.filter((sent) => sent.path === '/v1/payment_intents');
    expect(String(otherCharge!.headers.authorization)).toBe('Bearer sk_test_OtherAccount99');
    expect(String(ownCharge!.headers.authorization)).toBe('Bearer sk_test_AdapterKey1234');
  });
});

describe('Stripe statuses as the port results (docs/decisions.md)', () => {
  const intent = (fields: object) => ({ id: 'pi_1', object: 'payment_intent', ...fields }) as never;
  it('maps every PaymentIntent status', () => {
    expect(paymentIntentResult(intent({ status: 'succeeded' }))).toEqual({ status: 'succeeded', chargeId: 'pi_1' });
    expect(paymentIntentResult(intent({ status: 'processing' }))).toEqual({ status: 'pending', chargeId: 'pi_1' });
    expect(
      paymentIntentResult(
        intent({
          status: 'requires_action',
          next_action: { redirect_to_url: { url: 'https://hooks.stripe.com/3ds' } },
        }),
      ),
    ).toEqual({ status: 'requires_action', chargeId: 'pi_1', actionUrl: 'https://hooks.stripe.com/3ds' });
    expect(
      paymentIntentResult(
        intent({
          status: 'requires_payment_method',
          last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'No funds' },
        }),
      ),
    ).toEqual({
      status: 'failed',
      chargeId: 'pi_1',
      failureCode: 'insufficient_funds',
      declineCode: 'insufficient_funds',
      failureMessage: 'No funds',
      retryable: true,
    });
    expect(paymentIntentResult(intent({ status: 'canceled', cancellation_reason: 'abandoned' }))).toMatchObject({
      status: 'failed',
      failureCode: 'payment_canceled',
      retryable: false,
    });
    for (const status of ['requires_confirmation', 'requires_capture', 'a_status_from_the_future'])
      expect(paymentIntentResult(intent({ status }))).toMatchObject({ status: 'unknown' });
  });

  it('maps every refund status', () => {
    const refund = (fields: object) => ({ id: 're_1', object: 'refund', ...fields }) as never;
    expect(refundResult(refund({ status: 'succeeded' }))).toEqual({ status: 'succeeded', refundId: 're_1' });
    expect(refundResult(refund({ status: 'pending' }))).toEqual({ status: 'pending', refundId: 're_1' });
    expect(refundResult(refund({ status: 'failed', failure_reason: 'expired_or_canceled_card' }))).toMatchObject({
      status: 'failed',
      failureCode: 'expired_or_canceled_card',
    });
    expect(refundResult(refund({ status: 'odd' }))).toMatchObject({ status: 'unknown' });
  });
});
