import '../../src/gateway-registrations';
import { createGateways } from '../../src/payments/gateways';
import type { PaymentGateway } from '../../src/payments/gateway';
import { attachStripePaymentMethod } from '../../src/stripe-gateway/stripe-payment-methods';
import { apiClient, createTestAccount, expectStatus, startTestApp, type TestApp } from '../support/harness';
import { createCustomer } from '../support/payments';
import { startLocalstripe, stripeToolMissing, type StripeStandIn } from '../support/stripe-tools';

/**
 * The Stripe adapter's flows against localstripe, which keeps state and declines Stripe's decline test
 * cards: attach pm_card_visa, charge it, refund it; attach pm_card_chargeCustomerFail and see its charge
 * declined. Where localstripe falls short of Stripe (docs/api.md, "Payment processors"): no PaymentIntent
 * search (retrieveCharge by key finds a charge among its customer's PaymentIntents here, a list the stand-in
 * filters as Stripe does; the search only works against Stripe and stripe-mock), no decline_code or PaymentIntent
 * in a decline's error, no /v1/account, no `automatic_payment_methods` (the stand-in drops it), and it
 * ignores Idempotency-Key (a second charge under the same key makes a second PaymentIntent, where Stripe
 * answers the first again: that the adapter sends the key is checked against stripe-mock), and it refunds more
 * than what is left of a charge.
 */
const missing = stripeToolMissing('localstripe');
if (missing) console.warn(`test/stripe-gateway/stripe-localstripe.test.ts skipped: ${missing}`);
const describeWithLocalstripe = missing ? describe.skip : describe;

describeWithLocalstripe('Stripe adapter against localstripe', () => {
  let app: TestApp;
  let localstripe: StripeStandIn;
  let accountId: string;
  let customerId: string;
  let gateway: PaymentGateway;
  const apiBaseBefore = process.env.STRIPE_API_BASE;

  beforeAll(async () => {
    localstripe = await startLocalstripe();
    process.env.STRIPE_API_BASE = localstripe.apiBase;
    app = await startTestApp();
    const account = await createTestAccount(app.prisma, { name: 'On localstripe' });
    accountId = account.accountId;
    const api = apiClient(app.baseUrl, account.apiKey);
    expectStatus(
      await api.put('/settings/gateway', {
        processor: 'stripe',
        secret_key: 'sk_test_Localstripe1',
        webhook_secret: 'whsec_Localstripe',
      }),
      200,
    );
    customerId = (await createCustomer(api)).id;
    gateway = await createGateways(app.prisma).gatewayFor(accountId);
  });
  afterAll(async () => {
    process.env.STRIPE_API_BASE = apiBaseBefore;
    await app?.close();
    await localstripe?.stop();
  });

  const charge = (paymentMethodId: string, idempotencyKey: string, amount = 4200) =>
    gateway.charge({
      amount,
      currency: 'usd',
      paymentMethod: { id: paymentMethodId, accountId, type: 'card', customerId },
      idempotencyKey,
      metadata: { invoice_id: 'in_local' },
    });

  it('attaches pm_card_visa, charges it, and refunds it in part', async () => {
    const method = await attachStripePaymentMethod(app.prisma, accountId, {
      paymentMethodId: 'pm_card_visa',
      customerId,
    });
    expect(method).toMatchObject({ type: 'card', livemode: false, last4: '4242', card: { brand: 'visa' } });
    expect(method.id).toMatch(/^pm_/);

    const paid = await charge(method.id, 'charge:in_local:1');
    expect(paid).toEqual({ status: 'succeeded', chargeId: expect.stringMatching(/^pi_/) });
    const chargeId = (paid as { chargeId: string }).chargeId;
    expect(await gateway.retrieveCharge({ idempotencyKey: 'charge:in_local:1', chargeId })).toEqual(paid);

    const refunded = await gateway.refund({ chargeId, amount: 1200, idempotencyKey: 'refund:cn_local' });
    expect(refunded).toEqual({ status: 'succeeded', refundId: expect.stringMatching(/^re_/) });
    const refundId = (refunded as { refundId: string }).refundId;
    expect(await gateway.retrieveRefund({ idempotencyKey: 'refund:cn_local', refundId })).toEqual(refunded);
  });

  it("finds a charge whose answer was not kept among the customer's PaymentIntents by its key; null for a key never sent", async () => {
    const method = await attachStripePaymentMethod(app.prisma, accountId, {
      paymentMethodId: 'pm_card_visa',
      customerId,
    });
    const sentTo = { paymentMethod: { id: method.id, accountId, type: 'card', customerId }, openedAt: new Date() };
    expect(await gateway.retrieveCharge({ idempotencyKey: 'charge:in_local:3', sentTo })).toBeNull();
    const paid = await charge(method.id, 'charge:in_local:3', 1500);
    expect(await gateway.retrieveCharge({ idempotencyKey: 'charge:in_local:3', sentTo })).toEqual(paid);
    expect(await gateway.retrieveCharge({ idempotencyKey: 'charge:in_local:1', sentTo })).toMatchObject({
      status: 'succeeded',
    });
  });

  it('declines pm_card_chargeCustomerFail: failed card_declined, not retryable', async () => {
    const method = await attachStripePaymentMethod(app.prisma, accountId, {
      paymentMethodId: 'pm_card_chargeCustomerFail',
      customerId,
    });
    expect(await charge(method.id, 'charge:in_local:2')).toMatchObject({
      status: 'failed',
      failureCode: 'card_declined',
      retryable: false,
    });
  });

  it('refuses a card Stripe declines at attach (pm_card_visa_chargeDeclined) with the decline as the code', async () => {
    await expect(
      attachStripePaymentMethod(app.prisma, accountId, { paymentMethodId: 'pm_card_visa_chargeDeclined', customerId }),
    ).rejects.toMatchObject({ code: 'card_declined' });
  });
});
