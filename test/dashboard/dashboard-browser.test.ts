import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { DASHBOARD_DIST } from '../../src/http/dashboard-page';
import {
  browserTest,
  ensureDashboardBuilt,
  haveChromium,
  openDashboardBrowser,
  type DashboardBrowser,
} from '../support/browser';
import { apiClient, createTestAccount, eventsOf } from '../support/harness';
import { createTestUser } from '../support/dashboard';
import { createInvoice, createTaxRate, customerWithCard, simpleInvoice } from '../support/payments';
import {
  createSubscription,
  expectStatus,
  recurringPrice,
  startSubscriptionWorld,
  type SubscriptionWorld,
} from '../support/subscriptions';
import { createUser } from '../../src/dashboard-auth/user.service';

/**
 * The dashboard in headless Chromium: sign in, customers, a customer, pausing, resuming and canceling a
 * subscription, invoices (voided among them), the standard user's navigation, signing out
 * (test/support/browser.ts: axe-core and screenshots).
 */
const browserIt = browserTest('test/dashboard/dashboard-browser.test.ts');

let world: SubscriptionWorld;
let browser: DashboardBrowser | undefined;
let developer: { email: string; password: string };
let standard: { email: string; password: string };
let customerId: string;
let subscriptionId: string;
let subscriptionTitle: string;

beforeAll(async () => {
  ensureDashboardBuilt();
  world = await startSubscriptionWorld();
  await world.app.prisma.account.update({ where: { id: world.accountId }, data: { name: 'Acme Rockets' } });
  developer = await createTestUser(world.app.prisma, world.accountId, { role: 'developer', name: 'Dora Developer' });
  standard = await createTestUser(world.app.prisma, world.accountId, { role: 'standard', name: 'Sam Standard' });
  const second = await createTestAccount(world.app.prisma, { name: 'Second Shop' });
  await createUser(world.app.prisma, { accountId: second.accountId, email: developer.email, role: 'standard' });

  const { customer } = await customerWithCard(world.api);
  customerId = customer.id;
  await world.api.patch(`/customers/${customerId}`, { name: 'Ada Lovelace', email: 'ada@example.com' });
  for (const name of ['Charles Babbage', 'Grace Hopper', 'Alan Turing'])
    await world.api.post('/customers', { name, email: `${name.split(' ')[0]!.toLowerCase()}@example.com` });
  const price = await recurringPrice(world.api, { unitAmount: 4900 });
  const subscription = await createSubscription(world.api, {
    customer: customerId,
    items: [{ price, quantity: 2 }],
    trial_days: 0,
    start_date: Math.floor((await world.env.currentTimeMs()) / 1000),
  });
  subscriptionId = subscription.id;
  // The dashboard titles a subscription by its product (docs/api.md, "Names on list rows").
  subscriptionTitle = (await world.api.get(`/subscriptions/${subscriptionId}?include=names`)).body.items.data[0].price
    .product_name;
  if (haveChromium) browser = await openDashboardBrowser(world.app.baseUrl);
});
afterAll(async () => {
  await browser?.close();
  await world?.close();
});

/** The `data` of the subscription's last event of `type`: the dashboard's changes say the merchant asked. */
async function lastEventData(type: string, subscription: string) {
  const events = await eventsOf(world.app.prisma, world.accountId, type);
  return events.filter((event) => (event.data as { id: string }).id === subscription).at(-1)?.data;
}

const newPage = (width?: number) => browser!.newPage(width);
const signIn = (page: Page, user: { email: string; password: string }) => browser!.signIn(page, user);
/** Every screen fits 390 px: no sideways scrolling, no table scrolling inside its card (docs/decisions.md §35). */
const screen = (page: Page, name: string) => browser!.screenFits(page, name);

