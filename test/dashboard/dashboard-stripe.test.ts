import { browserTest, haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { createTestUser, openSettings, signIn } from '../support/dashboard';
import {
  apiClient,
  createTestAccount,
  expectStatus,
  startTestApp,
  type ApiClient,
  type TestApp,
} from '../support/harness';
import { createCustomer, simpleInvoice } from '../support/payments';
import { stripeAt } from '../support/stripe-accounts';
import { startStripeJsStandIn, type StripeJsStandIn } from '../support/stripe-js-stand-in';
import { startLocalstripe, stripeToolMissing, type StripeStandIn } from '../support/stripe-tools';
import { EXPIRY, hostedPath } from '../hosted-pages/pages';

/**
 * A merchant's whole Stripe flow in Chromium (docs/api.md, "Payment processors"), localstripe standing for Stripe:
 * a developer connects Stripe in Settings → Payment processor (the API's refusals shown beside their fields; a
 * standard user has no such section), a customer pays an invoice on its hosted page with a card typed in the
 * Stripe.js stand-in's element, and the developer refunds part of it from the invoice's screen. The amounts are
 * checked in the API and at localstripe; another account's user reaches none of it.
 */
const missing = stripeToolMissing('localstripe');
if (missing) console.warn(`test/dashboard/dashboard-stripe.test.ts skipped: ${missing}`);
const browserIt = missing ? it.skip : browserTest('test/dashboard/dashboard-stripe.test.ts');

const SECRET_KEY = 'sk_test_MerchantFlow42';
const PUBLISHABLE_KEY = 'pk_test_MerchantFlow42';

let localstripe: StripeStandIn;
let standIn: StripeJsStandIn;
let app: TestApp;
let accountId: string;
let api: ApiClient;
let otherAccountId: string;
let browser: DashboardBrowser | undefined;
const envBefore = { api: process.env.STRIPE_API_BASE, js: process.env.STRIPE_JS_URL };

beforeAll(async () => {
  if (missing || !haveChromium) return;
  localstripe = await startLocalstripe();
  process.env.STRIPE_API_BASE = localstripe.apiBase;
  standIn = await startStripeJsStandIn(localstripe, SECRET_KEY);
  process.env.STRIPE_JS_URL = standIn.url;
  app = await startTestApp();
  const account = await createTestAccount(app.prisma, { name: 'Orbit Supplies' });
  accountId = account.accountId;
  api = apiClient(app.baseUrl, account.apiKey);
  otherAccountId = (await createTestAccount(app.prisma, { name: 'Someone Else' })).accountId;
  browser = await openDashboardBrowser(app.baseUrl, { alsoAllowed: [standIn.origin] });
});
afterAll(async () => {
  process.env.STRIPE_API_BASE = envBefore.api;
  process.env.STRIPE_JS_URL = envBefore.js;
  await browser?.close();
  await app?.close();
  await standIn?.close();
  await localstripe?.stop();
});

describe('Stripe for a merchant, in the dashboard and on the hosted page', () => {
  browserIt('connects Stripe in Settings: the refusals beside their fields, then the connection shown', async () => {
    const developer = await createTestUser(app.prisma, accountId, { role: 'developer', name: 'Dev Eloper' });
    const page = await browser!.newPage();
    await browser!.signIn(page, developer);
    await openSettings(page);
    const section = page.getByRole('region', { name: 'Payment processor', exact: true });
    await section.getByText('Simulated gateway', { exact: true }).waitFor();
    await browser!.screenFits(page, 'settings-payment-processor-simulated');

    const form = section.getByRole('form', { name: 'Connect Stripe', exact: true });
    await form.getByLabel('Secret key (sk_test_… or sk_live_…)', { exact: true }).fill('pk_test_NotASecret');
    await form.getByLabel('Webhook signing secret (whsec_…)', { exact: true }).fill('whsec_MerchantFlow');
    await form.getByRole('button', { name: 'Connect Stripe', exact: true }).click();
    await form
      .getByRole('alert')
      .getByText(/must be a Stripe secret key/)
      .waitFor();
    await form.getByLabel('Secret key (sk_test_… or sk_live_…)', { exact: true }).fill(SECRET_KEY);
    const publishable = form.getByLabel("Publishable key (pk_test_… or pk_live_…, for the hosted pages' card field)", {
      exact: true,
    });
    await publishable.fill('pk_live_WrongMode');
    await form.getByRole('button', { name: 'Connect Stripe', exact: true }).click();
    await form
      .getByRole('alert')
      .getByText(/publishable_key must be a test \(pk_test_\) key/)
      .waitFor();
    await publishable.fill(PUBLISHABLE_KEY);
    await form.getByRole('button', { name: 'Connect Stripe', exact: true }).dblclick();
    await section.getByText(/^Saved\. Payments go through Stripe in test mode from now on/).waitFor();

    const saved = expectStatus(
      await (await signIn(app.baseUrl, developer.email, developer.password)).api.get('/settings/gateway'),
      200,
    );
    expect(saved).toMatchObject({
      processor: 'stripe',
      livemode: false,
      secret_key_last4: 'ow42',
      webhook_secret_last4: 'Flow',
      publishable_key: PUBLISHABLE_KEY,
    });
    await section.getByText('Stripe', { exact: true }).waitFor();
    await section.getByText('Ending ow42', { exact: true }).waitFor();
    await section.getByText(saved.webhook_url, { exact: true }).waitFor();
    expect(await page.content()).not.toContain(SECRET_KEY);
    await section.getByRole('form', { name: 'Change the Stripe keys', exact: true }).waitFor();
    // The double click above selected the form's text: cleared, so the screenshot shows the screen as it is.
    await page.evaluate('window.getSelection().removeAllRanges()');
    await browser!.screenFits(page, 'settings-payment-processor-stripe');

    // A standard user has no such section (the API refuses them the settings).
    const standard = await createTestUser(app.prisma, accountId, { role: 'standard' });
    const standardPage = await browser!.newPage();
    await browser!.signIn(standardPage, standard);
    await openSettings(standardPage);
    await standardPage.getByRole('region', { name: 'Payment plans', exact: true }).waitFor();
    expect(await standardPage.getByRole('region', { name: 'Payment processor', exact: true }).count()).toBe(0);
    expect(browser!.offSite).toEqual([]);
  });

  browserIt("a customer pays on the hosted page with Stripe's element; the merchant refunds part of it", async () => {
    const customer = await createCustomer(api);
    const draft = await simpleInvoice(api, customer.id, 8_000);
    const invoice = expectStatus(await api.post(`/invoices/${draft.id}/finalize`, {}), 200);

    const hosted = await browser!.newPage();
    await hosted.goto(`${app.baseUrl}${hostedPath(invoice)}`);
    await hosted.getByLabel('Name on card', { exact: true }).fill('Grace Hopper');
    await hosted.getByRole('textbox', { name: 'Card number', exact: true }).fill('4242 4242 4242 4242');
    await hosted.getByRole('textbox', { name: 'Expiration date MM / YY', exact: true }).fill(EXPIRY);
    await hosted.getByRole('textbox', { name: 'Security code', exact: true }).fill('123');
    await browser!.screen(hosted, 'stripe-hosted-invoice-filled');
    await hosted.getByRole('button', { name: 'Pay $80.00', exact: true }).click();
    await hosted.getByText('Payment received: $80.00 on visa ending 4242. Thank you.', { exact: true }).waitFor();
    const [methodId] = standIn.madeMethods.slice(-1);

    const developer = await createTestUser(app.prisma, accountId, { role: 'developer' });
    const page = await browser!.newPage();
    await browser!.signIn(page, developer);
    await page.goto(`${app.baseUrl}/dashboard/invoices/${invoice.id}`);
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^Amount in USD/).fill('25.00');
    await dialog.getByRole('button', { name: 'Refund', exact: true }).dblclick();
    await page.getByRole('status').filter({ hasText: 'Refunded. $25.00 goes back to the card.' }).waitFor();
    await browser!.screenFits(page, 'stripe-invoice-refunded');

    // The API: paid $80.00 with the element's method, $25.00 of it refunded, once.
    expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
      status: 'paid',
      amount_paid: 8_000,
      amount_refunded: 2_500,
      payment_method: methodId,
    });
    const entries = expectStatus(await api.get(`/transactions?invoice=${invoice.id}`), 200).data as {
      type: string;
      status: string;
      amount: number;
      gateway_reference: string;
    }[];
    expect(
      entries.map(({ type, status, amount }) => ({ type, status, amount })).sort((a, b) => b.amount - a.amount),
    ).toEqual([
      { type: 'payment', status: 'succeeded', amount: 8_000 },
      { type: 'refund', status: 'succeeded', amount: -2_500 },
    ]);
    // localstripe: one PaymentIntent of $80.00 on that method, one refund of $25.00.
    const stripe = stripeAt(localstripe, SECRET_KEY);
    const payment = entries.find((entry) => entry.type === 'payment')!;
    const intent = await stripe.paymentIntents.retrieve(payment.gateway_reference);
    expect(intent).toMatchObject({ amount: 8_000, currency: 'usd', status: 'succeeded', payment_method: methodId });
    expect((await stripe.refunds.list({ payment_intent: intent.id })).data.map((refund) => refund.amount)).toEqual([
      2_500,
    ]);

    // Another account's user reaches none of it.
    const stranger = await createTestUser(app.prisma, otherAccountId, { role: 'developer' });
    const theirs = await signIn(app.baseUrl, stranger.email, stranger.password);
    expect((await theirs.api.get(`/invoices/${invoice.id}`)).status).toBe(404);
    expect((await theirs.api.get(`/payment-methods/${methodId}`)).status).toBe(404);
    expect((await theirs.api.post(`/invoices/${invoice.id}/refund`, { amount: 100 })).status).toBe(404);
    expect(expectStatus(await theirs.api.get('/settings/gateway'), 200)).toMatchObject({
      processor: 'simulated',
      secret_key_last4: null,
    });
    const strangerPage = await browser!.newPage();
    await browser!.signIn(strangerPage, stranger);
    await strangerPage.goto(`${app.baseUrl}/dashboard/invoices/${invoice.id}`);
    await strangerPage.getByRole('heading', { name: 'Invoice not found', exact: true }).waitFor();
    expect(await strangerPage.getByText('$80.00').count()).toBe(0);
    expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200).amount_refunded).toBe(2_500);
    expect(browser!.offSite).toEqual([]);
  });
});
