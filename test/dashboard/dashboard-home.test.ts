import type { Page } from 'playwright-core';
import {
  browserTest,
  ensureDashboardBuilt,
  haveChromium,
  openDashboardBrowser,
  type DashboardBrowser,
} from '../support/browser';
import { createTestAccount } from '../support/harness';
import { createTestUser } from '../support/dashboard';
import { CARDS, customerWithCard, simpleInvoice } from '../support/payments';
import {
  createSubscription,
  expectStatus,
  recurringPrice,
  startSubscriptionWorld,
  unix,
  type SubscriptionWorld,
} from '../support/subscriptions';

/**
 * The home screen's figures and chart (GET /reports/overview), the Payments screen and the Catalog
 * screen in headless Chromium (test/support/browser.ts: axe-core and screenshots).
 */
const browserIt = browserTest('test/dashboard/dashboard-home.test.ts');

let world: SubscriptionWorld;
let browser: DashboardBrowser | undefined;
let developer: { email: string; password: string };
let newcomer: { email: string; password: string };
let paidInvoice: string;
let paidNumber: string;
let failedInvoice: string;
let trialPrice: string;

beforeAll(async () => {
  ensureDashboardBuilt();
  world = await startSubscriptionWorld();
  await world.app.prisma.account.update({ where: { id: world.accountId }, data: { name: 'Acme Rockets' } });
  developer = await createTestUser(world.app.prisma, world.accountId, { role: 'developer', name: 'Dora Developer' });
  const fresh = await createTestAccount(world.app.prisma, { name: 'Fresh Shop' });
  newcomer = await createTestUser(world.app.prisma, fresh.accountId, { role: 'developer', name: 'Nina Newcomer' });

  // MRR 2 x 4900 + 120000 / 12 = 19800; revenue 9800 + 120000 + 5000 - 1500 = 133300.
  const { customer } = await customerWithCard(world.api);
  const start = unix(await world.env.currentTimeMs());
  const monthly = await recurringPrice(world.api, { unitAmount: 4900 });
  const yearly = await recurringPrice(world.api, { unitAmount: 120000, interval: 'year' });
  await createSubscription(world.api, {
    customer: customer.id,
    items: [{ price: monthly, quantity: 2 }],
    trial_days: 0,
    start_date: start,
  });
  await createSubscription(world.api, {
    customer: customer.id,
    items: [{ price: yearly, quantity: 1 }],
    trial_days: 0,
    start_date: start,
  });
  // A price a trialing subscription uses: never billed yet (inactive), and not deletable (409).
  trialPrice = await recurringPrice(world.api, { unitAmount: 1500 });
  await createSubscription(world.api, {
    customer: customer.id,
    items: [{ price: trialPrice, quantity: 1 }],
    trial_days: 14,
    start_date: start,
  });
  paidInvoice = (await simpleInvoice(world.api, customer.id, 5000)).id;
  paidNumber = expectStatus(await world.api.put(`/invoices/${paidInvoice}`), 200, 'pay').number;
  expectStatus(await world.api.post(`/invoices/${paidInvoice}/refund`, { amount: 1500 }), 201, 'refund');
  const declined = await customerWithCard(world.api, CARDS.declined);
  failedInvoice = (await simpleInvoice(world.api, declined.customer.id, 700)).id;
  await world.api.put(`/invoices/${failedInvoice}`);

  if (haveChromium) browser = await openDashboardBrowser(world.app.baseUrl);
});
afterAll(async () => {
  await browser?.close();
  await world?.close();
});

const newPage = (width?: number) => browser!.newPage(width);
const signIn = (page: Page, user: { email: string; password: string }) => browser!.signIn(page, user);
/** Every screen fits 390 px: no sideways scrolling, no table scrolling inside its card (docs/decisions.md §35). */
const screen = (page: Page, name: string) => browser!.screenFits(page, name);