describe('the dashboard in a browser', () => {
  it('serves the app at /dashboard and any path below it, with the security headers, and its assets', async () => {
    for (const route of ['/dashboard', '/dashboard/customers/cus_x', '/dashboard/login']) {
      const response = await fetch(`${world.app.baseUrl}${route}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await response.text();
      expect(html).not.toMatch(/https?:\/\//);
      const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      const asset = await fetch(`${world.app.baseUrl}${script}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toContain('immutable');
      await asset.arrayBuffer();
    }
    expect((await fetch(`${world.app.baseUrl}/dashboard/assets/nothing.js`)).status).toBe(404);
    expect((await fetch(`${world.app.baseUrl}/dashboard/api/nothing`)).status).toBe(404);
  });

  it('keeps the first load under 300 KB of compressed JavaScript', async () => {
    const zlib = await import('node:zlib');
    const assets = path.join(DASHBOARD_DIST, 'assets');
    const js = fs.readdirSync(assets).filter((file) => file.endsWith('.js'));
    const compressed = js.reduce(
      (sum, file) => sum + zlib.gzipSync(fs.readFileSync(path.join(assets, file))).length,
      0,
    );
    expect(compressed).toBeLessThan(300 * 1024);
  });

  browserIt('a developer signs in, finds a customer, opens it and pauses its subscription', async () => {
    const page = await newPage();
    await page.goto(`${world.app.baseUrl}/dashboard`);
    await page.waitForURL('**/dashboard/login');
    await page.getByRole('heading', { name: 'Sign in to Billing', exact: true }).waitFor();
    await screen(page, 'login');
    await page.getByLabel('Email', { exact: true }).fill(developer.email);
    await page.getByLabel('Password', { exact: true }).fill('wrong password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toBe('The email or password is incorrect.');
    await page.getByLabel('Password', { exact: true }).fill(developer.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Welcome, Dora Developer', exact: true }).waitFor();
    await expect(page.getByRole('navigation', { name: 'Main', exact: true }).innerText()).resolves.toContain(
      'Developers',
    );
    await screen(page, 'home');

    await page.getByRole('link', { name: 'Customers', exact: true }).first().click();
    await page.getByRole('link', { name: 'Grace Hopper', exact: true }).waitFor();
    await screen(page, 'customers');
    await page.getByLabel('Search customers', { exact: true }).fill('ada');
    await page.waitForURL('**/customers?search=ada');
    await page.getByRole('link', { name: 'Grace Hopper', exact: true }).waitFor({ state: 'detached' });
    await expect(page.getByRole('row').count()).resolves.toBe(2);
    await page.getByLabel('Search customers', { exact: true }).fill('nobody at all');
    await page.getByText('No customer matches “nobody at all”.').waitFor();
    await screen(page, 'customers-empty');
    await page.getByLabel('Search customers', { exact: true }).fill('Ada');
    // Payment plans are off for this account: the API answers 403 and the page leaves the section out.
    const plansAnswer = page.waitForResponse((response) => response.url().includes('/payment-plans?customer='));
    await page.getByRole('link', { name: 'Ada Lovelace', exact: true }).click();
    await page.getByRole('heading', { name: 'Ada Lovelace', exact: true }).waitFor();
    expect((await plansAnswer).status()).toBe(403);
    await page.getByText(/Visa ending 4242/i).waitFor();
    // The subscriptions table's link, before those of the events timeline.
    await page.getByRole('link', { name: subscriptionTitle, exact: true }).first().waitFor();
    // The subscriptions table by its heading: the charges table above it may have been drawn first.
    const subscriptionsTable = page
      .getByRole('table')
      .filter({ has: page.getByRole('columnheader', { name: 'Subscription', exact: true }) });
    await expect(subscriptionsTable.innerText()).resolves.toContain('$98.00 per month');
    // Why charged: the answer in words, and the charge with its card, answer and reason.
    await page.getByText(/^Last charge of \$98\.00 on visa \*{4}4242/).waitFor();
    // Its times read as every time of the page (the account's zone, here UTC), not as ISO-8601.
    await page
      .getByText(/^Last charge of \$98\.00 on visa \*{4}4242 at [A-Z][a-z]{2} \d{1,2}, \d{4}, .* UTC: succeeded/)
      .waitFor();
    await page
      .getByRole('table', { name: 'Charges, newest first', exact: true })
      .getByText(/first invoice of subscription/)
      .waitFor();
    await expect(page.getByRole('heading', { name: 'Payment plans', exact: true }).count()).resolves.toBe(0);
    await screen(page, 'customer');

    await page.getByRole('link', { name: subscriptionTitle, exact: true }).first().click();
    await page.getByRole('heading', { name: subscriptionTitle, exact: true }).waitFor();
    const workflowLink = await page
      .getByRole('link', { name: 'Workflow in Temporal', exact: true })
      .getAttribute('href');
    expect(workflowLink).toMatch(
      new RegExp(`^http://localhost:\\d+/namespaces/default/workflows/subscription%3A${subscriptionId}$`),
    );
    await expect(page.locator('.title-row .badge').textContent()).resolves.toBe('active');
    await expect(page.locator('.facts').innerText()).resolves.toContain('$98.00 per month');
    const why = page.getByRole('region', { name: 'Why', exact: true });
    await why.getByText(/on visa \*{4}4242, succeeded\. Why: invoice INV-/).waitFor();
    await why.getByText(/^Next: renewal/).waitFor();
    await screen(page, 'subscription');

    // Cancel at the end of the period, then keep it after all.
    await page.getByRole('button', { name: 'Cancel at period end', exact: true }).click();
    await page
      .getByRole('dialog', { name: 'Cancel this subscription at the end of its period?', exact: true })
      .getByRole('button', { name: 'Cancel at period end', exact: true })
      .click();
    await page.getByRole('status').filter({ hasText: 'It cancels at the end of the period.' }).waitFor();
    await expect(page.locator('.facts').innerText()).resolves.toContain('Cancels');
    expect((await world.api.get(`/subscriptions/${subscriptionId}`)).body.cancel_at_period_end).toBe(true);
    await page.getByRole('button', { name: 'Keep subscription', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Keep subscription', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'It goes on.' }).waitFor();
    expect((await world.api.get(`/subscriptions/${subscriptionId}`)).body.cancel_at_period_end).toBe(false);

    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Pause this subscription?', exact: true });
    await dialog.waitFor();
    await screen(page, 'subscription-confirm');
    await dialog.getByRole('button', { name: 'Keep it as it is', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await world.api.get(`/subscriptions/${subscriptionId}`)).body.status).toBe('active');
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await dialog.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Paused.' }).waitFor();
    await expect(page.locator('.title-row .badge').textContent()).resolves.toBe('paused');
    expect((await world.api.get(`/subscriptions/${subscriptionId}`)).body.status).toBe('paused');
    expect(await lastEventData('subscription.paused', subscriptionId)).toMatchObject({
      reason: 'requested',
      initiated_by: 'merchant',
    });
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await page
      .getByRole('dialog', { name: 'Resume this subscription?', exact: true })
      .getByRole('button', { name: 'Resume', exact: true })
      .click();
    await page.getByRole('status').filter({ hasText: 'Resumed.' }).waitFor();
    await expect(page.locator('.title-row .badge').textContent()).resolves.toBe('active');
    expect((await world.api.get(`/subscriptions/${subscriptionId}`)).body.status).toBe('active');
    // Paused again, for the refusal below.
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await dialog.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Paused.' }).waitFor();
    await page.getByRole('button', { name: 'Resume', exact: true }).waitFor();

    // The API's refusal is shown as it said it: the subscription was canceled behind the page's back.
    expect((await world.api.delete(`/subscriptions/${subscriptionId}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Resume', exact: true }).click();
    const refusal = await page.getByRole('alert').innerText();
    expect(refusal).toMatch(/canceled/i);

    await page.getByRole('link', { name: 'Subscriptions', exact: true }).first().click();
    await page.getByRole('link', { name: 'canceled', exact: true }).click();
    await page.getByRole('link', { name: subscriptionTitle, exact: true }).waitFor();
    await screen(page, 'subscriptions');

    // Two accounts: the switcher moves the session, and the lists follow.
    await page.getByLabel('Account', { exact: true }).selectOption({ label: 'Second Shop' });
    await page.getByRole('heading', { name: 'Welcome, Dora Developer', exact: true }).waitFor();
    await expect(page.getByRole('navigation', { name: 'Main', exact: true }).innerText()).resolves.not.toContain(
      'Developers',
    );
    await page.getByRole('link', { name: 'Customers', exact: true }).first().click();
    await page.getByText('No customers yet.').waitFor();
    await page.close();
  });

  browserIt(
    'invoices: filtered by status and customer, finalized, charged, refunded in part, and refusals shown',
    async () => {
      const taxRate = await createTaxRate(world.api, 10, false);
      const draft = await createInvoice(world.api, {
        customer: customerId,
        lines: [
          { description: 'Onboarding workshop', amount: 20000, tax: [taxRate.id] },
          { description: 'Travel', amount: 4550 },
        ],
      });
      const other = await createTestAccount(world.app.prisma, { name: 'Elsewhere' });
      const elsewhere = apiClient(world.app.baseUrl, other.apiKey);
      const otherCustomer = expectStatus(await elsewhere.post('/customers', { name: 'Not yours' }), 201);
      const foreign = await simpleInvoice(elsewhere, otherCustomer.id);

      const lone = await simpleInvoice(world.api, (await world.api.post('/customers', { name: 'Lone' })).body.id);

      const page = await newPage();
      await signIn(page, developer);
      await page.getByRole('link', { name: 'Invoices', exact: true }).first().click();
      await page.getByRole('heading', { name: 'Invoices', exact: true }).waitFor();
      await page.getByRole('link', { name: 'draft', exact: true }).click();
      await page.getByRole('link', { name: draft.id, exact: true }).waitFor();
      // (The previous list stays on screen until the filtered one arrives.)
      await page.waitForFunction(() => {
        // Runs in the page, whose DOM the test's types do not describe.
        const page = globalThis as unknown as {
          document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }> };
        };
        return Array.from(page.document.querySelectorAll('tbody .badge')).every(
          (badge) => badge.textContent === 'draft',
        );
      });
      expect(new Set(await page.locator('tbody .badge').allTextContents())).toEqual(new Set(['draft']));
      // Another customer's invoice is not in a list filtered by this customer.
      await page.getByRole('link', { name: 'All', exact: true }).click();
      await page.getByRole('link', { name: lone.id, exact: true }).waitFor();
      // The customer is picked by name, not pasted as an id.
      await page.getByRole('combobox', { name: 'Customer', exact: true }).fill('Ada');
      await page.getByRole('option', { name: /^Ada Lovelace/ }).click();
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      await page.getByRole('link', { name: lone.id, exact: true }).waitFor({ state: 'detached' });
      await page.getByRole('link', { name: draft.id, exact: true }).waitFor();
      await screen(page, 'invoices-filtered');

      await page.getByRole('link', { name: draft.id, exact: true }).click();
      await page.getByRole('heading', { name: draft.id, exact: true }).waitFor();
      const totals = await page.locator('.totals').innerText();
      expect(totals).toContain('$245.50'); // subtotal
      expect(totals).toContain('$20.00'); // 10% of the workshop, added on top
      expect(totals).toContain('$265.50');

      await page.getByRole('button', { name: 'Finalize', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Finalize', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Finalized.' }).waitFor();
      const finalized = (await world.api.get(`/invoices/${draft.id}`)).body;
      expect(finalized.status).toBe('open');
      await page.getByRole('heading', { name: finalized.number, exact: true }).waitFor();

      await page.getByRole('button', { name: 'Charge now', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Charge now', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Charged.' }).waitFor();
      await expect(page.locator('.title-row .badge').textContent()).resolves.toBe('paid');

      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      const refund = page.getByRole('dialog');
      await refund.getByLabel(/Amount in USD/).fill('12,5');
      await screen(page, 'invoice-refund');
      // A double click refunds once (the form's Idempotency-Key).
      await refund.getByRole('button', { name: 'Refund', exact: true }).dblclick();
      await page.getByRole('status').filter({ hasText: 'Refunded.' }).waitFor();
      // The second click sent nothing, so no refusal of it shows beside the success.
      await expect(page.getByRole('alert').count()).resolves.toBe(0);
      const refunded = (await world.api.get(`/invoices/${draft.id}`)).body;
      expect(refunded.amount_refunded).toBe(1250);
      await page.getByRole('cell', { name: /^refund/ }).waitFor();
      await expect(page.getByRole('table').nth(1).innerText()).resolves.toMatch(/payment \(attempt 1\)/);
      // Why, in words: what it bills and the charge with its card, answer and reason.
      const why = page.getByRole('region', { name: 'Why', exact: true });
      await why.getByText(/^It bills a one-off charge for .*total \$/).waitFor();
      await why.getByText(/on visa \*{4}4242, succeeded\. Why: invoice /).waitFor();
      await screen(page, 'invoice');

      // A credit note to the customer's balance shows on the invoice, and the credit on the customer.
      expectStatus(
        await world.api.post('/credit-notes', {
          invoice: draft.id,
          amount: 1000,
          reason: 'order_change',
          refund_to: 'customer_balance',
        }),
        201,
      );
      await page.reload();
      await page.locator('.totals').getByText('Credit notes').waitFor();
      await expect(page.locator('.totals').innerText()).resolves.toMatch(/Credit notes\s+\$10\.00/);
      await screen(page, 'invoice-credited');
      await page.goto(`${world.app.baseUrl}/dashboard/customers/${customerId}`);
      await page.getByText('Credit balance').waitFor();
      await expect(page.locator('.facts').first().innerText()).resolves.toMatch(/Credit balance\s+\$10\.00/);
      await screen(page, 'customer-credit');

      // Voided from its page, after asking: the API agrees.
      // More than the customer's $10.00 credit, which finalization applies: the invoice stays open (a smaller one is paid by it).
      const toVoid = await simpleInvoice(world.api, customerId, 2700);
      expectStatus(await world.api.post(`/invoices/${toVoid.id}/finalize`, {}), 200);
      await page.goto(`${world.app.baseUrl}/dashboard/invoices/${toVoid.id}`);
      await page.getByRole('button', { name: 'Void invoice', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Void invoice', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Voided.' }).waitFor();
      await expect(page.locator('.title-row .badge').textContent()).resolves.toBe('void');
      expect((await world.api.get(`/invoices/${toVoid.id}`)).body.status).toBe('void');

      // The API's refusal as it said it: the open invoice was voided behind the page's back.
      const open = await simpleInvoice(world.api, customerId, 3000);
      expectStatus(await world.api.post(`/invoices/${open.id}/finalize`, {}), 200);
      await page.goto(`${world.app.baseUrl}/dashboard/invoices/${open.id}`);
      await page.getByRole('button', { name: 'Void invoice', exact: true }).waitFor();
      expectStatus(await world.api.delete(`/invoices/${open.id}`), 200);
      await page.getByRole('button', { name: 'Charge now', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Charge now', exact: true }).click();
      await expect(page.getByRole('alert').innerText()).resolves.toMatch(/void/i);
      expect((await world.api.get(`/invoices/${open.id}`)).body.status).toBe('void');

      // Another account's invoice is not found through the dashboard either.
      await page.goto(`${world.app.baseUrl}/dashboard/invoices/${foreign.id}`);
      await page.getByRole('heading', { name: 'Invoice not found', exact: true }).waitFor();
      await page.close();
    },
  );

  browserIt("a customer's page starts a subscription and a draft invoice; a refusal is shown in the form", async () => {
    const price = await recurringPrice(world.api, { unitAmount: 1500 });
    const page = await newPage();
    await signIn(page, developer);
    await page.goto(`${world.app.baseUrl}/dashboard/customers/${customerId}`);
    await page.getByRole('heading', { name: 'Ada Lovelace', exact: true }).waitFor();

    await page.getByRole('button', { name: 'New subscription', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'New subscription', exact: true });
    await dialog.getByLabel('Price', { exact: true }).selectOption(price);
    await dialog.getByLabel('Quantity', { exact: true }).fill('0');
    await dialog.getByLabel('Trial days', { exact: true }).fill('14');
    await dialog.getByRole('button', { name: 'Create subscription', exact: true }).click();
    await expect(dialog.getByRole('alert').innerText()).resolves.toMatch(/quantity/);
    await dialog.getByLabel('Quantity', { exact: true }).fill('3');
    await screen(page, 'subscription-new');
    // A double click creates one subscription (the form's Idempotency-Key).
    await dialog.getByRole('button', { name: 'Create subscription', exact: true }).dblclick();
    await page.waitForURL('**/dashboard/subscriptions/sub_*');
    await expect(page.locator('.title-row .badge').textContent()).resolves.toBe('trialing');
    const created = decodeURIComponent(page.url().split('/subscriptions/')[1]!);
    expect(expectStatus(await world.api.get(`/subscriptions/${created}`), 200)).toMatchObject({
      customer: customerId,
      status: 'trialing',
      items: { data: [expect.objectContaining({ quantity: 3 })] },
    });
    const ofPrice = await world.app.prisma.subscriptionItem.count({ where: { priceId: price } });
    expect(ofPrice).toBe(1);
    // Canceled now from its page, after asking: the API agrees, and its event says the merchant asked.
    await page.getByRole('button', { name: 'Cancel subscription', exact: true }).click();
    await page
      .getByRole('dialog', { name: 'Cancel this subscription now?', exact: true })
      .getByRole('button', { name: 'Cancel subscription', exact: true })
      .click();
    await page.getByRole('status').filter({ hasText: 'Canceled.' }).waitFor();
    await expect(page.locator('.title-row .badge').textContent()).resolves.toBe('canceled');
    expect((await world.api.get(`/subscriptions/${created}`)).body.status).toBe('canceled');
    expect(await lastEventData('subscription.canceled', created)).toMatchObject({
      reason: 'requested',
      initiated_by: 'merchant',
    });

    await page.goto(`${world.app.baseUrl}/dashboard/customers/${customerId}`);
    await page.getByRole('button', { name: 'New invoice', exact: true }).click();
    const draft = page.getByRole('dialog', { name: 'New draft invoice', exact: true });
    await draft.getByLabel('Description', { exact: true }).fill('Setup fee');
    await draft.getByLabel('Amount (USD)', { exact: true }).fill('12.50');
    await draft.getByRole('button', { name: 'Create draft', exact: true }).dblclick();
    await page.waitForURL('**/dashboard/invoices/*');
    await expect(page.locator('.title-row .badge').textContent()).resolves.toBe('draft');
    const invoiceId = decodeURIComponent(page.url().split('/invoices/')[1]!);
    expect(expectStatus(await world.api.get(`/invoices/${invoiceId}`), 200)).toMatchObject({
      customer: customerId,
      status: 'draft',
      total: 1250,
    });
    expect(await world.app.prisma.invoice.count({ where: { customerId, status: 'draft', total: 1250 } })).toBe(1);
  });

  browserIt('a standard user sees no Developers section, and after logging out lands on the sign-in page', async () => {
    const page = await newPage(390);
    await signIn(page, standard);
    const nav = await page.getByRole('navigation', { name: 'Main', exact: true }).innerText();
    expect(nav).toContain('Customers');
    expect(nav).not.toContain('Developers');
    await page.goto(`${world.app.baseUrl}/dashboard/developers`);
    await page.getByRole('heading', { name: 'Page not found', exact: true }).waitFor();
    await page.goto(`${world.app.baseUrl}/dashboard/invoices`);
    await page.getByRole('heading', { name: 'Invoices', exact: true }).waitFor();
    await screen(page, 'invoices');
    await page.goto(`${world.app.baseUrl}/dashboard/customers/cus_doesnotexist`);
    await page.getByRole('heading', { name: 'Customer not found', exact: true }).waitFor();
    await screen(page, 'customer-missing');

    await page.getByRole('button', { name: 'Log out', exact: true }).click();
    await page.waitForURL('**/dashboard/login');
    await page.getByRole('heading', { name: 'Sign in to Billing', exact: true }).waitFor();
    await page.goto(`${world.app.baseUrl}/dashboard/customers`);
    await page.waitForURL('**/dashboard/login');
    // The session is gone server-side too: its cookie no longer works.
    const cookies = await page.context().cookies();
    expect(cookies.find((cookie) => cookie.name === 'cc_session')).toBeUndefined();
    await page.close();
    expect(browser!.offSite).toEqual([]);
  });
});
