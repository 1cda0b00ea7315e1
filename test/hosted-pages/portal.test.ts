import { hashPageToken } from '../../src/lib/page-tokens';
import { csrfToken, PAGE_CSP } from '../../src/hosted-pages/page';
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

/** An action asked first (cancel, remove a card): its confirmation page opened, then its form sent. */
async function confirmed(path: string, action: string) {
  const form = await pageForm(pages.world.app.baseUrl, `${path}/${action}`);
  return postForm(pages.world.app.baseUrl, `${path}/${action}`, form);
}

/** The confirmation token a page would carry for `action` of the portal at `path` (HMACs need no storage). */
function confirmationToken(path: string, action: string) {
  return csrfToken(hashPageToken(path.split('/').pop()!), `portal-confirm:${action}`);
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

    const response = await confirmed(path, `subscriptions/${subscription.id}/cancel`);
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
    expect((await confirmed(path, `payment-methods/${methods[0].id}/remove`)).status).toBe(303);
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
    const post = (action: string) =>
      postForm(pages.world.app.baseUrl, `${path}/${action}`, { csrf: confirmationToken(path, action) });
    expect((await post(`subscriptions/${theirs.subscription.id}/cancel`)).status).toBe(404);
    expect((await post(`payment-methods/${theirs.method.id}/remove`)).status).toBe(404);
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

describe('asked first, and undone (docs/api.md "Hosted pages", Customer portal)', () => {
  it('cancel at period end asks first; "Keep my subscription" withdraws it and the subscription renews', async () => {
    const { customer, subscription } = await customerWithSubscription();
    const path = await portalPath(customer.id);
    const action = `subscriptions/${subscription.id}/cancel`;
    const portal = await pageText(await fetch(`${pages.world.app.baseUrl}${path}`));
    // The portal's button only opens the question: a GET form, no token, nothing posted.
    expect(portal).toContain(`<form class="inline-form" method="get" action="${path}/${action}">`);

    const asked = await fetch(`${pages.world.app.baseUrl}${path}/${action}`);
    expect(asked.status).toBe(200);
    expect(asked.headers.get('content-security-policy')).toBe(PAGE_CSP);
    const question = await pageText(asked);
    expect(question).toContain('Cancel your subscription?');
    expect(question).toContain('$49.00 x 1 every month');
    expect(question).toMatch(/It stays active until \w+ \d+, \d{4}, then ends: you will not be charged again\./);
    expect(question).toContain(`<a href="${path}">Go back</a>`);
    expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body.cancel_at_period_end).toBe(false);

    // The portal page's own token does not cancel: only the confirmation's, for this very subscription.
    expect((await act(path, action)).status).toBe(403);
    expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body.cancel_at_period_end).toBe(false);
    const done = await confirmed(path, action);
    expect([done.status, done.headers.get('location')]).toEqual([303, `${path}?done=canceled`]);
    expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body.cancel_at_period_end).toBe(true);
    // Already canceling: the question is not asked again, the portal offers the way back instead.
    const again = await fetch(`${pages.world.app.baseUrl}${path}/${action}`, { redirect: 'manual' });
    expect([again.status, again.headers.get('location')]).toEqual([303, path]);
    const canceling = await pageText(await fetch(`${pages.world.app.baseUrl}${path}`));
    expect(canceling).toContain('Ends on');
    expect(canceling).toContain('>Keep my subscription<');
    expect(canceling).not.toContain('>Cancel at period end<');

    const kept = await act(path, `subscriptions/${subscription.id}/keep`);
    expect([kept.status, kept.headers.get('location')]).toEqual([303, `${path}?done=kept`]);
    const after = await pageText(await fetch(`${pages.world.app.baseUrl}${path}?done=kept`));
    expect(after).toContain('Your subscription will continue: it renews as before.');
    expect(after).toContain('Renews on');
    expect(after).toContain('>Cancel at period end<');
    const current = (await pages.api.get(`/subscriptions/${subscription.id}`)).body;
    expect(current).toMatchObject({ status: 'active', cancel_at_period_end: false });
    const updates = (await eventsOf(pages.world.app.prisma, pages.world.accountId, 'subscription.updated'))
      .map((event) => event.data as { id: string; cancel_at_period_end: boolean; origin?: string })
      .filter((data) => data.id === subscription.id);
    expect(updates.at(-1)).toMatchObject({ cancel_at_period_end: false, origin: 'customer_portal' });

    // The period's end renews it: nothing of the withdrawn cancellation is left in the workflow.
    await pages.world.env.sleep(32 * DAY_MS);
    await waitUntil(
      async () =>
        (await pages.api.get(`/subscriptions/${subscription.id}`)).body.current_period_start >=
        current.current_period_end,
    );
    expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body.status).toBe('active');
  });

  it("removing a card asks first; the portal page's token removes nothing", async () => {
    const { customer, method } = await customerWithCard(pages.api);
    const path = await portalPath(customer.id);
    const action = `payment-methods/${method.id}/remove`;
    const question = await pageText(await fetch(`${pages.world.app.baseUrl}${path}/${action}`));
    expect(question).toContain('Remove visa ending 4242?');
    expect(question).toContain('>Remove card<');
    expect((await act(path, action)).status).toBe(403);
    expect((await pages.api.get(`/customers/${customer.id}/payment-methods`)).body.data).toHaveLength(1);
    const removed = await confirmed(path, action);
    expect([removed.status, removed.headers.get('location')]).toEqual([303, `${path}?done=card_removed`]);
    expect((await pages.api.get(`/customers/${customer.id}/payment-methods`)).body.data).toEqual([]);
  });

  it("another customer's or account's ids reach no question, no keep, and another session's confirmation does nothing", async () => {
    const mine = await customerWithSubscription();
    const theirs = await customerWithSubscription();
    const foreign = await customerWithCard(pages.other);
    const foreignPrice = await recurringPrice(pages.other, { unitAmount: 1500 });
    const foreignSubscription = await createSubscription(pages.other, {
      customer: foreign.customer.id,
      items: [{ price: foreignPrice, quantity: 1 }],
      trial_days: 0,
      start_date: Math.floor((await pages.world.env.currentTimeMs()) / 1000),
    });
    const path = await portalPath(mine.customer.id);
    for (const action of [
      `subscriptions/${theirs.subscription.id}/cancel`,
      `subscriptions/${foreignSubscription.id}/cancel`,
      `payment-methods/${theirs.method.id}/remove`,
      `payment-methods/${foreign.method.id}/remove`,
    ]) {
      const asked = await fetch(`${pages.world.app.baseUrl}${path}/${action}`);
      expect([action, asked.status]).toEqual([action, 404]);
      expect(await pageText(asked)).toContain('This link is not valid');
    }
    // Both theirs set to cancel by their own side, then "keep" from this portal: 404, still canceling.
    expectStatus(await pages.api.delete(`/subscriptions/${theirs.subscription.id}?at_period_end=true`), 200);
    expectStatus(await pages.other.delete(`/subscriptions/${foreignSubscription.id}?at_period_end=true`), 200);
    expect((await act(path, `subscriptions/${theirs.subscription.id}/keep`)).status).toBe(404);
    expect((await act(path, `subscriptions/${foreignSubscription.id}/keep`)).status).toBe(404);
    expect((await pages.api.get(`/subscriptions/${theirs.subscription.id}`)).body.cancel_at_period_end).toBe(true);
    expect((await pages.other.get(`/subscriptions/${foreignSubscription.id}`)).body.cancel_at_period_end).toBe(true);

    // A confirmation made for their portal session does not act through mine, nor mine through theirs.
    const theirPath = await portalPath(theirs.customer.id);
    const myAction = `subscriptions/${mine.subscription.id}/cancel`;
    const crossed = await postForm(pages.world.app.baseUrl, `${path}/${myAction}`, {
      csrf: confirmationToken(theirPath, myAction),
    });
    expect(crossed.status).toBe(403);
    // A confirmation for one of my objects does not act on another.
    const otherCard = await addPaymentMethod(pages.api, mine.customer.id, cardBody('5555555555554444'));
    const swapped = await postForm(pages.world.app.baseUrl, `${path}/payment-methods/${otherCard.id}/remove`, {
      csrf: confirmationToken(path, `payment-methods/${mine.method.id}/remove`),
    });
    expect(swapped.status).toBe(403);
    expect((await pages.api.get(`/subscriptions/${mine.subscription.id}`)).body.cancel_at_period_end).toBe(false);
    expect((await pages.api.get(`/customers/${mine.customer.id}/payment-methods`)).body.data).toHaveLength(2);
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
    expect((await confirmed(path, `subscriptions/${fromPortal.subscription.id}/cancel`)).status).toBe(303);
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
    expect((await confirmed(await portalPath(customer.id), `subscriptions/${subscription.id}/cancel`)).status).toBe(
      303,
    );
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
    expect((await confirmed(path, `payment-methods/${method.id}/remove`)).status).toBe(303);

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
    await page.getByRole('heading', { name: 'Your billing', exact: true }).waitFor();
    await b.screen(page, 'portal');

    await page.getByLabel('Name on card', { exact: true }).fill('Ada Lovelace');
    await page.getByLabel('Card number', { exact: true }).fill('5555 5555 5555 4444');
    await page.getByLabel('Expiry (MM/YY)', { exact: true }).fill(EXPIRY);
    await page.getByLabel('Security code', { exact: true }).fill('123');
    await page.getByLabel('Make it my default card', { exact: true }).check();
    await page.getByRole('button', { name: 'Save card', exact: true }).click();
    await page.getByText('Your card was saved.', { exact: true }).waitFor();
    const methods = (await pages.api.get(`/customers/${customer.id}/payment-methods`)).body.data;
    expect(methods[0].card.last4).toBe('4444');

    // Cancel: asked first, on a page of its own; "Go back" changes nothing.
    await page.getByRole('button', { name: 'Cancel at period end', exact: true }).click();
    await page.getByRole('heading', { name: 'Cancel your subscription?', exact: true }).waitFor();
    await b.screen(page, 'portal-cancel-confirm');
    await page.getByRole('link', { name: 'Go back', exact: true }).click();
    await page.getByRole('heading', { name: 'Your billing', exact: true }).waitFor();
    expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body.cancel_at_period_end).toBe(false);
    await page.getByRole('button', { name: 'Cancel at period end', exact: true }).click();
    await page.getByRole('button', { name: 'Cancel subscription', exact: true }).click();
    await page.getByText('Your subscription will end at the end of the current period.', { exact: true }).waitFor();
    await b.screen(page, 'portal-canceled');
    expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body.cancel_at_period_end).toBe(true);

    // And undone from the same page.
    await page.getByRole('button', { name: 'Keep my subscription', exact: true }).click();
    await page.getByText('Your subscription will continue: it renews as before.', { exact: true }).waitFor();
    await b.screen(page, 'portal-kept');
    expect((await pages.api.get(`/subscriptions/${subscription.id}`)).body).toMatchObject({
      status: 'active',
      cancel_at_period_end: false,
    });

    // Removing a card is asked first too.
    await page.getByRole('button', { name: 'Remove', exact: true }).last().click();
    await page.getByRole('heading', { name: /^Remove .+ ending \d{4}\?$/ }).waitFor();
    await b.screen(page, 'portal-remove-confirm');
    await page.getByRole('button', { name: 'Remove card', exact: true }).click();
    await page.getByText('The card was removed.', { exact: true }).waitFor();
    expect((await pages.api.get(`/customers/${customer.id}/payment-methods`)).body.data).toHaveLength(1);
    expect(b.offSite).toEqual([]);
  });
});
