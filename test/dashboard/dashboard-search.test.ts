import type { Page } from 'playwright-core';
import { browserTest, startBrowserApp, type BrowserApp } from '../support/browser';
import { apiClient, createTestAccount, type ApiClient } from '../support/harness';
import { createTestUser } from '../support/dashboard';
import { expectStatus } from '../support/subscriptions';

/**
 * The top bar's search box (GET /search) in headless Chromium: typing a name, a number or an id lists
 * the hits, the keyboard opens one, and another account's user finds none of this account's objects.
 */
const browserIt = browserTest('test/dashboard/dashboard-search.test.ts');

let stack: BrowserApp;
let api: ApiClient;
let user: { email: string; password: string };
let outsider: { email: string; password: string };
let ada: { id: string };
let invoice: { id: string; number: string };

beforeAll(async () => {
  stack = await startBrowserApp('Search Shop');
  api = apiClient(stack.app.baseUrl, stack.apiKey);
  user = await createTestUser(stack.app.prisma, stack.accountId, { name: 'Sam Support' });
  const elsewhere = await createTestAccount(stack.app.prisma, { name: 'Elsewhere Ltd' });
  outsider = await createTestUser(stack.app.prisma, elsewhere.accountId, { name: 'Olga Outsider' });
  ada = expectStatus(await api.post('/customers', { name: 'Ada Lovelace', email: 'ada@example.com' }), 201);
  expectStatus(await api.post('/customers', { name: 'Adam Smith', email: 'adam@example.com' }), 201);
  const draft = expectStatus(
    await api.post('/invoices', { customer: ada.id, lines: [{ description: 'Analytical engine', amount: 4200 }] }),
    201,
  );
  invoice = expectStatus(await api.post(`/invoices/${draft.id}/finalize`), 200);
});
afterAll(() => stack?.close());

const searchBox = (page: Page) =>
  page.getByRole('combobox', { name: 'Find customers, invoices, subscriptions', exact: true });

describe('the dashboard search box', () => {
  browserIt('lists customers by name as one types; arrows and Enter open one; a number opens its invoice', async () => {
    const page = await stack.browser!.newPage();
    await stack.browser!.signIn(page, user);
    const box = searchBox(page);
    await box.fill('ada');
    const hits = page.getByRole('listbox', { name: 'Search results', exact: true });
    await hits.getByRole('option', { name: /Adam Smith/ }).waitFor();
    await expect(hits.getByRole('option').allInnerTexts()).resolves.toEqual([
      expect.stringMatching(/Customer\s+Ada Lovelace\s+ada@example.com/),
      expect.stringMatching(/Customer\s+Adam Smith\s+adam@example.com/),
    ]);
    await stack.browser!.screenFits(page, 'search-hits');

    await box.press('ArrowDown');
    await expect(hits.getByRole('option', { selected: true }).innerText()).resolves.toContain('Adam Smith');
    await box.press('ArrowUp');
    await box.press('Enter');
    await page.waitForURL(`**/dashboard/customers/${ada.id}`);
    await page.getByRole('heading', { name: 'Ada Lovelace', level: 1, exact: true }).waitFor();
    await expect(box.inputValue()).resolves.toBe('');

    // However the number is typed: inv1 is INV-000001.
    await box.fill(`inv${Number(invoice.number.slice(4))}`);
    await hits.getByRole('option', { name: new RegExp(`Invoice ${invoice.number}`) }).waitFor();
    await expect(hits.innerText()).resolves.toContain('open · $42.00 · Ada Lovelace');
    await box.press('Enter');
    await page.waitForURL(`**/dashboard/invoices/${invoice.id}`);

    await box.fill('nobody by that name');
    await hits.getByText('Nothing found for “nobody by that name”.').waitFor();
    await box.press('Escape');
    await hits.waitFor({ state: 'detached' });
    expect(stack.browser!.offSite).toEqual([]);
    await page.close();
  });

  browserIt("another account's user finds nothing of this account, by id, number or name", async () => {
    const page = await stack.browser!.newPage();
    await stack.browser!.signIn(page, outsider);
    const box = searchBox(page);
    const hits = page.getByRole('listbox', { name: 'Search results', exact: true });
    for (const query of [ada.id, invoice.id, invoice.number, 'Lovelace']) {
      await box.fill(query);
      await hits.getByText(`Nothing found for “${query}”.`).waitFor();
    }
    await page.close();
  });
});
