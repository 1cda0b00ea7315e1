import Stripe from 'stripe';
import { createGateways } from '../../src/payments/gateways';
import { IDEMPOTENCY_METADATA_KEY } from '../../src/stripe-gateway/stripe-gateway';
import { paymentIntentResult } from '../../src/stripe-gateway/stripe-outcomes';
import { eventsOf, expectStatus, startTestApp, type ApiClient, type TestApp } from '../support/harness';
import { createCustomer, simpleInvoice } from '../support/payments';
import { webhookConnectedAccount, type WebhookConnectedAccount } from '../support/stripe-accounts';
import {
  startStripeMock,
  startStripeProxy,
  stripeToolMissing,
  type ProxiedRequest,
  type StripeProxy,
  type StripeStandIn,
} from '../support/stripe-tools';

/**
 * US bank accounts on Stripe (docs/decisions.md §40, §41): a `us_bank_account` method attached with its bank's
 * details, debited as an off-session PaymentIntent of that method type alone, which Stripe holds `processing` for
 * days: the invoice stays open with its payment pending until Stripe's signed event says paid or returned (an ACH
 * return as the service's `bank_return_R01`...). Every request is validated by stripe-mock; its fixtures are
 * cards and `requires_payment_method` PaymentIntents, so the proxy answers what Stripe answers for a bank account
 * (the request still checked). Another account's webhook URL settles nothing of this one.
 */
const missing = stripeToolMissing('stripe-mock');
if (missing) console.warn(`test/stripe-gateway/stripe-bank-debits.test.ts skipped: ${missing}`);
const describeWithStripeMock = missing ? describe.skip : describe;

const signer = new Stripe('sk_test_signing_only');

const BANK = {
  bank_name: 'STRIPE TEST BANK',
  last4: '6789',
  routing_number: '110000000',
  account_holder_type: 'company',
  account_type: 'savings',
};

/** The metadata a form-encoded request sent (`metadata[invoice_id]` as `invoice_id`). */
function metadataOf(request: ProxiedRequest): Record<string, string> {
  return Object.fromEntries(
    Object.entries(request.form)
      .filter(([key]) => key.startsWith('metadata['))
      .map(([key, value]) => [key.slice('metadata['.length, -1), value]),
  );
}

