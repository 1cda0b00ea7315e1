import { addPaymentMethod, cardBody, CARDS, createCustomer } from '../support/payments';
import {
  advanceBy,
  createSubscription,
  DAY_MS,
  expectStatus,
  recurringPrice,
  settled,
  startSubscriptionWorld,
  subscriptionInDunning,
  unix,
  workflowHandle,
  type SubscriptionWorld,
} from '../support/subscriptions';
import { waitUntil } from '../support/webhooks';
import { EXPIRY, hostedPath, pageForm, postForm } from '../hosted-pages/pages';

// "Settle an invoice" (docs/decisions.md §7): whichever way a request pays or voids a subscription's open
// invoice, its workflow is told exactly once, and a change the workflow makes itself (the first charge,
// a renewal) tells it nothing. Counted as the invoiceSettled signals in the workflow's history.

let world: SubscriptionWorld;

beforeAll(async () => {
  world = await startSubscriptionWorld();
});

afterAll(async () => {
  await world?.close();
});

async function settledNotices(subscriptionId: string): Promise<string[]> {
  const history = await workflowHandle(world, subscriptionId).fetchHistory();
  return (history.events ?? []).flatMap((event) =>
    event.workflowExecutionSignaledEventAttributes?.signalName === 'invoiceSettled' ? [String(event.eventId)] : [],
  );
}

/** A subscription in dunning on its first invoice, its workflow told nothing yet. */
async function inDunning() {
  const { customer, subscription, invoice } = await subscriptionInDunning(world);
  expect(await settledNotices(subscription.id)).toEqual([]);
  return { customer, subscriptionId: subscription.id as string, invoice };
}

/** Told once: the dunning ends, and the count stays one once the workflow is settled again. */
async function expectToldOnce(subscriptionId: string) {
  await waitUntil(async () => (await settledNotices(subscriptionId)).length > 0);
  await waitUntil(async () => (await world.api.get(`/subscriptions/${subscriptionId}`)).body.status !== 'past_due');
  await settled(world, subscriptionId);
  expect(await settledNotices(subscriptionId)).toHaveLength(1);
}

describe('an open invoice of a subscription settled by a request tells its workflow once', () => {
  it('paid through the API (PUT /invoices/{id})', async () => {
    const { customer, subscriptionId, invoice } = await inDunning();
    const card = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
    const paid = expectStatus(await world.api.put(`/invoices/${invoice.id}`, { payment_method: card.id }), 200);
    expect(paid.status).toBe('paid');
    await expectToldOnce(subscriptionId);
  });

  it('voided through the API (DELETE /invoices/{id})', async () => {
    const { subscriptionId, invoice } = await inDunning();
    expect(expectStatus(await world.api.delete(`/invoices/${invoice.id}`), 200).status).toBe('void');
    await expectToldOnce(subscriptionId);
  });

  it('credited to zero (POST /credit-notes)', async () => {
    const { subscriptionId, invoice } = await inDunning();
    const note = expectStatus(
      await world.api.post('/credit-notes', { invoice: invoice.id, amount: invoice.amount_due, reason: 'duplicate' }),
      201,
    );
    expect(note.type).toBe('pre_payment');
    expect(expectStatus(await world.api.get(`/invoices/${invoice.id}`), 200).status).toBe('paid');
    await expectToldOnce(subscriptionId);
  });

  it('paid on its hosted page', async () => {
    const { subscriptionId, invoice } = await inDunning();
    const path = hostedPath(invoice);
    const form = await pageForm(world.app.baseUrl, path);
    const card = { name: 'Grace Hopper', number: CARDS.succeeds, exp: EXPIRY, cvc: '123' };
    expect((await postForm(world.app.baseUrl, `${path}/pay`, { ...form, ...card })).status).toBe(303);
    expect(expectStatus(await world.api.get(`/invoices/${invoice.id}`), 200).status).toBe('paid');
    await expectToldOnce(subscriptionId);
  });
});

describe('what the workflow settles itself tells it nothing', () => {
  it('the first charge and a renewal paid by the card', async () => {
    const customer = await createCustomer(world.api);
    const method = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
    const subscription = await createSubscription(world.api, {
      customer: customer.id,
      items: [{ price: await recurringPrice(world.api, { unitAmount: 2000 }), quantity: 1 }],
      trial_days: 0,
      start_date: unix(await world.env.currentTimeMs()),
      default_payment_method: method.id,
    });
    await settled(world, subscription.id);
    await advanceBy(world, subscription.id, 32 * DAY_MS);
    const invoices = expectStatus(await world.api.get(`/invoices?subscription=${subscription.id}`), 200).data as {
      status: string;
    }[];
    expect(invoices.map((row) => row.status)).toEqual(['paid', 'paid']);
    expect(await settledNotices(subscription.id)).toEqual([]);
  });
});
