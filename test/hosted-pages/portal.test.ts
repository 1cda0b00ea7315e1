import { hashPageToken } from '../../src/lib/page-tokens';
import { PAGE_CSP } from '../../src/hosted-pages/page';
import { browserTest } from '../support/browser';
import { eventsOf, expectStatus } from '../support/harness';
import { CARDS, cardBody, customerWithCard, addPaymentMethod, simpleInvoice } from '../support/payments';
import { DAY_MS, createSubscription, recurringPrice, settled } from '../support/subscriptions';
import { waitUntil } from '../support/webhooks';
import { EXPIRY, pageForm, pageText, postForm, usePagesWorld } from './pages';

/**
 * The customer portal (docs/api.md "Hosted pages"): POST /billing-portal/sessions, the page, cancel at
 * period end, pause and resume when the account allows it, cards (add, default, remove), invoices
 * linking to their hosted page, and the safety of the link (expired, unknown, another customer's ids).
 */
const browserIt = browserTest('test/hosted-pages/portal.test.ts');

const pages = usePagesWorld();

/** A customer with a card, an active monthly subscription and an open invoice. */
async function customerWithSubscription() {
  const { customer, method } = await customerWithCard(pages.api);
  const price = await recurringPrice(pages.api, { unitAmount: 4900 });
  const subscription = await createSubscription(pages.api, {
    customer: customer.id,
    items: [{ price, quantity: 1 }],
    trial_days: 0,
    start_date: Math.floor((await pages.world.env.currentTimeMs()) / 1000),
  });
  const draft = await simpleInvoice(pages.api, customer.id, 1200);
  const invoice = expectStatus(await pages.api.post(`/invoices/${draft.id}/finalize`, {}), 200);
  return { customer, method, subscription, invoice };
}

async function portalPath(customer: string): Promise<string> {
  const session = expectStatus(
    await pages.api.post('/billing-portal/sessions', { customer, return_url: 'https://merchant.example/account' }),
    201,
  );
  return new URL(session.url).pathname;
}

/** Posts one of the portal's buttons (the page's CSRF token) and answers the page it leads to. */
async function act(path: string, action: string, fields: Record<string, string> = {}) {
  const form = await pageForm(pages.world.app.baseUrl, path);
  const response = await postForm(pages.world.app.baseUrl, `${path}/${action}`, { csrf: form.csrf!, ...fields });
  return response;
}

