import type { Page } from 'playwright-core';
import {
  browserTest,
  ensureDashboardBuilt,
  haveChromium,
  openDashboardBrowser,
  type DashboardBrowser,
} from '../support/browser';
import { createTestUser, signIn } from '../support/dashboard';
import { addPaymentMethod, cardBody, CARDS } from '../support/payments';
import { expectStatus } from '../support/harness';
import { caughtMessages, startEmailWorld, waitUntil, type EmailWorld } from '../support/emails';
import { recurringPrice } from '../support/subscriptions';

/**
 * What the dashboard's money screens say once the outcome is known (a subscription created with a declining card
 * reads past due and the decline, without a reload; a charge, declined then paid, from the invoice's page), and
 * what a billing team does there without the API: add a card, apply a coupon, open an invoice's PDF and hosted
 * page, send an invoice, put a new customer on a test clock. Each result is checked through the API; another
 * account's ids answer 404; axe and screenshots at 1280 and 390 px (test/support/browser.ts). On the suite's dev
 * server with a worker whose emails go to this file's SMTP catcher (test/support/emails.ts).
 */
const browserIt = browserTest('test/dashboard/dashboard-billing-actions.test.ts');

let world: EmailWorld;
let browser: DashboardBrowser | undefined;
let developer: { email: string; password: string };

beforeAll(async () => {
  ensureDashboardBuilt();
  world = await startEmailWorld('Acme Rockets');
  developer = await createTestUser(world.app.prisma, world.accountId, { role: 'developer', name: 'Dora Developer' });
  if (haveChromium) browser = await openDashboardBrowser(world.app.baseUrl);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await world?.close();
});

const base = () => world.app.baseUrl;
const badge = (page: Page) => page.locator('.title-row .badge').textContent();

/** A customer with an email and a card that `number` decides (the simulated gateway's test numbers). */
async function customerWith(name: string, number: string) {
  const customer = expectStatus(
    await world.api.post('/customers', { name, email: `${name.split(' ')[0]!.toLowerCase()}@example.com` }),
    201,
  );
  await addPaymentMethod(world.api, customer.id, cardBody(number));
  return customer as { id: string; email: string };
}

