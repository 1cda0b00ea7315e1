import type Stripe from 'stripe';
import { registeredGateways } from '../../src/gateway-registrations';
import { HOUR_MS } from '../../src/lib/durations';
import { reconcilePayments } from '../../src/use-cases/payment-reconciliation';
import { apiClient, createTestAccount, expectStatus } from '../support/harness';
import { startCrashingWorker } from '../support/crashing-workers';
import { createCustomer } from '../support/payments';
import { connectStripe, stripeAt } from '../support/stripe-accounts';
import {
  startLocalstripe,
  startStripeProxy,
  stripeToolMissing,
  type StripeProxy,
  type StripeStandIn,
} from '../support/stripe-tools';
import {
  invoicesOf,
  recurringPrice,
  settled,
  startSubscriptionWorld,
  subscriptionEvents,
  unix,
  type SubscriptionWorld,
} from '../support/subscriptions';

/**
 * A worker charging a subscription's invoice through the Stripe adapter is killed (SIGKILL) after Stripe (here
 * localstripe) made and confirmed the PaymentIntent and before the ledger recorded its answer (the recording proxy
 * holds that answer). The reconciliation and a new worker settle it (docs/decisions.md §40, §41): they ask Stripe
 * under the attempt's key, find the PaymentIntent among the customer's, and record its outcome once, with no second
 * charge. localstripe ignores Idempotency-Key, so a charge sent again would show here as a second PaymentIntent.
 */
const missing = stripeToolMissing('localstripe');
if (missing) console.warn(`test/stripe-gateway/stripe-worker-kill.test.ts skipped: ${missing}`);
const describeWithLocalstripe = missing ? describe.skip : describe;

