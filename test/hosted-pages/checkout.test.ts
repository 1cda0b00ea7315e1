import crypto from 'node:crypto';
import { hashPageToken } from '../../src/lib/page-tokens';
import { PAGE_CSP } from '../../src/hosted-pages/page';
import { browserTest } from '../support/browser';
import { eventsOf, expectStatus } from '../support/harness';
import { CARDS, customerWithCard, gatewayCharges } from '../support/payments';
import { recurringPrice } from '../support/subscriptions';
import { EXPIRY, pageForm, pageText, postForm, usePagesWorld } from './pages';

/**
 * Hosted checkout (docs/api.md "Hosted pages"): POST /checkout/sessions, the page, completing it once
 * (a new customer, the card, the subscription or the payment), a declined card, expiry, other accounts.
 */
const browserIt = browserTest('test/hosted-pages/checkout.test.ts');
const SUCCESS = 'https://merchant.example/welcome';
const CANCEL = 'https://merchant.example/pricing';

const pages = usePagesWorld();

async function oneTimePrice(client = pages.api, unitAmount = 1500) {
  const product = expectStatus(
    await client.post('/products', {
      name: `Kit ${crypto.randomUUID().slice(0, 8)}`,
      currency: 'USD',
      unit_amount: unitAmount,
      type: 'one_time',
    }),
    201,
  );
  return product.default_price as string;
}

async function checkout(body: Record<string, unknown>) {
  return expectStatus(
    await pages.api.post('/checkout/sessions', { success_url: SUCCESS, cancel_url: CANCEL, ...body }),
    201,
  );
}

const pathOf = (session: { url: string }) => new URL(session.url).pathname;

/** The page's form filled in as a new customer would, with `number` (and the request's `headers`). */
async function submit(
  session: { url: string },
  number: string,
  form?: Record<string, string>,
  headers?: Record<string, string>,
) {
  const fields = form ?? (await pageForm(pages.world.app.baseUrl, pathOf(session)));
  return postForm(
    pages.world.app.baseUrl,
    `${pathOf(session)}/complete`,
    {
      ...fields,
      buyer_name: 'Mary Somerville',
      email: `mary-${crypto.randomUUID().slice(0, 6)}@example.com`,
      line1: '1 Observatory Lane',
      city: 'Edinburgh',
      postal_code: 'EH1 1AA',
      country: 'gb',
      name: 'Mary Somerville',
      number,
      exp: EXPIRY,
      cvc: '123',
    },
    headers,
  );
}

describe('POST /checkout/sessions', () => {
  it('answers an open session with a URL valid 24 h; bad items and other accounts are refused by field', async () => {
    const price = await recurringPrice(pages.api, { unitAmount: 2900 });
    const session = await checkout({ items: [{ price, quantity: 2 }], trial_days: 7 });
    expect(session).toMatchObject({
      object: 'checkout.session',
      mode: 'subscription',
      status: 'open',
      customer: null,
      items: [{ price, quantity: 2 }],
      trial_days: 7,
      subscription: null,
    });
    expect(session.id).toMatch(/^cs_/);
    expect(session.url).toMatch(/\/hosted\/checkout\/[A-Za-z0-9_-]{43}$/);
    expect(session.expires_at - session.created).toBe(86_400);
    const read = expectStatus(await pages.api.get(`/checkout/sessions/${session.id}`), 200);
    expect(read.url).toBeNull();
    expect((await pages.other.get(`/checkout/sessions/${session.id}`)).status).toBe(404);

    const mixed = await pages.api.post('/checkout/sessions', {
      items: [{ price }, { price: await oneTimePrice() }],
      success_url: SUCCESS,
      cancel_url: CANCEL,
    });
    expect([mixed.status, mixed.body.error.param]).toEqual([400, 'items.1.price']);
    const theirPrice = await oneTimePrice(pages.other);
    const foreign = await pages.api.post('/checkout/sessions', {
      items: [{ price: theirPrice }],
      success_url: SUCCESS,
      cancel_url: CANCEL,
    });
    expect([foreign.status, foreign.body.error.param]).toEqual([404, 'items.0.price']);
    const { customer } = await customerWithCard(pages.other);
    const theirCustomer = await pages.api.post('/checkout/sessions', {
      customer: customer.id,
      items: [{ price }],
      success_url: SUCCESS,
      cancel_url: CANCEL,
    });
    expect([theirCustomer.status, theirCustomer.body.error.param]).toEqual([404, 'customer']);
    const badUrl = await pages.api.post('/checkout/sessions', {
      items: [{ price }],
      success_url: 'ftp://x',
      cancel_url: CANCEL,
    });
    expect([badUrl.status, badUrl.body.error.param]).toEqual([400, 'success_url']);
  });
});

