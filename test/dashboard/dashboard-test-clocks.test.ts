import {
  browserTest,
  ensureDashboardBuilt,
  haveChromium,
  openDashboardBrowser,
  type DashboardBrowser,
} from '../support/browser';
import { createTestUser, signIn } from '../support/dashboard';
import {
  apiClient,
  createTestAccount,
  expectStatus,
  startTestApp,
  startWorkerApp,
  type WorkerApp,
} from '../support/harness';
import { addPaymentMethod, cardBody, CARDS } from '../support/payments';
import { recurringPrice } from '../support/subscriptions';
import { eventually } from '../support/payment-plans';

/**
 * Test clocks in Settings, in headless Chromium (test/support/browser.ts: axe-core, screenshots at
 * 1280 and 390 px): a clock created (a double click creates one), the customer on it listed, the clock
 * advanced a month (the renewal invoiced on its time); another account's clock is nobody's business
 * here; without test mode the section is not there.
 */
const browserIt = browserTest('test/dashboard/dashboard-test-clocks.test.ts');

let world: WorkerApp;
let browser: DashboardBrowser | undefined;
let developer: { email: string; password: string };
const START = Date.parse('2025-01-15T09:00:00Z') / 1000;

beforeAll(async () => {
  ensureDashboardBuilt();
  world = await startWorkerApp('dashboard-clocks', { name: 'Clockwork Shop' });
  developer = await createTestUser(world.app.prisma, world.accountId, { role: 'developer', name: 'Dora Developer' });
  if (haveChromium) browser = await openDashboardBrowser(world.app.baseUrl);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await world?.close();
});

describe('test clocks in Settings', () => {
  browserIt(
    'a clock is created, its customer listed, and advanced a month: the renewal is invoiced at the clock’s time',
    async () => {
      const page = await browser!.newPage();
      await browser!.signIn(page, developer);
      await page.getByRole('link', { name: 'Settings', exact: true }).click();
      const section = page.getByRole('region', { name: 'Test clocks', exact: true });
      await section.getByText('No test clock yet.').waitFor();

      const form = section.getByRole('form', { name: 'New test clock', exact: true });
      await form.getByLabel('Name', { exact: true }).fill('Renewal rehearsal');
      await form.getByLabel('Starts at (UTC)', { exact: true }).fill('2025-01-15T09:00');
      await form.getByRole('button', { name: 'Create test clock', exact: true }).dblclick();
      await section.getByRole('status').filter({ hasText: 'Test clock Renewal rehearsal created.' }).waitFor();
      const clocks = expectStatus(await world.api.get('/test-helpers/test-clocks'), 200).data as any[];
      expect(clocks.map((clock) => [clock.name, clock.frozen_time])).toEqual([['Renewal rehearsal', START]]);
      const clockId = clocks[0].id as string;
      await section.getByText('None yet: a customer created with this clock’s id').waitFor();

      // A customer on the clock with a monthly subscription, made through the API.
      const customer = expectStatus(
        await world.api.post('/customers', { name: 'Clocked Customer', test_clock: clockId }),
        201,
      );
      const method = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
      const price = await recurringPrice(world.api, { unitAmount: 2900 });
      const subscription = expectStatus(
        await world.api.post('/subscriptions', {
          customer: customer.id,
          items: [{ price, quantity: 1 }],
          trial_days: 0,
          start_date: START,
          default_payment_method: method.id,
        }),
        201,
      );
      await page.reload();
      await section.getByRole('link', { name: 'Clocked Customer', exact: true }).waitFor();
      await browser!.screen(page, 'test-clocks');

      // Advance from the keyboard: the target defaults to a month later; the dialog asks first.
      const target = section.getByLabel('Advance Renewal rehearsal to (UTC)', { exact: true });
      await expect(target.inputValue()).resolves.toBe('2025-02-15T09:00');
      await target.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Advance Renewal rehearsal?', exact: true });
      await dialog.waitFor();
      await browser!.screen(page, 'test-clock-advance');
      await dialog.getByRole('button', { name: 'Advance', exact: true }).click();
      await section
        .getByRole('status')
        .filter({ hasText: /^Advancing to Feb 15, 2025/ })
        .waitFor();
      await section.locator('.badge', { hasText: /^ready$/i }).waitFor({ timeout: 60_000 });
      await section.getByText(/at Feb 15, 2025, 9:00 AM UTC/).waitFor();

      // The renewal is billed by the subscription's workflow as the clock reaches it: read until it is there.
      const invoices = await eventually(
        async () =>
          expectStatus(await world.api.get(`/invoices?subscription=${subscription.id}&take=10`), 200).data as any[],
        (found) => found.filter((invoice) => invoice.status === 'paid').length >= 2,
        60_000,
      );
      expect(invoices.map((invoice) => [invoice.status, invoice.created]).sort()).toEqual([
        ['paid', START],
        ['paid', Date.parse('2025-02-15T09:00:00Z') / 1000],
      ]);
      await browser!.screenFits(page, 'test-clock-advanced');

      // Another account's session: the clock is unknown, its customers are not listed.
      const other = await createTestAccount(world.app.prisma, { name: 'Other Shop' });
      const stranger = await createTestUser(world.app.prisma, other.accountId, { role: 'developer' });
      const session = await signIn(world.app.baseUrl, stranger.email, stranger.password);
      expectStatus(await session.api.get(`/test-helpers/test-clocks/${clockId}`), 404);
      expectStatus(await session.api.post(`/test-helpers/test-clocks/${clockId}/advance`, { frozen_time: START }), 404);
      expect(expectStatus(await session.api.get(`/customers?test_clock=${clockId}`), 200)).toEqual([]);
      expect(browser!.offSite).toEqual([]);
    },
    120_000,
  );

  browserIt(
    'without test mode, Settings has no test clocks',
    async () => {
      const before = process.env.BILLING_TEST_MODE;
      process.env.BILLING_TEST_MODE = 'false';
      const live = await startTestApp().finally(() => {
        if (before === undefined) delete process.env.BILLING_TEST_MODE;
        else process.env.BILLING_TEST_MODE = before;
      });
      const liveBrowser = await openDashboardBrowser(live.baseUrl);
      try {
        const account = await createTestAccount(live.prisma, { name: 'Live Shop' });
        const user = await createTestUser(live.prisma, account.accountId, { role: 'superadmin' });
        expectStatus(await apiClient(live.baseUrl, account.apiKey).get('/test-helpers/test-clocks'), 404);
        const page = await liveBrowser.newPage();
        await liveBrowser.signIn(page, user);
        await page.getByRole('link', { name: 'Settings', exact: true }).click();
        await page.getByRole('heading', { name: 'Your profile', exact: true }).waitFor();
        // Every read of the page answered (the test clocks' 404 included) before looking for the section.
        await page.waitForLoadState('networkidle');
        await expect(page.getByRole('heading', { name: 'Test clocks', exact: true }).count()).resolves.toBe(0);
      } finally {
        await liveBrowser.close();
        await live.close();
      }
    },
    60_000,
  );
});
