import type Stripe from 'stripe';
import { eventsOf, expectStatus, type ApiClient, type TestApp } from '../support/harness';
import { cardBody, CARDS, createCustomer, simpleInvoice } from '../support/payments';
import { startLocalstripeWorld, type LocalstripeWorld } from '../support/stripe-accounts';
import { stripeToolMissing } from '../support/stripe-tools';

/**
 * An account connected to Stripe collects payment methods through Stripe only (docs/api.md, "Payment
 * processors"), through the API against localstripe (which keeps state and answers Stripe's test ids): raw
 * numbers are refused; POST /payment-methods/{id}/attach takes a Stripe id (here Stripe's test id
 * `pm_card_visa`), attaches it to a Stripe customer and keeps what Stripe says of it; an invoice is paid with it
 * and refunded through Stripe; detach, and deleting the customer, detach it at Stripe too. Another account never reaches it.
 */
const missing = stripeToolMissing('localstripe');
if (missing) console.warn(`test/stripe-gateway/stripe-payment-methods-api.test.ts skipped: ${missing}`);
const describeWithLocalstripe = missing ? describe.skip : describe;

describeWithLocalstripe('payment methods of an account on Stripe', () => {
  let world: LocalstripeWorld;
  let app: TestApp;
  let accountId: string;
  let api: ApiClient;
  let other: ApiClient;
  let stripe: Stripe;

  beforeAll(async () => {
    world = await startLocalstripeWorld('On Stripe', {
      secretKey: 'sk_test_PaymentMethods1',
      publishableKey: 'pk_test_PaymentMethods1',
    });
    ({ app, accountId, api, other, stripe } = world);
  });
  afterAll(() => world?.close());

  it('refuses raw card numbers with a 400 naming the card, and keeps nothing', async () => {
    const customer = await createCustomer(api);
    const refused = await api.post('/payment-methods', { ...cardBody(CARDS.succeeds), customer: customer.id });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'raw_numbers_refused', param: 'card' });
    expect(refused.body.error.message).toContain('Stripe.js');
    expect(await app.prisma.paymentMethod.count({ where: { accountId } })).toBe(0);
  });

  it('attaches a Stripe method by id, with what Stripe says of it; pays an invoice with it and refunds it at Stripe', async () => {
    const customer = await createCustomer(api);
    const attached = expectStatus(
      await api.post('/payment-methods/pm_card_visa/attach', { customer: customer.id }),
      200,
    );
    expect(attached).toMatchObject({
      object: 'payment_method',
      type: 'card',
      customer: customer.id,
      livemode: false,
      card: { brand: 'visa', last4: '4242', walletType: null },
    });
    expect(attached.id).toMatch(/^pm_/);
    expect(attached.id).not.toBe('pm_card_visa');
    // Stripe has it on the Stripe customer made for this customer.
    const atStripe = await stripe.paymentMethods.retrieve(attached.id);
    expect(atStripe.customer).toEqual(expect.stringMatching(/^cus_/));
    expect(expectStatus(await api.get(`/payment-methods/${attached.id}`), 200)).toMatchObject({ id: attached.id });
    expect((await eventsOf(app.prisma, accountId, 'payment_method.attached')).length).toBeGreaterThan(0);

    const invoice = await simpleInvoice(api, customer.id, 4200);
    const paid = expectStatus(await api.put(`/invoices/${invoice.id}`), 200);
    expect(paid).toMatchObject({ status: 'paid', amount_paid: 4200, payment_method: attached.id });
    const [payment] = (await api.get(`/transactions?invoice=${invoice.id}`)).body.data;
    expect(payment).toMatchObject({ type: 'payment', status: 'succeeded', amount: 4200 });
    const intent = await stripe.paymentIntents.retrieve(payment.gateway_reference);
    expect(intent).toMatchObject({ amount: 4200, currency: 'usd', status: 'succeeded' });

    const refund = expectStatus(await api.post(`/invoices/${invoice.id}/refund`, { amount: 1000 }), 201);
    expect(refund).toMatchObject({ type: 'refund', status: 'succeeded', amount: -1000 });
    const refunds = await stripe.refunds.list({ payment_intent: intent.id });
    expect(refunds.data.map((each) => each.amount)).toEqual([1000]);
  });

  it('answers 404 naming the customer before asking Stripe, and 400 naming the method Stripe declines', async () => {
    const unknownCustomer = await api.post('/payment-methods/pm_card_visa/attach', { customer: 'cus_missing' });
    expect(unknownCustomer.status).toBe(404);
    expect(unknownCustomer.body.error.param).toBe('customer');
    const customer = await createCustomer(api);
    const declined = await api.post('/payment-methods/pm_card_visa_chargeDeclined/attach', { customer: customer.id });
    expect(declined.status).toBe(400);
    expect(declined.body.error).toMatchObject({ param: 'id', code: 'card_declined' });
    expect(await app.prisma.paymentMethod.count({ where: { accountId, customerId: customer.id } })).toBe(0);
  });

  it("is another account's 404, never attachable to its customers", async () => {
    const customer = await createCustomer(api);
    const method = expectStatus(await api.post('/payment-methods/pm_card_visa/attach', { customer: customer.id }), 200);
    expect((await other.get(`/payment-methods/${method.id}`)).status).toBe(404);
    const otherCustomer = await createCustomer(other);
    // The other account is on the simulator: a Stripe id it never made is unknown to it.
    expect((await other.post(`/payment-methods/${method.id}/attach`, { customer: otherCustomer.id })).status).toBe(404);
    // And this account cannot attach to the other's customer.
    const crossed = await api.post('/payment-methods/pm_card_visa/attach', { customer: otherCustomer.id });
    expect(crossed.status).toBe(404);
    expect(crossed.body.error.param).toBe('customer');
  });

  it('detaches at Stripe too', async () => {
    const customer = await createCustomer(api);
    const method = expectStatus(await api.post('/payment-methods/pm_card_visa/attach', { customer: customer.id }), 200);
    expect(expectStatus(await api.post(`/payment-methods/${method.id}/detach`), 200)).toMatchObject({ customer: null });
    expect((await stripe.paymentMethods.retrieve(method.id)).customer).toBeNull();
  });

  it("deleting the customer detaches its methods at Stripe too; another account's delete reaches nothing", async () => {
    const customer = await createCustomer(api);
    const first = expectStatus(await api.post('/payment-methods/pm_card_visa/attach', { customer: customer.id }), 200);
    const second = expectStatus(await api.post('/payment-methods/pm_card_visa/attach', { customer: customer.id }), 200);
    expect((await other.delete(`/customers/${customer.id}`)).status).toBe(404);
    expect((await stripe.paymentMethods.retrieve(first.id)).customer).toEqual(expect.stringMatching(/^cus_/));

    expect(expectStatus(await api.delete(`/customers/${customer.id}`), 200)).toMatchObject({ deleted: true });
    for (const method of [first, second]) {
      expect((await stripe.paymentMethods.retrieve(method.id)).customer).toBeNull();
      expect(expectStatus(await api.get(`/payment-methods/${method.id}`), 200)).toMatchObject({ customer: null });
    }
  });
});
