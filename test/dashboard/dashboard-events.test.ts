import type { Page } from 'playwright-core';
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
  quietRuntime,
  type ApiClient,
  type TestApp,
} from '../support/harness';
import { customerWithCard, simpleInvoice } from '../support/payments';
import { createSubscription, recurringPrice } from '../support/subscriptions';
import type { WebhookReceiver } from '../support/webhook-receiver';
import { startWebhookStack, waitUntil, type WebhookStack } from '../support/webhooks';

/**
 * Events in headless Chromium (test/support/browser.ts: axe-core, screenshots at 1280 and 390 px):
 * the Developers list (filters, pages, each event's JSON), the timelines of a customer, a subscription
 * and an invoice, and a delivery resent from the delivery logs (a double click resends once) through
 * the real relay, worker and a receiver; none of it for a standard user or another account.
 */
const browserIt = browserTest('test/dashboard/dashboard-events.test.ts');

let stack: WebhookStack;
let app: TestApp;
let receiver: WebhookReceiver;
let browser: DashboardBrowser | undefined;
let api: ApiClient;
let accountId: string;
let developer: { email: string; password: string };
let customer: { id: string };
let subscription: { id: string };
let invoice: { id: string };

beforeAll(async () => {
  quietRuntime();
  ensureDashboardBuilt();
  stack = await startWebhookStack(`dashboard-events-${crypto.randomUUID()}`);
  ({ app, receiver } = stack);
  const account = await createTestAccount(app.prisma, { name: 'Eventful Shop' });
  accountId = account.accountId;
  stack.accounts.push(accountId);
  api = apiClient(app.baseUrl, account.apiKey);
  developer = await createTestUser(app.prisma, accountId, { role: 'developer', name: 'Dora Developer' });

  // The first delivery to the receiver is refused (410), so the log has a failure to resend.
  let refused = false;
  receiver.reply(() => (refused ? 200 : ((refused = true), 410)));
  expectStatus(await api.post('/webhook/destination', { url: receiver.url }), 201);
  ({ customer } = await customerWithCard(api));
  await waitUntil(async () => receiver.received.length >= 1);
  expectStatus(await api.patch(`/customers/${customer.id}`, { name: 'Ada Lovelace', email: 'ada@example.com' }), 200);
  for (let index = 0; index < 22; index++) expectStatus(await api.post('/customers', { name: `Bulk ${index}` }), 201);
  const price = await recurringPrice(api, { unitAmount: 4900 });
  subscription = await createSubscription(api, {
    customer: customer.id,
    items: [{ price, quantity: 1 }],
    trial_days: 0,
    start_date: Math.floor(Date.now() / 1000),
  });
  invoice = await simpleInvoice(api, customer.id, 2500);
  if (haveChromium) browser = await openDashboardBrowser(app.baseUrl);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const screen = (page: Page, name: string) => browser!.screenFits(page, name);

describe('events in the dashboard', () => {
  browserIt(
    'Developers, Events: filtered by type and object, paged, each event’s JSON opened from the keyboard',
    async () => {
      const page = await browser!.newPage();
      await browser!.signIn(page, developer);
      await page.getByRole('link', { name: 'Developers', exact: true }).click();
      await page.getByRole('link', { name: 'Events', exact: true }).click();
      await page.waitForURL('**/dashboard/developers/events');
      await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
      await page
        .getByRole('row', { name: /invoice\.created/ })
        .first()
        .waitFor();
      await expect(page.getByRole('navigation', { name: 'Pages', exact: true }).innerText()).resolves.toContain(
        'Page 1 of 2',
      );
      await screen(page, 'events');

      await page.getByRole('button', { name: 'Next', exact: true }).click();
      await page.waitForURL('**/developers/events?page=2');
      await page.getByText('Page 2 of 2').waitFor();

      await page.getByLabel('Type', { exact: true }).fill('customer.updated');
      await page.getByLabel('Object id', { exact: true }).fill(customer.id);
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await page.waitForURL(`**/developers/events?type=customer.updated&object=${customer.id}`);
      await page
        .getByRole('row', { name: /payment_method|invoice/ })
        .first()
        .waitFor({ state: 'detached' });
      await expect(page.getByRole('row').count()).resolves.toBe(2);

      // The JSON, opened with the keyboard.
      const toggle = page.getByRole('button', { name: /^Show JSON of customer\.updated/ });
      await toggle.focus();
      await page.keyboard.press('Enter');
      const json = page.getByLabel(/^JSON of evt_/);
      await json.waitFor();
      expect(JSON.parse(await json.innerText())).toMatchObject({
        object: 'event',
        type: 'customer.updated',
        data: { id: customer.id, name: 'Ada Lovelace' },
      });
      await screen(page, 'events-json');

      // A group of types; a malformed one is the API's refusal, shown.
      await page.getByRole('button', { name: 'Clear', exact: true }).click();
      await page.getByLabel('Type', { exact: true }).fill('subscription.*');
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await page.getByRole('row', { name: /subscription\.created/ }).waitFor();
      await page.getByLabel('Type', { exact: true }).fill('nonsense');
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await expect(page.getByRole('alert').innerText()).resolves.toMatch(/type/);
      expect(browser!.offSite).toEqual([]);
    },
    60_000,
  );

  browserIt(
    'a customer’s, a subscription’s and an invoice’s pages show their events',
    async () => {
      const page = await browser!.newPage();
      await browser!.signIn(page, developer);
      await page.goto(`${app.baseUrl}/dashboard/customers/${customer.id}`);
      const timeline = page.getByRole('region', { name: 'Events', exact: true });
      await timeline.getByText('invoice.created').first().waitFor();
      const types = await timeline.locator('li strong').allInnerTexts();
      expect(types).toEqual(
        expect.arrayContaining(['customer.created', 'customer.updated', 'payment_method.attached']),
      );
      expect(types).toContain('subscription.created');
      await expect(timeline.getByRole('navigation', { name: 'Pages', exact: true }).count()).resolves.toBe(0);
      await screen(page, 'customer-events');

      await timeline.getByRole('link', { name: subscription.id, exact: true }).first().click();
      await page.waitForURL(`**/subscriptions/${subscription.id}`);
      const subscriptionTimeline = page.getByRole('region', { name: 'Events', exact: true });
      await subscriptionTimeline.getByText('subscription.created').waitFor();
      // Pausing it from the page adds its event to the timeline.
      await page.getByRole('button', { name: 'Pause', exact: true }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: /^Pause/ })
        .click();
      await subscriptionTimeline.getByText('subscription.paused').waitFor();
      await screen(page, 'subscription-events');

      await page.goto(`${app.baseUrl}/dashboard/invoices/${invoice.id}`);
      const invoiceTimeline = page.getByRole('region', { name: 'Events', exact: true });
      await invoiceTimeline.getByText('invoice.created').waitFor();
      await expect(invoiceTimeline.locator('li').count()).resolves.toBe(1);
      await invoiceTimeline.getByRole('button', { name: /^Show JSON/ }).click();
      await expect(invoiceTimeline.getByLabel(/^JSON of evt_/).innerText()).resolves.toContain(invoice.id);
      await screen(page, 'invoice-events');
    },
    60_000,
  );

  browserIt(
    'a refused delivery is resent from the logs: a double click sends it once more',
    async () => {
      const page = await browser!.newPage();
      await browser!.signIn(page, developer);
      await page.goto(`${app.baseUrl}/dashboard/developers/logs?status=failure`);
      const row = page.getByRole('row', { name: /customer\.created/ });
      await row.waitFor();
      const sentBefore = receiver.received.length;
      const eventId = (await row.locator('code').first().innerText()).trim();
      await row.getByRole('button', { name: /^Resend/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Resend this event?', exact: true });
      await dialog.waitFor();
      await screen(page, 'delivery-resend');
      await dialog.getByRole('button', { name: 'Resend', exact: true }).dblclick();
      await page
        .getByRole('status')
        .filter({ hasText: `customer.created ${eventId} is being sent again` })
        .waitFor();

      await page.goto(`${app.baseUrl}/dashboard/developers/logs`);
      await page.getByText(`${eventId} · resend 1`).waitFor();
      await waitUntil(async () => receiver.received.length > sentBefore);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const resent = receiver.received.slice(sentBefore).filter((request) => request.json?.id === eventId);
      expect(resent).toHaveLength(1);
      const deliveries = await app.prisma.webhookDelivery.findMany({ where: { eventId }, orderBy: { resend: 'asc' } });
      expect(deliveries.map((delivery) => delivery.resend)).toEqual([0, 1]);
      await waitUntil(
        async () =>
          (await app.prisma.webhookDelivery.findFirst({ where: { eventId, resend: 1 } }))?.status === 'success',
      );
      await page.reload();
      await page.getByText(`${eventId} · resend 1`).waitFor();
      await screen(page, 'delivery-logs-resent');
    },
    60_000,
  );

  browserIt(
    'a standard user has no Developers section nor its endpoints; another account’s events answer 404',
    async () => {
      const standard = await createTestUser(app.prisma, accountId, { role: 'standard', name: 'Sam Standard' });
      const page = await browser!.newPage(390);
      await browser!.signIn(page, standard);
      await expect(page.getByRole('navigation', { name: 'Main', exact: true }).innerText()).resolves.not.toContain(
        'Developers',
      );
      await page.goto(`${app.baseUrl}/dashboard/developers/events`);
      await page.getByRole('heading', { name: 'Page not found', exact: true }).waitFor();
      // The customer's timeline is theirs to read (events are the account's data, docs/decisions.md §26).
      await page.goto(`${app.baseUrl}/dashboard/customers/${customer.id}`);
      await page.getByRole('region', { name: 'Events', exact: true }).getByText('customer.created').waitFor();

      const session = await signIn(app.baseUrl, standard.email, standard.password);
      expectStatus(await session.api.get('/events'), 200);
      const delivery = await app.prisma.webhookDelivery.findFirstOrThrow({ where: { accountId } });
      expectStatus(await session.api.post(`/webhook/logs/${delivery.id}/resend`), 403);
      expectStatus(await session.api.get('/webhook/logs'), 403);

      const other = await createTestAccount(app.prisma, { name: 'Other Shop' });
      const stranger = await createTestUser(app.prisma, other.accountId, { role: 'developer' });
      const strangerSession = await signIn(app.baseUrl, stranger.email, stranger.password);
      const event = await app.prisma.event.findFirstOrThrow({ where: { accountId } });
      expectStatus(await strangerSession.api.get(`/events/${event.id}`), 404);
      expect(expectStatus(await strangerSession.api.get(`/events?customer=${customer.id}`), 200).data).toEqual([]);
      expectStatus(await strangerSession.api.post(`/webhook/logs/${delivery.id}/resend`), 404);
      const strangerPage = await browser!.newPage();
      await browser!.signIn(strangerPage, stranger);
      await strangerPage.goto(`${app.baseUrl}/dashboard/customers/${customer.id}`);
      await strangerPage.getByRole('heading', { name: 'Customer not found', exact: true }).waitFor();
    },
    60_000,
  );
});