describe('POST /billing-portal/sessions', () => {
  it('answers a short-lived URL; the row keeps only its hash; bad input names the field; other accounts 404', async () => {
    const { customer } = await customerWithCard(pages.api);
    const response = await pages.api.post('/billing-portal/sessions', {
      customer: customer.id,
      return_url: 'https://merchant.example/account',
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      object: 'billing_portal.session',
      customer: customer.id,
      return_url: 'https://merchant.example/account',
    });
    expect(response.body.id).toMatch(/^bps_/);
    expect(response.body.url).toMatch(/\/hosted\/portal\/[A-Za-z0-9_-]{43}$/);
    expect(response.body.expires_at - response.body.created).toBe(3600);
    const token = response.body.url.split('/').pop();
    const row = await pages.world.app.prisma.billingPortalSession.findUniqueOrThrow({
      where: { id: response.body.id },
    });
    expect(row.tokenHash).toBe(hashPageToken(token));
    expect(JSON.stringify(row)).not.toContain(token);

    const bad = await pages.api.post('/billing-portal/sessions', {
      customer: customer.id,
      return_url: 'javascript:alert(1)',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('return_url');
    const theirs = await pages.other.post('/billing-portal/sessions', {
      customer: customer.id,
      return_url: 'https://merchant.example/account',
    });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.param).toBe('customer');
  });

  it('GET/PUT /settings/customer-portal: pause_resume is off until the account turns it on', async () => {
    expect((await pages.api.get('/settings/customer-portal')).body).toEqual({
      object: 'customer_portal_settings',
      pause_resume: false,
    });
    expect((await pages.api.put('/settings/customer-portal', { pause_resume: 'yes' })).status).toBe(400);
  });
});

describe('the portal page', () => {
  it('shows the subscription, the invoice linking to its hosted page and the card; cancels at period end', async () => {
    const { customer, subscription, invoice } = await customerWithSubscription();
    const path = await portalPath(customer.id);
    const opened = await fetch(`${pages.world.app.baseUrl}${path}`);
    // The pages' own policy (docs/api.md "Hosted pages", Safety): its forms post only here.
    expect(opened.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(opened.headers.get('cache-control')).toBe('no-store');
    expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
    const text = await pageText(opened);
    expect(text).toContain('$49.00 x 1 every month');
    const invoicePage = new URL(invoice.hosted_invoice_url).pathname;
    expect(text).toContain(`href="${invoicePage}" aria-label="Pay invoice ${invoice.number}"`);
    expect(text).toContain(`href="${invoicePage}/pdf" aria-label="PDF of invoice ${invoice.number}"`);
    const pdf = await fetch(`${pages.world.app.baseUrl}${invoicePage}/pdf`);
    expect([pdf.status, pdf.headers.get('content-type')]).toEqual([200, 'application/pdf']);
    expect(text).toContain('visa ending 4242');
    expect(text).toContain('href="https://merchant.example/account"');
    expect(text).not.toContain('>Pause<');

    const response = await act(path, `subscriptions/${subscription.id}/cancel`);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(`${path}?done=canceled`);
    expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
    });
    const after = await pageText(await fetch(`${pages.world.app.baseUrl}${path}?done=canceled`));
    expect(after).toContain('Your subscription will end at the end of the current period.');
    expect(after).toContain('Ends on');
  });

  it('pauses and resumes only when the account allows it', async () => {
    const { customer, subscription } = await customerWithSubscription();
    const path = await portalPath(customer.id);
    expect((await act(path, `subscriptions/${subscription.id}/pause`)).status).toBe(403);
    expectStatus(await pages.api.put('/settings/customer-portal', { pause_resume: true }), 200);
    try {
      expect(await pageText(await fetch(`${pages.world.app.baseUrl}${path}`))).toContain('>Pause<');
      expect((await act(path, `subscriptions/${subscription.id}/pause`)).status).toBe(303);
      expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body.status).toBe('paused');
      expect((await act(path, `subscriptions/${subscription.id}/resume`)).status).toBe(303);
      expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body.status).toBe('active');
    } finally {
      expectStatus(await pages.api.put('/settings/customer-portal', { pause_resume: false }), 200);
    }
  });

  it('adds a card (payment_method.attached; the saved one when entered again), makes it default, removes the old', async () => {
    const { customer, method } = await customerWithCard(pages.api);
    const path = await portalPath(customer.id);
    const card = { name: 'Ada Lovelace', number: '5555555555554444', exp: EXPIRY, cvc: '123', default: 'yes' };
    expect((await act(path, 'payment-methods', card)).headers.get('location')).toBe(`${path}?done=card_added`);
    const methods = (await pages.api.get(`/customers/${customer.id}/payment-methods`)).body.data;
    expect(methods.map((m: { card: { last4: string } }) => m.card.last4)).toEqual(['4444', '4242']);
    // The same card again: the saved method, carried by its payment_method.attached.
    await act(path, 'payment-methods', card);
    expect((await pages.api.get(`/customers/${customer.id}/payment-methods`)).body.data).toHaveLength(2);
    const attached = (await eventsOf(pages.world.app.prisma, pages.world.accountId, 'payment_method.attached')).filter(
      (event) => (event.data as { customer: string }).customer === customer.id,
    );
    expect(attached.map((event) => (event.data as { id: string }).id)).toEqual([
      method.id,
      methods[0].id,
      methods[0].id,
    ]);

    expect((await act(path, `payment-methods/${method.id}/default`)).status).toBe(303);
    expect((await pages.api.get(`/customers/${customer.id}/payment-methods`)).body.data[0].id).toBe(method.id);
    expect((await act(path, `payment-methods/${methods[0].id}/remove`)).status).toBe(303);
    expect(
      (await pages.api.get(`/customers/${customer.id}/payment-methods`)).body.data.map((m: { id: string }) => m.id),
    ).toEqual([method.id]);
    const bad = await act(path, 'payment-methods', { ...card, number: '1234' });
    expect(bad.status).toBe(400);
    expect(await pageText(bad)).toContain('This card number is not valid.');
  });

  it('a subscription in dunning is paid from the portal through its invoice page: the workflow is told, active again', async () => {
    const { customer } = await customerWithCard(pages.api, CARDS.declined);
    const subscription = await createSubscription(pages.api, {
      customer: customer.id,
      items: [{ price: await recurringPrice(pages.api, { unitAmount: 3000 }), quantity: 1 }],
      trial_days: 0,
      start_date: Math.floor((await pages.world.env.currentTimeMs()) / 1000),
    });
    await settled(pages.world, subscription.id);
    expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body.status).toBe('past_due');
    const path = await portalPath(customer.id);
    const portal = await pageText(await fetch(`${pages.world.app.baseUrl}${path}`));
    const invoicePath = /href="(\/hosted\/invoices\/[^"]+)" aria-label="Pay invoice/.exec(portal)![1]!;
    const form = await pageForm(pages.world.app.baseUrl, invoicePath);
    const paid = await postForm(pages.world.app.baseUrl, `${invoicePath}/pay`, {
      ...form,
      name: 'Grace Hopper',
      number: CARDS.succeeds,
      exp: EXPIRY,
      cvc: '123',
    });
    expect(paid.status).toBe(303);
    await waitUntil(async () => (await pages.api.get(`/subscriptions/${subscription.id}`)).body.status === 'active');
  });

  it("another customer's subscription or card, and another account's, answer a 404 page and change nothing", async () => {
    const mine = await customerWithSubscription();
    const theirs = await customerWithSubscription();
    const path = await portalPath(mine.customer.id);
    expect((await act(path, `subscriptions/${theirs.subscription.id}/cancel`)).status).toBe(404);
    expect((await act(path, `payment-methods/${theirs.method.id}/remove`)).status).toBe(404);
    const foreign = await customerWithCard(pages.other);
    const foreignCard = await addPaymentMethod(pages.other, foreign.customer.id, cardBody(CARDS.succeeds));
    expect((await act(path, `payment-methods/${foreignCard.id}/default`)).status).toBe(404);
    expect((await pages.api.get(`/subscriptions/${theirs.subscription.id}`)).body.cancel_at_period_end).toBe(false);
    expect((await pages.api.get(`/customers/${theirs.customer.id}/payment-methods`)).body.data).toHaveLength(1);
  });

  it('an expired session says so (410), an unknown one 404, a post without its CSRF token 403', async () => {
    const { customer } = await customerWithCard(pages.api);
    const path = await portalPath(customer.id);
    expect((await postForm(pages.world.app.baseUrl, `${path}/payment-methods`, { name: 'x' })).status).toBe(403);
    await pages.world.app.prisma.billingPortalSession.updateMany({
      where: { customerId: customer.id },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    const expired = await fetch(`${pages.world.app.baseUrl}${path}`);
    expect(expired.status).toBe(410);
    expect(await pageText(expired)).toContain('This link has expired');
    expect((await fetch(`${pages.world.app.baseUrl}/hosted/portal/${'b'.repeat(43)}`)).status).toBe(404);
  });
});