describeWithLocalstripe('a worker killed between the Stripe charge and its recording', () => {
  let localstripe: StripeStandIn;
  let proxy: StripeProxy;
  let world: SubscriptionWorld;
  let stripe: Stripe;
  const apiBaseBefore = process.env.STRIPE_API_BASE;
  const secretKey = 'sk_test_WorkerKill1';

  beforeAll(async () => {
    localstripe = await startLocalstripe();
    proxy = await startStripeProxy(localstripe.apiBase);
    // The API, the killed worker (which inherits it) and the new one all reach Stripe through the proxy.
    process.env.STRIPE_API_BASE = proxy.apiBase;
    world = await startSubscriptionWorld({ worker: false });
    await connectStripe(world.api, { secretKey });
    stripe = stripeAt(localstripe, secretKey);
  });
  afterAll(async () => {
    process.env.STRIPE_API_BASE = apiBaseBefore;
    await world?.close();
    await proxy?.close();
    await localstripe?.stop();
  });
  afterEach(async () => {
    proxy.mode('forward');
    await world.stopWorker();
  });

  /**
   * A subscription starting in an hour for a customer paying with `paymentMethod` (a Stripe test id), whose first
   * invoice the worker process charges; the process is killed once Stripe has answered the charge, that answer
   * held. Answers the subscription and what Stripe answered.
   */
  async function chargeKilledAfterStripeAnswered(paymentMethod: string) {
    const worker = await startCrashingWorker(world, 'none');
    const customer = await createCustomer(world.api);
    expectStatus(await world.api.post(`/payment-methods/${paymentMethod}/attach`, { customer: customer.id }), 200);
    const price = await recurringPrice(world.api, { unitAmount: 4900 });
    const subscription = expectStatus(
      await world.api.post('/subscriptions', {
        customer: customer.id,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: unix((await world.env.currentTimeMs()) + HOUR_MS),
      }),
      201,
    );
    proxy.mode('hold');
    await world.env.sleep(HOUR_MS + 1_000);
    const charge = await proxy.nextHeld();
    await worker.kill();
    proxy.mode('forward');
    expect(`${charge.method} ${charge.path}`).toBe('POST /v1/payment_intents');
    expect(charge.form.confirm).toBe('true');

    const [invoice] = await invoicesOf(world, subscription.id);
    // Killed between the two: Stripe moved (or declined) the money, the ledger still has the attempt in flight.
    expect(await paymentsOf(invoice!.id)).toEqual([['pending', 4900n]]);
    return { subscription, invoice: invoice!, charge };
  }

  function paymentsOf(invoiceId: string) {
    return world.app.prisma.transaction
      .findMany({ where: { accountId: world.accountId, invoiceId, type: 'payment' } })
      .then((entries) => entries.map((entry) => [entry.status, entry.amount]));
  }

  /**
   * A new worker, and the reconciliation's pass as its schedule's activity runs it (called here: the time-skipping
   * server would move the subscription's clock while waiting for a workflow), taking the attempt in flight at once;
   * answers the invoice once the subscription's workflow has replayed the killed worker's task.
   */
  async function settleAfterTheKill(subscriptionId: string, invoiceId: string) {
    await world.startWorker();
    const pass = await reconcilePayments(world.app.prisma, registeredGateways(world.app.prisma), {
      pendingOlderThanMs: 0,
    });
    // At least the killed worker's entry: on a busy machine the pass can also meet one the restarted worker is
    // finishing at that moment; what each invoice holds (one entry, one PaymentIntent) is checked by the caller.
    expect(pass.settled).toBeGreaterThanOrEqual(1);
    await settled(world, subscriptionId, 90_000);
    return world.app.prisma.invoice.findUniqueOrThrow({ where: { id: invoiceId } });
  }

  async function paymentIntentsFor(invoiceId: string) {
    const listed = await stripe.paymentIntents.list({ limit: 100 });
    return listed.data.filter((intent) => intent.metadata?.invoice_id === invoiceId);
  }

  async function eventTypes(subscriptionId: string, invoiceId: string) {
    const events = await subscriptionEvents(world, subscriptionId);
    return events.filter((event) => (event.data as { id?: string }).id === invoiceId).map((event) => event.type);
  }

  it('a charge Stripe made: the invoice paid once, one PaymentIntent, one succeeded entry, one payment_succeeded', async () => {
    const { subscription, invoice, charge } = await chargeKilledAfterStripeAnswered('pm_card_visa');
    expect(charge.answered).toMatchObject({ status: 200, body: { status: 'succeeded' } });

    expect(await settleAfterTheKill(subscription.id, invoice.id)).toMatchObject({ status: 'paid', amountPaid: 4900n });
    expect((await paymentIntentsFor(invoice.id)).map((intent) => [intent.id, intent.status])).toEqual([
      [charge.answered!.body.id, 'succeeded'],
    ]);
    expect(await paymentsOf(invoice.id)).toEqual([['succeeded', 4900n]]);
    const types = await eventTypes(subscription.id, invoice.id);
    expect(types.filter((type) => type === 'invoice.payment_succeeded')).toHaveLength(1);
    expect(types).not.toContain('invoice.payment_failed');
    expect(expectStatus(await world.api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({ status: 'paid' });
    const other = apiClient(world.app.baseUrl, (await createTestAccount(world.app.prisma, { name: 'Not it' })).apiKey);
    expect((await other.get(`/invoices/${invoice.id}`)).status).toBe(404);
  }, 180_000);

  it('a charge Stripe declined (pm_card_chargeCustomerFail): failed once, no second charge', async () => {
    const { subscription, invoice, charge } = await chargeKilledAfterStripeAnswered('pm_card_chargeCustomerFail');
    expect(charge.answered?.status).toBe(402);

    expect(await settleAfterTheKill(subscription.id, invoice.id)).toMatchObject({ status: 'open', amountPaid: 0n });
    expect(await paymentIntentsFor(invoice.id)).toHaveLength(1);
    expect(await paymentsOf(invoice.id)).toEqual([['failed', 4900n]]);
    const types = await eventTypes(subscription.id, invoice.id);
    expect(types.filter((type) => type === 'invoice.payment_failed')).toHaveLength(1);
    expect(types).not.toContain('invoice.payment_succeeded');
  }, 180_000);
});
