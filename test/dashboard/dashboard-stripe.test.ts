import { browserTest, haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { createTestUser, openSettings, signIn } from '../support/dashboard';
import { createTestAccount, expectStatus, startTestApp, type TestApp } from '../support/harness';
import { startStripeJsStandIn, type StripeJsStandIn } from '../support/stripe-js-stand-in';
import { startLocalstripe, stripeToolMissing, type StripeStandIn } from '../support/stripe-tools';

/**
 * Stripe for a merchant in Chromium (docs/api.md, "Payment processors"), localstripe standing for Stripe: a
 * developer connects Stripe in Settings → Payment processor (the API's refusals shown beside their fields; a
 * standard user has no such section).
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
});
