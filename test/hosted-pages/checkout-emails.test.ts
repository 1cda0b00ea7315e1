import crypto from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { emailWorkflowId } from '../../src/emails/email-trigger';
import { browserTest, haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { caughtMessages, startEmailWorld, waitUntil, type EmailWorld } from '../support/emails';
import { eventsOf, expectStatus } from '../support/harness';
import { CARDS, gatewayCharges } from '../support/payments';
import { recurringPrice } from '../support/subscriptions';
import { EXPIRY, pageForm, postForm } from './pages';

/**
 * A checkout's first card declined, with the emails' whole path running (the outbox relay, the email
 * workflows, an SMTP catcher): the customer saw the decline on the page, so no failed-payment email is
 * sent for the subscription the checkout abandoned (docs/decisions.md §30); the card that then pays
 * gets its receipt, and only that.
 */
const browserIt = browserTest('test/hosted-pages/checkout-emails.test.ts');
const SUCCESS = 'https://merchant.example/welcome';
const CANCEL = 'https://merchant.example/pricing';

let world: EmailWorld;
let browser: DashboardBrowser | undefined;

beforeAll(async () => {
  world = await startEmailWorld('Acme Rockets');
  browser = haveChromium ? await openDashboardBrowser(world.app.baseUrl, { screens: 'hosted' }) : undefined;
});

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

async function newCheckout(unitAmount: number) {
  const price = await recurringPrice(world.api, { unitAmount });
  return expectStatus(
    await world.api.post('/checkout/sessions', { items: [{ price }], success_url: SUCCESS, cancel_url: CANCEL }),
    201,
    'POST /checkout/sessions',
  );
}

const pathOf = (session: { url: string }) => new URL(session.url).pathname;

/**
 * After the card that paid got its receipt: the first invoice's `invoice.payment_failed` was handed to
 * the email consumer (the relay marks an event dispatched only after its consumers ran), and it started
 * no email workflow, wrote no email and the catcher received none but the receipt.
 */
async function expectNoFailedPaymentEmail(customerId: string, to: string) {
  const { prisma } = world.app;
  const receipts = await caughtMessages(world.api, to);
  const failed = (await eventsOf(prisma, world.accountId, 'invoice.payment_failed')).filter(
    (event) => (event.data as { customer: string }).customer === customerId,
  );
  expect(failed).toHaveLength(1);
  await waitUntil(async () => (await prisma.event.findUniqueOrThrow({ where: { id: failed[0]!.id } })).dispatchedAt);
  await expect(world.app.temporal.workflow.getHandle(emailWorkflowId(failed[0]!.id)).describe()).rejects.toBeInstanceOf(
    WorkflowNotFoundError,
  );
  expect(
    (await prisma.email.findMany({ where: { accountId: world.accountId, customerId } })).map((email) => email.kind),
  ).toEqual(['receipt']);
  expect(receipts.map((message: { kind: string }) => message.kind)).toEqual(['receipt']);
}

/** The customer's invoices: exactly one paid (for `amount`), the abandoned one void, none open. */
async function expectOnePaidInvoice(customerId: string, amount: number) {
  const invoices = (await world.api.get(`/invoices?customer=${customerId}`)).body.data as {
    status: string;
    amount_paid: number;
  }[];
  expect(invoices.map((invoice) => [invoice.status, invoice.amount_paid])).toEqual([
    ['paid', amount],
    ['void', 0],
  ]);
}

it('over HTTP: a declined first card sends no failed-payment email; the next card pays once and gets the receipt', async () => {
  const to = `mary-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const session = await newCheckout(3100);
  const fields = {
    buyer_name: 'Mary Somerville',
    email: to,
    line1: '1 Observatory Lane',
    city: 'Edinburgh',
    postal_code: 'EH1 1AA',
    country: 'GB',
    name: 'Mary Somerville',
    exp: EXPIRY,
    cvc: '123',
  };
  const post = async (number: string) =>
    postForm(world.app.baseUrl, `${pathOf(session)}/complete`, {
      ...(await pageForm(world.app.baseUrl, pathOf(session))),
      ...fields,
      number,
    });
  expect((await post(CARDS.declined)).status).toBe(402);
  const chargesBefore = await gatewayCharges(world.app.prisma, world.accountId);
  expect((await post(CARDS.succeeds)).headers.get('location')).toBe(SUCCESS);
  expect(await gatewayCharges(world.app.prisma, world.accountId)).toBe(chargesBefore + 1);
  const done = expectStatus(await world.api.get(`/checkout/sessions/${session.id}`), 200, 'GET checkout session');
  expect(done.status).toBe('complete');
  await expectOnePaidInvoice(done.customer, 3100);
  await expectNoFailedPaymentEmail(done.customer, to);
});

browserIt('in Chromium: the declined form keeps what was typed but the card number and CVC (screenshots)', async () => {
  const b = browser!;
  const to = `caroline-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const session = await newCheckout(4400);
  const page = await b.newPage();
  await page.route('https://merchant.example/**', (route) =>
    route.fulfill({ contentType: 'text/html', body: '<title>Welcome</title><h1>Welcome aboard</h1>' }),
  );
  await page.goto(`${world.app.baseUrl}${pathOf(session)}`);
  await page.getByLabel('Full name', { exact: true }).fill('Caroline Herschel');
  await page.getByLabel('Email', { exact: true }).fill(to);
  await page.getByLabel('Street address', { exact: true }).fill('19 New King Street');
  await page.getByLabel('City', { exact: true }).fill('Bath');
  await page.getByLabel('Postal code', { exact: true }).fill('BA1 2BL');
  await page.getByLabel('Country code', { exact: true }).fill('GB');
  await page.getByLabel('Name on card', { exact: true }).fill('Caroline Herschel');
  await page.getByLabel('Card number', { exact: true }).fill(CARDS.insufficientFunds);
  await page.getByLabel('Expiry (MM/YY)', { exact: true }).fill(EXPIRY);
  await page.getByLabel('Security code', { exact: true }).fill('123');
  await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
  await page.getByText('Your card was declined: insufficient funds.', { exact: false }).waitFor();
  await page
    .getByText('For your security the card number and security code are never kept: enter them again.')
    .waitFor();
  const values = async () =>
    Object.fromEntries(
      await Promise.all(
        [
          'Full name',
          'Email',
          'Street address',
          'City',
          'Postal code',
          'Country code',
          'Name on card',
          'Expiry (MM/YY)',
          'Card number',
          'Security code',
        ].map(async (label) => [label, await page.getByLabel(label, { exact: true }).inputValue()]),
      ),
    );
  expect(await values()).toEqual({
    'Full name': 'Caroline Herschel',
    Email: to,
    'Street address': '19 New King Street',
    City: 'Bath',
    'Postal code': 'BA1 2BL',
    'Country code': 'GB',
    'Name on card': 'Caroline Herschel',
    'Expiry (MM/YY)': EXPIRY,
    'Card number': '',
    'Security code': '',
  });
  expect(await page.content()).not.toContain(CARDS.insufficientFunds);
  await b.screen(page, 'checkout-declined-kept');

  // Only the card's number and security code are typed again.
  await page.getByLabel('Card number', { exact: true }).fill(CARDS.succeeds);
  await page.getByLabel('Security code', { exact: true }).fill('456');
  await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
  await page.waitForURL(SUCCESS);
  const done = expectStatus(await world.api.get(`/checkout/sessions/${session.id}`), 200, 'GET checkout session');
  expect(done.status).toBe('complete');
  await expectOnePaidInvoice(done.customer, 4400);
  await expectNoFailedPaymentEmail(done.customer, to);
  expect(b.offSite.filter((url) => !url.startsWith('https://merchant.example'))).toEqual([]);
});