describe('money moved from the dashboard shows its outcome', () => {
  browserIt(
    'a subscription created with a declining card reads past due and the decline at once; the invoice is then declined again, a card added and paid',
    async () => {
      const customer = await customerWith('Ada Declined', CARDS.declined);
      const price = await recurringPrice(world.api, { unitAmount: 1500 });
      const page = await browser!.newPage();
      await browser!.signIn(page, developer);
      await page.goto(`${base()}/dashboard/customers/${customer.id}`);
      await page.getByRole('heading', { name: 'Ada Declined', exact: true }).waitFor();
      // The customer's "why" read before the creation: it must not be what the subscription's page shows after.
      await page.getByText('No charge was ever made to this customer.', { exact: true }).waitFor();

      await page.getByRole('button', { name: 'New subscription', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'New subscription', exact: true });
      await dialog.getByRole('combobox', { name: /^Price/ }).selectOption(price);
      await dialog.getByLabel('Trial days', { exact: true }).fill('0');
      await dialog.getByRole('button', { name: 'Create subscription', exact: true }).click();
      await page.waitForURL('**/dashboard/subscriptions/sub_*');
      const subscriptionId = decodeURIComponent(page.url().split('/subscriptions/')[1]!);

      // No reload: the page says what the API says, and why.
      const alert = page.getByRole('alert');
      await expect(alert.innerText()).resolves.toMatch(
        /^Subscription created, but its first charge failed\. Declined: Your card was declined\. \(card_declined\)\. INV-\d+ is still open, \$15\.00 due; nothing was charged\. It is past due: its dunning retries the charge/,
      );
      await expect(badge(page)).resolves.toBe('past due');
      const why = page.getByRole('region', { name: 'Why', exact: true });
      await why.getByText(/declined \(card_declined\)\. Why: invoice INV-\d+ .*attempt 1: first charge\.$/).waitFor();
      await expect(why.innerText()).resolves.not.toContain('No charge has been made');
      await why.getByText(/^Invoice INV-\d+: Unpaid after 1 charge; next: dunning retry 1 of 3/).waitFor();
      const subscription = expectStatus(await world.api.get(`/subscriptions/${subscriptionId}`), 200);
      expect(subscription.status).toBe('past_due');
      await browser!.screenFits(page, 'subscription-declined');
      // The customer has the failed-payment email (docs/api.md, "Emails").
      await waitUntil(async () => {
        const emails = expectStatus(await world.api.get(`/emails?customer=${customer.id}`), 200).data as any[];
        return emails.some((email) => email.kind === 'payment_failed');
      });

      // Charged again from the invoice's page: declined, with the reason, and still open.
      const invoiceId = subscription.latest_invoice as string;
      await page.goto(`${base()}/dashboard/invoices/${invoiceId}`);
      await page.getByRole('button', { name: 'Charge now', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Charge now', exact: true }).click();
      await expect(page.getByRole('alert').innerText()).resolves.toMatch(
        /^Declined: Your card was declined\. \(card_declined\)\. INV-\d+ is still open, \$15\.00 due; nothing was charged\.$/,
      );
      await expect(badge(page)).resolves.toBe('open');
      // Its "why" says what each attempt was, as recorded with it: the dashboard's is no dunning retry.
      const invoiceWhy = page.getByRole('region', { name: 'Why', exact: true });
      await invoiceWhy
        .getByText(/declined \(card_declined\)\. Why: invoice INV-\d+ .*attempt 2: charged from the dashboard\.$/)
        .waitFor();
      await expect(invoiceWhy.innerText()).resolves.not.toContain('dunning retry 1.');
      await browser!.screenFits(page, 'invoice-declined');
      const attempts = expectStatus(await world.api.get(`/invoices/${invoiceId}/transactions`), 200).data as any[];
      expect(attempts.map((entry) => [entry.status, entry.failure_code])).toEqual([
        ['failed', 'card_declined'],
        ['failed', 'card_declined'],
      ]);

      // A working card added on the customer's page and made the default; the invoice then paid.
      await page.goto(`${base()}/dashboard/customers/${customer.id}`);
      await page.getByRole('button', { name: 'Add card', exact: true }).click();
      const cardForm = page.getByRole('dialog', { name: 'Add a card', exact: true });
      await cardForm.getByLabel('Name on the card', { exact: true }).fill('Ada Declined');
      await cardForm.getByLabel('Card number', { exact: true }).fill('4242 4242 4242 4241');
      await cardForm.getByLabel('Expiry month', { exact: true }).fill('12');
      await cardForm.getByLabel('Expiry year', { exact: true }).fill(String(new Date().getUTCFullYear() + 2));
      await cardForm.getByLabel('CVC', { exact: true }).fill('123');
      await cardForm.getByLabel('Make it the default payment method', { exact: true }).check();
      await cardForm.getByRole('button', { name: 'Add card', exact: true }).click();
      // The API's refusal beside the field it names.
      await cardForm
        .getByRole('alert')
        .filter({ hasText: /card\.number.*Luhn/ })
        .waitFor();
      const number = cardForm.getByLabel('Card number', { exact: true });
      await expect(number.getAttribute('aria-invalid')).resolves.toBe('true');
      await browser!.screen(page, 'customer-add-card-refused');
      await number.fill('4242 4242 4242 4242');
      // A double click saves one card.
      await cardForm.getByRole('button', { name: 'Add card', exact: true }).dblclick();
      await page.getByRole('status').filter({ hasText: 'Visa ending 4242 added and made the default.' }).waitFor();
      await page
        .getByRole('listitem')
        .filter({ hasText: /^visa ending 4242/i })
        .waitFor();
      const methods = expectStatus(await world.api.get(`/customers/${customer.id}/payment-methods`), 200).data;
      expect(methods.map((method: any) => method.card.last4)).toEqual(['4242', '0002']);
      await browser!.screenFits(page, 'customer-card-added');

      await page.goto(`${base()}/dashboard/invoices/${invoiceId}`);
      await page.getByRole('button', { name: 'Charge now', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Charge now', exact: true }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /^Charged\. INV-\d+ is paid: \$15\.00\. Its subscription is active\.$/ })
        .waitFor();
      await expect(badge(page)).resolves.toBe('paid');
      expect(expectStatus(await world.api.get(`/subscriptions/${subscriptionId}`), 200).status).toBe('active');
      await page.close();
    },
    120_000,
  );
});

describe('what a billing team does in the dashboard', () => {
  browserIt(
    'applies a coupon to a subscription and a customer; a double click redeems once; a refusal shows by the picker',
    async () => {
      const customer = await customerWith('Grace Coupon', CARDS.succeeds);
      const subscription = expectStatus(
        await world.api.post('/subscriptions', {
          customer: customer.id,
          items: [{ price: await recurringPrice(world.api, { unitAmount: 4000 }), quantity: 1 }],
          trial_days: 0,
          start_date: Math.floor(Date.now() / 1000),
        }),
        201,
      );
      const spring = expectStatus(
        await world.api.post('/coupons', {
          name: 'Spring sale',
          percent_off: 25,
          duration: 'repeating',
          duration_in_months: 3,
        }),
        201,
      );
      const lastOne = expectStatus(
        await world.api.post('/coupons', {
          name: 'Last one',
          amount_off: 500,
          currency: 'USD',
          duration: 'once',
          max_redemptions: 1,
        }),
        201,
      );

      const page = await browser!.newPage();
      await browser!.signIn(page, developer);
      await page.goto(`${base()}/dashboard/subscriptions/${subscription.id}`);
      await page.getByRole('button', { name: 'Apply coupon', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Apply a coupon', exact: true });
      await dialog.getByLabel('Coupon', { exact: true }).selectOption(spring.id);
      await browser!.screen(page, 'subscription-apply-coupon');
      await dialog.getByRole('button', { name: 'Apply coupon', exact: true }).dblclick();
      await page
        .getByRole('status')
        .filter({ hasText: 'Coupon Spring sale (25% off, for 3 months) applied: the next invoices take it off.' })
        .waitFor();
      expect(expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200).discount).toMatchObject({
        coupon: { id: spring.id },
        subscription: subscription.id,
      });
      expect(expectStatus(await world.api.get(`/coupons/${spring.id}`), 200).times_redeemed).toBe(1);
      await browser!.screenFits(page, 'subscription-coupon-applied');

      // On the customer: the coupon used up is refused, beside the picker; the other one applies.
      await page.goto(`${base()}/dashboard/customers/${customer.id}`);
      await page.getByRole('button', { name: 'Apply coupon', exact: true }).click();
      await dialog
        .getByRole('option', { name: 'Last one: $5.00 off, once', exact: true })
        .waitFor({ state: 'attached' });
      // Its last redemption is taken by another customer while the dialog is open.
      const other = await customerWith('Someone Else', CARDS.succeeds);
      expectStatus(await world.api.patch(`/customers/${other.id}`, { coupon: lastOne.id }), 200);
      await dialog.getByLabel('Coupon', { exact: true }).selectOption(lastOne.id);
      await dialog.getByRole('button', { name: 'Apply coupon', exact: true }).click();
      await dialog
        .getByRole('alert')
        .filter({ hasText: /max_redemptions/ })
        .waitFor();
      const picker = dialog.getByLabel('Coupon', { exact: true });
      await expect(picker.getAttribute('aria-invalid')).resolves.toBe('true');
      await browser!.screen(page, 'customer-apply-coupon-refused');
      await picker.selectOption(spring.id);
      await dialog.getByRole('button', { name: 'Apply coupon', exact: true }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /^Coupon Spring sale .* applied/ })
        .waitFor();
      expect(expectStatus(await world.api.get(`/customers/${customer.id}`), 200).discount).toMatchObject({
        coupon: { id: spring.id },
        subscription: null,
      });
      await page.close();
    },
  );

  browserIt(
    "opens a paid invoice's PDF and hosted page, and sends it to the customer once for a double click",
    async () => {
      const customer = await customerWith('Hedy Invoice', CARDS.succeeds);
      const draft = expectStatus(
        await world.api.post('/invoices', {
          customer: customer.id,
          lines: [{ description: 'Frequency hopping', amount: 9900 }],
        }),
        201,
      );
      const invoice = expectStatus(await world.api.put(`/invoices/${draft.id}`, {}), 200);
      const page = await browser!.newPage();
      await browser!.signIn(page, developer);
      await page.goto(`${base()}/dashboard/invoices/${invoice.id}`);
      await page.getByRole('heading', { name: invoice.number, exact: true }).waitFor();

      // The PDF is read with the dashboard's session (and refused without it).
      const pdfHref = await page
        .getByRole('link', { name: `PDF of ${invoice.number}`, exact: true })
        .getAttribute('href');
      expect(pdfHref).toBe(`/invoices/${invoice.id}/pdf`);
      const pdf = await page.request.get(`${base()}${pdfHref}`);
      expect(pdf.status()).toBe(200);
      expect(pdf.headers()['content-type']).toBe('application/pdf');
      expect((await fetch(`${base()}${pdfHref}`)).status).toBe(401);
      // The hosted page is the invoice's own link, which opens its page.
      const hosted = await page
        .getByRole('link', { name: `Hosted page of ${invoice.number}, as the customer sees it`, exact: true })
        .getAttribute('href');
      expect(hosted).toBe(invoice.hosted_invoice_url);
      const hostedPage = await fetch(`${base()}${new URL(hosted!).pathname}`);
      expect(hostedPage.status).toBe(200);
      expect(await hostedPage.text()).toContain(invoice.number);

      await page.getByRole('button', { name: 'Send invoice', exact: true }).click();
      const confirm = page.getByRole('dialog', { name: `Send ${invoice.number}?`, exact: true });
      await confirm.getByText(customer.email, { exact: true }).waitFor();
      await browser!.screen(page, 'invoice-send-confirm');
      await confirm.getByRole('button', { name: 'Send invoice', exact: true }).dblclick();
      await page
        .getByRole('status')
        .filter({ hasText: `Sent to ${customer.email}.` })
        .waitFor();
      await browser!.screenFits(page, 'invoice-sent');
      // One email from the send (the receipt of the payment is another kind), and the catcher has it once.
      const sent = (expectStatus(await world.api.get(`/emails?invoice=${invoice.id}`), 200).data as any[]).filter(
        (email) => email.kind === 'invoice',
      );
      expect(sent).toEqual([expect.objectContaining({ status: 'sent', to: customer.email, event: null })]);
      const messages = (await caughtMessages(world.api, customer.email)).filter(
        (message: any) => message.kind === 'invoice',
      );
      expect(messages).toHaveLength(1);
      expect(messages[0].attachments).toEqual([expect.objectContaining({ filename: `${invoice.number}.pdf` })]);
      await page.close();
    },
  );

  browserIt(
    'puts a new customer on a test clock from the New customer form; a refusal shows by its field',
    async () => {
      const clock = expectStatus(
        await world.api.post('/test-helpers/test-clocks', {
          frozen_time: Date.parse('2025-05-01T09:00:00Z') / 1000,
          name: 'May rehearsal',
        }),
        201,
      );
      const page = await browser!.newPage();
      await browser!.signIn(page, developer);
      await page.goto(`${base()}/dashboard/customers`);
      await page.getByRole('button', { name: 'New customer', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'New customer', exact: true });
      await dialog.getByLabel('Name', { exact: true }).fill('Clocked Katherine');
      await dialog.getByLabel('Email', { exact: true }).fill('katherine@example.com');
      await dialog.getByLabel('Test clock', { exact: true }).selectOption(clock.id);
      await browser!.screen(page, 'customer-new-on-clock');
      // The clock deleted behind the page's back: the API's refusal is shown beside the picker.
      expectStatus(await world.api.delete(`/test-helpers/test-clocks/${clock.id}`), 200);
      await dialog.getByRole('button', { name: 'Create customer', exact: true }).click();
      await dialog
        .getByRole('alert')
        .filter({ hasText: /test_clock/ })
        .waitFor();
      const picker = dialog.getByLabel('Test clock', { exact: true });
      await expect(picker.getAttribute('aria-invalid')).resolves.toBe('true');
      await browser!.screen(page, 'customer-new-clock-refused');
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();

      const second = expectStatus(
        await world.api.post('/test-helpers/test-clocks', {
          frozen_time: Date.parse('2025-06-01T09:00:00Z') / 1000,
          name: 'June rehearsal',
        }),
        201,
      );
      await page.reload();
      await page.getByRole('button', { name: 'New customer', exact: true }).click();
      await dialog.getByLabel('Name', { exact: true }).fill('Clocked Katherine');
      await dialog.getByLabel('Test clock', { exact: true }).selectOption(second.id);
      await dialog.getByRole('button', { name: 'Create customer', exact: true }).dblclick();
      await page.waitForURL('**/dashboard/customers/cus_*');
      const customerId = decodeURIComponent(page.url().split('/customers/')[1]!);
      await page.locator('.facts').getByText(second.id, { exact: true }).waitFor();
      expect(expectStatus(await world.api.get(`/customers/${customerId}`), 200).test_clock).toBe(second.id);
      expect(expectStatus(await world.api.get(`/customers?test_clock=${second.id}`), 200)).toHaveLength(1);
      await browser!.screenFits(page, 'customer-on-clock');
      await page.close();
      expect(browser!.offSite).toEqual([]);
    },
  );

  it("another account's objects are unknown to a dashboard session on these actions (404)", async () => {
    const theirs = await customerWith('Not Yours', CARDS.succeeds);
    const theirInvoice = expectStatus(
      await world.api.post('/invoices', { customer: theirs.id, lines: [{ description: 'Theirs', amount: 100 }] }),
      201,
    );
    expectStatus(await world.api.post(`/invoices/${theirInvoice.id}/finalize`), 200);
    const theirCoupon = expectStatus(await world.api.post('/coupons', { percent_off: 10, duration: 'once' }), 201);
    const theirClock = expectStatus(
      await world.api.post('/test-helpers/test-clocks', { frozen_time: 1_746_090_000 }),
      201,
    );
    // A dashboard user of the other account, with their own customer and subscription.
    const stranger = await createTestUser(world.app.prisma, world.otherAccountId, { role: 'developer' });
    const session = await signIn(base(), stranger.email, stranger.password);
    const mine = expectStatus(await session.api.post('/customers', { name: 'Mine' }), 201);

    expectStatus(await session.api.post('/payment-methods', cardBody(CARDS.succeeds, { customer: theirs.id })), 404);
    expectStatus(await session.api.patch(`/customers/${theirs.id}`, { coupon: theirCoupon.id }), 404);
    expect(
      expectStatus(await session.api.patch(`/customers/${mine.id}`, { coupon: theirCoupon.id }), 404).error.param,
    ).toBe('coupon');
    expect((await session.api.get(`/invoices/${theirInvoice.id}/pdf`)).status).toBe(404);
    expectStatus(await session.api.post(`/invoices/${theirInvoice.id}/send`, {}), 404);
    expect(
      expectStatus(await session.api.post('/customers', { name: 'Clocked', test_clock: theirClock.id }), 404).error
        .param,
    ).toBe('test_clock');
    // Nothing changed on the first account's side.
    expect(expectStatus(await world.api.get(`/customers/${theirs.id}/payment-methods`), 200).data).toHaveLength(1);
    expect(expectStatus(await world.api.get(`/coupons/${theirCoupon.id}`), 200).times_redeemed).toBe(0);
    expect(expectStatus(await world.api.get(`/emails?invoice=${theirInvoice.id}`), 200).data).toEqual([]);
  });
});
