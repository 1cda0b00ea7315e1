import crypto from 'node:crypto';
import { hashPageToken } from '../../src/lib/page-tokens';
import { csrfToken, PAGE_CSP } from '../../src/hosted-pages/page';
import { browserTest } from '../support/browser';
import { eventsOf, expectStatus } from '../support/harness';
import { CARDS, customerWithCard, gatewayCharges } from '../support/payments';
import { recurringPrice } from '../support/subscriptions';
import { EXPIRY, hostedPath, pageForm, pageText, postForm, usePagesWorld } from './pages';

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

describe('the money ceiling (MAX_CHARGE_AMOUNT, docs/decisions.md §6)', () => {
  it('a checkout charging more than 99,999,999 cents at once is refused at creation: 400 amount_too_large naming the field', async () => {
    const { prisma } = pages.world.app;
    const { accountId } = pages.world;
    const sessionsBefore = await prisma.checkoutSession.count({ where: { accountId } });
    const monthly = await recurringPrice(pages.api, { unitAmount: 1_000_000 });
    const alone = await pages.api.post('/checkout/sessions', {
      items: [{ price: monthly, quantity: 100 }],
      success_url: SUCCESS,
      cancel_url: CANCEL,
    });
    expect([alone.status, alone.body.error.code, alone.body.error.param]).toEqual([
      400,
      'amount_too_large',
      'items.0.quantity',
    ]);
    // Two items each within it, together over it: the items as a whole are named, as POST /subscriptions does.
    const other = await recurringPrice(pages.api, { unitAmount: 1_000_000 });
    const together = await pages.api.post('/checkout/sessions', {
      items: [
        { price: monthly, quantity: 60 },
        { price: other, quantity: 40 },
      ],
      success_url: SUCCESS,
      cancel_url: CANCEL,
    });
    expect([together.status, together.body.error.code, together.body.error.param]).toEqual([
      400,
      'amount_too_large',
      'items',
    ]);
    const kit = await oneTimePrice(pages.api, 5_000_000);
    const payment = await pages.api.post('/checkout/sessions', {
      items: [{ price: kit, quantity: 20 }],
      success_url: SUCCESS,
      cancel_url: CANCEL,
    });
    expect([payment.status, payment.body.error.code, payment.body.error.param]).toEqual([
      400,
      'amount_too_large',
      'items.0.quantity',
    ]);
    // Exactly at the ceiling is allowed.
    const atCeiling = await oneTimePrice(pages.api, 99_999_999);
    expect((await checkout({ items: [{ price: atCeiling }] })).mode).toBe('payment');
    expect(await prisma.checkoutSession.count({ where: { accountId } })).toBe(sessionsBefore + 1);
  });

  it('a checkout whose price changed since it was made is refused on completion, with nothing written', async () => {
    const { prisma } = pages.world.app;
    const { accountId } = pages.world;
    // A price never billed can still be edited (PATCH /prices/{id}/inactive) or deleted after the checkout is made.
    const price = await recurringPrice(pages.api, { unitAmount: 2000 });
    const session = await checkout({ items: [{ price, quantity: 10 }] });
    const opened = await pageForm(pages.world.app.baseUrl, pathOf(session));
    expectStatus(await pages.api.patch(`/prices/${price}/inactive`, { unit_amount: 10_000_000 }), 200);
    const counts = async () => ({
      customers: await prisma.customer.count({ where: { accountId } }),
      cards: await prisma.paymentMethod.count({ where: { accountId } }),
      subscriptions: await prisma.subscription.count({ where: { accountId } }),
      invoices: await prisma.invoice.count({ where: { accountId } }),
      charges: await gatewayCharges(prisma, accountId),
    });
    const before = await counts();
    const refused = await submit(session, CARDS.succeeds, opened);
    expect(refused.status).toBe(409);
    const text = await pageText(refused);
    expect(text).toContain('This checkout can no longer be completed');
    expect(text).toContain('Nothing was charged and nothing was saved.');
    expect(text).toContain(`href="${CANCEL}"`);
    expect(await counts()).toEqual(before);
    expect(await prisma.checkoutSession.findUniqueOrThrow({ where: { id: session.id } })).toMatchObject({
      status: 'open',
      customerId: null,
    });

    // A one-time price deleted while the customer had the page open: the same page, nothing written.
    const kit = await oneTimePrice(pages.api, 1200);
    const gone = await checkout({ items: [{ price: kit }] });
    const form = await pageForm(pages.world.app.baseUrl, pathOf(gone));
    expectStatus(await pages.api.delete(`/prices/${kit}`), 200);
    expect((await submit(gone, CARDS.succeeds, form)).status).toBe(409);
    expect(await counts()).toEqual(before);
    // Opened afterwards, the page says so at once.
    const reopened = await fetch(`${pages.world.app.baseUrl}${pathOf(gone)}`);
    expect(reopened.status).toBe(409);
    expect(await pageText(reopened)).toContain('This checkout can no longer be completed');
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

  it('a declined card: the page again with the entries but the card number and CVC, the first invoice voided, then one paid invoice', async () => {
    const { prisma } = pages.world.app;
    const { accountId } = pages.world;
    const price = await recurringPrice(pages.api, { unitAmount: 2500 });
    const session = await checkout({ items: [{ price }] });
    const declined = await submit(session, CARDS.declined);
    // Shown in the answer itself: the entries stay, the card's number and security code are never echoed.
    expect(declined.status).toBe(402);
    const page = await declined.text();
    expect(page).toContain('Your card was declined.');
    expect(page).toMatch(/For your security the card number and security code are never kept: enter them again\./);
    const value = (name: string) => new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(page)?.[1];
    expect(
      Object.fromEntries(
        ['buyer_name', 'line1', 'city', 'postal_code', 'country', 'name', 'exp', 'number', 'cvc'].map((name) => [
          name,
          value(name),
        ]),
      ),
    ).toEqual({
      buyer_name: 'Mary Somerville',
      line1: '1 Observatory Lane',
      city: 'Edinburgh',
      postal_code: 'EH1 1AA',
      country: 'gb',
      name: 'Mary Somerville',
      exp: EXPIRY,
      number: '',
      cvc: '',
    });
    expect(value('email')).toMatch(/^mary-.+@example\.com$/);
    expect(page).not.toContain(CARDS.declined);

    const open = expectStatus(await pages.api.get(`/checkout/sessions/${session.id}`), 200);
    expect(open.status).toBe('open');
    const [abandoned] = (await pages.api.get(`/subscriptions?customer=${open.customer}`)).body.data;
    expect(abandoned.status).toBe('canceled');
    // Its first invoice is void (with its event): its hosted link can no longer charge anyone.
    const first = expectStatus(await pages.api.get(`/invoices/${abandoned.latest_invoice}`), 200);
    expect(first.status).toBe('void');
    const voidedEvents = (await eventsOf(prisma, accountId, 'invoice.deleted')).filter(
      (event) => (event.data as { id: string }).id === first.id,
    );
    expect(voidedEvents.map((event) => (event.data as { origin?: string }).origin)).toEqual(['hosted_checkout']);
    // Another account's key reaches none of it.
    expect((await pages.other.get(`/invoices/${first.id}`)).status).toBe(404);
    expect((await pages.other.get(`/subscriptions/${abandoned.id}`)).status).toBe(404);
    const failed = (await eventsOf(prisma, accountId, 'invoice.payment_failed')).filter(
      (event) => (event.data as { id: string }).id === first.id,
    );
    // The email consumer reads this origin: no failed-payment email (test/hosted-pages/checkout-emails.test.ts).
    expect(failed.map((event) => (event.data as { origin?: string }).origin)).toEqual(['hosted_checkout']);
    // The refused card is not left on the customer either.
    expect((await pages.api.get(`/customers/${open.customer}/payment-methods`)).body.data).toEqual([]);

    const chargesBefore = await gatewayCharges(prisma, accountId);
    expect((await submit(session, CARDS.succeeds)).headers.get('location')).toBe(SUCCESS);
    const done = expectStatus(await pages.api.get(`/checkout/sessions/${session.id}`), 200);
    expect(done).toMatchObject({ status: 'complete', customer: open.customer });
    const invoices = (await pages.api.get(`/invoices?customer=${open.customer}`)).body.data as {
      id: string;
      status: string;
      amount_paid: number;
    }[];
    expect(invoices.map((invoice) => invoice.status).sort()).toEqual(['paid', 'void']);
    expect(invoices.find((invoice) => invoice.status === 'paid')!.amount_paid).toBe(2500);
    expect(await gatewayCharges(prisma, accountId)).toBe(chargesBefore + 1);

    // The voided invoice's page takes no payment: its form is gone, a post of it charges nothing.
    const voidPath = hostedPath(first);
    expect(await pageText(await fetch(`${pages.world.app.baseUrl}${voidPath}`))).toContain(
      'This invoice was voided: nothing is due.',
    );
    // The form as the page showed it while the invoice was open (its CSRF token is the link's, no storage).
    const pay = await postForm(pages.world.app.baseUrl, `${voidPath}/pay`, {
      csrf: csrfToken(hashPageToken(voidPath.split('/').pop()!), 'pay'),
      form_key: 'a'.repeat(24),
      name: 'Mary Somerville',
      number: CARDS.succeeds,
      exp: EXPIRY,
      cvc: '123',
    });
    expect([pay.status, pay.headers.get('location')]).toEqual([303, voidPath]);
    expect(await gatewayCharges(prisma, accountId)).toBe(chargesBefore + 1);
  });

  it("a given customer's card saved before stays when it is declined; a card the checkout saved goes", async () => {
    const { customer, method } = await customerWithCard(pages.api, CARDS.insufficientFunds);
    const price = await recurringPrice(pages.api, { unitAmount: 2200 });
    const session = await checkout({ customer: customer.id, items: [{ price }] });
    expect((await submit(session, CARDS.insufficientFunds)).status).toBe(402);
    expect((await submit(session, CARDS.declined)).status).toBe(402);
    const cards = (await pages.api.get(`/customers/${customer.id}/payment-methods`)).body.data;
    expect(cards.map((card: { id: string }) => card.id)).toEqual([method.id]);
  });

  it('the declined form sent again (a reload) declines again and completes nothing', async () => {
    const price = await recurringPrice(pages.api, { unitAmount: 2600 });
    const session = await checkout({ items: [{ price }] });
    const form = await pageForm(pages.world.app.baseUrl, pathOf(session));
    expect((await submit(session, CARDS.declined, form)).status).toBe(402);
    // The same form key again: it answers the subscription that form made, canceled with its invoice void.
    expect((await submit(session, CARDS.declined, form)).status).toBe(402);
    const open = expectStatus(await pages.api.get(`/checkout/sessions/${session.id}`), 200);
    expect(open).toMatchObject({ status: 'open', subscription: null });
    const statuses = (await pages.api.get(`/invoices?customer=${open.customer}`)).body.data.map(
      (invoice: { status: string }) => invoice.status,
    );
    expect(statuses).toEqual(['void']);
  });

  it('a completion failing after it wrote the customer and card takes them back: nothing is left behind', async () => {
    const { prisma } = pages.world.app;
    const { accountId } = pages.world;
    const session = await checkout({ items: [{ price: await recurringPrice(pages.api, { unitAmount: 2700 }) }] });
    const form = await pageForm(pages.world.app.baseUrl, pathOf(session));
    // A fault the checks before it cannot foresee: the database refuses the subscription's row.
    await prisma.$executeRawUnsafe(
      `CREATE FUNCTION checkout_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`,
    );
    await prisma.$executeRawUnsafe(
      `CREATE TRIGGER checkout_test_refuse BEFORE INSERT ON subscriptions FOR EACH ROW WHEN (NEW.account_id = '${accountId}') EXECUTE FUNCTION checkout_test_refuse()`,
    );
    let failed: Response;
    try {
      failed = await submit(session, CARDS.succeeds, form);
    } finally {
      await prisma.$executeRawUnsafe('DROP TRIGGER checkout_test_refuse ON subscriptions');
      await prisma.$executeRawUnsafe('DROP FUNCTION checkout_test_refuse()');
    }
    expect(failed.status).toBe(500);
    expect(await pageText(failed)).toContain('Something went wrong');
    const row = await prisma.checkoutSession.findUniqueOrThrow({ where: { id: session.id } });
    expect(row).toMatchObject({ status: 'open', customerId: null, subscriptionId: null });
    // The customer it made is deleted again (its card detached with it), and answers 404 like any deleted one.
    const made = (await eventsOf(prisma, accountId, 'customer.created')).at(-1)!.data as { id: string; email: string };
    expect(made.email).toMatch(/^mary-/);
    expect((await pages.api.get(`/customers/${made.id}`)).status).toBe(404);
    expect(await prisma.paymentMethod.count({ where: { accountId, customerId: made.id } })).toBe(0);
    expect(await prisma.subscription.count({ where: { accountId, customerId: made.id } })).toBe(0);

    // The same page then completes with a customer of its own.
    expect((await submit(session, CARDS.succeeds, form)).headers.get('location')).toBe(SUCCESS);
    const done = expectStatus(await pages.api.get(`/checkout/sessions/${session.id}`), 200);
    expect(done.customer).not.toBe(made.id);
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

  it('details the form takes but a customer may not hold are shown by field (400), and nothing is written', async () => {
    const session = await checkout({ items: [{ price: await recurringPrice(pages.api) }] });
    const form = await pageForm(pages.world.app.baseUrl, pathOf(session));
    const refused = await postForm(pages.world.app.baseUrl, `${pathOf(session)}/complete`, {
      ...form,
      // A zero-width space inside the name, a two-letter code ISO 3166 does not assign.
      buyer_name: 'Mary\u200bSomerville',
      email: 'mary-zz@example.com',
      line1: '1 Observatory Lane',
      city: 'Edinburgh',
      postal_code: 'EH1 1AA',
      country: 'ZZ',
      name: 'Mary Somerville',
      number: CARDS.succeeds,
      exp: EXPIRY,
      cvc: '123',
    });
    expect(refused.status).toBe(400);
    const text = await pageText(refused);
    expect(text).toContain('Enter your full name without line breaks or invisible characters.');
    expect(text).toContain('Enter the two-letter country code (for example US).');
    expect(expectStatus(await pages.api.get(`/checkout/sessions/${session.id}`), 200)).toMatchObject({
      status: 'open',
      customer: null,
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
    await page.getByRole('heading', { name: 'Subscribe', exact: true }).waitFor();
    await b.screen(page, 'checkout');
    const fill = async (number: string) => {
      await page.getByLabel('Full name', { exact: true }).fill('Mary Somerville');
      await page.getByLabel('Email', { exact: true }).fill('mary@example.com');
      await page.getByLabel('Street address', { exact: true }).fill('1 Observatory Lane');
      await page.getByLabel('City', { exact: true }).fill('Edinburgh');
      await page.getByLabel('Postal code', { exact: true }).fill('EH1 1AA');
      await page.getByLabel('Country code', { exact: true }).fill('GB');
      await page.getByLabel('Name on card', { exact: true }).fill('Mary Somerville');
      await page.getByLabel('Card number', { exact: true }).fill(number);
      await page.getByLabel('Expiry (MM/YY)', { exact: true }).fill(EXPIRY);
      await page.getByLabel('Security code', { exact: true }).fill('123');
      await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
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