describe('events of portal actions (docs/decisions.md §38)', () => {
  /** The events about `object`, oldest first, as GET /events answers them. */
  async function eventsAbout(object: string) {
    const page = expectStatus(await pages.api.get(`/events?object=${object}&take=100`), 200);
    return (page.data as { type: string; data: Record<string, unknown> }[]).reverse();
  }

  it("say origin customer_portal, a cancellation at period end also when the period ends; the API's do not", async () => {
    const fromPortal = await customerWithSubscription();
    const fromApi = await customerWithSubscription();
    const path = await portalPath(fromPortal.customer.id);
    expect((await act(path, `subscriptions/${fromPortal.subscription.id}/cancel`)).status).toBe(303);
    expectStatus(await pages.api.delete(`/subscriptions/${fromApi.subscription.id}?at_period_end=true`), 200);

    await pages.world.env.sleep(32 * DAY_MS);
    const ended = async (id: string) => (await pages.api.get(`/subscriptions/${id}`)).body.status === 'canceled';
    await waitUntil(async () => (await ended(fromPortal.subscription.id)) && (await ended(fromApi.subscription.id)));

    const portalEvents = await eventsAbout(fromPortal.subscription.id);
    const asked = portalEvents.filter((event) => event.type === 'subscription.updated').at(-1)!;
    expect(asked.data).toMatchObject({ cancel_at_period_end: true, origin: 'customer_portal' });
    expect(portalEvents.find((event) => event.type === 'subscription.canceled')!.data).toMatchObject({
      status: 'canceled',
      reason: 'requested',
      initiated_by: 'merchant',
      origin: 'customer_portal',
    });
    const apiEvents = await eventsAbout(fromApi.subscription.id);
    expect(apiEvents.map((event) => event.data.origin)).toEqual(apiEvents.map(() => undefined));
    expect(apiEvents.find((event) => event.type === 'subscription.canceled')!.data).toMatchObject({
      reason: 'requested',
      initiated_by: 'merchant',
    });
  });

  it('a merchant who sets the cancellation again makes it theirs', async () => {
    const { customer, subscription } = await customerWithSubscription();
    expect((await act(await portalPath(customer.id), `subscriptions/${subscription.id}/cancel`)).status).toBe(303);
    expectStatus(await pages.api.patch(`/subscriptions/${subscription.id}`, { cancel_at_period_end: false }), 200);
    expectStatus(await pages.api.patch(`/subscriptions/${subscription.id}`, { cancel_at_period_end: true }), 200);
    await pages.world.env.sleep(32 * DAY_MS);
    await waitUntil(async () => (await pages.api.get(`/subscriptions/${subscription.id}`)).body.status === 'canceled');
    const canceled = (await eventsAbout(subscription.id)).find((event) => event.type === 'subscription.canceled')!;
    expect(canceled.data).toMatchObject({ reason: 'requested', initiated_by: 'merchant' });
    expect(canceled.data).not.toHaveProperty('origin');
  });

  it("pause, resume and the cards: every event says customer_portal; the API's pause does not", async () => {
    const { customer, method, subscription } = await customerWithSubscription();
    const path = await portalPath(customer.id);
    expectStatus(await pages.api.put('/settings/customer-portal', { pause_resume: true }), 200);
    try {
      expect((await act(path, `subscriptions/${subscription.id}/pause`)).status).toBe(303);
      expect((await act(path, `subscriptions/${subscription.id}/resume`)).status).toBe(303);
    } finally {
      expectStatus(await pages.api.put('/settings/customer-portal', { pause_resume: false }), 200);
    }
    expectStatus(await pages.api.post(`/subscriptions/${subscription.id}/pause`, {}), 200);
    const card = { name: 'Ada Lovelace', number: '5555555555554444', exp: EXPIRY, cvc: '123' };
    expect((await act(path, 'payment-methods', card)).status).toBe(303);
    expect((await act(path, `payment-methods/${method.id}/remove`)).status).toBe(303);

    const changes = (await eventsAbout(subscription.id)).filter((event) => /paused|resumed/.test(event.type));
    expect(changes.map((event) => [event.type, event.data.reason, event.data.initiated_by, event.data.origin])).toEqual(
      [
        ['subscription.paused', 'requested', 'merchant', 'customer_portal'],
        ['subscription.resumed', 'requested', 'merchant', 'customer_portal'],
        ['subscription.paused', 'requested', 'merchant', undefined],
      ],
    );
    const methodEvents = async (id: string) => (await eventsAbout(id)).map((event) => [event.type, event.data.origin]);
    const added = (await pages.api.get(`/customers/${customer.id}/payment-methods`)).body.data[0];
    expect(added.card.last4).toBe('4444');
    expect(await methodEvents(added.id)).toEqual([['payment_method.attached', 'customer_portal']]);
    expect(await methodEvents(method.id)).toEqual([
      ['payment_method.attached', undefined],
      ['payment_method.detached', 'customer_portal'],
    ]);
  });
});

