import { browserTest, startBrowserApp, type BrowserApp } from '../support/browser';
import { createTestUser } from '../support/dashboard';
import { apiClient, expectStatus } from '../support/harness';
import { addPaymentMethod, bankBody, BANK_ACCOUNTS, createCustomer, simpleInvoice } from '../support/payments';

/**
 * An invoice paid by a bank debit its bank has not settled yet (docs/decisions.md §40): its page shows "Payment
 * pending" beside its status "open", and the pending transaction below. Chromium, screenshots at 1280 and 390 px.
 */
const browserIt = browserTest('test/dashboard/dashboard-bank-debits.test.ts');

let started: BrowserApp;

beforeAll(async () => {
  started = await startBrowserApp('Debiting Shop');
});
afterAll(() => started?.close());

browserIt('shows an open invoice whose bank debit is pending as "Payment pending"', async () => {
  const { app, browser, accountId } = started;
  const api = apiClient(app.baseUrl, started.apiKey);
  const customer = await createCustomer(api);
  await addPaymentMethod(api, customer.id, bankBody(BANK_ACCOUNTS.succeeds));
  const draft = await simpleInvoice(api, customer.id, 3100);
  expect(expectStatus(await api.put(`/invoices/${draft.id}`), 200, 'pay').status).toBe('open');

  const developer = await createTestUser(app.prisma, accountId, { role: 'developer', name: 'Dora Developer' });
  const page = await browser!.newPage();
  await browser!.signIn(page, developer);
  await page.goto(`${app.baseUrl}/dashboard/invoices/${draft.id}`);
  await page.getByText('Payment pending', { exact: true }).waitFor();
  // Beside its status (lower case, as the API names it), and the transaction below.
  await page.locator('.title-row').getByText('open', { exact: true }).waitFor();
  await page.getByRole('cell', { name: 'pending', exact: true }).waitFor();
  await browser!.screen(page, 'invoice-bank-debit-pending');

  // While the bank holds the debit the page offers no second charge and no void (the API refuses both), and the
  // charge's line in "Why" says it is processing.
  await page.getByRole('button', { name: 'Send invoice', exact: true }).waitFor();
  expect(await page.getByRole('button', { name: 'Charge now', exact: true }).count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Void invoice', exact: true }).count()).toBe(0);
  await page.getByText(/ on STRIPE TEST BANK \*\*\*\*6789, processing\. Why: /).waitFor();
  const payments = await app.prisma.transaction.count({ where: { invoiceId: draft.id, type: 'payment' } });
  expect(payments).toBe(1);
});
