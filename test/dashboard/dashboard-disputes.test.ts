import { recordInvoiceDispute } from '../../src/invoices';
import { browserTest, startBrowserApp, type BrowserApp, type DashboardBrowser } from '../support/browser';
import { createTestUser } from '../support/dashboard';
import { apiClient, expectStatus, type ApiClient, type TestApp } from '../support/harness';
import { customerWithCard, simpleInvoice } from '../support/payments';

/**
 * A disputed invoice in the dashboard (docs/api.md, "Payment processors"): its page shows "Disputed" beside its
 * status while the dispute is open, and how it ended once closed. Chromium, screenshots at 1280 and 390 px.
 */
const browserIt = browserTest('test/dashboard/dashboard-disputes.test.ts');

let started: BrowserApp;
let app: TestApp;
let browser: DashboardBrowser | undefined;
let accountId: string;
let api: ApiClient;

beforeAll(async () => {
  started = await startBrowserApp('Disputed Shop');
  ({ app, browser, accountId } = started);
  api = apiClient(app.baseUrl, started.apiKey);
});
afterAll(() => started?.close());

browserIt("shows a paid invoice's dispute beside its status, open and then won", async () => {
  const { customer } = await customerWithCard(api);
  const draft = await simpleInvoice(api, customer.id, 4200);
  const paid = expectStatus(await api.put(`/invoices/${draft.id}`), 200, 'pay');
  const payment = await app.prisma.transaction.findFirstOrThrow({
    where: { invoiceId: paid.id, type: 'payment', status: 'succeeded' },
  });
  // The processor's report, as its webhook hands it on (test/stripe-gateway/processor-disputes.test.ts posts them).
  const dispute = (status: string) => ({
    id: 'dp_dashboard',
    chargeId: payment.gatewayReference!,
    amount: 4200,
    currency: 'USD',
    status,
    reason: 'fraudulent',
    created: new Date(),
  });
  expect(await recordInvoiceDispute(app.prisma, accountId, dispute('needs_response'))).toBe('recorded');

  const developer = await createTestUser(app.prisma, accountId, { role: 'developer', name: 'Dora Developer' });
  const page = await browser!.newPage();
  await browser!.signIn(page, developer);
  await page.goto(`${app.baseUrl}/dashboard/invoices/${paid.id}`);
  await page.getByText('Disputed', { exact: true }).waitFor();
  await page.getByText('Paid', { exact: true }).first().waitFor();
  // The API refuses refunds and credit notes while the processor holds the money: the page does not offer them.
  const held =
    'This payment is disputed (needs response): the processor holds its money, so it cannot be refunded or credited unless the dispute is won.';
  await page.getByText(held, { exact: true }).waitFor();
  expect(await page.getByRole('button', { name: 'Refund', exact: true }).count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Issue credit note', exact: true }).count()).toBe(0);
  await browser!.screen(page, 'invoice-disputed');

  expect(await recordInvoiceDispute(app.prisma, accountId, dispute('won'))).toBe('recorded');
  await page.reload();
  await page.getByText('Dispute won', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Refund', exact: true }).waitFor();
  await browser!.screen(page, 'invoice-dispute-won');
});
