import { browserTest, haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { caughtMessages, finalizeSendInvoice, startEmailWorld, waitUntil, type EmailWorld } from '../support/emails';
import { createTestUser } from '../support/dashboard';
import { expectStatus } from '../support/harness';
import { CARDS } from '../support/payments';
import { pdfText } from '../support/pdf';
import { EXPIRY } from '../hosted-pages/pages';

/**
 * The invoice email as a mail reader shows its HTML: received by the catcher, rendered in Chromium,
 * checked with axe and kept as test-output/dashboard-email-invoice-{1280,390}.png; and the dashboard's
 * screen of the caught emails (test-output/dashboard-developers-emails-*.png); and the customer who pays
 * from the email's link: the hosted page in Chromium, the card, then the receipt email with its PDF.
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
  const to = 'ada+browser@example.com';
  await finalizeSendInvoice(world.api, to, [
    { description: 'Analytical engine tune-up', amount: 48000, taxed: true },
    { description: 'Punched cards (box of 500)', amount: 1999, quantity: 3 },
  ]);
  const [message] = await caughtMessages(world.api, to);
  const page = await browser!.newPage();
  await page.setContent(message.html, { waitUntil: 'load' });
  await page.getByRole('heading', { name: /due/ }).waitFor();
  expect(await page.textContent('body')).toContain('Ship to');
  await browser!.screen(page, 'email-invoice');
  expect(browser!.offSite).toEqual([]);
  await page.close();
});

test('the customer pays from the email: its "View and pay invoice" link, the card form, then the receipt with its PDF', async () => {
  const to = 'ada+pays@example.com';
  const { invoice } = await finalizeSendInvoice(world.api, to);
  const [message] = await caughtMessages(world.api, to);
  expect(message.kind).toBe('invoice');
  const link = /<a href="([^"]+)"[^>]*>View and pay invoice<\/a>/.exec(message.html)?.[1]?.replaceAll('&amp;', '&');
  expect(link).toBe(invoice.hosted_invoice_url);
  // The link is under PUBLIC_URL; the tests' app listens on its own port: the same path there.
  const page = await browser!.newPage();
  await page.goto(`${world.app.baseUrl}${new URL(link!).pathname}`);
  await page.getByRole('heading', { name: `Invoice ${invoice.number}`, exact: true }).waitFor();
  // The standard autocomplete values, so that browsers and password managers fill the card.
  const autocomplete = async (label: string) => page.getByLabel(label, { exact: true }).getAttribute('autocomplete');
  expect({
    name: await autocomplete('Name on card'),
    number: await autocomplete('Card number'),
    exp: await autocomplete('Expiry (MM/YY)'),
    cvc: await autocomplete('Security code'),
  }).toEqual({ name: 'cc-name', number: 'cc-number', exp: 'cc-exp', cvc: 'cc-csc' });
  await page.getByLabel('Name on card', { exact: true }).fill('Ada Lovelace');
  await page.getByLabel('Card number', { exact: true }).fill(CARDS.succeeds);
  await page.getByLabel('Expiry (MM/YY)', { exact: true }).fill(EXPIRY);
  await page.getByLabel('Security code', { exact: true }).fill('123');
  await page.getByRole('button', { name: /^Pay / }).click();
  await page.getByText(/Payment received/).waitFor();
  expect((await world.api.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: 'paid', amount_paid: 57600 });
  expect(browser!.offSite).toEqual([]);
  await page.close();

  // The receipt follows, the paid invoice's PDF attached.
  const receipt = await waitUntil(async () => {
    const list = expectStatus(await world.api.get(`/test-helpers/emails?to=${encodeURIComponent(to)}`), 200, 'list');
    return list.data.find((caught: { kind: string }) => caught.kind === 'receipt');
  });
  expect(receipt).toMatchObject({
    subject: `Receipt for invoice ${invoice.number} from Lovelace Analytics`,
    attachments: [{ filename: `${invoice.number}.pdf`, content_type: 'application/pdf', size: expect.any(Number) }],
  });
  expect(receipt.text).toContain('$576.00 paid');
  const attachment = await fetch(`${world.app.baseUrl}/test-helpers/emails/${receipt.id}/attachments/0`, {
    headers: { 'cc-api-key': world.apiKey },
  });
  expect([attachment.status, attachment.headers.get('content-type')]).toEqual([200, 'application/pdf']);
  const pdf = await pdfText(Buffer.from(await attachment.arrayBuffer()));
  expect(pdf).toContain(invoice.number);
  expect(pdf).toContain('$576.00');
});

test("the dashboard's Developers > Emails lists the caught emails and opens one: its HTML, text and attachment", async () => {
  const user = await createTestUser(world.app.prisma, world.accountId, { role: 'developer' });
  const to = 'ada+dashboard@example.com';
  const { invoice } = await finalizeSendInvoice(world.api, to);
  await caughtMessages(world.api, to);
  const page = await browser!.newPage();
  await browser!.signIn(page, user);
  await page.goto(`${world.app.baseUrl}/dashboard/developers/emails`);
  const subject = `Invoice ${invoice.number} from Lovelace Analytics`;
  await page.getByRole('button', { name: subject, exact: true }).click();
  await page.getByRole('heading', { name: subject, exact: true }).waitFor();
  await page.getByRole('link', { name: new RegExp(`^${invoice.number}\\.pdf \\(application/pdf`) }).waitFor();
  const frame = page.frameLocator('iframe[title^="HTML of"]');
  await frame.getByRole('heading', { name: /due/ }).waitFor();
  expect(await page.locator('pre').textContent()).toContain('Ship to:');
  await browser!.screen(page, 'developers-emails');
  expect(browser!.offSite).toEqual([]);
  await page.close();
});

test('Settings > Emails to customers: a superadmin sets the From and switches receipts off', async () => {
  const admin = await createTestUser(world.app.prisma, world.accountId, { role: 'superadmin' });
  const page = await browser!.newPage();
  await browser!.signIn(page, admin);
  await page.goto(`${world.app.baseUrl}/dashboard/settings`);
  await page.getByRole('heading', { name: 'Emails to customers', exact: true }).waitFor();
  await page.getByLabel(/^From address/).fill('billing@lovelace.example');
  await page.getByLabel('Receipts when an invoice is paid', { exact: true }).uncheck();
  await page.getByLabel(/^Renewal reminder: days before/).fill('7');
  await page.getByLabel(/^Trial ending reminder: days before/).fill('3');
  await page.getByLabel(/^Colour of emails/).fill('#0B7A5A');
  await page.getByRole('button', { name: 'Save emails', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Saved.' }).first().waitFor();
  const account = await world.app.prisma.account.findUniqueOrThrow({ where: { id: world.accountId } });
  expect(account).toMatchObject({
    emailFrom: 'billing@lovelace.example',
    emailsOff: ['receipt'],
    renewalReminderDays: 7,
    trialEndReminderDays: 3,
    brandColor: '#0b7a5a',
  });
  await browser!.screen(page, 'settings-emails');
  // A bad colour is named, nothing saved.
  await page.getByLabel(/^Colour of emails/).fill('green');
  await page.getByRole('button', { name: 'Save emails', exact: true }).click();
  await page
    .getByText(/brand_color/)
    .first()
    .waitFor();
  expect((await world.app.prisma.account.findUniqueOrThrow({ where: { id: world.accountId } })).brandColor).toBe(
    '#0b7a5a',
  );
  await world.app.prisma.account.update({
    where: { id: world.accountId },
    data: { emailFrom: null, emailsOff: [], renewalReminderDays: null, trialEndReminderDays: null, brandColor: null },
  });
  await page.close();
});

test("the customer's and the invoice's pages list the emails sent about them with their status; an email in the account's colour", async () => {
  await world.app.prisma.account.update({ where: { id: world.accountId }, data: { brandColor: '#0b7a5a' } });
  try {
    const user = await createTestUser(world.app.prisma, world.accountId, { role: 'developer' });
    const to = 'ada+timelines@example.com';
    const { customer, invoice } = await finalizeSendInvoice(world.api, to);
    const [message] = await caughtMessages(world.api, to);
    await waitUntil(
      async () => (await world.app.prisma.email.findFirst({ where: { invoiceId: invoice.id } }))?.status === 'sent',
    );
    const page = await browser!.newPage();
    await page.setContent(message.html, { waitUntil: 'load' });
    await page.getByRole('heading', { name: /due/ }).waitFor();
    await browser!.screen(page, 'email-invoice-branded');

    await browser!.signIn(page, user);
    const subject = `Invoice ${invoice.number} from Lovelace Analytics`;
    for (const [path, screen] of [
      [`/dashboard/customers/${customer.id}`, 'customer-emails'],
      [`/dashboard/invoices/${invoice.id}`, 'invoice-emails'],
    ] as const) {
      await page.goto(`${world.app.baseUrl}${path}`);
      const emails = page.getByRole('region', { name: 'Emails', exact: true });
      await emails.getByText(subject).waitFor();
      await emails.getByText('sent', { exact: true }).waitFor();
      await browser!.screen(page, screen);
    }
    expect(browser!.offSite).toEqual([]);
    await page.close();
  } finally {
    await world.app.prisma.account.update({ where: { id: world.accountId }, data: { brandColor: null } });
  }
});