describe('completing a checkout', () => {
  it('creates the customer, saves the card, subscribes and sends the browser to success_url, once', async () => {
    const price = await recurringPrice(pages.api, { unitAmount: 2900 });
    const session = await checkout({ items: [{ price, quantity: 1 }] });
    const form = await pageForm(pages.world.app.baseUrl, pathOf(session));
    const response = await submit(session, CARDS.succeeds, form);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(SUCCESS);

    const done = expectStatus(await pages.api.get(`/checkout/sessions/${session.id}`), 200);
    expect(done).toMatchObject({ status: 'complete' });
    const subscription = expectStatus(await pages.api.get(`/subscriptions/${done.subscription}`), 200);
    expect(subscription).toMatchObject({ customer: done.customer, status: 'active' });
    const customer = expectStatus(await pages.api.get(`/customers/${done.customer}`), 200);
    expect(customer).toMatchObject({
      name: 'Mary Somerville',
      address: [{ line1: '1 Observatory Lane', country: 'GB' }],
    });
    const invoice = expectStatus(await pages.api.get(`/invoices/${subscription.latest_invoice}`), 200);
    expect(invoice).toMatchObject({ status: 'paid', amount_paid: 2900 });

    const events = (await eventsOf(pages.world.app.prisma, pages.world.accountId))
      .filter((event) => {
        const data = event.data as { id?: string; customer?: string };
        return data.id === done.customer || data.customer === done.customer;
      })
      .map((event) => [event.type, (event.data as { origin?: string }).origin])
      // The workflow's own later update of the subscription (its period) is not the checkout's.
      .filter(([type]) => type !== 'subscription.updated');
    // Each says it came from the checkout page (docs/decisions.md §38).
    expect(events).toEqual(
      [
        'customer.created',
        'payment_method.attached',
        'subscription.created',
        'invoice.created',
        'invoice.finalized',
        'invoice.payment_succeeded',
      ].map((type) => [type, 'hosted_checkout']),
    );

    // The same form again, or another tab: the checkout is complete, nothing more is made.
    const again = await submit(session, CARDS.succeeds, form);
    expect([again.status, again.headers.get('location')]).toEqual([303, pathOf(session)]);
    expect(await pageText(await fetch(`${pages.world.app.baseUrl}${pathOf(session)}`))).toContain(
      'This checkout is complete.',
    );
    expect((await pages.api.get(`/subscriptions?customer=${done.customer}`)).body.data).toHaveLength(1);
  });

  it('a double submit completes once', async () => {
    const price = await recurringPrice(pages.api, { unitAmount: 1900 });
    const session = await checkout({ items: [{ price }] });
    const form = await pageForm(pages.world.app.baseUrl, pathOf(session));
    const customersBefore = (await eventsOf(pages.world.app.prisma, pages.world.accountId, 'customer.created')).length;
    const answers = await Promise.all([submit(session, CARDS.succeeds, form), submit(session, CARDS.succeeds, form)]);
    expect(answers.map((answer) => answer.status)).toEqual([303, 303]);
    const done = expectStatus(await pages.api.get(`/checkout/sessions/${session.id}`), 200);
    expect(done.status).toBe('complete');
    expect((await pages.api.get(`/subscriptions?customer=${done.customer}`)).body.data).toHaveLength(1);
    expect((await eventsOf(pages.world.app.prisma, pages.world.accountId, 'customer.created')).length).toBe(
      customersBefore + 1,
    );
  });

  it('a declined card shows the decline and leaves the checkout open; another card then completes it', async () => {
    const price = await recurringPrice(pages.api, { unitAmount: 2500 });
    const session = await checkout({ items: [{ price }] });
    const declined = await submit(session, CARDS.declined);
    expect(declined.status).toBe(303);
    const page = await pageText(await fetch(`${pages.world.app.baseUrl}${declined.headers.get('location')}`));
    expect(page).toContain('Your card was declined.');
    const open = expectStatus(await pages.api.get(`/checkout/sessions/${session.id}`), 200);
    expect(open.status).toBe('open');
    const live = (await pages.api.get(`/subscriptions?customer=${open.customer}`)).body.data.filter(
      (sub: { status: string }) => sub.status !== 'canceled',
    );
    expect(live).toEqual([]);

    expect((await submit(session, CARDS.succeeds)).headers.get('location')).toBe(SUCCESS);
    const done = expectStatus(await pages.api.get(`/checkout/sessions/${session.id}`), 200);
    expect(done).toMatchObject({ status: 'complete', customer: open.customer });
  });

  it('one-time prices are paid as an invoice; an existing customer is used as given', async () => {
    const { customer } = await customerWithCard(pages.api);
    const price = await oneTimePrice(pages.api, 1500);
    const session = await checkout({ customer: customer.id, items: [{ price, quantity: 3 }] });
    expect(session.mode).toBe('payment');
    expect((await submit(session, '5555555555554444')).headers.get('location')).toBe(SUCCESS);
    const done = expectStatus(await pages.api.get(`/checkout/sessions/${session.id}`), 200);
    expect(done).toMatchObject({ status: 'complete', customer: customer.id, subscription: null });
    expect(expectStatus(await pages.api.get(`/invoices/${done.invoice}`), 200)).toMatchObject({
      status: 'paid',
      amount_paid: 4500,
      customer: customer.id,
    });
  });

  it('bad details are shown by field (400); an expired checkout says so (410); an unknown one 404', async () => {
    const price = await recurringPrice(pages.api);
    const session = await checkout({ items: [{ price }] });
    const form = await pageForm(pages.world.app.baseUrl, pathOf(session));
    const bad = await postForm(pages.world.app.baseUrl, `${pathOf(session)}/complete`, {
      ...form,
      email: 'nope',
      country: 'Britain',
    });
    expect(bad.status).toBe(400);
    const text = await pageText(bad);
    expect(text).toContain('Enter a valid email address.');
    expect(text).toContain('Enter the two-letter country code');
    expect(text).toContain('Enter your full name.');

    await pages.world.app.prisma.checkoutSession.update({
      where: { id: session.id },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    const expired = await fetch(`${pages.world.app.baseUrl}${pathOf(session)}`);
    expect(expired.status).toBe(410);
    expect((await submit(session, CARDS.succeeds, form)).status).toBe(410);
    expect(expectStatus(await pages.api.get(`/checkout/sessions/${session.id}`), 200).status).toBe('expired');
    expect((await fetch(`${pages.world.app.baseUrl}/hosted/checkout/${'c'.repeat(43)}`)).status).toBe(404);
  });
});

describe('the checkout page\'s safety (docs/api.md "Hosted pages", Safety)', () => {
  it("the session's row keeps only the SHA-256 of its URL's token", async () => {
    const session = await checkout({ items: [{ price: await recurringPrice(pages.api) }] });
    const token = pathOf(session).split('/').pop()!;
    const row = await pages.world.app.prisma.checkoutSession.findUniqueOrThrow({ where: { id: session.id } });
    expect(row.tokenHash).toBe(hashPageToken(token));
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('a post without the CSRF token, or from another origin, is a 403 page and makes nothing', async () => {
    const { prisma } = pages.world.app;
    const { accountId } = pages.world;
    const session = await checkout({ items: [{ price: await recurringPrice(pages.api, { unitAmount: 2900 }) }] });
    const form = await pageForm(pages.world.app.baseUrl, pathOf(session));
    const counts = async () => ({
      customers: await prisma.customer.count({ where: { accountId } }),
      subscriptions: await prisma.subscription.count({ where: { accountId } }),
      charges: await gatewayCharges(prisma, accountId),
    });
    const before = await counts();

    const noToken = await submit(session, CARDS.succeeds, { form_key: form.form_key! });
    const crossSite = await submit(session, CARDS.succeeds, form, { origin: 'https://evil.example' });
    for (const refused of [noToken, crossSite]) {
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await pageText(refused)).toContain('This form has expired');
    }
    expect(await counts()).toEqual(before);
    expect(await prisma.checkoutSession.findUniqueOrThrow({ where: { id: session.id } })).toMatchObject({
      status: 'open',
      customerId: null,
      subscriptionId: null,
    });
    // The same form from this origin still completes it: only the refused posts were refused.
    expect((await submit(session, CARDS.succeeds, form)).headers.get('location')).toBe(SUCCESS);
  });

  it("the page sends the pages' policy, its form-action also allowing success_url's origin (the redirect)", async () => {
    expect(PAGE_CSP).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    const session = await checkout({ items: [{ price: await recurringPrice(pages.api) }] });
    const page = await fetch(`${pages.world.app.baseUrl}${pathOf(session)}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self' https://merchant.example; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    // A refusal is a page of the same policy, without the extra origin (it has no form).
    const refused = await submit(session, CARDS.succeeds, {});
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-security-policy')).toBe(PAGE_CSP);
  });
});

describe('in a browser', () => {
  browserIt('subscribes with a trial through checkout and lands on success_url (axe, screenshots)', async () => {
    const b = pages.browser!;
    const price = await recurringPrice(pages.api, { unitAmount: 4900 });
    const session = await checkout({ items: [{ price, quantity: 1 }], trial_days: 14 });
    const page = await b.newPage();
    // The merchant's site, served here in place of the network.
    await page.route('https://merchant.example/**', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<title>Welcome</title><h1>Welcome aboard</h1>' }),
    );
    await page.goto(`${pages.world.app.baseUrl}${pathOf(session)}`);
    await page.getByRole('heading', { name: 'Subscribe' }).waitFor();
    await b.screen(page, 'checkout');
    const fill = async (number: string) => {
      await page.getByLabel('Full name').fill('Mary Somerville');
      await page.getByLabel('Email').fill('mary@example.com');
      await page.getByLabel('Street address').fill('1 Observatory Lane');
      await page.getByLabel('City').fill('Edinburgh');
      await page.getByLabel('Postal code').fill('EH1 1AA');
      await page.getByLabel('Country code').fill('GB');
      await page.getByLabel('Name on card').fill('Mary Somerville');
      await page.getByLabel('Card number').fill(number);
      await page.getByLabel('Expiry (MM/YY)').fill(EXPIRY);
      await page.getByLabel('Security code').fill('123');
      await page.getByRole('button', { name: 'Subscribe' }).click();
    };
    await fill(CARDS.succeeds);
    await page.waitForURL(SUCCESS);
    const done = expectStatus(await pages.api.get(`/checkout/sessions/${session.id}`), 200);
    expect(done.status).toBe('complete');
    expect(expectStatus(await pages.api.get(`/subscriptions/${done.subscription}`), 200).status).toBe('trialing');
    expect(b.offSite.filter((url) => !url.startsWith('https://merchant.example'))).toEqual([]);

    // Without a trial the first charge is made at once: a refused card is shown on the page.
    const charged = await checkout({ items: [{ price, quantity: 1 }] });
    await page.goto(`${pages.world.app.baseUrl}${pathOf(charged)}`);
    await fill(CARDS.insufficientFunds);
    await page.getByText('Your card was declined: insufficient funds.').waitFor();
    await b.screen(page, 'checkout-declined');
  });
});
