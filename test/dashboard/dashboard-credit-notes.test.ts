import { browserTest, startBrowserApp, type BrowserApp, type DashboardBrowser } from '../support/browser';
import { createTestUser } from '../support/dashboard';
import { apiClient, expectStatus, type ApiClient, type TestApp } from '../support/harness';
import { customerWithCard, simpleInvoice } from '../support/payments';

/**
 * Credit notes in the dashboard (docs/decisions.md §22): the invoice's credit notes and its "Issue credit
 * note" dialog (the API's refusal shown in it), the Refund dialog proposing what credit notes left, and
 * the customer's credit balance with its balance transactions. Chromium, axe, screenshots at 1280 and 390 px.
 */
const browserIt = browserTest('test/dashboard/dashboard-credit-notes.test.ts');

let started: BrowserApp;
let app: TestApp;
let browser: DashboardBrowser | undefined;
let accountId: string;
let api: ApiClient;

beforeAll(async () => {
  started = await startBrowserApp('Credited Shop');
  ({ app, browser, accountId } = started);
  api = apiClient(app.baseUrl, started.apiKey);
});
afterAll(() => started?.close());

browserIt(
  "issues credit notes from a paid invoice's page, refunds only what they left, and shows the customer's credit",
  async () => {
    const { customer } = await customerWithCard(api);
    expectStatus(await api.patch(`/customers/${customer.id}`, { name: 'Ada Lovelace' }), 200);
    const draft = await simpleInvoice(api, customer.id, 10_000);
    const paid = expectStatus(await api.put(`/invoices/${draft.id}`), 200, 'pay');
    const first = expectStatus(
      await api.post('/credit-notes', {
        invoice: paid.id,
        amount: 3000,
        reason: 'order_change',
        refund_to: 'customer_balance',
      }),
      201,
    );
    const developer = await createTestUser(app.prisma, accountId, { role: 'developer', name: 'Dora Developer' });
    const page = await browser!.newPage();
    await browser!.signIn(page, developer);
    await page.goto(`${app.baseUrl}/dashboard/invoices/${paid.id}`);
    await page.getByRole('heading', { name: 'Credit notes', exact: true }).waitFor();
    const pdfLink = page.getByRole('link', { name: first.number, exact: true });
    await pdfLink.waitFor();
    // The PDF link answers the document with the session (same origin, the dashboard's cookie).
    const pdf = await page.request.get(`${app.baseUrl}${await pdfLink.getAttribute('href')}`);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()['content-type']).toBe('application/pdf');

    // The refund proposes what is left after the $30.00 given to the balance: $70.00, not the $100.00 paid.
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    const refund = page.getByRole('dialog');
    await expect(refund.getByLabel(/Amount in USD/).inputValue()).resolves.toBe('70.00');
    await refund.getByText('at most $70.00').waitFor();
    await browser!.screen(page, 'invoice-refund-after-credit');
    await refund.getByRole('button', { name: 'Keep it as it is', exact: true }).click();

    // More than is left: the dialog stays open with the API's refusal.
    await page.getByRole('button', { name: 'Issue credit note', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /Issue a credit note/ });
    await dialog.getByText('Up to $70.00 can still be given back').waitFor();
    await dialog.getByLabel('An amount', { exact: true }).check();
    await dialog.getByLabel(/Amount in USD/).fill('80');
    await dialog.getByLabel('Reason', { exact: true }).selectOption('product_unsatisfactory');
    await dialog.getByLabel('Where the money goes', { exact: true }).selectOption('card');
    await dialog.getByRole('button', { name: 'Issue credit note', exact: true }).click();
    await expect(dialog.getByRole('alert').innerText()).resolves.toMatch(/8000 cents exceed the 7000 cents/);
    await browser!.screen(page, 'credit-note-refused');

    // $20.00 to the card: issued, listed, refunded.
    await dialog.getByLabel(/Amount in USD/).fill('20');
    await dialog.getByRole('button', { name: 'Issue credit note', exact: true }).dblclick();
    await page
      .getByRole('status')
      .filter({ hasText: /Credit note CN-\d+ issued\./ })
      .waitFor();
    await page.getByRole('table', { name: 'Credit notes', exact: true }).locator('tbody tr').nth(1).waitFor();
    const refunded = expectStatus(await api.get(`/invoices/${paid.id}`), 200);
    expect(refunded.amount_refunded).toBe(2000);
    expect(refunded.post_payment_credit_notes_amount).toBe(5000);
    await page.getByRole('cell', { name: 'Refund the card', exact: true }).waitFor();
    await browser!.screenFits(page, 'invoice-credit-notes');

    // The rest, whole, to the balance: nothing is left to refund, so no Refund button.
    await page.getByRole('button', { name: 'Issue credit note', exact: true }).click();
    await dialog.getByLabel('All that is left ($50.00)', { exact: true }).waitFor();
    await dialog.getByLabel('Where the money goes', { exact: true }).selectOption('customer_balance');
    await browser!.screen(page, 'credit-note-dialog');
    await dialog.getByRole('button', { name: 'Issue credit note', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /issued/ })
      .waitFor();
    await page.getByRole('table', { name: 'Credit notes', exact: true }).locator('tbody tr').nth(2).waitFor();
    await page.getByRole('button', { name: 'Refund', exact: true }).waitFor({ state: 'detached' });
    const notes = expectStatus(await api.get(`/credit-notes?invoice=${paid.id}`), 200);
    expect(notes.data.map((note: any) => [note.amount, note.refund_to])).toEqual([
      [5000, 'customer_balance'],
      [2000, 'card'],
      [3000, 'customer_balance'],
    ]);

    // The customer: $80.00 of credit and the two entries that gave it.
    await page.getByRole('link', { name: 'Ada Lovelace', exact: true }).click();
    await page.getByRole('heading', { name: 'Balance transactions', exact: true }).waitFor();
    await expect(page.locator('.facts').first().innerText()).resolves.toMatch(/Credit balance\s+\$80\.00/);
    const history = page.getByRole('table', { name: 'Balance transactions', exact: true });
    await history.locator('tbody tr').nth(1).waitFor();
    await expect(history.locator('tbody tr').count()).resolves.toBe(2);
    await expect(history.locator('tbody tr').first().innerText()).resolves.toMatch(
      /Credit note[\s\S]*\+\$50\.00[\s\S]*\$80\.00/,
    );
    await browser!.screenFits(page, 'customer-balance');

    // An open invoice: the credit lowers what is due, no destination asked; credited whole it is paid,
    // here by the customer's own $80.00 of credit first used at its finalization.
    const open = await simpleInvoice(api, customer.id, 12_000);
    const finalized = expectStatus(await api.post(`/invoices/${open.id}/finalize`), 200);
    expect(finalized.applied_balance).toBe(8000);
    await page.goto(`${app.baseUrl}/dashboard/invoices/${open.id}`);
    await page.getByRole('button', { name: 'Issue credit note', exact: true }).click();
    await dialog.getByText('The amount due ($40.00 left) goes down by the credit.').waitFor();
    await expect(dialog.getByLabel('Where the money goes', { exact: true }).count()).resolves.toBe(0);
    await dialog.getByRole('button', { name: 'Issue credit note', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /issued/ })
      .waitFor();
    await page.locator('.title-row .badge', { hasText: 'paid' }).waitFor();
    await page.getByRole('cell', { name: 'Off the amount due', exact: true }).waitFor();
    await browser!.screen(page, 'invoice-open-credited');
    expect(browser!.offSite).toEqual([]);
    await page.close();
  },
  120_000,
);