describe('the dashboard: home figures, payments, catalog', () => {
  browserIt(
    'home shows the figures as tiles, the revenue chart with its numbers, and links to filtered lists',
    async () => {
      const page = await newPage();
      await signIn(page, developer);
      const figures = page.getByRole('region', { name: 'Figures in USD', exact: true });
      await figures.waitFor();
      const tile = (label: string) =>
        figures.getByRole('link').filter({ has: page.getByRole('heading', { name: label, exact: true }) });
      await expect(tile('MRR').innerText()).resolves.toContain('$198.00');
      await expect(tile('Active subscriptions').innerText()).resolves.toContain('2');
      await expect(tile('Revenue, 30 days').innerText()).resolves.toContain('$1,333.00');
      await expect(tile('Failed payments, 30 days').innerText()).resolves.toContain('1');
      await expect(tile('Open invoices').innerText()).resolves.toContain('$7.00 due');
      await expect(tile('Past-due invoices').innerText()).resolves.toContain('$7.00 overdue');

      const chart = figures.getByRole('img', { name: 'Revenue by day, last 30 days', exact: true });
      await chart.waitFor();
      await expect(page.locator('svg rect title').count()).resolves.toBe(30);
      await expect(page.locator('svg rect title').last().textContent()).resolves.toContain('$1,333.00');
      await figures.getByText('Revenue by day as a table').click();
      const rows = figures.getByRole('table').getByRole('row');
      await expect(rows.count()).resolves.toBe(31);
      await expect(rows.last().innerText()).resolves.toContain('$1,333.00');
      await screen(page, 'home-figures');
      const plans = figures.getByRole('link', { name: /Payment plans past due/ });
      await expect(plans.getAttribute('href')).resolves.toBe('/dashboard/payment-plans?status=past_due');

      await tile('Open invoices').click();
      await page.waitForURL('**/dashboard/invoices?status=open');
      await page.getByRole('heading', { name: 'Invoices', exact: true }).waitFor();
      await page.goBack();
      await tile('Failed payments, 30 days').click();
      await page.waitForURL('**/dashboard/payments?status=failed&type=payment');
      await page.getByRole('heading', { name: 'Payments', exact: true }).waitFor();
      await page.close();
    },
  );

  browserIt('home answers a fresh account with an empty state, and a failed read with its error', async () => {
    const page = await newPage();
    await signIn(page, newcomer);
    await page.getByText('No figures yet').waitFor();
    await screen(page, 'home-empty');

    await page.route('**/reports/overview', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          error: { type: 'api_error', code: 'database_unavailable', message: 'The database does not answer.' },
        }),
      }),
    );
    await page.reload();
    await expect(page.getByRole('alert').innerText()).resolves.toBe('The database does not answer.');
    await page.close();
  });

  browserIt(
    'payments: the balance, transactions as words and money, filters, copyable ids, a link to the invoice',
    async () => {
      const page = await newPage();
      await signIn(page, developer);
      await page
        .getByRole('navigation', { name: 'Main', exact: true })
        .getByRole('link', { name: 'Payments', exact: true })
        .click();
      await page.getByRole('heading', { name: 'Payments', exact: true }).waitFor();
      await expect(
        page.getByRole('heading', { name: 'Available, USD', exact: true }).locator('..').innerText(),
      ).resolves.toContain('$1,333.00');
      const table = page.getByRole('table');
      await table.getByText('$1,200.00').waitFor();
      await expect(table.getByRole('row').count()).resolves.toBe(6); // header, 3 payments, a refund, a failure
      await expect(table.innerText()).resolves.toMatch(/Refund\s+succeeded\s+-\$15\.00/i);
      await expect(table.innerText()).resolves.toMatch(/Payment\s+failed\s+Your card was declined/i);
      await screen(page, 'payments');

      await page
        .getByRole('navigation', { name: 'Status', exact: true })
        .getByRole('link', { name: 'failed', exact: true })
        .click();
      await page.waitForURL('**/dashboard/payments?status=failed');
      // The previous page stays on screen until the filtered one arrives.
      await table.getByText('$1,200.00').waitFor({ state: 'detached' });
      await expect(table.getByRole('row').count()).resolves.toBe(2);
      await expect(table.innerText()).resolves.toContain('$7.00');
      await page.getByLabel('Type', { exact: true }).selectOption('refund');
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      await page.getByText('No transaction matches these filters.').waitFor();

      await page.goto(`${world.app.baseUrl}/dashboard/payments?type=refund`);
      const refund = (await world.api.get(`/transactions?type=refund`)).body.data[0];
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.getByRole('button', { name: `Copy ${refund.id}`, exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
      await expect(page.evaluate<string>('navigator.clipboard.readText()')).resolves.toBe(refund.id);
      // The refund names its invoice by number (docs/api.md, "Names on list rows").
      await page.getByRole('link', { name: `Invoice ${paidNumber}`, exact: true }).click();
      await page.waitForURL(`**/dashboard/invoices/${paidInvoice}`);
      await page.close();
    },
  );

  browserIt(
    'catalog: creates a product with its price, adds a price, shows refusals (a taken name, deleting a price in use), creates and deactivates a tax rate',
    async () => {
      const page = await newPage();
      await signIn(page, developer);
      await page.goto(`${world.app.baseUrl}/dashboard/catalog`);
      await page.getByRole('heading', { name: 'Catalog', exact: true }).waitFor();

      await page.getByRole('button', { name: 'New product', exact: true }).click();
      const form = page.getByRole('form', { name: 'New product', exact: true });
      await form.getByLabel('Product name', { exact: true }).fill('Rocket fuel');
      await form.getByLabel('Amount (USD)', { exact: true }).fill('49.90');
      await form.getByLabel('Interval', { exact: true }).selectOption('month');
      await form.getByRole('button', { name: 'Create product', exact: true }).click();
      await form.waitFor({ state: 'detached' });
      const product = page
        .getByRole('listitem')
        .filter({ has: page.getByRole('heading', { name: 'Rocket fuel', exact: true }) });
      await expect(product.getByRole('table').innerText()).resolves.toMatch(
        /\$49\.90 per month\s+· default\s+inactive\s+never billed/i,
      );

      await product.getByRole('button', { name: 'Add a price to Rocket fuel', exact: true }).click();
      const priceForm = page.getByRole('form', { name: 'New price of Rocket fuel', exact: true });
      await priceForm.getByLabel('Amount (USD)', { exact: true }).fill('499');
      await priceForm.getByLabel('Interval', { exact: true }).selectOption('year');
      await priceForm.getByRole('button', { name: 'Add price', exact: true }).click();
      await priceForm.waitFor({ state: 'detached' });
      await product.getByText('$499.00').waitFor();
      await expect(product.getByRole('table').getByRole('row').count()).resolves.toBe(3);
      const saved = (await world.api.get('/products?take=50')).body.data.find(
        (p: { name: string }) => p.name === 'Rocket fuel',
      );
      const prices = (
        await world.api.get(`/prices?take=100&search=${encodeURIComponent(JSON.stringify({ product: saved.id }))}`)
      ).body.data;
      expect(prices.map((p: { unit_amount: number }) => p.unit_amount).sort()).toEqual([4990, 49900]);

      // The API's refusal, as it words it: a second product of the same name.
      await page.getByRole('button', { name: 'New product', exact: true }).click();
      await form.getByLabel('Product name', { exact: true }).fill('rocket FUEL');
      await form.getByLabel('Amount (USD)', { exact: true }).fill('10');
      await form.getByRole('button', { name: 'Create product', exact: true }).click();
      await expect(form.getByRole('alert').innerText()).resolves.toBe(
        "A product named 'rocket FUEL' already exists in this account (names are compared case-insensitively).",
      );
      await screen(page, 'catalog-refusal');
      await form.getByRole('button', { name: 'Cancel', exact: true }).click();

      // Deleting a never-billed price asks first; the API refuses while a subscription uses it.
      const used = page.getByRole('row').filter({ hasText: trialPrice });
      await expect(used.innerText()).resolves.toMatch(/\$15\.00 per month.*\s+inactive\s+never billed/i);
      await used.getByRole('button', { name: `Delete price ${trialPrice}`, exact: true }).click();
      const confirmDelete = page.getByRole('dialog', { name: 'Delete this price?', exact: true });
      await confirmDelete.getByRole('button', { name: 'Keep it as it is', exact: true }).click();
      await confirmDelete.waitFor({ state: 'detached' });
      await used.getByRole('button', { name: `Delete price ${trialPrice}`, exact: true }).click();
      await confirmDelete.getByRole('button', { name: 'Delete price', exact: true }).click();
      await expect(used.getByRole('alert').innerText()).resolves.toBe(
        `Price ${trialPrice} is used by a subscription and cannot be deleted.`,
      );
      expectStatus(await world.api.get(`/prices/${trialPrice}`), 200, 'the price is still there');

      await page.getByRole('button', { name: 'New tax rate', exact: true }).click();
      const taxForm = page.getByRole('form', { name: 'New tax rate', exact: true });
      await taxForm.getByLabel('Name', { exact: true }).fill('Sales tax CA');
      await taxForm.getByLabel('Percentage', { exact: true }).fill('7.25');
      await taxForm.getByRole('button', { name: 'Create tax rate', exact: true }).click();
      await taxForm.waitFor({ state: 'detached' });
      const rate = page.getByRole('row').filter({ hasText: 'Sales tax CA' });
      await expect(rate.innerText()).resolves.toMatch(/7\.25% added on top\s+active/i);

      await rate.getByRole('button', { name: 'Deactivate Sales tax CA', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Deactivate Sales tax CA?', exact: true });
      await dialog.waitFor();
      await screen(page, 'catalog-confirm');
      await dialog.getByRole('button', { name: 'Deactivate', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      await rate.getByRole('button', { name: 'Activate Sales tax CA', exact: true }).waitFor();
      const rates = (await world.api.get('/taxRates?take=100')).body.data;
      expect(rates.find((r: { display_name: string }) => r.display_name === 'Sales tax CA').active).toBe(false);
      await screen(page, 'catalog');
      await page.close();
      expect(browser!.offSite).toEqual([]);
    },
  );
});
