import { eventsOf, expectStatus } from '../support/harness';
import { CARDS, addPaymentMethod, cardBody, createCustomer, simpleInvoice } from '../support/payments';
import { DAY_MS, advanceBy, subscriptionInDunning as subscriptionInDunningOf } from '../support/subscriptions';
import { waitUntil } from '../support/webhooks';
import { EXPIRY, hostedPath, pageForm, pageText, postForm, usePagesWorld } from './pages';

/**
 * The failed-payment email's "Update payment method" opens the invoice's hosted page: a card paid there with
 * "Use this card for my future payments" becomes the customer's default and the subscription's own card, so the
 * next renewal charges it (docs/api.md "Hosted pages"). Unticked, or declined, the cards stay as they were.
 */
const pages = usePagesWorld();

const subscriptionInDunning = () => subscriptionInDunningOf(pages.world);

async function payOnPage(invoice: { hosted_invoice_url: string }, number: string, useForFuture: boolean) {
  const path = hostedPath(invoice);
  const form = await pageForm(pages.world.app.baseUrl, path);
  const card = { name: 'Grace Hopper', number, exp: EXPIRY, cvc: '123' };
  const fields = { ...form, ...card, ...(useForFuture ? { use_for_future: 'yes' } : {}) };
  const response = await postForm(pages.world.app.baseUrl, `${path}/pay`, fields);
  expect(response.status).toBe(303);
}

const cardsOf = async (customer: string) =>
  (await pages.api.get(`/customers/${customer}/payment-methods`)).body.data as {
    id: string;
    card: { last4: string };
  }[];

describe("the card a customer enters on a subscription's open invoice", () => {
  it('with "use for my future payments" (ticked for them) becomes the subscription\'s card: the next renewal charges it', async () => {
    const { customer, subscription, invoice } = await subscriptionInDunning();
    const page = await pageText(await fetch(`${pages.world.app.baseUrl}${hostedPath(invoice)}`));
    expect(page).toContain('<input type="checkbox" name="use_for_future" value="yes" checked />');
    expect(page).toContain('<dt>Period</dt>');

    await payOnPage(invoice, CARDS.succeeds, true);
    await waitUntil(async () => (await pages.api.get(`/subscriptions/${subscription.id}`)).body.status === 'active');
    const [newCard] = await cardsOf(customer.id);
    expect(newCard!.card.last4).toBe('4242');
    expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body.default_payment_method).toBe(newCard!.id);
    const changed = (await eventsOf(pages.world.app.prisma, pages.world.accountId, 'subscription.updated')).filter(
      (event) => (event.data as { id: string }).id === subscription.id,
    );
    // The change says where it was asked (the dunning's end, the engine's, says nothing).
    const asked = changed.filter((event) => (event.data as { origin?: string }).origin === 'hosted_invoice_page');
    expect(asked.map((event) => (event.data as { default_payment_method: string }).default_payment_method)).toEqual([
      newCard!.id,
    ]);

    // The next period is charged to the new card: the old one would decline it.
    await advanceBy(pages.world, subscription.id, 32 * DAY_MS);
    const renewals = expectStatus(await pages.api.get(`/invoices?subscription=${subscription.id}`), 200).data as {
      id: string;
      status: string;
    }[];
    expect(renewals).toHaveLength(2);
    expect(renewals.map((row) => row.status)).toEqual(['paid', 'paid']);
    expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body.status).toBe('active');
  });

  it('unticked, or declined, leaves the customer and the subscription with the cards they had', async () => {
    const { customer, declining, subscription, invoice } = await subscriptionInDunning();
    await payOnPage(invoice, CARDS.insufficientFunds, true);
    expect((await pages.api.get(`/invoices/${invoice.id}`)).body.status).toBe('open');
    expect((await cardsOf(customer.id))[0]!.id).toBe(declining.id);

    await payOnPage(invoice, CARDS.succeeds, false);
    await waitUntil(async () => (await pages.api.get(`/subscriptions/${subscription.id}`)).body.status === 'active');
    expect((await pages.api.get(`/invoices/${invoice.id}`)).body.status).toBe('paid');
    expect((await cardsOf(customer.id)).map((method) => method.card.last4)).toEqual(['0002', '4242', '9995']);
    expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body.default_payment_method).toBe(declining.id);
  });

  it('a one-off invoice offers the box unticked; ticked, the card becomes the customer default', async () => {
    const customer = await createCustomer(pages.api);
    const first = await addPaymentMethod(pages.api, customer.id, cardBody(CARDS.succeeds));
    const draft = await simpleInvoice(pages.api, customer.id, 1800);
    const invoice = expectStatus(await pages.api.post(`/invoices/${draft.id}/finalize`, {}), 200);
    const page = await pageText(await fetch(`${pages.world.app.baseUrl}${hostedPath(invoice)}`));
    expect(page).toContain('<input type="checkbox" name="use_for_future" value="yes" />');
    // A one-off invoice bills no period: none is shown (the PDF shows none either).
    expect(page).not.toContain('<dt>Period</dt>');

    await payOnPage(invoice, '5555555555554444', true);
    expect((await pages.api.get(`/invoices/${invoice.id}`)).body.status).toBe('paid');
    const cards = await cardsOf(customer.id);
    expect(cards.map((method) => method.card.last4)).toEqual(['4444', '4242']);
    expect(cards[1]!.id).toBe(first.id);
  });
});
