import { browserTest, haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { expectStatus } from '../support/harness';
import { createTaxRate } from '../support/payments';
import { customerWithAddresses } from '../support/pdf';
import { startEmailWorld, waitUntil, type EmailWorld } from '../support/emails';

/**
 * The invoice email as a mail reader shows its HTML: received by the catcher, rendered in Chromium,
 * checked with axe and kept as test-output/dashboard-email-invoice-{1280,390}.png.
 */
let world: EmailWorld;
let browser: DashboardBrowser | undefined;
const test = browserTest('test/emails/email-browser.test.ts');

beforeAll(async () => {
  world = await startEmailWorld('Lovelace Analytics');
  if (haveChromium) browser = await openDashboardBrowser(world.app.baseUrl);
});

afterAll(async () => {
  await browser?.close();
  await world.close();
});

test('the invoice email reads well at 1280 and 390 px, with no serious accessibility violation', async () => {
  const { api } = world;
  const to = 'ada+browser@example.com';
  const customer = expectStatus(await api.post('/customers', { ...customerWithAddresses, email: to }), 201, 'customer');
  const vat = await createTaxRate(api, 20, false);
  const invoice = expectStatus(
    await api.post('/invoices', {
      customer: customer.id,
      collection_method: 'send_invoice',
      due_date: Math.floor(Date.now() / 1000) + 14 * 86400,
      lines: [
        { description: 'Analytical engine tune-up', amount: 48000, tax: [vat.id] },
        { description: 'Punched cards (box of 500)', amount: 1999, quantity: 3 },
      ],
    }),
    201,
    'invoice',
  );
  expectStatus(await api.post(`/invoices/${invoice.id}/finalize`), 200, 'finalize');
  const message = await waitUntil(async () => {
    const page = expectStatus(await api.get(`/test-helpers/emails?to=${encodeURIComponent(to)}`), 200, 'list');
    return page.data[0];
  });
  const page = await browser!.newPage();
  await page.setContent(message.html, { waitUntil: 'load' });
  await page.getByRole('heading', { name: /due/ }).waitFor();
  expect(await page.textContent('body')).toContain('Ship to');
  await browser!.screen(page, 'email-invoice');
  expect(browser!.offSite).toEqual([]);
  await page.close();
});
