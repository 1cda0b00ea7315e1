import Stripe from 'stripe';
import { createTestAccount, apiClient, type ApiClient } from '../support/harness';
import { createCustomer } from '../support/payments';
import {
  eventually,
  expectStatus,
  getPlan,
  startPlanWorld,
  terminalDepositWaiting,
  type PlanWorld,
} from '../support/payment-plans';
import {
  startStripeMock,
  startStripeProxy,
  stripeToolMissing,
  type StripeProxy,
  type StripeStandIn,
} from '../support/stripe-tools';

/**
 * Card-terminal payments of payment plans on an account connected to Stripe (docs/decisions.md §47): readers
 * registered at the account's Location, sales as card_present PaymentIntents processed by the reader, cancels,
 * Stripe's present-card test helper, all against stripe-mock through the recording proxy; outcomes from signed
 * webhook events the test sends (stripe-mock sends none), recorded as the terminal's report.
 */
const missing = stripeToolMissing('stripe-mock');
if (missing) console.warn(`test/stripe-gateway/stripe-terminal.test.ts skipped: ${missing}`);
const describeWithStripeMock = missing ? describe.skip : describe;

const signer = new Stripe('sk_test_signing_only');

describeWithStripeMock('Stripe Terminal sales of payment plans', () => {
  let world: PlanWorld;
  let stripeMock: StripeStandIn;
  let proxy: StripeProxy;
  const apiBaseBefore = process.env.STRIPE_API_BASE;
  const accounts: Record<'a' | 'b', { api: ApiClient; url: string; secret: string }> = {} as never;

  beforeAll(async () => {
    stripeMock = await startStripeMock();
    proxy = await startStripeProxy(stripeMock.apiBase);
    process.env.STRIPE_API_BASE = proxy.apiBase;
    world = await startPlanWorld();
    const other = await createTestAccount(world.app.prisma, { paymentPlans: true, name: 'Other Co' });
    const apis = { a: world.api, b: apiClient(world.app.baseUrl, other.apiKey) };
    for (const name of ['a', 'b'] as const) {
      const secret = `whsec_Terminal${name.toUpperCase()}0123456789`;
      const settings = expectStatus(
        await apis[name].put('/settings/gateway', {
          processor: 'stripe',
          secret_key: `sk_test_Terminal${name}`,
          webhook_secret: secret,
        }),
        200,
      );
      accounts[name] = { api: apis[name], url: new URL(settings.webhook_url).pathname, secret };
    }
  });
  afterAll(async () => {
    process.env.STRIPE_API_BASE = apiBaseBefore;
    await world?.close();
    await proxy?.close();
    await stripeMock?.stop();
  });

  const sent = (method: string, path: RegExp) =>
    proxy.requests.filter((request) => request.method === method && path.test(request.path.split('?')[0]!));

  let sequence = 0;
  /** Posts a Stripe event signed with `secret` to `url` (an account's processor-webhook endpoint). */
  async function deliver(url: string, secret: string, type: string, object: object) {
    sequence += 1;
    const payload = JSON.stringify({
      id: `evt_terminal_${sequence}_${Date.now()}`,
      object: 'event',
      type,
      livemode: false,
      created: Math.floor(Date.now() / 1000),
      api_version: '2026-08-26.dahlia',
      data: { object },
    });
    const response = await fetch(`${world.app.baseUrl}${url}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': signer.webhooks.generateTestHeaderString({ payload, secret }),
      },
      body: payload,
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  const intentOf = (sale: { id: string; processorReference: string | null }, status: string, fields = {}) => ({
    id: sale.processorReference,
    object: 'payment_intent',
    status,
    amount: 100,
    currency: 'usd',
    payment_method_types: ['card_present'],
    metadata: { terminal_sale_id: sale.id },
    ...fields,
  });

  async function terminalOf(api: ApiClient) {
    const terminal = expectStatus(await api.post('/terminals', { label: 'Front desk' }), 201);
    return { terminal, row: await world.app.prisma.terminal.findUniqueOrThrow({ where: { id: terminal.id } }) };
  }

  /** A plan without a card (300 over 3) whose deposit sale was sent to a new reader of the account. */
  async function depositOnReader() {
    const before = proxy.requests.length;
    const { customer, terminal, plan, paymentId } = await terminalDepositWaiting(world.api);
    const requests = proxy.requests.slice(before);
    const sale = await world.app.prisma.terminalSale.findUniqueOrThrow({ where: { paymentId } });
    const { readerId } = await world.app.prisma.terminal.findUniqueOrThrow({ where: { id: terminal.id } });
    return { customer, terminal, readerId: readerId!, plan, paymentId, sale, requests };
  }

  const attemptOf = async (planId: string) => (await getPlan(world.api, planId)).deposit.attempt;

  it("registers a reader at the account's Location (made once) and keeps its id on the terminal", async () => {
    const before = proxy.requests.length;
    const first = await terminalOf(world.api);
    const second = await terminalOf(world.api);
    const requests = proxy.requests.slice(before);
    expect(requests.filter((request) => request.path === '/v1/terminal/locations')).toHaveLength(1);
    const readers = requests.filter((request) => request.path === '/v1/terminal/readers');
    expect(readers).toHaveLength(2);
    const location = requests.find((request) => request.path === '/v1/terminal/locations')!.answered!.body.id;
    expect(readers[0]!.form).toMatchObject({
      registration_code: 'simulated-wpe',
      location,
      label: 'Front desk',
      'metadata[billing_terminal_id]': first.terminal.id,
    });
    expect(readers[1]!.form.location).toBe(location);
    expect(first.row.readerId).toBe(readers[0]!.answered!.body.id);
    expect(second.row.readerId).toMatch(/^tmr_/);
    expect(first.terminal).toMatchObject({ object: 'terminal', status: 'idle', current_sale: null });

    const given = expectStatus(
      await world.api.post('/terminals', { label: 'Back', registration_code: 'apple-pie' }),
      201,
    );
    expect(proxy.requests.at(-1)!.form.registration_code).toBe('apple-pie');
    expect(given.label).toBe('Back');
    expect((await world.api.post('/terminals', { label: 'x', registration_code: '' })).body.error.param).toBe(
      'registration_code',
    );
    // Another account's key never sees the terminal.
    expect((await accounts.b.api.get(`/terminals/${first.terminal.id}`)).status).toBe(404);
  });

  it('a sale is a card_present PaymentIntent the reader processes; succeeded with a generated card: paid, card saved', async () => {
    const { customer, readerId, plan, paymentId, sale, requests, terminal } = await depositOnReader();
    const [create] = requests.filter((request) => request.path === '/v1/payment_intents');
    expect(create!.form).toMatchObject({
      amount: '100',
      currency: 'usd',
      'payment_method_types[0]': 'card_present',
      'metadata[payment_plan_id]': plan.id,
      'metadata[terminal_sale_id]': sale.id,
    });
    expect(create!.headers['idempotency-key']).toBe(`payment-plan:${plan.id}:terminal-sale:${sale.id}`);
    const processed = requests.filter(
      (request) => request.path === `/v1/terminal/readers/${readerId}/process_payment_intent`,
    );
    expect(processed).toHaveLength(1);
    expect(processed[0]!.form.payment_intent).toBe(sale.processorReference);
    expect(sale.processorReference).toBe(create!.answered!.body.id);
    expect(await attemptOf(plan.id)).toMatchObject({ payment: paymentId, state: 'waiting' });

    // Stripe's test helper presents its test card to the simulated reader; the outcome comes with the event.
    const presented = expectStatus(
      await world.api.post(`/test-helpers/terminals/${terminal.id}/present-card`, { outcome: 'approved' }),
      200,
    );
    expect(presented).toMatchObject({ id: paymentId, status: 'processing', terminal: { state: 'waiting' } });
    expect(
      sent('POST', new RegExp(`^/v1/test_helpers/terminal/readers/${readerId}/present_payment_method$`)),
    ).toHaveLength(1);

    proxy.answer('/v1/charges/ch_terminal1', {
      id: 'ch_terminal1',
      object: 'charge',
      payment_method_details: { type: 'card_present', card_present: { generated_card: 'pm_generated1' } },
    });
    const delivered = await deliver(
      accounts.a.url,
      accounts.a.secret,
      'payment_intent.succeeded',
      intentOf(sale, 'succeeded', { latest_charge: 'ch_terminal1' }),
    );
    expect(delivered).toEqual({ status: 200, body: { received: true, status: 'recorded' } });
    expect(sent('POST', /^\/v1\/payment_methods\/pm_generated1\/attach$/)).toHaveLength(1);
    const paid = await eventually(
      () => getPlan(world.api, plan.id),
      (read) => read.status === 'active',
    );
    expect(paid).toMatchObject({
      deposit: { status: 'paid', attempt: { state: 'approved' } },
      payment_method: 'pm_generated1',
    });
    const methods = expectStatus(await world.api.get(`/customers/${customer.id}/payment-methods`), 200);
    expect(methods.data.map((method: any) => method.id)).toEqual(['pm_generated1']);
    expect(expectStatus(await world.api.get(`/terminals/${terminal.id}`), 200).status).toBe('idle');

    // Stripe delivers at least once: the same outcome again changes nothing.
    const again = await deliver(
      accounts.a.url,
      accounts.a.secret,
      'payment_intent.succeeded',
      intentOf(sale, 'succeeded'),
    );
    expect(again.status).toBe(200);
    expect((await getPlan(world.api, plan.id)).amount_paid).toBe(100);
  });

  it('succeeded without a generated card: approved_no_credential', async () => {
    const { plan, sale } = await depositOnReader();
    proxy.answer('/v1/charges/ch_terminal2', {
      id: 'ch_terminal2',
      object: 'charge',
      payment_method_details: { type: 'card_present', card_present: { generated_card: null } },
    });
    await deliver(
      accounts.a.url,
      accounts.a.secret,
      'payment_intent.succeeded',
      intentOf(sale, 'succeeded', { latest_charge: 'ch_terminal2' }),
    );
    const attempt = await eventually(
      () => attemptOf(plan.id),
      (read) => read.state !== 'waiting',
    );
    expect(attempt).toMatchObject({ state: 'approved_no_credential', status: 'succeeded' });
  });

  it('payment_failed: the deposit is declined and free to try again', async () => {
    const { plan, sale, terminal } = await depositOnReader();
    await deliver(
      accounts.a.url,
      accounts.a.secret,
      'payment_intent.payment_failed',
      intentOf(sale, 'requires_payment_method', { last_payment_error: { code: 'card_declined', message: 'Declined' } }),
    );
    const attempt = await eventually(
      () => attemptOf(plan.id),
      (read) => read.state !== 'waiting',
    );
    expect(attempt).toMatchObject({ state: 'declined', status: 'failed' });
    expect((await getPlan(world.api, plan.id)).deposit.status).toBe('unpaid');
    expect(expectStatus(await world.api.get(`/terminals/${terminal.id}`), 200).status).toBe('idle');
  });

  it("cancel: the reader's action and the PaymentIntent are cancelled at Stripe, the sale ends cancelled", async () => {
    const { plan, sale, readerId } = await depositOnReader();
    expectStatus(await world.api.post(`/payment-plans/${plan.id}/deposit/cancel`), 202);
    const attempt = await eventually(
      () => attemptOf(plan.id),
      (read) => read.state !== 'waiting',
    );
    expect(attempt).toMatchObject({ state: 'cancelled' });
    expect(sent('POST', new RegExp(`^/v1/terminal/readers/${readerId}/cancel_action$`))).toHaveLength(1);
    expect(sent('POST', new RegExp(`^/v1/payment_intents/${sale.processorReference}/cancel$`)).length).toBeGreaterThan(
      0,
    );
  });

  it("a reader's failed action leaves the sale resolving; its outcome is then asked of Stripe (the PaymentIntent)", async () => {
    const { plan, sale, readerId } = await depositOnReader();
    await deliver(accounts.a.url, accounts.a.secret, 'terminal.reader.action_failed', {
      id: readerId,
      object: 'terminal.reader',
      action: {
        type: 'process_payment_intent',
        status: 'failed',
        failure_code: 'terminal_reader_timeout',
        process_payment_intent: { payment_intent: sale.processorReference },
      },
    });
    expect(
      await eventually(
        () => attemptOf(plan.id),
        (read) => read.state !== 'waiting',
      ),
    ).toMatchObject({ state: 'resolving' });
    proxy.answer(`/v1/payment_intents/${sale.processorReference}`, intentOf(sale, 'succeeded'));
    try {
      expectStatus(await world.api.post(`/payment-plans/${plan.id}/deposit`, {}), 200);
      const attempt = await eventually(
        () => attemptOf(plan.id),
        (read) => read.state !== 'resolving',
      );
      expect(attempt).toMatchObject({ state: 'approved_no_credential', status: 'succeeded' });
    } finally {
      proxy.answer(`/v1/payment_intents/${sale.processorReference}`, null);
    }
    expect(sent('GET', new RegExp(`^/v1/payment_intents/${sale.processorReference}$`)).length).toBeGreaterThan(0);
  });

  it('a sale Stripe refuses never started: it ends cancelled, the terminal is free, the refusal answered 400', async () => {
    const customer = await createCustomer(world.api);
    const terminal = expectStatus(await world.api.post('/terminals', { label: 'Refused' }), 201);
    const plan = expectStatus(
      await world.api.post('/payment-plans', {
        customer: customer.id,
        total_amount: 300,
        currency: 'USD',
        installments_count: 3,
        interval: 'month',
      }),
      201,
    );
    proxy.mode({ status: 400, error: { type: 'invalid_request_error', code: 'parameter_invalid', message: 'No.' } });
    let refused;
    try {
      refused = await world.api.post(`/payment-plans/${plan.id}/deposit/terminal`, { terminal: terminal.id });
    } finally {
      proxy.mode('forward');
    }
    expect(refused).toMatchObject({ status: 400, body: { error: { code: 'processor_refused' } } });
    expect(await attemptOf(plan.id)).toMatchObject({ state: 'cancelled' });
    expect(expectStatus(await world.api.get(`/terminals/${terminal.id}`), 200).status).toBe('idle');
  });

  it("another account's endpoint, or a sale the service did not make, changes nothing", async () => {
    const { plan, sale } = await depositOnReader();
    // Signed with B's secret on B's URL: B has no such sale.
    const fromB = await deliver(
      accounts.b.url,
      accounts.b.secret,
      'payment_intent.succeeded',
      intentOf(sale, 'succeeded'),
    );
    expect(fromB.status).toBe(200);
    // B's secret on A's URL does not verify.
    expect(
      (await deliver(accounts.a.url, accounts.b.secret, 'payment_intent.succeeded', intentOf(sale, 'succeeded')))
        .status,
    ).toBe(400);
    // A sale id the service never made.
    const unknown = await deliver(
      accounts.a.url,
      accounts.a.secret,
      'payment_intent.succeeded',
      intentOf({ id: 'tms_notours', processorReference: 'pi_notours' }, 'succeeded'),
    );
    expect(unknown.status).toBe(200);
    const read = await getPlan(world.api, plan.id);
    expect(read.deposit).toMatchObject({ status: 'processing', attempt: { state: 'waiting' } });
    expect((await accounts.b.api.get(`/payment-plans/${plan.id}`)).status).toBe(404);
  });
});
