import {
  browserTest,
  ensureDashboardBuilt,
  haveChromium,
  openDashboardBrowser,
  type DashboardBrowser,
} from '../support/browser';
import { createTestUser } from '../support/dashboard';
import {
  apiClient,
  createTestAccount,
  expectStatus,
  startWorkerApp,
  type ApiClient,
  type TestApp,
  type WorkerApp,
} from '../support/harness';
import { customerWithCard } from '../support/payments';
import { recurringPrice } from '../support/subscriptions';

/**
 * The Catalog's Coupons section in headless Chromium (test/support/browser.ts: axe-core, screenshots at
 * 1280 and 390 px): coupons listed with their terms, one created from the form, one deleted after a
 * confirmation; another account's coupons are not shown. An invoice with a discount shows it.
 */
const browserIt = browserTest('test/dashboard/dashboard-coupons.test.ts');

let world: WorkerApp;
let app: TestApp;
let api: ApiClient;
let browser: DashboardBrowser | undefined;
let developer: { email: string; password: string };

beforeAll(async () => {
  ensureDashboardBuilt();
  world = await startWorkerApp('dashboard-coupons', { name: 'Coupon Shop' });
  ({ app, api } = world);
  developer = await createTestUser(app.prisma, world.accountId, { role: 'developer', name: 'Dora Developer' });
  const other = apiClient(app.baseUrl, (await createTestAccount(app.prisma, { name: 'Other' })).apiKey);
  expectStatus(await other.post('/coupons', { name: 'Not ours', percent_off: 90, duration: 'once' }), 201);
  if (haveChromium) browser = await openDashboardBrowser(app.baseUrl);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await world?.close();
});

browserIt('lists, creates and deletes coupons under the catalog', async () => {
  expectStatus(
    await api.post('/coupons', {
      name: 'Welcome',
      amount_off: 1000,
      currency: 'USD',
      duration: 'once',
      max_redemptions: 5,
    }),
    201,
  );
  const page = await browser!.newPage();
  await browser!.signIn(page, developer);
  await page.getByRole('link', { name: 'Catalog', exact: true }).click();
  const welcome = page.getByRole('row').filter({ hasText: 'Welcome' });
  await expect(welcome.innerText()).resolves.toMatch(/\$10\.00 off, once\s+0 of 5\s+redeemable/i);
  expect(await page.getByText('Not ours').count()).toBe(0);

  await page.getByRole('button', { name: 'New coupon', exact: true }).click();
  const form = page.getByRole('form', { name: 'New coupon', exact: true });
  await form.getByLabel('Name', { exact: true }).fill('Spring sale');
  await form.getByLabel('Percent off', { exact: true }).fill('12.5');
  await form.getByLabel('For', { exact: true }).selectOption('repeating');
  await form.getByRole('textbox', { name: 'Months', exact: true }).fill('3');
  await browser!.screen(page, 'coupons-form');
  await form.getByRole('button', { name: 'Create coupon', exact: true }).click();
  await form.waitFor({ state: 'detached' });
  const spring = page.getByRole('row').filter({ hasText: 'Spring sale' });
  await expect(spring.innerText()).resolves.toMatch(/12\.5% off, for 3 months\s+0\s+redeemable/i);
  const created = expectStatus(await api.get('/coupons'), 200).data.find((c: any) => c.name === 'Spring sale');
  expect(created).toMatchObject({ percent_off: 12.5, duration: 'repeating', duration_in_months: 3 });

  // A refusal of the API is shown in the form (a percentage past 100).
  await page.getByRole('button', { name: 'New coupon', exact: true }).click();
  await form.getByLabel('Percent off', { exact: true }).fill('150');
  await form.getByRole('button', { name: 'Create coupon', exact: true }).click();
  await expect(form.getByRole('alert').innerText()).resolves.toMatch(/percent_off/);
  await form.getByRole('button', { name: 'Cancel', exact: true }).click();

  await welcome.getByRole('button', { name: 'Delete Welcome', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete Welcome?', exact: true });
  await dialog.waitFor();
  await browser!.screen(page, 'coupons-confirm');
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await welcome.waitFor({ state: 'detached' });
  expect(expectStatus(await api.get('/coupons'), 200).data.map((c: any) => c.name)).toEqual(['Spring sale']);
  await browser!.screen(page, 'coupons');
  await page.close();
  expect(browser!.offSite).toEqual([]);
});

browserIt('an invoice with a discount shows its discount line and the discount after the subtotal', async () => {
  const coupon = expectStatus(
    await api.post('/coupons', { name: 'Five off', amount_off: 500, currency: 'USD', duration: 'once' }),
    201,
  );
  const { customer } = await customerWithCard(api);
  const subscription = expectStatus(
    await api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price: await recurringPrice(api, { unitAmount: 2000 }), quantity: 1 }],
      trial_days: 0,
      start_date: Math.floor(Date.now() / 1000),
      coupon: coupon.id,
    }),
    201,
  );
  const page = await browser!.newPage();
  await browser!.signIn(page, developer);
  await page.goto(`${app.baseUrl}/dashboard/invoices/${subscription.latest_invoice}`);
  await page.getByText('Five off ($5.00 off)').waitFor();
  const totals = await page.locator('.totals').innerText();
  expect(totals).toMatch(/Subtotal\s+\$20\.00\s+Discount\s+-\$5\.00\s+Total\s+\$15\.00/);
  await browser!.screen(page, 'coupons-invoice');
  await page.close();
});
