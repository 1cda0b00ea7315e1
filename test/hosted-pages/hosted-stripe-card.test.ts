import { apiClient, createTestAccount, expectStatus } from '../support/harness';
import { createCustomer, simpleInvoice } from '../support/payments';
import { connectStripe, startLocalstripeWorld, type LocalstripeWorld } from '../support/stripe-accounts';
import { stripeToolMissing } from '../support/stripe-tools';
import { startStripeJsStandIn, type StripeJsStandIn } from '../support/stripe-js-stand-in';
import { browserTest, haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { CHECKOUT_BUYER, EXPIRY, hostedPath, pageForm, pageText, postForm } from './pages';

/**
 * The hosted pages of an account on Stripe collect cards with Stripe's card element (docs/api.md, "Payment
 * processors"): Stripe.js and the card script load under a policy that allows Stripe, no card number field is
 * rendered or taken, and the forms post the `pm_...` the element made, which the API's attach imports from
 * Stripe (localstripe here) before the invoice is paid, the card saved or the checkout completed. A bad, unknown
 * or declined method is shown on the page, never a 500. An account on the simulator keeps its own form.
 */
const missing = stripeToolMissing('localstripe');
if (missing) console.warn(`test/hosted-pages/hosted-stripe-card.test.ts skipped: ${missing}`);
const describeWithLocalstripe = missing ? describe.skip : describe;

const browserIt = browserTest('test/hosted-pages/hosted-stripe-card.test.ts');
const PUBLISHABLE_KEY = 'pk_test_HostedElement1';

describeWithLocalstripe('hosted pages of an account on Stripe', () => {
  let world: LocalstripeWorld;
  let app: LocalstripeWorld['app'];
  let api: LocalstripeWorld['api'];
  let simulated: LocalstripeWorld['other'];

  beforeAll(async () => {
    world = await startLocalstripeWorld('Element Shop', {
      secretKey: 'sk_test_HostedElement1',
      publishableKey: PUBLISHABLE_KEY,
    });
    ({ app, api, other: simulated } = world);
  });
  afterAll(() => world?.close());

  // What Stripe.js does in the customer's browser: the card goes to Stripe, which answers a pm_ id (localstripe
  // takes only a secret key where Stripe.js sends the publishable one).
  const cardAtStripe = async (number = '4242424242424242') =>
    (
      await world.stripe.paymentMethods.create({
        type: 'card',
        card: { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' },
        billing_details: { name: 'Ada Lovelace' },
      })
    ).id;

  async function connectedWithoutPublishableKey() {
    const account = await createTestAccount(app.prisma, { name: 'No Key Shop' });
    const client = apiClient(app.baseUrl, account.apiKey);
    await connectStripe(client, { secretKey: 'sk_test_NoPublishable1' });
    return { api: client };
  }

  async function openInvoice(client = api, amount = 3100) {
    const customer = await createCustomer(client);
    const draft = await simpleInvoice(client, customer.id, amount);
    const invoice = expectStatus(await client.post(`/invoices/${draft.id}/finalize`, {}), 200);
    return { customer, invoice, path: hostedPath(invoice) };
  }

  it("renders Stripe's element with the publishable key under a policy that allows Stripe, and no number field", async () => {
    const { path } = await openInvoice();
    const response = await fetch(`${app.baseUrl}${path}`);
    expect(response.status).toBe(200);
    const policy = response.headers.get('content-security-policy')!;
    expect(policy).toContain("script-src 'self' https://js.stripe.com");
    expect(policy).toContain('frame-src https://js.stripe.com');
    expect(policy).toContain('connect-src https://api.stripe.com');
    expect(policy).toContain("default-src 'none'");
    const page = await pageText(response);
    expect(page).toContain('<script src="https://js.stripe.com/v3/"></script>');
    expect(page).toMatch(/<script src="\/hosted\/assets\/stripe-card-[0-9a-f]{12}\.js" defer><\/script>/);
    expect(page).toContain(`data-stripe-key="${PUBLISHABLE_KEY}"`);
    expect(page).toContain('id="card-element"');
    expect(page).toContain('<input type="hidden" name="payment_method" value="" />');
    expect(page).not.toContain('name="number"');
    expect(page).not.toContain('name="cvc"');
    expect(page).toContain('Card details go straight to Stripe, the payment processor: they never reach this site.');
    const script = page.match(/\/hosted\/assets\/stripe-card-[0-9a-f]{12}\.js/)![0];
    const served = await fetch(`${app.baseUrl}${script}`);
    expect(served.headers.get('content-type')).toContain('javascript');
    expect(await served.text()).toContain('createPaymentMethod');
  });

  it('pays the invoice with the method the element made: attached from Stripe, charged there once', async () => {
    const { customer, invoice, path } = await openInvoice();
    const methodId = await cardAtStripe();
    const form = await pageForm(app.baseUrl, path);
    const fields = { ...form, name: 'Ada Lovelace', payment_method: methodId };
    const response = await postForm(app.baseUrl, `${path}/pay`, fields);
    expect(response.status).toBe(303);
    // The same form sent again (a double click) is the same attempt: nothing more is charged.
    expect((await postForm(app.baseUrl, `${path}/pay`, fields)).status).toBe(303);

    const paid = expectStatus(await api.get(`/invoices/${invoice.id}`), 200);
    expect(paid).toMatchObject({ status: 'paid', amount_paid: 3100 });
    const [method] = expectStatus(await api.get(`/customers/${customer.id}/payment-methods`), 200).data;
    expect(method).toMatchObject({ id: methodId, card: { brand: 'visa', last4: '4242' }, livemode: false });
    expect(paid.payment_method).toBe(methodId);
    const payments = (await api.get(`/transactions?invoice=${invoice.id}`)).body.data;
    expect(payments).toHaveLength(1);
    const intent = await world.stripe.paymentIntents.retrieve(payments[0].gateway_reference);
    expect(intent).toMatchObject({ amount: 3100, currency: 'usd', status: 'succeeded', payment_method: methodId });
    const receipt = await pageText(await fetch(new URL(response.headers.get('location')!, app.baseUrl)));
    expect(receipt).toContain('Payment received: $31.00 on visa ending 4242');
    // Another account sees nothing of it.
    expect((await simulated.get(`/payment-methods/${methodId}`)).status).toBe(404);
    expect((await simulated.get(`/invoices/${invoice.id}`)).status).toBe(404);
  });

  it('refuses a missing, malformed, unknown or declined method, and raw card numbers, on the page: nothing charged', async () => {
    const { customer, invoice, path } = await openInvoice();
    const post = async (fields: Record<string, string>) => {
      const form = await pageForm(app.baseUrl, path);
      const response = await postForm(app.baseUrl, `${path}/pay`, { ...form, name: 'Ada Lovelace', ...fields });
      return { status: response.status, text: await pageText(response) };
    };
    const refusals: { fields: Record<string, string>; status: number; says: string }[] = [
      { fields: {}, status: 400, says: 'Enter your card details.' },
      { fields: { payment_method: '<script>' }, status: 400, says: 'Your card could not be read. Enter it again.' },
      { fields: { payment_method: 'pm_NoSuchMethod' }, status: 400, says: 'This card could not be read.' },
      { fields: { payment_method: 'pm_card_visa_chargeDeclined' }, status: 402, says: 'Your card was declined.' },
      {
        fields: { payment_method: await cardAtStripe(), number: '4242424242424242', exp: EXPIRY, cvc: '123' },
        status: 400,
        says: 'Card numbers are entered in the card field only.',
      },
    ];
    for (const refusal of refusals) {
      const answer = await post(refusal.fields);
      expect({ fields: refusal.fields, status: answer.status }).toEqual({
        fields: refusal.fields,
        status: refusal.status,
      });
      expect(answer.text).toContain(refusal.says);
      expect(answer.text).toContain('id="card-element"');
      expect(answer.text).not.toContain('&lt;script&gt;');
    }
    expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
      status: 'open',
      amount_paid: 0,
    });
    expect((await api.get(`/transactions?invoice=${invoice.id}`)).body.data).toEqual([]);
    expect(
      await app.prisma.paymentMethod.count({ where: { accountId: world.accountId, customerId: customer.id } }),
    ).toBe(0);
  });

  it("adds a card in the portal and completes a checkout with the element's method", async () => {
    const customer = await createCustomer(api);
    const portal = expectStatus(
      await api.post('/billing-portal/sessions', { customer: customer.id, return_url: 'https://shop.example/me' }),
      201,
    );
    const portalPath = new URL(portal.url).pathname;
    const portalPage = await pageText(await fetch(`${app.baseUrl}${portalPath}`));
    expect(portalPage).toContain(`data-stripe-key="${PUBLISHABLE_KEY}"`);
    expect(portalPage).not.toContain('name="number"');
    const methodId = await cardAtStripe('5555555555554444');
    const form = await pageForm(app.baseUrl, portalPath);
    const saved = await postForm(app.baseUrl, `${portalPath}/payment-methods`, {
      csrf: form.csrf!,
      payment_method: methodId,
      default: 'yes',
    });
    expect(saved.status).toBe(303);
    const cards = expectStatus(await api.get(`/customers/${customer.id}/payment-methods`), 200).data;
    // localstripe names every card visa.
    expect(cards).toMatchObject([{ id: methodId, card: { last4: '4444' } }]);
    const unknown = await postForm(app.baseUrl, `${portalPath}/payment-methods`, {
      csrf: form.csrf!,
      payment_method: 'pm_NoSuchMethod',
    });
    expect(unknown.status).toBe(400);
    expect(await pageText(unknown)).toContain('This card could not be read.');

    const product = expectStatus(
      await api.post('/products', { name: 'Kit', currency: 'USD', unit_amount: 1500, type: 'one_time' }),
      201,
    );
    const session = expectStatus(
      await api.post('/checkout/sessions', {
        items: [{ price: product.default_price, quantity: 2 }],
        success_url: 'https://shop.example/thanks',
        cancel_url: 'https://shop.example/cart',
      }),
      201,
    );
    const checkoutPath = new URL(session.url).pathname;
    const checkoutPage = await pageText(await fetch(`${app.baseUrl}${checkoutPath}`));
    expect(checkoutPage).toContain(`data-stripe-key="${PUBLISHABLE_KEY}"`);
    expect(checkoutPage).not.toContain('name="number"');
    const buyer = {
      ...(await pageForm(app.baseUrl, checkoutPath)),
      ...CHECKOUT_BUYER,
    };
    const declined = await postForm(app.baseUrl, `${checkoutPath}/complete`, {
      ...buyer,
      payment_method: 'pm_card_visa_chargeDeclined',
    });
    expect(declined.status).toBe(402);
    expect(await pageText(declined)).toContain('Your card was declined.');
    const completed = await postForm(app.baseUrl, `${checkoutPath}/complete`, {
      ...buyer,
      ...(await pageForm(app.baseUrl, checkoutPath)),
      payment_method: await cardAtStripe(),
    });
    expect(completed.status).toBe(303);
    expect(completed.headers.get('location')).toBe('https://shop.example/thanks');
    const done = expectStatus(await api.get(`/checkout/sessions/${session.id}`), 200);
    expect(done.status).toBe('complete');
    const invoices = expectStatus(await api.get(`/invoices?customer=${done.customer}`), 200).data;
    expect(invoices).toMatchObject([{ status: 'paid', amount_paid: 3000 }]);
  });

  it('takes no card where the account connected Stripe without a publishable key, and says so', async () => {
    const { api: withoutKey } = await connectedWithoutPublishableKey();
    const { invoice, path } = await openInvoice(withoutKey);
    const response = await fetch(`${app.baseUrl}${path}`);
    expect(response.headers.get('content-security-policy')).not.toContain('script-src');
    const page = await pageText(response);
    expect(page).toContain('This merchant cannot take a new card on this page yet.');
    expect(page).not.toContain('<form method="post"');
    expect(page).not.toContain('<script');
    // A post made by hand is refused the same way, nothing charged.
    const refused = await postForm(app.baseUrl, `${path}/pay`, { payment_method: await cardAtStripe() });
    expect(refused.status).toBe(403);
    expect(expectStatus(await withoutKey.get(`/invoices/${invoice.id}`), 200).status).toBe('open');
  });

  it("keeps the service's own form, without script, for an account on the simulator", async () => {
    const { path } = await openInvoice(simulated);
    const response = await fetch(`${app.baseUrl}${path}`);
    const policy = response.headers.get('content-security-policy')!;
    expect(policy).not.toContain('script-src');
    const page = await pageText(response);
    expect(page).toContain('name="number"');
    expect(page).not.toContain('<script');
    expect(page).not.toContain('data-stripe-key');
    expect(page).toContain('Card numbers are never stored by this page.');
  });

  describe('in Chromium, with the Stripe.js stand-in at STRIPE_JS_URL', () => {
    let standIn: StripeJsStandIn;
    let browser: DashboardBrowser | undefined;
    const jsUrlBefore = process.env.STRIPE_JS_URL;
    beforeAll(async () => {
      standIn = await startStripeJsStandIn(world.localstripe, 'sk_test_HostedElement1');
      process.env.STRIPE_JS_URL = standIn.url;
      browser = haveChromium
        ? await openDashboardBrowser(app.baseUrl, { screens: 'hosted', alsoAllowed: [standIn.origin] })
        : undefined;
    });
    afterAll(async () => {
      process.env.STRIPE_JS_URL = jsUrlBefore;
      await browser?.close();
      await standIn?.close();
    });

    browserIt(
      'pays the invoice with a card typed in the element: the number goes to Stripe alone (axe, screenshots)',
      async () => {
        const b = browser!;
        const { customer, invoice, path } = await openInvoice(api, 5400);
        const page = await b.newPage();
        const posted: string[] = [];
        page.on('request', (request) => {
          if (request.url().startsWith(app.baseUrl) && request.method() === 'POST')
            posted.push(request.postData() ?? '');
        });
        await page.goto(`${app.baseUrl}${path}`);
        const number = page.getByRole('textbox', { name: 'Card number', exact: true });
        await number.waitFor();
        await b.screen(page, 'invoice-stripe-element');

        // An incomplete card is refused by the element, in the page, before anything is sent.
        await page.getByRole('button', { name: 'Pay $54.00', exact: true }).click();
        await page.getByText('Your card number is incomplete.', { exact: true }).waitFor();
        expect(posted).toEqual([]);

        await page.getByLabel('Name on card', { exact: true }).fill('Ada Lovelace');
        await number.fill('4242 4242 4242 4242');
        await page.getByRole('textbox', { name: 'Expiration date MM / YY', exact: true }).fill(EXPIRY);
        await page.getByRole('textbox', { name: 'Security code', exact: true }).fill('123');
        await page.getByRole('button', { name: 'Pay $54.00', exact: true }).click();
        await page.getByText('Payment received: $54.00 on visa ending 4242. Thank you.', { exact: true }).waitFor();
        await b.screen(page, 'invoice-stripe-element-paid');

        expect(standIn.madeMethods).toHaveLength(1);
        const [methodId] = standIn.madeMethods;
        expect(posted).toHaveLength(1);
        expect(new URLSearchParams(posted[0]).get('payment_method')).toBe(methodId);
        expect(posted[0]).not.toContain('4242');
        expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
          status: 'paid',
          amount_paid: 5400,
          payment_method: methodId,
        });
        const [saved] = expectStatus(await api.get(`/customers/${customer.id}/payment-methods`), 200).data;
        expect(saved).toMatchObject({ id: methodId, billing_details: { name: 'Ada Lovelace' } });
        expect(b.offSite).toEqual([]);
      },
    );
  });
});