describe('in a browser', () => {
  browserIt('updates a card and cancels at period end (axe, screenshots)', async () => {
    const b = pages.browser!;
    const { customer, subscription } = await customerWithSubscription();
    const page = await b.newPage();
    await page.goto(`${pages.world.app.baseUrl}${await portalPath(customer.id)}`);
    await page.getByRole('heading', { name: 'Your billing' }).waitFor();
    await b.screen(page, 'portal');

    await page.getByLabel('Name on card').fill('Ada Lovelace');
    await page.getByLabel('Card number').fill('5555 5555 5555 4444');
    await page.getByLabel('Expiry (MM/YY)').fill(EXPIRY);
    await page.getByLabel('Security code').fill('123');
    await page.getByLabel('Make it my default card').check();
    await page.getByRole('button', { name: 'Save card' }).click();
    await page.getByText('Your card was saved.').waitFor();
    const methods = (await pages.api.get(`/customers/${customer.id}/payment-methods`)).body.data;
    expect(methods[0].card.last4).toBe('4444');

    await page.getByRole('button', { name: 'Cancel at period end' }).click();
    await page.getByText('Your subscription will end at the end of the current period.').waitFor();
    await b.screen(page, 'portal-canceled');
    expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body.cancel_at_period_end).toBe(true);
    expect(b.offSite).toEqual([]);
  });
});