describeWithStripeMock('US bank debits through Stripe', () => {
  let app: TestApp;
  let stripeMock: StripeStandIn;
  let proxy: StripeProxy;
  const apiBaseBefore = process.env.STRIPE_API_BASE;
  const accounts: Record<'a' | 'b', WebhookConnectedAccount> = {} as never;
  /** The PaymentIntents Stripe made, as it would answer them while the bank holds the debit. */
  const intents = new Map<string, Record<string, unknown>>();

  /** What Stripe answers for a bank account where stripe-mock answers its card and unconfirmed fixtures. */
  function asStripeAnswersBankDebits(answer: any, request: ProxiedRequest): any {
    const path = request.path.split('?')[0]!;
    const attached = /^\/v1\/payment_methods\/([^/]+)\/attach$/.exec(path);
    if (attached) {
      return {
        ...answer,
        id: attached[1],
        type: 'us_bank_account',
        card: undefined,
        billing_details: { ...answer.billing_details, name: 'Ada Lovelace' },
        us_bank_account: {
          ...BANK,
          fingerprint: `fp_${attached[1]}`,
          networks: { preferred: 'ach', supported: ['ach'] },
        },
      };
    }
    if (request.method === 'POST' && path === '/v1/payment_intents') {
      const intent = {
        ...answer,
        id: `pi_bank_${intents.size + 1}`,
        status: 'processing',
        amount: Number(request.form.amount),
        currency: request.form.currency,
        payment_method: request.form.payment_method,
        payment_method_types: ['us_bank_account'],
        allowed_payment_method_types: ['us_bank_account'],
        metadata: metadataOf(request),
      };
      intents.set(intent.id, intent);
      return intent;
    }
    const retrieved = /^\/v1\/payment_intents\/(pi_bank_\d+)$/.exec(path);
    if (request.method === 'GET' && retrieved) return intents.get(retrieved[1]!) ?? answer;
    return answer;
  }

  beforeAll(async () => {
    stripeMock = await startStripeMock();
    proxy = await startStripeProxy(stripeMock.apiBase);
    proxy.mode({ reshape: asStripeAnswersBankDebits });
    process.env.STRIPE_API_BASE = proxy.apiBase;
    app = await startTestApp();
    accounts.a = await webhookConnectedAccount(app, 'Bank debits A');
    accounts.b = await webhookConnectedAccount(app, 'Bank debits B');
  });
  afterAll(async () => {
    process.env.STRIPE_API_BASE = apiBaseBefore;
    await app?.close();
    await proxy?.close();
    await stripeMock?.stop();
  });

  let sequence = 0;
  /** Stripe's event about the PaymentIntent, signed with the secret given, posted to the webhook path given. */
  async function deliver(path: string, secret: string, type: string, intent: object, eventId?: string) {
    sequence += 1;
    const payload = JSON.stringify({
      id: eventId ?? `evt_bank_${sequence}_${Date.now()}`,
      object: 'event',
      type,
      livemode: false,
      created: Math.floor(Date.now() / 1000),
      api_version: '2026-08-26.dahlia',
      data: { object: intent },
    });
    const response = await fetch(`${app.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': signer.webhooks.generateTestHeaderString({ payload, secret }),
      },
      body: payload,
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  const intentCreations = () =>
    proxy.requests.filter((request) => request.method === 'POST' && request.path === '/v1/payment_intents');

  async function bankAccountOf(api: ApiClient, id: string) {
    const customer = await createCustomer(api);
    const method = expectStatus(await api.post(`/payment-methods/${id}/attach`, { customer: customer.id }), 200);
    return { customer, method };
  }

  /** An invoice debited from a new bank account: answered open, its payment pending under Stripe's PaymentIntent. */
  async function debitedInvoice(methodId: string, amount: number) {
    const { api, accountId } = accounts.a;
    const { customer } = await bankAccountOf(api, methodId);
    const invoice = await simpleInvoice(api, customer.id, amount);
    const before = intentCreations().length;
    const paying = expectStatus(await api.put(`/invoices/${invoice.id}`), 200);
    expect(paying).toMatchObject({ status: 'open', paid: false, amount_paid: 0 });
    expect(intentCreations()).toHaveLength(before + 1);
    const [payment] = expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200).data;
    expect(payment).toMatchObject({ type: 'payment', status: 'pending', amount, failure_code: null });
    const entry = await app.prisma.transaction.findFirstOrThrow({ where: { accountId, invoiceId: invoice.id } });
    return { invoice, payment, intent: intents.get(payment.gateway_reference)!, gatewayKey: entry.gatewayKey! };
  }

  const invoiceEvents = async (type: string, invoiceId: string) =>
    (await eventsOf(app.prisma, accounts.a.accountId, type)).filter(
      (event) => (event.data as { id?: string }).id === invoiceId,
    );

  it("attaches a Stripe us_bank_account with its bank's name, last4, routing number and holder and account types", async () => {
    const { api } = accounts.a;
    const { customer, method } = await bankAccountOf(api, 'pm_bank_attach');
    const expected = {
      id: 'pm_bank_attach',
      type: 'us_bank_account',
      customer: customer.id,
      livemode: false,
      billing_details: expect.objectContaining({ name: 'Ada Lovelace' }),
      us_bank_account: expect.objectContaining({ ...BANK, fingerprint: expect.any(String) }),
    };
    expect(method).toMatchObject(expected);
    expect(method.card).toBeUndefined();
    expect(expectStatus(await api.get(`/payment-methods/${method.id}`), 200)).toMatchObject(expected);
    expect((await accounts.b.api.get(`/payment-methods/${method.id}`)).status).toBe(404);
  });

  it('debits it as an off-session PaymentIntent of us_bank_account alone: pending, told once, no second debit, then paid by the event', async () => {
    const { api, accountId, path, secret } = accounts.a;
    const { invoice, payment, intent, gatewayKey } = await debitedInvoice('pm_bank_pays', 4200);

    const sent = intentCreations().at(-1)!;
    expect(sent.answered?.status).toBe(200);
    expect(sent.form).toMatchObject({
      amount: '4200',
      currency: 'usd',
      payment_method: 'pm_bank_pays',
      'allowed_payment_method_types[0]': 'us_bank_account',
      off_session: 'true',
      confirm: 'true',
      [`metadata[${IDEMPOTENCY_METADATA_KEY}]`]: gatewayKey,
    });
    expect(Object.keys(sent.form).filter((key) => key.startsWith('automatic_payment_methods'))).toEqual([]);
    expect(payment.gateway_reference).toBe(intent.id);
    expect(await invoiceEvents('invoice.payment_processing', invoice.id)).toHaveLength(1);

    // Paying again while the bank holds it asks Stripe about the same PaymentIntent: no debit beside it.
    const creations = intentCreations().length;
    expect(expectStatus(await api.put(`/invoices/${invoice.id}`), 200)).toMatchObject({ status: 'open' });
    expect(intentCreations()).toHaveLength(creations);
    const gateway = await createGateways(app.prisma).gatewayFor(accountId);
    expect(await gateway.retrieveCharge({ idempotencyKey: gatewayKey, chargeId: intent.id as string })).toEqual({
      status: 'pending',
      chargeId: intent.id,
    });
    expect(await invoiceEvents('invoice.payment_processing', invoice.id)).toHaveLength(1);

    // B's endpoint, with B's own secret, cannot settle A's payment.
    const elsewhere = await deliver(accounts.b.path, accounts.b.secret, 'payment_intent.succeeded', {
      ...intent,
      status: 'succeeded',
    });
    expect(elsewhere.status).toBe(200);
    expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({ status: 'open' });

    const settled = await deliver(path, secret, 'payment_intent.succeeded', { ...intent, status: 'succeeded' });
    expect(settled).toEqual({ status: 200, body: { received: true, status: 'recorded' } });
    expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
      status: 'paid',
      amount_paid: 4200,
    });
    const [paid] = expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200).data;
    expect(paid).toMatchObject({ status: 'succeeded', gateway_reference: intent.id });
    expect(await invoiceEvents('invoice.payment_succeeded', invoice.id)).toHaveLength(1);
    expect(await invoiceEvents('invoice.payment_processing', invoice.id)).toHaveLength(1);
  });

  it('records a return for insufficient funds as bank_return_R01, not retryable, told once when Stripe sends the event twice', async () => {
    const { api, path, secret } = accounts.a;
    const { invoice, intent } = await debitedInvoice('pm_bank_returned', 3100);
    const returned = {
      ...intent,
      status: 'requires_payment_method',
      last_payment_error: {
        type: 'invalid_request_error',
        code: 'insufficient_funds',
        message: 'The customer’s account has insufficient funds to cover this payment.',
        payment_method: { id: 'pm_bank_returned', object: 'payment_method', type: 'us_bank_account' },
      },
    };
    // Another account's endpoint first: nothing of this invoice moves.
    expect((await deliver(accounts.b.path, accounts.b.secret, 'payment_intent.payment_failed', returned)).status).toBe(
      200,
    );
    const [stillPending] = expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200).data;
    expect(stillPending.status).toBe('pending');

    const eventId = `evt_bank_returned_${Date.now()}`;
    const first = await deliver(path, secret, 'payment_intent.payment_failed', returned, eventId);
    const again = await deliver(path, secret, 'payment_intent.payment_failed', returned, eventId);
    expect([first.body.status, again.body.status]).toEqual(['recorded', 'duplicate']);
    expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
      status: 'open',
      paid: false,
      amount_paid: 0,
    });
    const [failed] = expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200).data;
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'bank_return_R01', gateway_reference: intent.id });
    expect(await invoiceEvents('invoice.payment_failed', invoice.id)).toHaveLength(1);
    expect(await invoiceEvents('invoice.payment_succeeded', invoice.id)).toHaveLength(0);
  });

  it('reads a refusal Stripe answers at once for a bank account as its return, not as a card decline', async () => {
    const { accountId, api } = accounts.a;
    const { customer, method } = await bankAccountOf(api, 'pm_bank_refused');
    const gateway = await createGateways(app.prisma).gatewayFor(accountId);
    proxy.mode({
      status: 402,
      error: { type: 'card_error', code: 'account_closed', message: 'The account is closed.' },
    });
    try {
      const result = await gateway.charge({
        amount: 900,
        currency: 'usd',
        paymentMethod: { id: method.id, accountId, type: 'us_bank_account', customerId: customer.id },
        idempotencyKey: `charge:refused:${Date.now()}`,
      });
      expect(result).toMatchObject({ status: 'failed', failureCode: 'bank_return_R02', retryable: false });
    } finally {
      proxy.mode({ reshape: asStripeAnswersBankDebits });
    }
  });
});

describe("a us_bank_account PaymentIntent's failure as the port's result", () => {
  const failedDebit = (error: Record<string, unknown>, types = ['us_bank_account']) =>
    paymentIntentResult({
      id: 'pi_debit',
      object: 'payment_intent',
      status: 'requires_payment_method',
      payment_method_types: types,
      last_payment_error: error,
    } as unknown as Stripe.PaymentIntent);

  it.each([
    ['insufficient_funds', 'bank_return_R01'],
    ['account_closed', 'bank_return_R02'],
    ['no_account', 'bank_return_R03'],
    ['invalid_account_number', 'bank_return_R04'],
    ['account_frozen', 'bank_return_R16'],
    ['debit_not_authorized', 'bank_return'],
    ['bank_account_restricted', 'bank_return'],
  ])("Stripe's %s is %s, Stripe's code kept, never retryable", (code, failureCode) => {
    expect(failedDebit({ code, message: 'Returned.' })).toEqual({
      status: 'failed',
      chargeId: 'pi_debit',
      failureCode,
      declineCode: code,
      failureMessage: 'Returned.',
      retryable: false,
    });
  });

  it('reads the failed method when the PaymentIntent allowed others too; a card there is still a decline', () => {
    const bank = { code: 'account_closed', payment_method: { type: 'us_bank_account' } };
    expect(failedDebit(bank, ['card', 'us_bank_account'])).toMatchObject({ failureCode: 'bank_return_R02' });
    const card = { code: 'card_declined', decline_code: 'insufficient_funds', payment_method: { type: 'card' } };
    expect(failedDebit(card, ['card', 'us_bank_account'])).toMatchObject({
      failureCode: 'insufficient_funds',
      retryable: true,
    });
  });

  it("falls back to the expanded charge's failure_code, and to the generic return without one", () => {
    expect(
      paymentIntentResult({
        id: 'pi_debit',
        status: 'requires_payment_method',
        payment_method_types: ['us_bank_account'],
        last_payment_error: null,
        latest_charge: { id: 'py_1', failure_code: 'no_account', failure_message: 'No account.' },
      } as unknown as Stripe.PaymentIntent),
    ).toMatchObject({ failureCode: 'bank_return_R03', declineCode: 'no_account', retryable: false });
    expect(failedDebit({})).toMatchObject({ failureCode: 'bank_return', retryable: false });
  });
});
